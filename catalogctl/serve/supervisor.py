"""`--workers N`: a supervisor that renders once and forks workers that inherit the result.

The supervisor has no event loop: it waits in `select` on a signal pipe, the workers' event
pipe and a running load. Workers inherit the listening socket and the prepared responses
(copy-on-write, so N workers hold one catalog).

Reload (SIGHUP, or a change seen by --watch): the supervisor loads and renders the new
catalog once, in a spawned process. If that fails, nothing changes and the log says why. If
it succeeds, it forks a new generation of workers on the new catalog; once every one of them
is accepting, the old generation stops accepting and drains, and only then does the log say
"reloaded" (with the new ETag and game count): from that moment every new connection gets
the new catalog. If the new workers do not start, the old ones stay.

A worker that dies is restarted, at once the first time, then with a growing delay; repeated
deaths are reported as a crash loop. SIGTERM/SIGINT stop the workers gracefully; whatever
their clients do, the supervisor exits within `--shutdown-timeout` (plus a second's grace,
after which the workers are killed).

POSIX only (it forks, and waits on pipes with select): `serve` refuses `--workers` more than 1
where the OS cannot fork (Windows), and imports this module only when it runs it. The
module itself imports anywhere. A worker stops when its supervisor dies, even by SIGKILL: at
once on Linux (PR_SET_PDEATHSIG), within a second elsewhere (macOS: it sees its parent change).

Why one module: the supervisor is one state machine in one process: the children, the pending
generation, the switch-over and the restart schedule are read and written by every step of its
loop; split up, each piece would take the whole state as a parameter.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import select
import signal
import struct
import time
from collections import deque
from collections.abc import Callable

from catalogctl.content.pool import signal_when_parent_dies
from catalogctl.errors import CatalogError
from catalogctl.serve.metrics import start_endpoint
from catalogctl.serve.options import Ready, Setup
from catalogctl.serve.responses import Table
from catalogctl.serve.worker import Worker, describe_table, new_event_loop
from catalogctl.sources.isolated import IsolatedLoad as Load

log = logging.getLogger("catalogctl.serve")

# SIGHUP and SIGCHLD exist wherever the supervisor runs; the names are looked up so that the
# module imports on every OS.
_SIGNALS = tuple(
    getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP", "SIGCHLD") if hasattr(signal, n)
)
PARENT_CHECK = 1.0  # seconds between two looks at a worker's parent, where the kernel does not tell
_EVENT = struct.Struct("=iB")  # (pid, code): atomic on a pipe
_LISTENING, _STOPPED_ACCEPTING = ord("L"), ord("S")
START_TIMEOUT = 30.0  # seconds a generation of workers has to start listening
CRASH_WINDOW = 60.0  # deaths within this many seconds count towards a crash loop
CRASH_LOOP = 3
MAX_BACKOFF = 30.0
GRACE = 1.0  # after --shutdown-timeout, before workers are killed


class SignalInbox:
    """Signals as bytes on a pipe (`signal.set_wakeup_fd`), so the supervisor waits with
    select and never holds signals blocked (a child it forks would inherit a blocked mask)."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)
        self.previous_fd = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)
        self.previous = {sig: signal.signal(sig, self._noop) for sig in _SIGNALS}

    @staticmethod
    def _noop(signum: int, frame: object) -> None:
        """The number arrives on the wake-up fd; nothing to do here."""

    def read(self) -> list[int]:
        with contextlib.suppress(BlockingIOError):
            return list(os.read(self.read_fd, 256))
        return []

    def forget(self) -> None:
        """In a forked child: default signal handling, before it sets up its own."""
        signal.set_wakeup_fd(-1)
        for sig in _SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        os.close(self.read_fd)
        os.close(self.write_fd)

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        os.close(self.read_fd)
        os.close(self.write_fd)


@dataclasses.dataclass(slots=True)
class Child:
    kind: str  # "worker" or "metrics"
    generation: int
    slot: int
    started: float
    listening: bool = False
    stopped_accepting: bool = False
    retiring: bool = False


def _die_with_parent() -> bool:
    """Linux: a child gets SIGTERM when its supervisor dies, even by SIGKILL. False where the
    kernel cannot do that (macOS: no prctl): the child then looks itself (`_stop_if_orphaned`)."""
    parent = os.getppid()
    told = signal_when_parent_dies(signal.SIGTERM)
    if os.getppid() != parent:  # the supervisor died before prctl took effect
        os._exit(0)
    return told


