"""`catalogctl serve`: answer the HTTP contract from memory."""

import functools
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import (
    ADVANCED_PANEL,
    check_base_url,
    check_cache_control,
    check_seconds,
    path_value,
    resolve_source,
)
from catalogctl.output.console import use_format

LOG_PANEL = "Logs and metrics"


class LogFormat(StrEnum):
    text = "text"
    json = "json"


class HttpEngine(StrEnum):
    httptools = "httptools"
    aiohttp = "aiohttp"


class AccessLogFormat(StrEnum):
    text = "text"
    json = "json"
    common = "common"
    combined = "combined"


def _address(value: str | None) -> str | None:
    """--metrics HOST:PORT, checked when parsed."""
    if value is None:
        return None
    from catalogctl.serve.server import parse_address

    try:
        parse_address(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return value


def _proxies(value: str) -> str:
    """--forwarded-allow-ips, checked when parsed."""
    if value:
        from catalogctl.serve.accesslog import TrustedProxies

        try:
            TrustedProxies(value)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    return value


def serve(
    source: Annotated[
        Path | None,
        typer.Argument(
            help="A site (rendered in memory) or a build directory. Default: the site here, "
            "else ./content, else the bundled sample.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port", "-p", min=0, max=65535, metavar="PORT", help="Port (0: any free port)."
        ),
    ] = 8000,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="Publish under this base URL (content only: a build keeps its own).",
            callback=check_base_url,
        ),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Reload when the content changes (development).")
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            max=64,
            metavar="N",
            help="Worker processes sharing the listener (Linux, macOS).",
        ),
    ] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No access log.")] = False,
    log_format: Annotated[
        LogFormat,
        typer.Option(
            "--log-format",
            help="Server messages (stderr): text or json.",
            rich_help_panel=LOG_PANEL,
        ),
    ] = LogFormat.text,
    access_log: Annotated[
        str,
        typer.Option(
            "--access-log",
            metavar="FILE",
            help="Access log file ('-': stdout).",
            rich_help_panel=LOG_PANEL,
        ),
    ] = "-",
    access_log_format: Annotated[
        AccessLogFormat | None,
        typer.Option(
            "--access-log-format",
            metavar="FORMAT",
            help="text, json, common or combined (default: as --log-format).",
            show_default=False,
            rich_help_panel=LOG_PANEL,
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            "--forwarded-allow-ips",
            metavar="IPS",
            help="Proxies trusted to name the client (X-Forwarded-For).",
            callback=_proxies,
            rich_help_panel=LOG_PANEL,
        ),
    ] = "",
    metrics: Annotated[
        str | None,
        typer.Option(
            "--metrics",
            metavar="HOST:PORT",
            help="Prometheus metrics on this separate address.",
            callback=_address,
            rich_help_panel=LOG_PANEL,
        ),
    ] = None,
    http: Annotated[
        HttpEngine,
        typer.Option(
            "--http",
            help="HTTP engine (both answer alike).",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = HttpEngine.httptools,
    unix: Annotated[
        Path | None,
        typer.Option(
            "--unix",
            metavar="PATH",
            parser=path_value,
            help="Listen on this Unix socket, not --host/--port (Linux, macOS).",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = None,
    cache_control: Annotated[
        str | None,
        typer.Option(
            "--cache-control",
            metavar="VALUE",
            help="Cache-Control of successful responses (default: the build's).",
            show_default=False,
            callback=check_cache_control,
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = None,
    keepalive_timeout: Annotated[
        float,
        typer.Option(
            "--keepalive-timeout",
            min=0.1,
            metavar="S",
            callback=check_seconds,
            help="Seconds an idle connection stays open.",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = 15.0,
    shutdown_timeout: Annotated[
        float,
        typer.Option(
            "--shutdown-timeout",
            min=0,
            metavar="S",
            callback=check_seconds,
            help="Seconds in-flight responses get on stop.",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = 10.0,
    max_header_size: Annotated[
        int,
        typer.Option(
            "--max-header-size",
            min=256,
            metavar="BYTES",
            help="Longest request or header line.",
            rich_help_panel=ADVANCED_PANEL,
        ),
    ] = 8190,
) -> None:
    """Answer the HTTP contract from memory, exactly as `build` writes it.

    Every response is prepared at start. SIGHUP (or --watch) reloads; invalid content keeps
    the previous catalog. SIGTERM lets in-flight responses finish. Exit 1 when the content is
    invalid, 2 when the source or the address cannot be used.

    Examples

      catalogctl serve                   # the site here, or the sample; port 8000
      catalogctl serve content --watch --base-url http://127.0.0.1:8000
      catalogctl serve dist --host 0.0.0.0 --workers 2 --metrics 127.0.0.1:9100
      catalogctl serve dist --unix /run/catalogctl/http.sock --quiet
      catalogctl serve dist --access-log-format json | jq .status
    """
    from catalogctl.cli.collector import for_server
    from catalogctl.output.serve import write_ready
    from catalogctl.serve.options import ServeOptions
    from catalogctl.serve.server import configure_logging, parse_address
    from catalogctl.serve.server import serve as run_server
    from catalogctl.sources.locate import SERVED_KINDS
    from catalogctl.sources.served import SiteInput

    for_server()  # a server runs for days: the collector at Python's own pace
    # With JSON log lines, a start-up error is the JSON error envelope too.
    use_format("serve", "json" if log_format is LogFormat.json else "table")
    found = resolve_source(source, accept=SERVED_KINDS, sample=True)
    options = ServeOptions(
        host=host,
        port=port,
        http=http.value,
        unix=unix,
        workers=workers,
        access_log=not quiet,
        access_log_path=access_log,
        access_log_format=(access_log_format or AccessLogFormat(log_format.value)).value,
        log_format=log_format.value,
        forwarded_allow_ips=forwarded_allow_ips,
        metrics=parse_address(metrics) if metrics else None,
        watch=watch,
        keepalive_timeout=keepalive_timeout,
        shutdown_timeout=shutdown_timeout,
        max_line_size=max_header_size,
    )
    src = SiteInput.open(found, base_url=base_url, cache_control=cache_control)
    configure_logging(options.log_format)
    ready = functools.partial(write_ready, log_format=options.log_format, is_build=src.is_build)
    run_server(src, options, on_ready=ready)
