"""How a worker takes connections from the listening socket it shares with the other workers.

serve accepts connections itself instead of leaving that to the event loop's server
(`loop.create_server`), for two things neither loop does:

- **Descriptors.** A process that has as many descriptors open as its limit allows
  (RLIMIT_NOFILE) cannot accept: accept fails with EMFILE. uvloop (libuv) then accepts every
  waiting connection on a spare descriptor and closes it at once, and says nothing: each client
  sees its connection closed unanswered. asyncio's own loop logs a traceback for every failed
  accept and stops accepting for a second. Here the worker closes connections that have
  waited a second or more for a request (oldest first, `CLOSE_IDLE` at a time, as nginx
  reuses idle connections) and accepts again; with none such, it stops accepting for `RETRY`
  seconds and the connections wait in the listen queue. It logs at most once a second what
  the limit is and how to raise it. At start, serve raises its soft limit to the hard limit
  (`raise_open_files_limit`), so the usual soft limit of 1,024 does not cap it.
- **Balance.** Every worker is woken when a connection arrives, and whichever runs first
  accepts all that wait: connections opened at once (by a proxy, a load tester, a burst of
  clients) pile up on one worker. Each worker publishes how many connections it holds
  (`Counters`). Of the connections waiting, a worker takes up to its share (at least one):
  its part of all the connections held and waiting, where the kernel says how many wait
  (Linux), so that in a burst each takes its part at once; elsewhere, as many as the least
  loaded other worker holds. Over its share by more than a sixteenth (`SLACK` at least), it
  leaves new connections to the others, looking again every `STAND_BACK` seconds, unless it
  accepts more connections a second than it holds (connections that come and go share
  themselves out). If connections wait and no other worker has taken one for `STALLED`
  seconds (it is stopped, or stuck), it takes them after all: a worker that does not accept
  never holds connections up for longer than that.

Where the loop cannot watch a socket (Windows' proactor loop, which runs one worker), the
loop's own server accepts.

Why one module: standing back for the share and stopping short of descriptors are two ways
one accept loop stops, and both start again from the same state (whether the listener is
watched, the one timer pending, the counts); apart, each would take that state as
parameters.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import select
import socket
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catalogctl.serve.metrics import Counters

log = logging.getLogger("catalogctl.serve")

RETRY = 0.1  # seconds between two tries to accept while descriptors are short
REPORT_EVERY = 1.0  # seconds between two log lines saying a worker cannot accept
STAND_BACK = 0.01  # seconds between two looks of a worker over its share at the others
STALLED = 0.5  # seconds without another worker accepting, after which it accepts after all
SLACK = 4  # connections over its share a worker may hold, at least, and still accept
BATCH = 256  # connections accepted per wake-up at most: the open ones get their turn too
STOP_WAIT = 1.0  # seconds a stopping worker waits for the loop to connect what it accepted
CLOSE_IDLE = 32  # idle connections closed at a time when descriptors run out (as nginx)
# A start-up line names the limit below this many descriptors per process.
LOW_OPEN_FILES = 4096
# macOS refuses a soft limit above OPEN_MAX (kern.maxfilesperproc) even when the hard limit is
# unlimited.
_DARWIN_OPEN_MAX = 10240
# Errors of one connection that accept reports (accept(2), "Error handling"): the next
# connection is accepted as if nothing happened.
_GONE = {
    errno.ECONNABORTED,
    errno.EPROTO,
    errno.EPERM,  # a firewall rule refused it
    errno.ENETDOWN,
    errno.ENOPROTOOPT,
    errno.EHOSTDOWN,
    errno.EHOSTUNREACH,
    errno.EOPNOTSUPP,
    errno.ENETUNREACH,
}
_SHORT = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
# struct tcp_info (linux/tcp.h): eight one-byte fields, then rto, ato, snd_mss, rcv_mss and
# unacked (u32 each); on a listening socket `unacked` is the length of its accept queue.
_UNACKED, _UNACKED_AT = struct.Struct("=I"), 24
_TCP_INFO_SIZE = 32

Factory = Callable[[], asyncio.BaseProtocol]


def open_files_limit() -> int | None:
    """How many descriptors this process may open (its soft RLIMIT_NOFILE); None where the
    system has no such limit (Windows) or it is unlimited."""
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def raise_open_files_limit() -> int | None:
    """Raise the soft open-file limit to the hard limit; the limit now (`open_files_limit`).

    A shell or a service manager starts a process with a soft limit of 1,024 (kept for
    programs that use `select`, which cannot watch a higher descriptor) and a hard limit that
    the process may raise it to; serve's event loops use epoll or kqueue.
    """
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        targets = [hard]
        if hard == resource.RLIM_INFINITY or hard > _DARWIN_OPEN_MAX:
            targets.append(_DARWIN_OPEN_MAX)
        for target in targets:
            if target <= soft:
                break
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            except (ValueError, OSError):
                continue
            break
    return open_files_limit()


def _queued(sock: socket.socket) -> int | None:
    """How many connections wait in the listen queue of `sock`, where the kernel says: Linux
    gives it as `tcpi_unacked` of TCP_INFO on a listening TCP socket."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
    except (AttributeError, OSError):  # another system; a Unix socket
        return None
    return int(_UNACKED.unpack_from(info, _UNACKED_AT)[0]) if len(info) >= _TCP_INFO_SIZE else None