def _stop_if_orphaned(parent: int, stop: Callable[[], object]) -> None:
    """Where the kernel does not stop a child with its parent: stop gracefully once the
    supervisor is gone (the child is handed to another parent), looking once a second."""
    import asyncio

    if os.getppid() != parent:
        log.warning("the supervisor (pid %d) is gone; stopping", parent)
        stop()
        return
    asyncio.get_running_loop().call_later(PARENT_CHECK, _stop_if_orphaned, parent, stop)


class Supervisor:
    def __init__(self, table: Table, setup: Setup) -> None:
        self.table = table
        self.setup = setup
        self.options = setup.options
        self.source = setup.source
        self.counters = setup.counters
        self.fingerprint = setup.fingerprint
        self.children: dict[int, Child] = {}
        self.generation = 0
        self.stopping = False
        self.stop_deadline = 0.0
        self.load: Load | None = None
        self.again = False
        self.pending: tuple[int, Table, float] | None = None  # generation, table, deadline
        self.switching: tuple[Table, set[int]] | None = None  # new table, old pids
        self.restarts: list[tuple[float, str]] = []  # (when, kind)
        self.deaths: deque[float] = deque()
        self.inbox: SignalInbox | None = None
        self.events_r = self.events_w = -1

    # --- children ----------------------------------------------------------------------------

    def _fork(self, kind: str, table: Table, generation: int) -> int:
        slot = self.counters.claim() if kind == "worker" else -1
        assert self.inbox is not None
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's side is seen through its behaviour
            code = 0
            try:
                self.inbox.forget()
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                os.close(self.events_r)
                if self.load is not None:
                    os.close(self.load.fileno())
                watch_parent = not _die_with_parent()
                if kind == "worker":
                    self.counters.slot = slot
                    self._run_worker(table, watch_parent)
                else:
                    self._run_metrics(watch_parent)
            except CatalogError as exc:
                log.error("%s %d: %s", kind, os.getpid(), exc.message)  # noqa: TRY400 - no traceback for a known error
                code = 2
            except BaseException:
                log.exception("%s %d failed", kind, os.getpid())
                code = 1
            finally:
                for handler in logging.getLogger("catalogctl").handlers + log.handlers:
                    with contextlib.suppress(Exception):
                        handler.flush()
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        self.counters.set_pid(slot, pid)
        self.children[pid] = Child(kind, generation, slot, time.monotonic())
        return pid

    def _notify(self, code: int) -> None:
        with contextlib.suppress(OSError):
            os.write(self.events_w, _EVENT.pack(os.getpid(), code))

    def _run_worker(self, table: Table, watch_parent: bool) -> None:
        if self.setup.metrics_sock is not None:
            self.setup.metrics_sock.close()
        worker = Worker(table, self.setup)
        loop = new_event_loop()
        if watch_parent:
            loop.call_later(PARENT_CHECK, _stop_if_orphaned, os.getppid(), worker.stop)
        try:
            loop.run_until_complete(
                worker.run(
                    on_listening=lambda: self._notify(_LISTENING),
                    on_stopped_accepting=lambda: self._notify(_STOPPED_ACCEPTING),
                )
            )
        finally:
            loop.close()

    def _run_metrics(self, watch_parent: bool) -> None:
        import asyncio

        metrics_sock = self.setup.metrics_sock
        assert metrics_sock is not None
        self.setup.sock.close()

        async def serve_metrics() -> None:
            loop = asyncio.get_running_loop()
            stop = asyncio.Event()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            loop.add_signal_handler(signal.SIGHUP, lambda: None)
            if watch_parent:
                _stop_if_orphaned(os.getppid(), stop.set)
            runner = await start_endpoint(metrics_sock, self.counters)
            self._notify(_LISTENING)
            await stop.wait()
            await runner.cleanup()  # type: ignore[attr-defined]

        loop = new_event_loop()
        try:
            loop.run_until_complete(serve_metrics())
        finally:
            loop.close()

    def _signal(self, pids: object, sig: signal.Signals) -> None:
        for pid in list(pids):  # type: ignore[call-overload]
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _reap(self) -> None:
        for pid in list(self.children):
            try:
                got, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                got, status = pid, 0
            if got != pid:
                continue
            child = self.children.pop(pid)
            self.counters.retire(child.slot)
            if self.stopping or child.retiring:
                continue
            self._died(pid, child, status)

    def _died(self, pid: int, child: Child, status: int) -> None:
        how = (
            f"signal {os.WTERMSIG(status)}"
            if os.WIFSIGNALED(status)
            else f"exit status {os.waitstatus_to_exitcode(status)}"
        )
        if self.pending is not None and child.generation == self.pending[0]:
            self._abandon_pending(f"a new worker exited before it listened ({how})")
            return
        now = time.monotonic()
        self.counters.add("crashes")
        self.deaths.append(now)
        while self.deaths and now - self.deaths[0] > CRASH_WINDOW:
            self.deaths.popleft()
        recent = len(self.deaths)
        delay = 0.0 if recent <= 1 else min(MAX_BACKOFF, 0.5 * 2 ** (recent - 2))
        if recent >= CRASH_LOOP:
            log.error(
                "crash loop: %s %d exited (%s), %d exits in the last %d s; restarting in %g s",
                child.kind,
                pid,
                how,
                recent,
                CRASH_WINDOW,
                delay,
            )
        else:
            log.error("%s %d exited unexpectedly (%s); restarting it", child.kind, pid, how)
        self.restarts.append((now + delay, child.kind))

    def _events(self) -> None:
        try:
            data = os.read(self.events_r, _EVENT.size * 800)
        except BlockingIOError:
            return
        for offset in range(0, len(data) - _EVENT.size + 1, _EVENT.size):
            pid, code = _EVENT.unpack_from(data, offset)
            child = self.children.get(pid)
            if child is None:
                continue
            if code == _LISTENING:
                child.listening = True
            elif code == _STOPPED_ACCEPTING:
                child.stopped_accepting = True

    # --- reload ------------------------------------------------------------------------------

    def request_reload(self) -> None:
        if self.stopping:
            return
        if self.load is not None or self.pending is not None or self.switching is not None:
            self.again = True
            return
        self.again = False
        self.load = Load(self.source, self.options.reload_timeout)

    def _loaded(self) -> None:
        load, self.load = self.load, None
        assert load is not None
        try:
            table = Table(load.result())
        except CatalogError as exc:
            self._failed(exc.message)
            return
        generation = self.generation + 1
        for _ in range(self.options.workers):
            self._fork("worker", table, generation)
        self.pending = (generation, table, time.monotonic() + START_TIMEOUT)

    def _failed(self, reason: str) -> None:
        self.counters.add("failed")
        log.error(
            "reload of %s failed, every worker still serves the previous catalog (%s): %s",
            self.source.display,
            describe_table(self.table),
            reason,
        )
        if self.again:
            self.request_reload()

    def _abandon_pending(self, reason: str) -> None:
        assert self.pending is not None
        generation = self.pending[0]
        self.pending = None
        doomed = [pid for pid, c in self.children.items() if c.generation == generation]
        for pid in doomed:
            self.children[pid].retiring = True
        self._signal(doomed, signal.SIGKILL)
        self._failed(reason)

    def _advance(self) -> None:
        """Move a reload on: new workers all listening → old ones stop → announce."""
        now = time.monotonic()
        if self.pending is not None:
            generation, table, deadline = self.pending
            new = [c for c in self.children.values() if c.generation == generation]
            if len(new) == self.options.workers and all(c.listening for c in new):
                old = {
                    pid
                    for pid, c in self.children.items()
                    if c.kind == "worker" and c.generation != generation
                }
                for pid in old:
                    self.children[pid].retiring = True
                self._signal(old, signal.SIGTERM)
                self.pending = None
                self.generation = generation
                self.table = table  # a worker restarted from now on serves the new one
                self.switching = (table, old)
            elif now > deadline:
                self._abandon_pending(f"the new workers did not listen within {START_TIMEOUT:g} s")
        if self.switching is not None:
            table, old = self.switching
            if all(pid not in self.children or self.children[pid].stopped_accepting for pid in old):
                self.switching = None
                self.counters.catalog(table.etag, table.games)
                self.counters.add("reloads")
                log.info(
                    "reloaded %s: %s; all %d workers serve it",
                    self.source.display,
                    describe_table(table),
                    self.options.workers,
                )
                if self.again:
                    self.request_reload()

    # --- the loop ----------------------------------------------------------------------------

    def run(self, on_ready: Callable[[Ready], None] | None, ready: Ready) -> None:
        self.inbox = SignalInbox()
        self.events_r, self.events_w = os.pipe()
        os.set_blocking(self.events_r, False)
        try:
            self._start(on_ready, ready)
            self._loop()
        finally:
            if self.load is not None:
                self.load.kill()
            if self.children:
                self._signal(self.children, signal.SIGKILL)
                for pid in list(self.children):
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, 0)
            os.close(self.events_r)
            os.close(self.events_w)
            self.inbox.close()

    def _start(self, on_ready: Callable[[Ready], None] | None, ready: Ready) -> None:
        for _ in range(self.options.workers):
            self._fork("worker", self.table, 0)
        if self.setup.metrics_sock is not None:
            self._fork("metrics", self.table, 0)
        deadline = time.monotonic() + START_TIMEOUT
        hangup = False  # a reload asked for while the workers start: done once they listen
        while not all(c.listening for c in self.children.values()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise CatalogError("the workers did not start listening in time")
            select.select([self.events_r, self.inbox.read_fd], [], [], left)  # type: ignore[union-attr]
            received = self.inbox.read()  # type: ignore[union-attr]
            self._events()
            if signal.SIGTERM in received or signal.SIGINT in received:
                return self._begin_stop()
            hangup = hangup or signal.SIGHUP in received
            for pid in list(self.children):
                with contextlib.suppress(ChildProcessError):
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        self.children.pop(pid)
                        raise CatalogError("a worker exited before it started listening")
        self.counters.catalog(self.table.etag, self.table.games)
        if on_ready is not None:
            on_ready(ready)
        if hangup:
            signal.raise_signal(signal.SIGHUP)  # to the inbox: the loop reloads
        return None

    def _begin_stop(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        self.stop_deadline = time.monotonic() + self.options.shutdown_timeout + GRACE
        if self.load is not None:
            self.load.kill()
            self.load = None
        self._signal(self.children, signal.SIGTERM)

    def _loop(self) -> None:
        assert self.inbox is not None
        next_watch = time.monotonic() + self.options.watch_interval
        while True:
            if self.stopping and not self.children:
                return
            readable = self._wait(next_watch)
            received = self.inbox.read() if self.inbox.read_fd in readable else []
            if self.events_r in readable:
                self._events()
            if signal.SIGTERM in received or signal.SIGINT in received:
                self._begin_stop()
            self._reap()
            if self.stopping:
                self._kill_overdue()
                continue
            self._load_progress(readable)
            if signal.SIGHUP in received:
                self.request_reload()
            if self.options.watch and time.monotonic() >= next_watch:
                next_watch = time.monotonic() + self.options.watch_interval
                self._watch()
            self._advance()
            self._restart_due()

    def _wait(self, next_watch: float) -> list[int]:
        """The readable pipes: signals, worker events, a finished load; at most until the
        next thing is due (a watch, a restart, a deadline) and never longer than a second."""
        assert self.inbox is not None
        now = time.monotonic()
        due = [next_watch] if self.options.watch and not self.stopping else []
        due += [when for when, _ in self.restarts]
        if self.load is not None:
            due.append(self.load.deadline)
        if self.pending is not None:
            due.append(self.pending[2])
        if self.stopping:
            due.append(self.stop_deadline)
        timeout = max(0.0, min(due) - now) if due else 1.0
        fds = [self.inbox.read_fd, self.events_r]
        if self.load is not None:
            fds.append(self.load.fileno())
        try:
            return select.select(fds, [], [], min(timeout, 1.0))[0]
        except InterruptedError:
            return []

    def _kill_overdue(self) -> None:
        """Stopping: kill what still runs after --shutdown-timeout (and the grace second)."""
        if time.monotonic() > self.stop_deadline and self.children:
            log.warning(
                "killing %d process(es) still running after --shutdown-timeout",
                len(self.children),
            )
            self._signal(self.children, signal.SIGKILL)
            for pid in list(self.children):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
                self.children.pop(pid)

    def _load_progress(self, readable: list[int]) -> None:
        """A reload's load that finished (its pipe is readable) or ran out of time."""
        if self.load is not None and self.load.fileno() in readable:
            self._loaded()
        elif self.load is not None and self.load.expired():
            self.load.kill()
            self.load = None
            self._failed(f"loading took longer than {self.options.reload_timeout:g} s")

    def _watch(self) -> None:
        """--watch: reload when the source's fingerprint changed."""
        now_print = self.source.fingerprint()
        if now_print != self.fingerprint:
            self.fingerprint = now_print
            log.info("change detected in %s, reloading", self.source.display)
            self.request_reload()

    def _restart_due(self) -> None:
        now = time.monotonic()
        due = [item for item in self.restarts if item[0] <= now]
        self.restarts = [item for item in self.restarts if item[0] > now]
        for _, kind in due:
            self._fork(kind, self.table, self.generation)
