"""The accepting of one serve worker when descriptors run out: what its log says, and when.

The whole path (a process with a low open-file limit, connections that wait) is tested in
tests/test_serve_processes.py; here the timing of the log lines, which that test cannot pin.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import Iterator

import pytest

from catalogctl.serve import acceptor as acceptor_module
from catalogctl.serve.acceptor import Acceptor
from tests.processes import wait_until_async

EMFILE = OSError(errno.EMFILE, "Too many open files")


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    yield sock
    sock.close()


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]


async def test_idle_connections_closed_after_a_report_are_told_within_a_second(
    listener: socket.socket, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first failure is logged at once; the next, within the second, closes idle
    connections and is told when the second is over, though accepting never fails again."""
    monkeypatch.setattr(acceptor_module, "REPORT_EVERY", 0.3)
    caplog.set_level(logging.ERROR, logger="catalogctl.serve")
    closable = iter([0, 32, 0])
    acceptor = Acceptor(
        listener, asyncio.Protocol, held=lambda: 82, close_idle=lambda n: next(closable)
    )
    loop = asyncio.get_running_loop()
    await acceptor.start()

    async def told_twice() -> bool:
        return len(_errors(caplog)) == 2

    try:
        first = loop.time()  # (before: the acceptor counts the second from its own clock read)
        acceptor._cannot_accept(EMFILE)
        assert len(_errors(caplog)) == 1
        assert "idle ones closed" not in _errors(caplog)[0]
        acceptor._cannot_accept(EMFILE)
        assert len(_errors(caplog)) == 1  # at most one line a REPORT_EVERY
        await wait_until_async(told_twice, timeout=10, what="the line held back")
        assert loop.time() - first >= 0.29
        assert "82 connections open, 32 idle ones closed to make room" in _errors(caplog)[1]
        # That line starts the next second: a failure now waits for its end again.
        acceptor._cannot_accept(EMFILE)
        assert len(_errors(caplog)) == 2
    finally:
        await acceptor.stop()
    assert len(_errors(caplog)) == 3


async def test_a_failure_not_told_yet_is_told_when_the_worker_stops(
    listener: socket.socket, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="catalogctl.serve")
    acceptor = Acceptor(listener, asyncio.Protocol, held=lambda: 7, close_idle=lambda n: 3)
    await acceptor.start()
    acceptor._cannot_accept(EMFILE)
    acceptor._cannot_accept(EMFILE)
    assert len(_errors(caplog)) == 1
    await acceptor.stop()
    assert len(_errors(caplog)) == 2
    assert "3 idle ones closed to make room" in _errors(caplog)[1]
