"""Parsing many pages on every core, without ever waiting on a process that died.

A worker writes the index of the page it is on into shared memory before it starts it. When a
worker dies (killed, out of memory, a crash in a C extension) or the parent has seen it on one
page for longer than `WORKER_FILE_SECONDS`, the parent knows which page it was: that page gets a
`parser-crash` finding naming it, the rest of the worker's share goes to a fresh worker, and
the run goes on. SIGTERM and SIGINT stop the workers and end the command at once. A worker
never outlives the process that started it, even one killed by SIGKILL (`die_with_parent`).

The same code runs on each of multiprocessing's start methods: each chunk of items travels to
its worker through a pipe and the worker sets itself up with `initializer`, so nothing depends
on what a forked child would inherit. `start_method()` says which one a machine uses.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from catalogctl.content.limits import WORKER_FILE_SECONDS

T = TypeVar("T")
R = TypeVar("R")

_IDLE = -1
_STOPS = (signal.SIGTERM, signal.SIGINT)


def start_method() -> str | None:
    """How this machine starts parse workers, or None where the pages are parsed in one process.

    `fork` where the system has it and it is safe: Linux, in a process that runs no other
    thread, started by Python or not (a forked child of a threaded process may inherit a lock
    held by another thread).
    Elsewhere (macOS, where system libraries are not fork-safe; Windows, which has no fork) a
    worker would be a fresh interpreter that spends 0.2 s of CPU importing catalogctl: at the
    threshold that is more than the whole parse in one process (docs/architecture/
    performance.md), so the pages are parsed serially there.
    """
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return None
    if _threads() > 1:
        return None
    return "fork"


def _threads() -> int:
    """How many threads this process runs: the kernel's count (Linux), which includes those a
    library started outside Python's `threading` (an event loop's thread pool, say)."""
    try:
        return sum(1 for _ in Path("/proc/self/task").iterdir())
    except OSError:
        return threading.active_count()


def die_with_parent(parent: int) -> None:
    """End this process when `parent`, the process that asked for it, ends, even by SIGKILL.

    Linux, for a child of `parent` (fork, spawn): the kernel sends SIGKILL
    (`PR_SET_PDEATHSIG`). Otherwise (macOS, Windows, a child of a fork server) a thread
    watches the parent (`watch_parent`).
    """
    kill = getattr(signal, "SIGKILL", None)  # Windows has none
    if kill is not None and os.getppid() == parent and signal_when_parent_dies(kill):
        if os.getppid() != parent:  # it died before prctl took effect
            os._exit(1)
        return
    import multiprocessing

    started_by = multiprocessing.parent_process()
    if started_by is not None:  # always, for the processes catalogctl starts
        watch_parent(started_by.sentinel)


def signal_when_parent_dies(sig: int) -> bool:
    """Ask the kernel to send `sig` to this process when its parent ends, even by SIGKILL
    (Linux's `PR_SET_PDEATHSIG`); False where it cannot (macOS and Windows have no prctl)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(1, sig) == 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False


def watch_parent(
    sentinel: Any, on_death: Callable[[], object] = lambda: os._exit(1)
) -> threading.Thread:
    """A daemon thread that calls `on_death` once the parent has ended: its `sentinel` (from
    multiprocessing: a pipe or a process handle) is ready, or, on POSIX, this process was
    handed to another parent."""
    from multiprocessing.connection import wait

    parent = os.getppid()

    def watch() -> None:
        while not wait([sentinel], timeout=1.0):
            if os.name == "posix" and os.getppid() != parent:
                break
        on_death()

    thread = threading.Thread(target=watch, name="parent-watch", daemon=True)
    thread.start()
    return thread


def _worker(
    slot: int,
    tasks: Any,
    results: Any,
    func: Callable[[Any], Any],
    current: Any,
    parent: int,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> None:
    for sig in _STOPS:
        signal.signal(sig, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # held while it started
    die_with_parent(parent)
    try:
        if initializer is not None:
            initializer(*initargs)
        while True:
            try:
                task = tasks.recv()
            except EOFError:
                return
            if task is None:
                return
            start, chunk = task
            out = []
            for offset, item in enumerate(chunk):
                current[slot] = start + offset
                out.append(func(item))
            current[slot] = _IDLE
            results.send((start, start + len(chunk), out))
    except (BrokenPipeError, EOFError, KeyboardInterrupt):
        return


def parallel_map(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    crashed: Callable[[T, str], R],
    *,
    chunk: int | None = None,
    method: str = "fork",
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> list[R]:
    """`[func(x) for x in items]` on `workers` processes started by `method` (see
    `start_method`), each of which first calls `initializer(*initargs)`; `crashed(x, why)`
    stands in for the result of an item whose process died or hung.

    With a start method other than fork, `func`, the items, `initializer` and `initargs` must
    pickle, and `func` and `initializer` be importable by name.
    """
    pool = _Pool(func, items, workers, crashed, chunk, method, (initializer, initargs))
    previous: dict[signal.Signals, Any] = {}

    def interrupted(signum: int, _frame: Any) -> None:
        # The workers die now; the exception is raised below, once the pool's loop has seen
        # the signal. Raised from here, it could land inside multiprocessing's own bookkeeping
        # (a worker's finalizer half made), which then fails with a traceback at exit.
        pool.signalled = signum
        pool.kill_all()

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
            previous[sig] = signal.signal(sig, interrupted)
    try:
        results = pool.run()
    except OSError:  # a pipe to a worker the signal killed, broken under the pool's feet
        if pool.signalled is None:
            raise
        results = []
    finally:
        pool.stop_all()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if pool.signalled == signal.SIGINT:
        raise KeyboardInterrupt
    if pool.signalled is not None:
        raise SystemExit(128 + pool.signalled)
    return results


class _Pool(Generic[T, R]):
    """The workers of one `parallel_map`, the chunks still to do and the item each worker is on."""

    def __init__(
        self,
        func: Callable[[T], R],
        items: Sequence[T],
        workers: int,
        crashed: Callable[[T, str], R],
        chunk: int | None,
        method: str,
        setup: tuple[Callable[..., object] | None, tuple[Any, ...]],
    ) -> None:
        import multiprocessing

        self.ctx: Any = multiprocessing.get_context(method)
        self.func, self.items, self.workers, self.crashed = func, items, workers, crashed
        self.setup = setup
        n = len(items)
        size = chunk or max(1, -(-n // (workers * 4)))
        self.queue: list[tuple[int, int]] = [(i, min(n, i + size)) for i in range(0, n, size)]
        self.queue.reverse()
        self.results: list[Any] = [None] * n
        self.current = self.ctx.RawArray("q", [_IDLE] * workers)
        # What the parent saw each worker on, and since when by its own clock: a time the
        # worker wrote could be stale (a worker paused between writing the page and the time
        # would be judged by the last page's time, or by 0 on its first).
        self.seen: list[tuple[int, float]] = [(_IDLE, 0.0)] * workers
        self.procs: list[Any] = [None] * workers
        self.pipes: list[tuple[Any, Any]] = [(None, None)] * workers
        self.busy: list[tuple[int, int] | None] = [None] * workers
        self.retries: dict[tuple[int, int], int] = {}
        self.signalled: int | None = None  # SIGTERM or SIGINT received: stop

    def run(self) -> list[R]:
        from multiprocessing.connection import wait

        for slot in range(min(self.workers, len(self.queue))):
            self.start(slot)
            self.assign(slot)
        while self.signalled is None and any(b is not None for b in self.busy):
            active = [s for s in range(self.workers) if self.busy[s] is not None]
            ready = wait(
                [self.pipes[s][1] for s in active] + [self.procs[s].sentinel for s in active],
                timeout=1.0,
            )
            if self.signalled is not None:
                break
            for slot in active:
                self.poll(slot, ready)
        if self.signalled is not None:
            return self.results
        for slot in range(self.workers):
            if self.procs[slot] is not None:
                with contextlib.suppress(OSError):
                    self.pipes[slot][0].send(None)
                self.procs[slot].join(5)
        return self.results

    def start(self, slot: int) -> None:
        task_parent, task_child = self.ctx.Pipe()
        result_parent, result_child = self.ctx.Pipe(duplex=False)
        self.current[slot] = _IDLE
        self.seen[slot] = (_IDLE, 0.0)
        proc = self.ctx.Process(
            target=_worker,
            args=(
                slot,
                task_child,
                result_child,
                self.func,
                self.current,
                os.getpid(),
                *self.setup,
            ),
            daemon=True,
        )
        # SIGTERM and SIGINT wait until the worker has set its own handlers: a Ctrl-C reaching
        # a fresh interpreter while it imports would print a traceback. The parent kills the
        # workers itself when it gets one.
        held = hasattr(signal, "pthread_sigmask")
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS) if held else set()
        try:
            proc.start()
        finally:
            if held:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        task_child.close()
        result_child.close()
        self.procs[slot] = proc
        self.pipes[slot] = (task_parent, result_parent)

    def kill_all(self) -> None:
        """SIGKILL every worker still running (safe in a signal handler: no waiting)."""
        for proc in self.procs:
            if proc is not None:
                proc.kill()  # nothing happens to one already reaped

    def stop_all(self) -> None:
        self.kill_all()
        for proc in self.procs:
            if proc is not None:
                proc.join(1)

    def assign(self, slot: int) -> None:
        if self.queue:
            begin, end = self.busy[slot] = self.queue.pop()
            self.pipes[slot][0].send((begin, self.items[begin:end]))
        else:
            self.busy[slot] = None

    def poll(self, slot: int, ready: list[Any]) -> None:
        """Take a worker's finished chunk, or replace the worker when it died or hung."""
        task = self.busy[slot]
        assert task is not None
        conn, proc = self.pipes[slot][1], self.procs[slot]
        if conn in ready:
            try:
                begin, end, out = conn.recv()
            except (EOFError, OSError):
                pass  # died while sending: handled below as a death
            else:
                self.results[begin:end] = out
                self.assign(slot)
                return
        hung = self.hung(slot)
        if proc.sentinel not in ready and proc.is_alive() and hung is None:
            return
        if hung is not None:
            proc.kill()
        proc.join(1)
        index = self.current[slot] if hung is None else hung
        why = (
            f"took longer than {WORKER_FILE_SECONDS:.0f} s"
            if hung is not None
            else f"ended with {exit_reason(proc.exitcode)}"
        )
        self.give_up(task, index, why)
        for c in self.pipes[slot]:
            c.close()
        self.start(slot)
        self.assign(slot)

    def hung(self, slot: int) -> int | None:
        """The item a worker has been on for longer than `WORKER_FILE_SECONDS` since the parent
        first saw it there, or None. The loop looks at least once a second, so an item gets at
        least its time, at most a second more."""
        index, since = self.seen[slot]
        now = time.monotonic()
        current = self.current[slot]
        if current != index:
            self.seen[slot] = (current, now)
            return None
        if current != _IDLE and now - since > WORKER_FILE_SECONDS:
            return int(current)
        return None

    def give_up(self, task: tuple[int, int], index: int, why: str) -> None:
        """A dead worker's chunk: the item it was on is `crashed`, the rest goes back in line."""
        begin, end = task
        if index == _IDLE or not begin <= index < end:
            # Died before it started an item: retry once, then give the items up.
            self.retries[task] = self.retries.get(task, 0) + 1
            if self.retries[task] <= 2:
                self.queue.append((begin, end))
            else:
                for i in range(begin, end):
                    self.results[i] = self.crashed(self.items[i], why)
        else:
            # The items before it were done but not sent: they run again.
            self.results[index] = self.crashed(self.items[index], why)
            if index + 1 < end:
                self.queue.append((index + 1, end))
            if begin < index:
                self.queue.append((begin, index))


def exit_reason(code: int | None) -> str:
    """How a process ended, from its exit code (negative: the signal that ended it)."""
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
