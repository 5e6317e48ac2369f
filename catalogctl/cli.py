"""The command line: thin Typer functions that call the core and print its result.

Heavy modules (aiohttp, rendering, compression) are imported inside the commands that use
them, so `catalogctl validate` in a pre-commit hook starts as fast as typer, rich and pydantic
allow.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from catalogctl import __version__
from catalogctl.errors import CatalogError, ContentInvalid, ExitCode
from catalogctl.findings import Finding
from catalogctl.report import Format, RichFormat, err, out, plural, print_json, status

if TYPE_CHECKING:
    from catalogctl.server import Ready

app = typer.Typer(
    name="catalogctl",
    help="Build, validate and serve a public, read-only game catalog API from content files.",
    no_args_is_help=True,
    add_completion=False,  # static scripts ship in completions/ instead
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

CONTENT_HELP = (
    "Content tree (site.toml + games/*.md). Default: ./content, or the bundled sample content "
    "when there is none."
)
ContentArg = Annotated[Path | None, typer.Argument(help=CONTENT_HELP, show_default=False)]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")]


def _version(value: bool) -> None:
    if value:
        out().print(f"catalogctl {__version__}")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Build, validate and serve a public, read-only game catalog API from content files."""


def resolve_content(path: Path | None) -> tuple[Path, str]:
    """The content tree to use and how to name it in messages."""
    from catalogctl.content import sample_content

    if path is not None:
        return path, str(path)
    default = Path("content")
    if default.is_dir():
        return default, "content"
    sample = sample_content()
    return sample, str(sample)


def _fail(exc: CatalogError) -> NoReturn:
    err().print(f"[bold red]error:[/] {exc.message}", markup=True, highlight=False)
    raise typer.Exit(int(exc.exit_code))


def _report_findings(
    findings: Sequence[Finding], fmt: Format, *, files: int | None = None, games: int | None = None
) -> None:
    from catalogctl.report import findings_table, sort_findings

    items = sort_findings(findings)
    errors = sum(f.severity == "error" for f in items)
    warnings = len(items) - errors
    if fmt is Format.json:
        print_json(
            {
                "valid": errors == 0,
                "findings": [f.to_json() for f in items],
                "summary": {"errors": errors, "warnings": warnings, "files": files, "games": games},
            }
        )
        return
    if items:
        findings_table(items)
    mark, color = ("✗", "red") if errors else (("!", "yellow") if warnings else ("✓", "green"))
    where = "" if files is None else f" in {plural(files, 'file')}"
    if games is not None:
        where += f" ({plural(games, 'game')})"
    status(mark, color, f"{plural(errors, 'error')}, {plural(warnings, 'warning')}{where}")


@app.command()
def validate(
    content: ContentArg = None,
    fmt: FormatOpt = Format.table,
    strict: StrictOpt = False,
) -> None:
    """Check the content: every problem at once, with its file, line and field.

    Exit 0 when the content is valid, 1 when it has errors (or warnings with --strict),
    2 when it cannot be read at all.

    [bold]Examples[/]

      catalogctl validate                      # ./content
      catalogctl validate site/content --strict
      catalogctl validate --format json | jq '.findings[]'
    """
    from catalogctl.content import load

    root, display = resolve_content(content)
    try:
        result = load(root, display=display)
    except CatalogError as exc:
        _fail(exc)
    games = sum(not e.source.draft for e in result.entries)
    _report_findings(result.findings, fmt, files=result.files, games=games)
    failing = result.errors or (strict and result.warnings)
    raise typer.Exit(int(ExitCode.FINDINGS if failing else ExitCode.OK))