def _waiting(fd: int) -> bool:
    """Whether connections wait on the listening socket `fd` (without accepting one)."""
    poller = select.poll()  # (only with workers: never on Windows)
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


class Acceptor:
    """One worker's accepting: `start` watches the listener, `stop` closes this worker's copy
    of it (the connections waiting stay queued for the other workers)."""

    def __init__(
        self,
        sock: socket.socket,
        factory: Factory,
        *,
        held: Callable[[], int],
        close_idle: Callable[[int], int],
        share: Counters | None = None,
        backlog: int = 1024,
    ) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.factory = factory
        self.held = held  # connections this worker's engine holds
        self.close_idle = close_idle  # closes up to N of them waiting for a request; how many
        self.share = share  # every worker's counts (None: this is the only worker)
        self.backlog = backlog
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: asyncio.AbstractServer | None = None  # the loop's, where it must accept
        self.connecting: set[asyncio.Task[object]] = set()  # accepted, not connected yet
        self.watching = False
        self.stopped = False
        self.later: asyncio.Handle | None = None
        self.others = 0  # what the other workers had accepted when this one stood back
        self.since = 0.0  # when it stood back, or last saw another worker accept
        self.stalled: int | None = None  # what the others had accepted when found stalled
        self.reported = -math.inf
        self.unreported: OSError | None = None  # the last failure not logged yet
        self.report_later: asyncio.TimerHandle | None = None
        self.closed_idle = 0  # idle connections closed for room since the last report
        self.accepted = 0  # connections accepted, all told
        self.window = 0.0  # when the rate below was last counted
        self.counted = 0  # `accepted` then
        self.rate = 0.0  # connections accepted per second, then
        self.limit = open_files_limit()

    async def start(self) -> None:
        loop = self.loop = asyncio.get_running_loop()
        try:
            loop.add_reader(self.fd, self._readable)
        except NotImplementedError:
            self.server = await loop.create_server(
                self.factory, sock=self.sock, backlog=self.backlog
            )
            return
        self.watching = True
        if self.share is not None:
            self.share.accepting(True)

    async def stop(self) -> None:
        """Accept no more; return once the connections accepted are connected (the engine
        then closes or finishes them as it stops)."""
        self.stopped = True
        if self.share is not None:
            self.share.accepting(False)
        if self.later is not None:
            self.later.cancel()
            self.later = None
        if self.report_later is not None:
            self.report_later.cancel()
            self._report()
        if self.server is not None:
            self.server.close()  # (and this worker's copy of the socket)
            return
        self._unwatch()
        self.sock.close()
        if self.connecting:
            await asyncio.wait(list(self.connecting), timeout=STOP_WAIT)

    # --- accepting ------------------------------------------------------------------------------

    def _watch(self) -> None:
        if not self.watching and not self.stopped:
            assert self.loop is not None
            self.loop.add_reader(self.fd, self._readable)
            self.watching = True

    def _unwatch(self) -> None:
        if self.watching:
            assert self.loop is not None
            self.loop.remove_reader(self.fd)
            self.watching = False

    def holds(self) -> int:
        """The connections this worker holds: its engine's, and those accepted that the loop
        has not connected yet (for a moment, one may count twice)."""
        return self.held() + len(self.connecting)

    def _readable(self) -> None:
        self._accept(balance=self._balancing())

    def _balancing(self) -> bool:
        """Whether to keep to this worker's share: there are other workers, and if they were
        found stalled, one has accepted since."""
        share = self.share
        if share is None:
            return False
        if self.stalled is not None:
            if share.others_accepted() == self.stalled:
                return False
            self.stalled = None
        return True

    def _churning(self, held: int) -> bool:
        """Whether this worker accepts more connections a second than it holds: connections
        that last less than a second on average share themselves out (whichever worker is free
        takes the next), and holding back would only keep them waiting."""
        assert self.loop is not None
        now = self.loop.time()
        if now - self.window >= 1.0:  # (a rate per second, over the time since it was last had)
            self.rate = (self.accepted - self.counted) / (now - self.window)
            self.window, self.counted = now, self.accepted
        return self.rate > held

    def _share(self, waiting: int | None) -> tuple[int, int] | None:
        """This worker's share of the connections now, and the slack above it (None: no
        other worker accepts): its part of every connection the workers hold and of those
        `waiting`, where the kernel says how many wait (Linux); elsewhere, as many as the
        least loaded other worker holds."""
        assert self.share is not None
        others = self.share.others_held()
        if not others:
            return None
        if waiting is None:
            fair = min(others)
        else:
            fair = (self.holds() + sum(others) + waiting) // (len(others) + 1)
        return fair, _slack(fair)

    def _accept(self, *, balance: bool) -> None:
        """Accept what waits, up to `BATCH`; with `balance`, up to this worker's share (at
        least one while it holds no more than its share and the slack), so that in a burst
        each worker takes its part at once."""
        loop, share = self.loop, self.share
        assert loop is not None
        # Where the kernel says how many wait, no more are tried: a try that finds none costs
        # more than the accept of one (a Python exception), and every worker is woken for each.
        waiting = _queued(self.sock)
        if waiting == 0:
            return
        held = self.holds()
        count = BATCH if waiting is None else min(BATCH, waiting)
        fair = self._share(waiting) if balance else None
        if fair is not None:
            if held > fair[0] + fair[1] and not self._churning(held):
                fair = self._share(_queued(self.sock))  # the others accept meanwhile
                if fair is not None and held > fair[0] + fair[1]:
                    self._stand_back(held)
                    return
            if fair is not None:
                count = min(count, max(1, fair[0] - held))
        for _ in range(count):
            try:
                conn, _ = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _GONE:
                    continue
                self._cannot_accept(exc)
                return
            task = loop.create_task(loop.connect_accepted_socket(self.factory, conn))
            self.connecting.add(task)
            task.add_done_callback(self._connected)
            held += 1
            self.accepted += 1
            if share is not None:
                share.accepted(held)

    def _connected(self, task: asyncio.Task[object]) -> None:
        self.connecting.discard(task)
        if not task.cancelled():
            # A connection reset before the loop took it: it is closed, nothing to answer.
            task.exception()

    # --- standing back --------------------------------------------------------------------------

    def _stand_back(self, held: int) -> None:
        """Over its share: leave the waiting connections to the others for a moment."""
        assert self.loop is not None and self.share is not None
        self._unwatch()
        self.share.holding(held)
        self.others = self.share.others_accepted()
        self.since = self.loop.time()
        self.later = self.loop.call_later(STAND_BACK, self._look_again)

    def _look_again(self) -> None:
        """Watch again once this worker is within its share or nothing waits; if connections
        wait and no other worker has taken one for `STALLED` seconds (it is stopped, or
        stuck), accept without keeping to the share until another worker accepts again."""
        loop, share = self.loop, self.share
        assert loop is not None and share is not None
        self.later = None
        if self.stopped:
            return
        held = self.holds()
        share.holding(held)
        others = share.others_accepted()
        fair = self._share(_queued(self.sock))
        if fair is None or held <= fair[0] + fair[1] or not _waiting(self.fd):
            self._watch()
            return
        if others != self.others:  # the others are taking them
            self.others, self.since = others, loop.time()
        elif loop.time() - self.since >= STALLED:
            self.stalled = others
            self._watch()
            return
        self.later = loop.call_later(STAND_BACK, self._look_again)

    # --- out of descriptors ---------------------------------------------------------------------

    def _cannot_accept(self, exc: OSError) -> None:
        """Short of descriptors: close connections that wait for a request, those waiting
        longest first, and accept again once they are closed; with none, stop accepting for
        `RETRY` seconds. Meanwhile new connections wait in the listen queue."""
        loop = self.loop
        assert loop is not None
        self._unwatch()
        closed = self.close_idle(CLOSE_IDLE) if exc.errno in (errno.EMFILE, errno.ENFILE) else 0
        self.closed_idle += closed
        self.unreported = exc
        if loop.time() - self.reported >= REPORT_EVERY:
            self._report()
        elif self.report_later is None:
            # What happens until then (idle connections closed, say) is told then, even if
            # accepting works again before.
            self.report_later = loop.call_at(self.reported + REPORT_EVERY, self._report)
        if closed:
            # Their descriptors are released when the loop has run their closing.
            self.later = loop.call_soon(self._retry)
            return
        if self.share is not None:
            self.share.accepting(False)  # the others need not leave connections to this one
        self.later = loop.call_later(RETRY, self._retry)

    def _report(self) -> None:
        """Log the last failure to accept not logged yet, with what was done since."""
        assert self.loop is not None
        if self.report_later is not None:
            self.report_later.cancel()
            self.report_later = None
        if self.unreported is not None:
            self.reported = self.loop.time()
            log.error("cannot accept connections: %s", self._why(self.unreported))
            self.unreported = None
            self.closed_idle = 0

    def _retry(self) -> None:
        self.later = None
        if self.stopped:
            return
        if self.share is not None:
            self.share.accepting(True)
        self._watch()

    def _why(self, exc: OSError) -> str:
        held = f"{self.holds():,} connections open"
        if self.closed_idle:
            held += f", {self.closed_idle:,} idle ones closed to make room"
        waiting = "new connections wait in the listen queue meanwhile"
        if exc.errno == errno.EMFILE:
            limit = f"all {self.limit:,}" if self.limit is not None else "all the"
            return (
                f"{limit} files this process may open are in use (its open-file limit; "
                f"{held}); {waiting}. Raise the limit: LimitNOFILE= in the systemd unit, "
                "`docker run --ulimit nofile=N:N`, or `ulimit -n N` (up to `ulimit -Hn`) in "
                "the shell that starts serve; see docs/deploy/serve.md"
            )
        if exc.errno == errno.ENFILE:
            return (
                f"the system's table of open files is full ({held}); {waiting}. Raise the "
                "sysctl fs.file-max, or find what holds the files"
            )
        if exc.errno in _SHORT:
            return f"the system is short of memory for sockets ({exc.strerror}); {waiting}"
        return f"{exc.strerror or exc}; {waiting}"


def _slack(fair: int) -> int:
    """How many connections more than its share `fair` a worker may hold and still accept."""
    return max(SLACK, fair // 16)
