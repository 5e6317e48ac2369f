"""`catalogctl check-links`: every game page, icon and store link, checked concurrently."""

from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import (
    CONTENT_HELP,
    AllowPrivateOpt,
    FormatOpt,
    OutputOpt,
    StrictOpt,
    check_regex,
    check_seconds,
    check_user_agent,
    parse_size,
    resolve_source,
)
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, err, err_is_terminal, use_format
from catalogctl.sources.core import DEFAULT_MAX_BODY


def check_links(
    source: Annotated[
        str | None,
        typer.Argument(
            help=CONTENT_HELP
            + " A build directory, a games JSON file or a deployment's base URL works too.",
            show_default=False,
        ),
    ] = None,
    max_concurrency: Annotated[
        int, typer.Option("--max-concurrency", min=1, help="Requests in flight at most.")
    ] = 64,
    host_concurrency: Annotated[
        int,
        typer.Option("--host-concurrency", min=1, help="Requests in flight to one host at most."),
    ] = 8,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=0.001,
            callback=check_seconds,
            help="Seconds one request may take in all (lookup, connect, answer, an icon's body).",
        ),
    ] = 10.0,
    retries: Annotated[
        int,
        typer.Option(
            "--retries",
            min=0,
            help="Retries after connection errors, 408, 425 and 5xx answers (backoff).",
        ),
    ] = 3,
    max_retry_wait: Annotated[
        float,
        typer.Option(
            "--max-retry-wait",
            min=0,
            callback=check_seconds,
            help="Longest pause before a retry (a 503's Retry-After), and longest backoff of a "
            "host answering 429 without Retry-After.",
        ),
    ] = 10.0,
    rate_limit_wait: Annotated[
        float,
        typer.Option(
            "--rate-limit-wait",
            min=0,
            callback=check_seconds,
            help="Seconds a host answering 429 may hold one link back before it counts as "
            "broken (429 slows that host; it never counts against --retries).",
        ),
    ] = 60.0,
    max_redirects: Annotated[
        int, typer.Option("--max-redirects", min=0, help="Redirects followed at most.")
    ] = 10,
    accept: Annotated[
        str, typer.Option("--accept", help="Status codes that mean fine, e.g. '200..299,403'.")
    ] = "200..299",
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", help="Skip URLs matching this regex (repeatable).", callback=check_regex
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include",
            help="Check only URLs matching this regex (repeatable).",
            callback=check_regex,
        ),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option("--cache", help="Remember links found fine in FILE; skip them next time."),
    ] = None,
    max_cache_age: Annotated[
        str, typer.Option("--max-cache-age", help="How long a cached fine link is trusted.")
    ] = "1d",
    offline: Annotated[
        bool, typer.Option("--offline", help="Check URL syntax only; send no request.")
    ] = False,
    user_agent: Annotated[
        str | None,
        typer.Option(
            "--user-agent",
            help="User-Agent header (default names catalogctl).",
            callback=check_user_agent,
        ),
    ] = None,
    allow_private: AllowPrivateOpt = False,
    max_icon_size: Annotated[
        int,
        typer.Option(
            "--max-icon-size",
            parser=parse_size,
            metavar="SIZE",
            show_default="4MiB",
            help="Largest icon: a larger one is a finding. The size an answer declares, or "
            "its body read up to SIZE when it declares none.",
        ),
    ] = 4 * 1024 * 1024,
    max_body: Annotated[
        int,
        typer.Option(
            "--max-body",
            parser=parse_size,
            metavar="SIZE",
            show_default="64MiB",
            help="Largest catalog document read when SOURCE is a URL.",
        ),
    ] = DEFAULT_MAX_BODY,
    strict: StrictOpt = False,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
) -> None:
    """Check every game page, icon and store link of the published catalog.

    Each distinct URL is requested once: HEAD, and GET before any 4xx answer (but 429) is
    believed; the report names the method of each verdict. A global and a per-host limit of
    requests in flight; redirects followed; connection errors and 5xx retried. A 429 slows
    that host alone (fewer requests, a pause) and the link waits its turn, up to
    --rate-limit-wait. An icon must be an image of at most --max-icon-size; a game page that
    redirects is a warning. Only heads are read, and an icon's body when its size is not
    declared. Link-local, multicast and unspecified addresses are never connected to, and a
    redirect from a public host to a private or loopback address is refused unless
    --allow-private.

    Exit 0 when every link is fine (warnings too, unless --strict), 1 when any is broken,
    2 for usage or input errors.

    [bold]Examples[/]

      catalogctl check-links                             # ./content
      catalogctl check-links dist --cache .linkcache     # a build; cached links
      catalogctl check-links --exclude 'apps\\.apple\\.com' --timeout 5
      catalogctl check-links --format markdown > links.md
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
