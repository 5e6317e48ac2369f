"""`catalogctl build`: render every public document into a build directory, atomically."""

import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import (
    CACHE_CONTROL_HELP,
    BaseUrlOpt,
    BasicFormatOpt,
    ContentArg,
    StrictOpt,
    check_cache_control,
    check_listen,
    checked,
    resolve_content,
)
from catalogctl.output.console import BasicFormat, print_json, status, use_format
from catalogctl.output.envelope import envelope, finding_json
from catalogctl.text import plural


def _state_dir_problem(value: str) -> str | None:
    from catalogctl.site.nginx import state_dir_problem

    return state_dir_problem(value)


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
            help="Build directory, replaced atomically (a symlink: the directory it points to).",
        ),
    ] = Path("dist"),
    base_url: BaseUrlOpt = None,
    cache_control: Annotated[
        str,
        typer.Option("--cache-control", help=CACHE_CONTROL_HELP, callback=check_cache_control),
    ] = "public, max-age=300",
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Compression threads (default: CPUs).")
    ] = None,
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
        ),
    ] = None,
    target: Annotated[
        Target,
        typer.Option(
            "--target",
            help="cloudflare: also a Workers project (wrangler.toml, cloudflare/) for "
            "`npx wrangler deploy`.",
        ),
    ] = Target.static,
    strict: StrictOpt = False,
    fmt: BasicFormatOpt = BasicFormat.table,
) -> None:
    """Render every public document into a static directory, atomically.

    Writes OUT/public/ (the web root, with .gz and .br siblings) and OUT/manifest.json
    (route → file, content type, headers), and OUT/nginx/: catalog.conf (locations to
    include in a server block) and nginx.conf (run: nginx -p OUT -c nginx/nginx.conf).
    With --target cloudflare, OUT is also a Cloudflare Workers project: wrangler.toml and
    cloudflare/ (the Worker and its route table); publish it with `npx wrangler deploy`.
    A failed build leaves OUT as it was.

    [bold]Examples[/]

      catalogctl build                          # ./content → ./dist
      catalogctl build content --out /srv/catalog
      catalogctl build --base-url https://staging.example.com --out dist-staging
      catalogctl build --nginx-listen 0.0.0.0:80 --out /srv/catalog
      catalogctl build --out dist --nginx-state-dir /tmp/catalog-nginx
      catalogctl build --target cloudflare     # then: npx wrangler deploy
    """
    from catalogctl.content.loader import load_catalog
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
    result = write_site(site, out_dir, extra=extra, force=force)
    elapsed = time.perf_counter() - started
    warnings = sorted(catalog.warnings, key=lambda f: (f.file, f.line or 0, f.column or 0))
    if fmt is BasicFormat.json:
        summary = {
            "out": str(result.out),
            "games": len(catalog.games),
            "files": result.files,
            "bytes": result.bytes,
            "routes": sorted(site.resources),
            "seconds": round(elapsed, 3),
            "read": catalog.summary.to_json(),
            "warnings": len(warnings),
        }
        items = [finding_json(f) for f in warnings]
        print_json(envelope("build", ok=True, summary=summary, items=items))
        return
    for f in warnings:  # what validate would warn about is not lost in a build log
        where = f.file + "".join(f":{n}" for n in (f.line, f.column) if n is not None)
        field = f"{f.field}: " if f.field else ""
        status("!", "yellow", f"{where}: warning {f.rule} · {field}{f.message}")
    # The folder name is text, never markup: status() prints it cleaned, without rich.
    status(
        "✓",
        "green",
        f"built {plural(len(catalog.games), 'game')} into {out_dir} "
        f"({plural(result.files, 'file')}, {result.bytes / 1024:,.0f} KiB) in {elapsed:.2f} s",
    )
    status("·", "", catalog.summary.describe())
