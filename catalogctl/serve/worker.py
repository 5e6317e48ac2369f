"""One serving process: an event loop running one HTTP engine on the shared listener.

Used as is when `--workers 1` (then it also reloads itself and serves `--metrics`), and by
the supervisor's forked workers otherwise. The engine is `--http`: httptools (our own
protocol, `protocol.HttptoolsEngine`) or aiohttp (`app.AiohttpEngine`); both answer from the
same `Table` and decide with the same code, and both take their connections from the
worker's `Acceptor`. Stopping (SIGTERM/SIGINT, Ctrl+Break on Windows, or a newer worker
generation taking over) is graceful and bounded: the listener is closed at once (queued
connections stay for the other workers), idle connections are closed, answers being written
get `shutdown_timeout` seconds to finish, and then every connection still open is aborted.

It runs on every OS: what only POSIX has (SIGHUP, the event loop's signal handlers and its
watch on a pipe) is used where the OS and the loop have it, and replaced where they do not
(Windows: a Python signal handler, a look at the loading process 20 times a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing.connection
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from catalogctl.errors import CatalogError
from catalogctl.serve.acceptor import Acceptor, Factory
from catalogctl.serve.accesslog import AccessLog, Sink, TrustedProxies
from catalogctl.serve.metrics import start_endpoint
from catalogctl.serve.options import ServeOptions, Setup
from catalogctl.serve.protocol import HttptoolsEngine
from catalogctl.serve.responses import Table
from catalogctl.serve.traffic import Traffic
from catalogctl.sources.isolated import IsolatedLoad as Load
from catalogctl.text import path_text, plural

log = logging.getLogger("catalogctl.serve")

# Signals that stop serve gracefully, those of them this OS has (SIGBREAK: Ctrl+Break, Windows).
STOP_SIGNALS = tuple(
    getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGBREAK") if hasattr(signal, n)
)
LOAD_POLL = 0.05  # seconds between two looks at a reload's loader, where the loop cannot watch it


class Engine(Protocol):
    """What the worker needs of an HTTP engine."""

    @property
    def traffic(self) -> Traffic: ...

    async def start(self) -> Factory: ...  # what makes the protocol of a connection
    async def drain(self) -> int: ...  # connections cut off after --shutdown-timeout
    def open_connections(self) -> int: ...
    def close_idle(self, count: int) -> int: ...  # those waiting for a request; how many
    def sweep(self, now: float) -> None: ...


def open_access_fd(options: ServeOptions) -> int | None:
    """The descriptor access lines go to (None: no access log); raises `CatalogError`."""
    if not options.access_log:
        return None
    if options.access_log_path == "-":
        return 1  # the process's standard output, whatever `sys.stdout` is now
    path = Path(options.access_log_path)
    try:
        # O_BINARY (Windows): lines end in "\n" as written, not "\r\n".
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
        return os.open(path, flags, 0o640)
    except OSError as exc:
        raise CatalogError(f"cannot open the access log {path_text(path)}: {exc.strerror}") from exc


def new_event_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def handle_signals(
    loop: asyncio.AbstractEventLoop, handlers: dict[int, Callable[[], object]]
) -> Callable[[], None]:
    """Call each handler on `loop` when its signal arrives; returns what undoes it.

    The loop's own signal handling where it has one (Unix); else a Python signal handler that
    hands the call over to the loop (Windows' loops have none: Ctrl+C still wakes them).
    """
    undo: list[Callable[[], object]] = []
    for sig, handler in handlers.items():
        try:
            loop.add_signal_handler(sig, handler)
        except NotImplementedError:
            previous = signal.signal(sig, functools.partial(_hand_over, loop, handler))
            # None: a handler not set from Python; the default is restored then.
            restore = signal.SIG_DFL if previous is None else previous
            undo.append(functools.partial(signal.signal, sig, restore))
        else:
            undo.append(functools.partial(loop.remove_signal_handler, sig))

    def restore_all() -> None:
        for step in undo:
            step()

    return restore_all


def _hand_over(
    loop: asyncio.AbstractEventLoop, handler: Callable[[], object], signum: int, frame: object
) -> None:
    """A Python signal handler: `handler` runs on the loop (which this wakes up)."""
    loop.call_soon_threadsafe(handler)


def describe_table(table: Table) -> str:
    return f"{plural(table.games, 'game')}, ETag {table.etag or '-'}"


def make_engine(table: Table, options: ServeOptions, access: AccessLog | None) -> Engine:
    if options.http == "aiohttp":
        from catalogctl.serve.app import AiohttpEngine

        return AiohttpEngine(table, options, access)
    return HttptoolsEngine(table, options, access)


class Worker:
    """The serving side of one process. With `reloads`, it reloads itself (SIGHUP, --watch)
    and serves --metrics: there is no supervisor."""

    def __init__(self, table: Table, setup: Setup, *, reloads: bool = False) -> None:
        self.table = table
        self.setup = setup
        self.options = setup.options
        self.reloads = reloads
        self.engine: Engine | None = None
        self.acceptor: Acceptor | None = None
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
        setup, options = self.setup, self.options
        access = None
        if setup.access_fd is not None:
            trusted = (
                TrustedProxies(options.forwarded_allow_ips) if options.forwarded_allow_ips else None
            )
            access = AccessLog(Sink(setup.access_fd), options.access_log_format, trusted=trusted)
        engine = self.engine = make_engine(self.table, options, access)
        acceptor = self.acceptor = Acceptor(
            setup.sock,
            await engine.start(),
            held=engine.open_connections,
            close_idle=engine.close_idle,
            share=setup.counters if options.workers > 1 else None,
            backlog=options.backlog,
        )
        await acceptor.start()
        restore_signals = None
        if signals:
            handlers: dict[int, Callable[[], object]] = dict.fromkeys(STOP_SIGNALS, self._stop.set)
            if hasattr(signal, "SIGHUP"):
                # Without a supervisor, SIGHUP reloads; else it is the supervisor's business.
                handlers[signal.SIGHUP] = self.request_reload if self.reloads else lambda: None
            restore_signals = handle_signals(loop, handlers)
        tasks = [loop.create_task(self._tick())]
        if self.reloads and options.watch:
            tasks.append(loop.create_task(self._watch()))
        metrics_runner = None
        if self.reloads and setup.metrics_sock is not None:
            metrics_runner = await start_endpoint(setup.metrics_sock, setup.counters)
        if on_listening is not None:
            on_listening()
        if self.reloads and not options.watch and not hasattr(signal, "SIGHUP"):
            log.info(
                "this system has no SIGHUP to reload with: run serve with --watch, or restart "
                "it, to serve a changed catalog"
            )
        try:
            await self._stop.wait()
        finally:
            await acceptor.stop()
            if on_stopped_accepting is not None:
                on_stopped_accepting()
            left = await engine.drain()
            if left:
                log.warning(
                    "closed %d connection(s) still open after --shutdown-timeout %gs",
                    left,
                    options.shutdown_timeout,
                )
            for task in tasks:
                task.cancel()
            if self._load is not None:
                self._stop_waiting(self._load)
                self._load.kill()
                self._load = None
            if restore_signals is not None:
                restore_signals()
            if metrics_runner is not None:
                await metrics_runner.cleanup()  # type: ignore[attr-defined]
            self._publish()
            if access is not None:
                access.flush()
                access.sink.close()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _tick(self) -> None:
        """Deadlines (slow heads, idle and stalled connections) and shared counters."""
        loop = asyncio.get_running_loop()
        interval = min(1.0, max(0.05, self.options.keepalive_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            assert self.engine is not None
            self.engine.sweep(loop.time())
            self._publish()

    def _publish(self) -> None:
        engine = self.engine
        if engine is None:
            return
        traffic = engine.traffic
        dropped = traffic.access_log.sink.dropped if traffic.access_log is not None else 0
        if dropped > self._dropped_reported:
            log.warning(
                "access log: %d line(s) dropped, its reader is too slow",
                dropped - self._dropped_reported,
            )
            self._dropped_reported = dropped
        held = self.acceptor.holds() if self.acceptor is not None else engine.open_connections()
        self.setup.counters.publish(traffic.statuses, traffic.bytes_sent, held, dropped)

    # --- reloading (only without a supervisor) ------------------------------------------------

    async def _watch(self) -> None:
        source = self.setup.source
        seen = self.setup.fingerprint
        while True:
            await asyncio.sleep(self.options.watch_interval)
            now = source.fingerprint()
            if now != seen:
                seen = now
                log.info("change detected in %s, reloading", source.display)
                self.request_reload()

    def request_reload(self) -> None:
        """Load in a spawned process; a request arriving meanwhile loads once more after."""
        if self._load is not None:
            self._again = True
            return
        self._again = False
        loop = asyncio.get_running_loop()
        load = self._load = Load(self.setup.source, self.options.reload_timeout)
        try:
            loop.add_reader(load.fileno(), self._loaded, load)
        except NotImplementedError:  # Windows' loops watch no pipe: look at it instead
            loop.call_later(LOAD_POLL, self._look, load)
        loop.call_at(loop.time() + self.options.reload_timeout, self._expire, load)

    def _look(self, load: Load) -> None:
        """Whether the loader has answered (or ended), where the loop cannot watch its pipe."""
        if self._load is not load:
            return
        # wait() takes an object with fileno() on every OS (a pipe handle on Windows).
        if multiprocessing.connection.wait([load], 0):  # type: ignore[list-item]
            self._loaded(load)
        else:
            asyncio.get_running_loop().call_later(LOAD_POLL, self._look, load)

    @staticmethod
    def _stop_waiting(load: Load) -> None:
        with contextlib.suppress(NotImplementedError):  # nothing to stop where it only looks
            asyncio.get_running_loop().remove_reader(load.fileno())

    def _expire(self, load: Load) -> None:
        if self._load is load:
            self._stop_waiting(load)
            load.kill()
            self._load = None
            self._report_failure(f"loading took longer than {self.options.reload_timeout:g} s")

    def _loaded(self, load: Load) -> None:
        assert self._load is load and self.engine is not None
        self._stop_waiting(load)
        self._load = None
        try:
            table = Table(load.result())
        except CatalogError as exc:
            self._report_failure(exc.message)
        else:
            self.table = table
            self.engine.traffic.serve(table)
            self.setup.counters.catalog(table.etag, table.games)
            self.setup.counters.add("reloads")
            log.info("reloaded %s: %s", self.setup.source.display, describe_table(table))
        if self._again:
            self.request_reload()

    def _report_failure(self, reason: str) -> None:
        self.setup.counters.add("failed")
        log.error(
            "reload of %s failed, still serving the previous catalog (%s): %s",
            self.setup.source.display,
            describe_table(self.table),
            reason,
        )
