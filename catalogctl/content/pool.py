"""Parsing many pages on every core, without ever waiting on a process that died.

A worker writes the index of the page it is on into shared memory before it starts it. When a
worker dies (killed, out of memory, a crash in a C extension) or spends longer than
`WORKER_FILE_SECONDS` on one page, the parent knows which page it was: that page gets a
`parser-crash` finding naming it, the rest of the worker's share goes to a fresh worker, and
the run goes on. SIGTERM and SIGINT stop the workers and end the command at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from catalogctl.content.limits import WORKER_FILE_SECONDS

T = TypeVar("T")
R = TypeVar("R")

_IDLE = -1


def _worker(
    slot: int,
    tasks: Any,
    results: Any,
    func: Callable[[Any], Any],
    items: Sequence[Any],
    current: Any,
    started: Any,
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        while True:
            try:
                task = tasks.recv()
            except EOFError:
                return
            if task is None:
                return
            start, end = task
            out = []
            for i in range(start, end):
                current[slot] = i
                started[slot] = time.monotonic()
                out.append(func(items[i]))
            current[slot] = _IDLE
            results.send((start, end, out))
    except (BrokenPipeError, EOFError, KeyboardInterrupt):
        return


def parallel_map(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    crashed: Callable[[T, str], R],
    *,
    chunk: int | None = None,
) -> list[R]:
    """`[func(x) for x in items]` on `workers` forked processes; `crashed(x, why)` stands in for
    the result of an item whose process died or hung."""
    import multiprocessing
    from multiprocessing.connection import wait

    ctx = multiprocessing.get_context("fork")
    n = len(items)
    size = chunk or max(1, -(-n // (workers * 4)))
    queue: list[tuple[int, int]] = [(i, min(n, i + size)) for i in range(0, n, size)]
    queue.reverse()
    results: list[Any] = [None] * n
    current = ctx.RawArray("q", [_IDLE] * workers)
    started = ctx.RawArray("d", [0.0] * workers)
    procs: list[Any] = [None] * workers
    pipes: list[tuple[Any, Any]] = [(None, None)] * workers
    busy: list[tuple[int, int] | None] = [None] * workers

    def start(slot: int) -> None:
        task_parent, task_child = ctx.Pipe()
        result_parent, result_child = ctx.Pipe(duplex=False)
        current[slot] = _IDLE
        proc = ctx.Process(
            target=_worker,
            args=(slot, task_child, result_child, func, items, current, started),
            daemon=True,
        )
        proc.start()
        task_child.close()
        result_child.close()
        procs[slot] = proc
        pipes[slot] = (task_parent, result_parent)

    def stop_all() -> None:
        for proc in procs:
            if proc is not None and proc.is_alive():
                proc.kill()
        for proc in procs:
            if proc is not None:
                proc.join(1)

    def assign(slot: int) -> None:
        if queue:
            busy[slot] = queue.pop()
            pipes[slot][0].send(busy[slot])
        else:
            busy[slot] = None

    previous: dict[signal.Signals, Any] = {}
    retries: dict[tuple[int, int], int] = {}

    def interrupted(signum: int, _frame: Any) -> None:
        stop_all()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
            previous[sig] = signal.signal(sig, interrupted)
    try:
        for slot in range(min(workers, len(queue))):
            start(slot)
            assign(slot)
        while any(b is not None for b in busy):
            active = [s for s in range(workers) if busy[s] is not None]
            ready = wait(
                [pipes[s][1] for s in active] + [procs[s].sentinel for s in active], timeout=1.0
            )
            for slot in active:
                task = busy[slot]
                assert task is not None
                conn, proc = pipes[slot][1], procs[slot]
                if conn in ready:
                    try:
                        begin, end, out = conn.recv()
                    except (EOFError, OSError):
                        pass  # died while sending: handled below as a death
                    else:
                        results[begin:end] = out
                        assign(slot)
                        continue
                hung = (
                    current[slot] != _IDLE
                    and time.monotonic() - started[slot] > WORKER_FILE_SECONDS
                )
                if proc.sentinel not in ready and proc.is_alive() and not hung:
                    continue
                index = current[slot]
                if hung:
                    proc.kill()
                proc.join(1)
                why = (
                    f"took longer than {WORKER_FILE_SECONDS:.0f} s"
                    if hung
                    else f"ended with {_exit_reason(proc.exitcode)}"
                )
                begin, end = task
                if index == _IDLE or not begin <= index < end:
                    # Died before it started an item: retry once, then give the items up.
                    retries[task] = retries.get(task, 0) + 1
                    if retries[task] <= 2:
                        queue.append((begin, end))
                    else:
                        for i in range(begin, end):
                            results[i] = crashed(items[i], why)
                else:
                    # The items before it were done but not sent: they run again.
                    results[index] = crashed(items[index], why)
                    if index + 1 < end:
                        queue.append((index + 1, end))
                    if begin < index:
                        queue.append((begin, index))
                for c in pipes[slot]:
                    c.close()
                start(slot)
                assign(slot)
        for slot in range(workers):
            if procs[slot] is not None:
                with contextlib.suppress(OSError):
                    pipes[slot][0].send(None)
                procs[slot].join(5)
        return results
    finally:
        stop_all()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _exit_reason(code: int | None) -> str:
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