@app.command()
def build(
    content: ContentArg = None,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Build directory (replaced atomically).")
    ] = Path("dist"),
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Publish under this base URL instead.")
    ] = None,
    cache_control: Annotated[
        str, typer.Option("--cache-control", help="Cache-Control of successful responses.")
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
            help="Listen address of the generated OUT/nginx/nginx.conf.",
        ),
    ] = "127.0.0.1:8080",
    strict: StrictOpt = False,
    fmt: FormatOpt = Format.table,
) -> None:
    """Render every public document into a static directory, atomically.

    Writes OUT/public/ (the web root, with .gz and .br siblings) and OUT/manifest.json
    (route → file, content type, headers), and OUT/nginx/: catalog.conf (locations to
    include in a server block) and nginx.conf (run: nginx -p OUT -c nginx/nginx.conf).
    A failed build leaves OUT as it was.

    [bold]Examples[/]

      catalogctl build                          # ./content → ./dist
      catalogctl build content --out /srv/catalog
      catalogctl build --base-url https://staging.example.com --out dist-staging
      catalogctl build --nginx-listen 0.0.0.0:80 --out /srv/catalog
    """
    from catalogctl.build import write_site
    from catalogctl.content import load_catalog
    from catalogctl.nginx import nginx_files
    from catalogctl.render import render

    root, display = resolve_content(content)
    started = time.perf_counter()
    try:
        catalog = load_catalog(root, display=display, strict=strict, base_url=base_url)
        site = render(catalog, cache_control=cache_control, jobs=jobs)
        extra = nginx_files(site, listen=nginx_listen)
        result = write_site(site, out_dir, extra=extra, force=force)
    except ContentInvalid as exc:
        _report_findings(exc.findings, fmt)
        _fail(exc)
    except CatalogError as exc:
        _fail(exc)
    elapsed = time.perf_counter() - started
    if fmt is Format.json:
        print_json(
            {
                "out": str(result.out),
                "games": len(catalog.games),
                "files": result.files,
                "bytes": result.bytes,
                "routes": sorted(site.resources),
                "seconds": round(elapsed, 3),
            }
        )
        return
    err().print(
        f"[green]✓[/] built {plural(len(catalog.games), 'game')} into {out_dir} "
        f"({plural(result.files, 'file')}, {result.bytes / 1024:,.0f} KiB) in {elapsed:.2f} s",
        markup=True,
    )


# --- check-links --------------------------------------------------------------------------


@app.command("check-links")
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
        float, typer.Option("--timeout", min=0.001, help="Seconds to wait for each response.")
    ] = 10.0,
    retries: Annotated[
        int,
        typer.Option(
            "--retries", min=0, help="Retries after connection errors, 5xx and 429 (backoff)."
        ),
    ] = 3,
    max_retry_wait: Annotated[
        float,
        typer.Option("--max-retry-wait", min=0, help="Longest pause before a retry (Retry-After)."),
    ] = 10.0,
    max_redirects: Annotated[
        int, typer.Option("--max-redirects", min=0, help="Redirects followed at most.")
    ] = 10,
    accept: Annotated[
        str, typer.Option("--accept", help="Status codes that mean fine, e.g. '200..299,403'.")
    ] = "200..299",
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Skip URLs matching this regex (repeatable)."),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Check only URLs matching this regex (repeatable)."),
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
        str | None, typer.Option("--user-agent", help="User-Agent header (names catalogctl).")
    ] = None,
    strict: StrictOpt = False,
    fmt: Annotated[
        RichFormat, typer.Option("--format", "-f", help="Output format.")
    ] = RichFormat.table,
) -> None:
    """Check every game page, icon and store link of the published catalog.

    Each distinct URL is requested once (HEAD, or GET where HEAD is refused), with a global
    and a per-host concurrency limit; redirects are followed, 5xx and 429 retried. An icon
    must be an image; a game page that redirects is a warning.

    Exit 0 when every link is fine (warnings too, unless --strict), 1 when any is broken,
    2 for usage or input errors.

    [bold]Examples[/]

      catalogctl check-links                             # ./content
      catalogctl check-links dist --cache .linkcache     # a build; skip links fine within 1 day
      catalogctl check-links --exclude 'apps\\.apple\\.com' --timeout 5
      catalogctl check-links --format markdown > links.md
      catalogctl check-links --offline                   # URL syntax only
      catalogctl check-links https://games.example.com   # the deployed catalog
    """
    from catalogctl import links as core
    from catalogctl import links_report

    spec: str | Path = source if source is not None else resolve_content(None)[0]
    try:
        options = core.CheckOptions(
            max_concurrency=max_concurrency,
            host_concurrency=host_concurrency,
            timeout=timeout,
            retries=retries,
            max_retry_wait=max_retry_wait,
            max_redirects=max_redirects,
            accept=core.parse_accept(accept),
            include=core.compile_patterns(include or [], "--include"),
            exclude=core.compile_patterns(exclude or [], "--exclude"),
            user_agent=user_agent or core.USER_AGENT,
            offline=offline,
            cache=cache,
            max_cache_age=core.parse_duration(max_cache_age),
        )
        found = core.load_links(spec)
        if err().is_terminal:
            from rich.progress import Progress

            with Progress(console=err(), transient=True) as progress:
                task = progress.add_task("checking links", total=len(found))
                report = core.check_links(
                    found, options, on_result=lambda _: progress.advance(task)
                )
        else:
            report = core.check_links(found, options)
    except CatalogError as exc:
        _fail(exc)

    if fmt is RichFormat.json:
        print_json(links_report.to_json(report))
    elif fmt is RichFormat.markdown:
        sys.stdout.write(links_report.to_markdown(report))
    else:
        links_report.print_table(report)
        s = report.summary()
        mark = "[red]✗[/]" if s["broken"] else ("[yellow]![/]" if s["warnings"] else "[green]✓[/]")
        err().print(f"{mark} {links_report.summary_text(report)}", markup=True, highlight=False)
    failing = report.summary()["broken"] or (strict and report.summary()["warnings"])
    raise typer.Exit(int(ExitCode.FINDINGS if failing else ExitCode.OK))


class LogFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def serve(
    source: Annotated[
        Path | None,
        typer.Argument(
            help="Content tree (rendered in memory) or build directory (answered from its "
            "manifest). Default: ./content, or the bundled sample content.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", "-p", min=0, max=65535, help="Port (0: any free port).")
    ] = 8000,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="Publish under this base URL (content trees only)."),
    ] = None,
    cache_control: Annotated[
        str | None,
        typer.Option(
            "--cache-control",
            help="Cache-Control of successful responses. Default: the build's, or "
            "'public, max-age=300'.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option("--workers", "-w", min=1, help="Processes sharing the port (SO_REUSEPORT)."),
    ] = 1,
    watch: Annotated[
        bool, typer.Option("--watch", help="Reload when the content changes (development).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No access log.")] = False,
    log_format: Annotated[
        LogFormat, typer.Option("--log-format", help="Access and server log lines: text or JSON.")
    ] = LogFormat.text,
    keepalive_timeout: Annotated[
        float,
        typer.Option(
            "--keepalive-timeout",
            min=0.1,
            help="Seconds an idle connection (or one still sending its request head) stays open.",
        ),
    ] = 15.0,
    shutdown_timeout: Annotated[
        float,
        typer.Option(
            "--shutdown-timeout", min=0, help="Seconds in-flight responses get to finish on stop."
        ),
    ] = 10.0,
    max_header_size: Annotated[
        int,
        typer.Option(
            "--max-header-size", min=256, help="Longest request line or header line, in bytes."
        ),
    ] = 8190,
) -> None:
    """Answer the HTTP contract from memory, exactly as `build` writes it.

    Every response is prepared at start: ETags and 304s, brotli and gzip,
    404 problem details under /api/, 403 for methods but GET and HEAD.
    SIGHUP (or --watch) reloads; invalid content is logged and the previous
    catalog stays up. SIGTERM/SIGINT let in-flight responses finish.

    Exit 1 when the content is invalid, 2 when the source or the address
    cannot be used.

    [bold]Examples[/]

      catalogctl serve                   # ./content or the sample, port 8000
      catalogctl serve content --watch --base-url http://127.0.0.1:8000
      catalogctl serve dist --host 0.0.0.0 --workers 2 --quiet
      catalogctl serve dist --log-format json | jq .status
    """
    from catalogctl.server import ServeOptions, Source, configure_logging
    from catalogctl.server import serve as run_server

    root, display = resolve_content(source)
    options = ServeOptions(
        host=host,
        port=port,
        workers=workers,
        access_log=not quiet,
        log_format=log_format.value,
        watch=watch,
        keepalive_timeout=keepalive_timeout,
        shutdown_timeout=shutdown_timeout,
        max_line_size=max_header_size,
        max_field_size=max_header_size,
    )
    try:
        src = Source.open(root, display=display, base_url=base_url, cache_control=cache_control)
        configure_logging(options.log_format)
        run_server(src, options, on_ready=_serving_message(log_format))
    except ContentInvalid as exc:
        _report_findings(exc.findings, Format.table)
        _fail(exc)
    except CatalogError as exc:
        _fail(exc)


