"""One serving process: an event loop accepting on the shared listener.

Used as is when `--workers 1` (then it also reloads itself and serves `--metrics`), and by
the supervisor's forked workers otherwise. Stopping (SIGTERM/SIGINT, or a newer worker
generation taking over) is graceful and bounded: the listener is closed at once (queued
connections stay for the other workers), idle connections are closed, answers being written
get `shutdown_timeout` seconds to finish, and then every connection still open is aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path

from catalogctl.errors import CatalogError
from catalogctl.serve.accesslog import AccessLog, Sink, TrustedProxies
from catalogctl.serve.metrics import Counters, start_endpoint
from catalogctl.serve.options import ServeOptions
from catalogctl.serve.protocol import Connections, HttpProtocol, Limits
from catalogctl.serve.responses import Table
from catalogctl.sources.isolated import IsolatedLoad as Load
from catalogctl.sources.served import SiteInput

log = logging.getLogger("catalogctl.serve")


def limits(options: ServeOptions) -> Limits:
    return Limits(
        max_line=options.max_line_size,
        max_headers=options.max_headers,
        max_head=max(4 * options.max_line_size, 16384),
        keepalive_timeout=options.keepalive_timeout,
    )


def open_access_fd(options: ServeOptions) -> int | None:
    """The descriptor access lines go to (None: no access log); raises `CatalogError`."""
    if not options.access_log:
        return None
    if options.access_log_path == "-":
        return 1  # the process's standard output, whatever `sys.stdout` is now
    path = Path(options.access_log_path)
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    except OSError as exc:
        raise CatalogError(f"cannot open the access log {path}: {exc.strerror}") from exc


def new_event_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def describe_table(table: Table) -> str:
    return f"{table.games} games, ETag {table.etag or '-'}"


class Worker:
    """The serving side of one process."""

    def __init__(
        self,
        table: Table,
        options: ServeOptions,
        sock: socket.socket,
        *,
        counters: Counters | None = None,
        source: SiteInput | None = None,  # set: this process reloads itself (no supervisor)
        metrics_sock: socket.socket | None = None,
        access_fd: int | None = None,
        fingerprint: object = None,
    ) -> None:
        self.access_fd = access_fd
        self.table = table
        self.options = options
        self.sock = sock
        self.counters = counters
        self.source = source
        self.metrics_sock = metrics_sock
        self.fingerprint = fingerprint
        self.conns: Connections | None = None
        self._stop: asyncio.Event | None = None
        self._load: Load | None = None
        self._again = False
        self._dropped_reported = 0

    # --- running -----------------------------------------------------------------------------

    async def run(
        self,
        on_listening: Callable[[], object] | None = None,
        on_stopped_accepting: Callable[[], object] | None = None,
        *,
        signals: bool = True,
    ) -> None:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        access = None
        if self.access_fd is not None:
            options = self.options
            trusted = (
                TrustedProxies(options.forwarded_allow_ips) if options.forwarded_allow_ips else None
            )
            access = AccessLog(Sink(self.access_fd), options.access_log_format, trusted=trusted)
        conns = self.conns = Connections(self.table, limits(self.options), access)
        server = await loop.create_server(
            lambda: HttpProtocol(conns), sock=self.sock, backlog=self.options.backlog
        )
        if signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self._stop.set)
            if self.source is not None:
                loop.add_signal_handler(signal.SIGHUP, self.request_reload)
            else:  # the supervisor reloads; a hang-up of the terminal is its business
                loop.add_signal_handler(signal.SIGHUP, lambda: None)
        tasks = [loop.create_task(self._tick())]
        if self.source is not None and self.options.watch:
            tasks.append(loop.create_task(self._watch()))
        metrics_runner = None
        if self.metrics_sock is not None and self.counters is not None:
            metrics_runner = await start_endpoint(self.metrics_sock, self.counters)
        if on_listening is not None:
            on_listening()
        try:
            await self._stop.wait()
        finally:
            server.close()
            if on_stopped_accepting is not None:
                on_stopped_accepting()
            await self._drain(conns)
            for task in tasks:
                task.cancel()
            if self._load is not None:
                self._load.kill()
            if metrics_runner is not None:
                await metrics_runner.cleanup()  # type: ignore[attr-defined]
            self._publish()
            if access is not None:
                access.flush()
                access.sink.close()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _drain(self, conns: Connections) -> None:
        """Idle connections close now; answers in flight get `shutdown_timeout` seconds."""
        conns.stop_accepting_requests()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.shutdown_timeout
        while conns.open and loop.time() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - loop.time())))
        if conns.open:
            log.warning(
                "closing %d connection(s) still open after --shutdown-timeout %gs",
                len(conns.open),
                self.options.shutdown_timeout,
            )
            conns.abort_all()
            await asyncio.sleep(0)  # let the transports report connection_lost

    async def _tick(self) -> None:
        """Deadlines (slow heads, idle and stalled connections) and shared counters."""
        loop = asyncio.get_running_loop()
        interval = min(1.0, max(0.05, self.options.keepalive_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            assert self.conns is not None
            self.conns.sweep(loop.time())
            self._publish()

    def _publish(self) -> None:
        conns = self.conns
        if conns is None:
            return
        dropped = conns.access_log.sink.dropped if conns.access_log is not None else 0
        if dropped > self._dropped_reported:
            log.warning(
                "access log: %d line(s) dropped, its reader is too slow",
                dropped - self._dropped_reported,
            )
            self._dropped_reported = dropped
        if self.counters is not None:
            self.counters.publish(conns.statuses, conns.bytes_sent, len(conns.open), dropped)

    # --- reloading (only without a supervisor) ------------------------------------------------

    async def _watch(self) -> None:
        assert self.source is not None
        seen = self.fingerprint
        while True:
            await asyncio.sleep(self.options.watch_interval)
            now = self.source.fingerprint()
            if now != seen:
                seen = now
                log.info("change detected in %s, reloading", self.source.display)
                self.request_reload()

    def request_reload(self) -> None:
        """Load in a spawned process; a request arriving meanwhile loads once more after."""
        if self._load is not None:
            self._again = True
            return
        assert self.source is not None
        self._again = False
        loop = asyncio.get_running_loop()
        load = self._load = Load(self.source, self.options.reload_timeout)
        loop.add_reader(load.fileno(), self._loaded)
        loop.call_at(loop.time() + self.options.reload_timeout, self._expire, load)

    def _expire(self, load: Load) -> None:
        if self._load is load:
            asyncio.get_running_loop().remove_reader(load.fileno())
            load.kill()
            self._load = None
            self._report_failure(f"loading took longer than {self.options.reload_timeout:g} s")

    def _loaded(self) -> None:
        load = self._load
        assert load is not None and self.conns is not None and self.source is not None
        asyncio.get_running_loop().remove_reader(load.fileno())
        self._load = None
        try:
            table = Table(load.result())
        except CatalogError as exc:
            self._report_failure(exc.message)
        else:
            self.table = self.conns.table = table
            if self.counters is not None:
                self.counters.catalog(table.etag, table.games)
                self.counters.add("reloads")
            log.info("reloaded %s: %s", self.source.display, describe_table(table))
        if self._again:
            self.request_reload()

    def _report_failure(self, reason: str) -> None:
        if self.counters is not None:
            self.counters.add("failed")
        assert self.source is not None
        log.error(
            "reload of %s failed, still serving the previous catalog (%s): %s",
            self.source.display,
            describe_table(self.table),
            reason,
        )


def run_in_new_loop(coro_factory: Callable[[], object]) -> None:
    loop = new_event_loop()
    try:
        loop.run_until_complete(coro_factory())  # type: ignore[arg-type]
    finally:
        with contextlib.suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
