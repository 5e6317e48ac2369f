"""`catalogctl build`: render every public document into a build directory, atomically."""

import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import (
    ADVANCED_PANEL,
    CACHE_CONTROL_HELP,
    BaseUrlOpt,
    BasicFormatOpt,
    ContentArg,
    StrictOpt,
    check_cache_control,
    check_listen,
    checked,
    path_value,
    resolve_content,
)
from catalogctl.output.console import BasicFormat, use_format


def _state_dir_problem(value: str) -> str | None:
    from catalogctl.site.nginx import state_dir_problem

    return state_dir_problem(value)


DEPLOY_PANEL = "nginx and Cloudflare"


class Target(StrEnum):
    """What the build directory holds besides public/, manifest.json and nginx/."""

    static = "static"
    cloudflare = "cloudflare"


def build(
    content: ContentArg = None,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            metavar="PATH",
            parser=path_value,
            help="Build directory, replaced atomically (a symlink: the directory it points to).",
        ),
    ] = Path("dist"),
    base_url: BaseUrlOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace --out even if it is not a previous build.")
    ] = False,
    nginx_listen: Annotated[
        str,
        typer.Option(
            "--nginx-listen",
            metavar="ADDR",
            help="Listen address of the generated OUT/nginx/nginx.conf: PORT, ADDRESS:PORT, "
            "[IPv6]:PORT or unix:PATH.",
            callback=check_listen,
            rich_help_panel=DEPLOY_PANEL,
        ),
    ] = "127.0.0.1:8080",
    nginx_state_dir: Annotated[
        str | None,
        typer.Option(
            "--nginx-state-dir",
            metavar="DIR",
            help="Where nginx.conf puts nginx's pid file, error log and temp files (an "
            "absolute path; default: /run/catalogctl-nginx and /var/log/catalogctl-nginx).",
            callback=checked(_state_dir_problem),
            rich_help_panel=DEPLOY_PANEL,
        ),
    ] = None,
    target: Annotated[
        Target,
        typer.Option(
            "--target",
            help="cloudflare: also a Workers project (wrangler.toml, cloudflare/) for "
            "`npx wrangler deploy`.",
            rich_help_panel=DEPLOY_PANEL,
        ),
    ] = Target.static,
    cache_control: Annotated[
        str,
        typer.Option(
            "--cache-control",
            help=CACHE_CONTROL_HELP,
            callback=check_cache_control,
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = "public, max-age=300",
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Compression threads (default: CPUs).",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = None,
    strict: StrictOpt = False,
    fmt: BasicFormatOpt = BasicFormat.table,
) -> None:
    """Render every public document into a static directory, atomically.

    Writes OUT/public/ (the web root, with .gz and .br siblings), OUT/manifest.json (route →
    file, content type, headers) and OUT/nginx/: catalog.conf to include in a server block,
    nginx.conf to run (nginx -p OUT -c nginx/nginx.conf); with --target cloudflare, OUT is a
    Workers project too. A failed build leaves OUT as it was.

    Examples

      catalogctl build                          # ./content → ./dist
      catalogctl build content --out /srv/catalog
      catalogctl build --base-url https://staging.example.com --out dist-staging
      catalogctl build --nginx-listen 0.0.0.0:80 --out /srv/catalog
      catalogctl build --out dist --nginx-state-dir /tmp/catalog-nginx
      catalogctl build --target cloudflare     # then: npx wrangler deploy
    """
    from catalogctl.content.loader import load_catalog
    from catalogctl.output.build import BuildOutcome, busy_note, write_build
    from catalogctl.site.build import write_site
    from catalogctl.site.nginx import nginx_files
    from catalogctl.site.render import render

    use_format("build", fmt)
    root, display = resolve_content(content)
    started = time.perf_counter()
    catalog = load_catalog(root, display=display, strict=strict, base_url=base_url)
    site = render(catalog, cache_control=cache_control, jobs=jobs)
    extra = nginx_files(site, listen=nginx_listen, state_dir=nginx_state_dir)
    if target is Target.cloudflare:
        from catalogctl.site.cloudflare import cloudflare_files

        extra += cloudflare_files(site)
    games = root / catalog.site.content.games
    written = write_site(
        site, out_dir, extra=extra, force=force, on_busy=busy_note(out_dir), reads=(root, games)
    )
    elapsed = time.perf_counter() - started
    outcome = BuildOutcome(
        catalog=catalog,
        written=written,
        routes=list(site.resources),
        out_dir=out_dir,
        seconds=elapsed,
    )
    write_build(outcome, fmt)
