"""`catalogctl check-links`: every game page, icon and store link, checked concurrently."""

from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import (
    ADVANCED_PANEL,
    REPORT_PANEL,
    StrictOpt,
    check_regex,
    check_seconds,
    check_user_agent,
    parse_size,
    path_value,
    resolve_source,
)
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, err, err_is_terminal, use_format
from catalogctl.sources.core import DEFAULT_MAX_BODY

PACE_PANEL = "Pace and retries"


def check_links(
    source: Annotated[
        str | None,
        typer.Argument(
            help="The site (default: this folder's, else ./content), a build directory, a "
            "games JSON file or a deployment's base URL.",
            show_default=False,
        ),
    ] = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="Check URL syntax only; send no request.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=0.001,
            metavar="S",
            callback=check_seconds,
            help="Seconds one request may take in all.",
        ),
    ] = 10.0,
    accept: Annotated[
        str,
        typer.Option("--accept", metavar="CODES", help="Status codes that mean fine."),
    ] = "200..299",
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            metavar="REGEX",
            help="Skip URLs matching (repeatable).",
            callback=check_regex,
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include",
            metavar="REGEX",
            help="Check only URLs matching (repeatable).",
            callback=check_regex,
        ),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            metavar="FILE",
            parser=path_value,
            help="Remember links found fine; skip them next time.",
        ),
    ] = None,
    max_cache_age: Annotated[
        str,
        typer.Option(
            "--max-cache-age", metavar="AGE", help="How long a cached fine link is trusted."
        ),
    ] = "1d",
    strict: StrictOpt = False,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="Report format: table, json, github, sarif, junit or markdown.",
            rich_help_panel=REPORT_PANEL,
        ),
    ] = Format.table,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            metavar="FILE",
            parser=path_value,
            help="Write the report to FILE; the terminal gets the summary line.",
            rich_help_panel=REPORT_PANEL,
        ),
    ] = None,
    max_concurrency: Annotated[
        int,
        typer.Option(
            "--max-concurrency",
            min=1,
            metavar="N",
            help="Requests in flight at most.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 64,
    host_concurrency: Annotated[
        int,
        typer.Option(
            "--host-concurrency",
            min=1,
            metavar="N",
            help="Requests in flight to one host at most.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 8,
    retries: Annotated[
        int,
        typer.Option(
            "--retries",
            min=0,
            metavar="N",
            help="Retries after connection errors and 5xx.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 3,
    max_retry_wait: Annotated[
        float,
        typer.Option(
            "--max-retry-wait",
            min=0,
            metavar="S",
            callback=check_seconds,
            help="Longest pause before a retry.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 10.0,
    rate_limit_wait: Annotated[
        float,
        typer.Option(
            "--rate-limit-wait",
            min=0,
            metavar="S",
            callback=check_seconds,
            help="Longest wait for a host answering 429.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 60.0,
    max_redirects: Annotated[
        int,
        typer.Option(
            "--max-redirects",
            min=0,
            metavar="N",
            help="Redirects followed at most.",
            rich_help_panel=PACE_PANEL,
        ),
    ] = 10,
    user_agent: Annotated[
        str | None,
        typer.Option(
            "--user-agent",
            metavar="UA",
            help="User-Agent header (default names catalogctl).",
            callback=check_user_agent,
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = None,
    max_icon_size: Annotated[
        int,
        typer.Option(
            "--max-icon-size",
            parser=parse_size,
            metavar="SIZE",
            show_default="4MiB",
            help="Largest icon; a larger one is a finding.",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = 4 * 1024 * 1024,
    max_body: Annotated[
        int,
        typer.Option(
            "--max-body",
            parser=parse_size,
            metavar="SIZE",
            show_default="64MiB",
            help="Largest catalog read from a URL.",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = DEFAULT_MAX_BODY,
    allow_private: Annotated[
        bool,
        typer.Option(
            "--allow-private",
            help="Follow redirects to loopback and private addresses (an intranet).",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = False,
) -> None:
    """Check every game page, icon and store link of the published catalog.

    Each distinct URL is requested once, HEAD confirmed by GET; a host answering 429 is slowed
    down, not called broken; an icon must be an image. Exit 0 when every link is fine
    (warnings too, unless --strict), 1 when any is broken, 2 for usage or input errors.

    Examples

      catalogctl check-links                             # ./content
      catalogctl check-links dist --cache .linkcache     # a build; cached links
      catalogctl check-links --exclude 'apps\\.apple\\.com' --timeout 5
      catalogctl check-links --format github       # pull request annotations
      catalogctl check-links --format junit --output links.xml
      catalogctl check-links --offline                   # URL syntax only
      catalogctl check-links https://games.example.com   # the deployed catalog
    """
    from catalogctl.links.catalog import Located, content_locations, load_links
    from catalogctl.links.core import check_links as run_check
    from catalogctl.links.options import (
        USER_AGENT,
        CheckOptions,
        compile_patterns,
        parse_accept,
        parse_duration,
    )
    from catalogctl.output.reports import report_links
    from catalogctl.sources.locate import ANY_KIND

    use_format("check-links", fmt, output)
    named = resolve_source(source, accept=ANY_KIND)
    root, display, spec = named.path, named.label, named.spec
    options = CheckOptions(
        max_concurrency=max_concurrency,
        host_concurrency=host_concurrency,
        timeout=timeout,
        retries=retries,
        max_retry_wait=max_retry_wait,
        rate_limit_wait=rate_limit_wait,
        max_redirects=max_redirects,
        max_icon_size=max_icon_size,
        accept=parse_accept(accept),
        include=compile_patterns(include or [], "--include"),
        exclude=compile_patterns(exclude or [], "--exclude"),
        user_agent=user_agent or USER_AGENT,
        offline=offline,
        cache=cache,
        max_cache_age=parse_duration(max_cache_age),
        allow_private=allow_private,
    )
    policy = None  # the network policy of catalogctl.sources (no private redirects)
    if allow_private:
        from catalogctl.sources.net import NetworkPolicy

        policy = NetworkPolicy(allow_private=True)
    found = load_links(spec, max_body=max_body, policy=policy)
    if err_is_terminal():
        from rich.progress import Progress

        with Progress(console=err(), transient=True) as progress:
            task = progress.add_task("checking links", total=len(found))
            report = run_check(found, options, on_result=lambda _: progress.advance(task))
    else:
        report = run_check(found, options)

    located: Located = {}
    if fmt in (Format.github, Format.sarif, Format.junit) and named.kind == "content":
        located = content_locations(root, display)  # annotations at the line of each link
    ok = report_links(report, fmt, strict=strict, located=located)
    raise typer.Exit(int(ExitCode.OK if ok else ExitCode.FINDINGS))
