"""`catalogctl serve`: the HTTP contract (contract §4, §7, §9) from prepared bytes.

`serve()` loads and renders the catalog once, prepares every response (`Table`), opens the
listener (TCP, `--unix`, or systemd's socket) and then either serves in this process
(`--workers 1`) or hands over to a supervisor that forks the workers. See `protocol` for the
HTTP side, `worker` for one serving process and `supervisor` for reloads and restarts.

What needs POSIX is refused up front where the OS does not have it (Windows): `--workers` more
than 1 (the supervisor forks) and `--unix`; one process serves, reloads and counts anywhere.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from catalogctl.contract.routes import Site
from catalogctl.errors import InputError
from catalogctl.serve.acceptor import raise_open_files_limit
from catalogctl.serve.listeners import exclusive_address, host_refused, open_listener
from catalogctl.serve.metrics import Counters
from catalogctl.serve.options import LogFormat, Ready, ServeOptions, Setup
from catalogctl.serve.responses import Table
from catalogctl.serve.worker import Worker, new_event_loop, open_access_fd
from catalogctl.sources.served import SiteInput
from catalogctl.text import clean, quoted

log = logging.getLogger("catalogctl.serve")

__all__ = ["Ready", "ServeOptions", "Table", "configure_logging", "parse_address", "serve"]


def serve(
    source: SiteInput,
    options: ServeOptions,
    *,
    site: Site | None = None,
    on_ready: Callable[[Ready], None] | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT. Raises `CatalogError` when it cannot start."""
    hangup = EarlyHangup()  # a reload asked for while serve starts is done once it listens
    try:
        _serve(source, options, site, on_ready, hangup)
    finally:
        hangup.restore()


class EarlyHangup:
    """SIGHUP from the moment serve starts until its handlers are in place: remembered, where
    its default action would end the process without a word (`systemctl reload` right after
    `systemctl start`, while a large site loads). `replay` raises it again once the real
    handlers listen for it; only from the main thread, where signals are handled."""

    def __init__(self) -> None:
        self.seen = False
        self.previous: Any = None
        main = threading.current_thread() is threading.main_thread()
        if hasattr(signal, "SIGHUP") and main:
            self.previous = signal.signal(signal.SIGHUP, self._hangup)

    def _hangup(self, signum: int, frame: object) -> None:
        self.seen = True

    def replay(self) -> None:
        if self.seen:
            self.seen = False
            signal.raise_signal(signal.SIGHUP)

    def restore(self) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGHUP, self.previous)


def _serve(
    source: SiteInput,
    options: ServeOptions,
    site: Site | None,
    on_ready: Callable[[Ready], None] | None,
    hangup: EarlyHangup,
) -> None:
    def listening(ready: Ready) -> None:
        if on_ready is not None:
            on_ready(ready)
        hangup.replay()

    check_system(options)
    open_files = raise_open_files_limit()  # every worker inherits it
    fingerprint = source.fingerprint()  # before loading: --watch sees edits made meanwhile
    site = site if site is not None else source.load()
    table = Table(site)
    access_fd = open_access_fd(options)
    metrics_sock = _metrics_socket(options.metrics) if options.metrics else None
    listener = open_listener(options.host, options.port, options.unix, options.backlog)
    counters = Counters(slots=4 * options.workers + 4)
    counters.catalog(table.etag, table.games)
    ready = Ready(
        url=listener.url,
        base_url=site.base_url,
        workers=options.workers,
        games=table.games,
        etag=table.etag,
        source=source.display,
        pid=os.getpid(),
        metrics_url=_metrics_url(metrics_sock) if metrics_sock is not None else None,
        open_files=open_files,
    )
    setup = Setup(
        options=options,
        sock=listener.sock,
        source=source,
        fingerprint=fingerprint,
        counters=counters,
        access_fd=access_fd,
        metrics_sock=metrics_sock,
    )
    try:
        if options.workers > 1:
            from catalogctl.serve.supervisor import Supervisor  # POSIX only: it forks

            Supervisor(table, setup).run(listening, ready)
            return
        counters.slot = counters.claim(os.getpid())
        worker = Worker(table, setup, reloads=True)
        loop = new_event_loop()
        try:
            loop.run_until_complete(worker.run(on_listening=lambda: listening(ready)))
        finally:
            loop.close()
    finally:
        listener.close()
        if metrics_sock is not None:
            metrics_sock.close()


def check_system(options: ServeOptions) -> None:
    """Refuse, all at once, the options that need what this OS does not have."""
    missing = []
    if options.workers > 1 and not hasattr(os, "fork"):
        missing.append(
            f"--workers {options.workers} needs worker processes started by fork, which this "
            "system does not have: serve in one process with --workers 1 (the default)"
        )
    if options.unix is not None and not hasattr(socket, "AF_UNIX"):
        missing.append(
            "--unix needs Unix domain sockets, which this system does not have: listen on "
            "--host and --port instead"
        )
    if missing:
        raise InputError("; ".join(missing))


def _metrics_socket(address: tuple[str, int]) -> socket.socket:
    host, port = address
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, addr = infos[0]
        sock = socket.socket(family, kind, proto)
        exclusive_address(sock)
        sock.bind(addr)
        sock.listen(64)
    except OSError as exc:
        raise InputError(
            f"cannot listen on --metrics {host}:{port}: {exc.strerror or exc}"
        ) from exc
    except UnicodeError as exc:  # a label empty or over 63 letters ("a..b"): IDNA refuses it
        why = host_refused(exc)
        raise InputError(f"--metrics {quoted(host)} is not a host name: {why}") from exc
    sock.setblocking(False)
    return sock


def _metrics_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/metrics"


def parse_address(value: str) -> tuple[str, int]:
    """`HOST:PORT` or `[V6]:PORT` → (host, port); raises ValueError with the reason."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"expected HOST:PORT, got {quoted(value)}")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


# --- the server's own log (events, not access lines) --------------------------------------------


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "message": record.getMessage(),
            "pid": record.process,
        }
        return json.dumps(entry, ensure_ascii=True)


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        # Messages carry file names and content text (a reload that failed): no control chars.
        message = clean(record.getMessage())
        return f"{stamp} [{record.process}] {record.levelname.lower()}: {message}"


def configure_logging(log_format: LogFormat) -> None:
    """Server events to standard error, one text or JSON line each."""
    formatter: logging.Formatter = _JsonFormatter() if log_format == "json" else _TextFormatter()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    # aiohttp serves --metrics; its own loggers would print tracebacks for bad requests.
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
