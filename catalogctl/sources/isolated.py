"""Loading a source in a fresh interpreter: how `serve` reloads.

A running server handles signals through handlers and a wake-up fd, and its supervisor may
hold signals. Loading a big content tree forks worker pools, and a forked child would inherit
all of that: its pool's SIGTERM could reach the server as its own, or be held forever. A
reload therefore loads and renders in a spawned process (a clean exec, default signal
handling) and sends the finished `Site` back. This module imports no HTTP server, so the
spawned interpreter starts with what loading needs.

The loading process parses as the first load did: in parallel from `PARALLEL_THRESHOLD`
pages, in a pool of its own. It never outlives the server: the server kills it when it
exits or gives up on it (and the pool's workers die with it), and it dies with the server
when the server is killed (`die_with_parent`).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from catalogctl.content.pool import die_with_parent, exit_reason
from catalogctl.contract.routes import Site
from catalogctl.errors import CatalogError
from catalogctl.text import path_text

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from catalogctl.sources.served import SiteInput


def _describe(exc: CatalogError) -> str:
    """The message of an error, with its error findings (for a log line)."""
    findings = getattr(exc, "findings", None)
    if not findings:
        return exc.message
    parts = [
        f"{f.file}{f':{f.line}' if f.line else ''}: {f.field + ': ' if f.field else ''}{f.message}"
        for f in findings
        if f.severity == "error"
    ]
    return exc.message + "; " + "; ".join(parts[:20]) + ("; …" if len(parts) > 20 else "")


def _unexpected(exc: BaseException) -> str:
    """What went wrong, for an error no check of the content foresaw."""
    if isinstance(exc, MemoryError):
        return (
            "the loading process ran out of memory; give the server more memory, or serve a "
            "build (`catalogctl build`), which is read without rendering"
        )
    if isinstance(exc, OSError):
        where = f" {path_text(exc.filename)}" if isinstance(exc.filename, str) else ""
        return f"cannot read{where}: {exc.strerror or exc}; check the files and their permissions"
    return (
        f"catalogctl failed while loading ({type(exc).__name__}: {exc}); this is a bug, please "
        "report it with this line. `catalogctl validate` on the same content shows whether the "
        "content or the server is at fault"
    )


def _load_into(source: SiteInput, out: Connection, parent: int) -> None:
    die_with_parent(parent)
    # Exceptions with extra constructor arguments do not survive pickling: send text back.
    try:
        result: tuple[str, object] = ("ok", source.load())
    except CatalogError as exc:
        result = ("error", _describe(exc))
    except Exception as exc:  # noqa: BLE001 - reported to the server's log, not raised
        result = ("error", _unexpected(exc))
    out.send(result)
    out.close()


class IsolatedLoad:
    """`source.load()` in a spawned interpreter, started now; `fileno()` becomes readable
    when it is done, so a server can wait for it in its event or select loop (answering,
    reaping and handling signals meanwhile) and kill it once `deadline` has passed."""

    def __init__(self, source: SiteInput, timeout: float) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._recv, send = context.Pipe(duplex=False)
        # Not daemonic: a daemonic process may not start children, and a big catalog is
        # parsed by a pool of them. The server kills it on every way out (`kill`).
        self._process = context.Process(target=_load_into, args=(source, send, os.getpid()))
        self._process.start()
        send.close()
        self.deadline = time.monotonic() + timeout

    def fileno(self) -> int:
        return self._recv.fileno()

    def result(self, timeout: float | None = None) -> Site:
        """The loaded site; raises `CatalogError` with the reason it could not be loaded.

        A server calls it once `fileno()` is readable; `timeout`: wait that long at most
        for the load to end, and give it up then.
        """
        if timeout is not None and not self._recv.poll(timeout):
            self.kill()
            raise CatalogError(f"loading took longer than {timeout:g} s")
        # An event loop's add_reader may have made the pipe non-blocking (uvloop does): the
        # result is read whole here, however much of it the loader has written yet. Only POSIX
        # has that flag (Windows: the pipe is a handle, which no loop watches).
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(self._recv.fileno(), True)
        try:
            status, value = self._recv.recv()
        except (EOFError, OSError):
            self._process.join(5)  # it ended (its end of the pipe closed with it)
            self.kill()
            raise CatalogError(
                f"the loading process ended ({exit_reason(self._process.exitcode)}) before it "
                "finished; if it was killed for lack of memory, give the server more, or "
                "serve a build (`catalogctl build`)"
            ) from None
        finally:
            self._recv.close()
        self._process.join(5)
        if status != "ok" or not isinstance(value, Site):
            raise CatalogError(str(value))
        return value

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()
        self._process.join(5)
        self._recv.close()