def _serving_message(log_format: LogFormat) -> Callable[[Ready], None]:
    def ready(r: Ready) -> None:
        if log_format is LogFormat.json:
            import json

            event = {"event": "listening", "url": r.url, "games": r.games, "pid": r.pid}
            sys.stderr.write(json.dumps(event) + "\n")
            sys.stderr.flush()
            return
        workers = f", {plural(r.workers, 'worker')}" if r.workers > 1 else ""
        err().print(
            f"[green]✓[/] serving {plural(r.games, 'game')} from {r.source} at "
            f"[bold]{r.url}[/] ({r.url}/api/v1/games{workers}); Ctrl+C stops",
            markup=True,
            soft_wrap=True,
        )
        if r.base_url != r.url:
            err().print(
                f"  links in the documents point to {r.base_url}; "
                f"--base-url {r.url} makes them local",
                soft_wrap=True,
            )

    return ready


# --- diff ----------------------------------------------------------------------------------


class FailOn(StrEnum):
    breaking = "breaking"
    warning = "warning"
    any = "any"


SOURCE_HELP = (
    "Content tree, build directory, games JSON file, or http(s) base URL of a deployment "
    "(reads {base}/api/v1/games and {base}/openapi.json)."
)


@app.command()
def diff(
    old: Annotated[str, typer.Argument(help="The catalog as it is. " + SOURCE_HELP)],
    new: Annotated[str, typer.Argument(help="The catalog to release. " + SOURCE_HELP)],
    fmt: Annotated[
        RichFormat, typer.Option("--format", "-f", help="Output format.")
    ] = RichFormat.table,
    fail_on: Annotated[
        FailOn,
        typer.Option(
            "--fail-on",
            help="Exit 1 on: any difference, warnings (and breaking changes), or breaking "
            "contract changes only.",
        ),
    ] = FailOn.any,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.001, help="Seconds to wait for a URL source.")
    ] = 30.0,
) -> None:
    """Show what a release changes, and whether it breaks clients.

    Games added, removed, changed (field by field) and reordered, by id; warnings for a
    probable id rename, changed store attribution and a platform that lost its store link;
    and, when both sides carry an OpenAPI document (build directories, URLs), the contract
    check: removed fields, changed types or new required parameters need /api/v2.

    Exit 0 when there is no difference, 1 when there are (see --fail-on), 2 when a source
    cannot be read or is not a valid catalog.

    [bold]Examples[/]

      catalogctl diff https://games.example.com content        # what will shipping change?
      catalogctl diff dist-old dist --fail-on breaking          # CI gate
      catalogctl diff old-games.json dist --format markdown > release-notes.md
      catalogctl diff dist http://127.0.0.1:8000 --format json | jq '.changed[].id'
    """
    import gc

    from catalogctl import diff as core
    from catalogctl import diff_report
    from catalogctl.sources import load_source

    # Both catalogs live until exit and hold no cycles: keep the collector from walking
    # their millions of objects again and again (a large diff would take twice as long).
    gc.disable()
    try:
        before = load_source(old, timeout=timeout)
        after = load_source(new, timeout=timeout)
    except CatalogError as exc:
        _fail(exc)
    result = core.compare(before, after)
    gc.freeze()
    gc.enable()
    if fmt is RichFormat.json:
        print_json(result.to_json())
    elif fmt is RichFormat.markdown:
        sys.stdout.write(diff_report.to_markdown(result))
    else:
        for renderable in diff_report.to_renderables(result):
            out().print(renderable)
        failing = result.failed(fail_on.value)
        mark = "[red]✗[/]" if result.breaking else ("[yellow]![/]" if failing else "[green]✓[/]")
        if not result.contract_checked and (before.openapi or after.openapi):
            note = " (contract not checked: only one side has an OpenAPI document)"
        else:
            note = ""
        err().print(f"{mark} {diff_report.summary(result)}{note}", markup=True, highlight=False)
    raise typer.Exit(int(ExitCode.FINDINGS if result.failed(fail_on.value) else ExitCode.OK))


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except CatalogError as exc:  # pragma: no cover - commands catch their own
        err().print(f"error: {exc.message}")
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(130)
