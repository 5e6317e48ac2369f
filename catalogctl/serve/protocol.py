"""The httptools engine: HTTP/1.1 connections as our own asyncio protocol, one write per answer.

This service takes no request content, so a request is its head: the protocol finds where
each head ends (lines may end in CRLF or a bare LF, RFC 9112 §2.2), reads the request line
itself (`semantics.request_line`: llhttp would take two spaces between its parts and refuse
HTTP/1.2, where the project's HTTP behaviour does the opposite) and hands the header section
to llhttp, the parser of Node.js, through httptools' documented `on_header` callback, which
fills a `RequestHead`. `semantics.decide` gives the answer; a request carrying content is
answered at once and the connection closed, its content never read. Answers go out in order
from prepared bytes, so keep-alive and pipelining need no queue or task; one of SENDFILE_MIN
bytes or more goes out with `sendfile` from the worker's memory file (`memfile`), still one
system call, without copying it. The request line, each header line, the number of headers
and the whole head are capped; a head must arrive, and an idle connection must send its next
request, within the keep-alive timeout; while the client does not read, answers wait (as
references to prepared bytes) and nothing more is read.

A head answered twice without closing the connection is remembered with its answer and the
access log's text of both, per worker (`Connections.heads`): a client sends the same head
again and again, byte for byte, and such a head is not read again. A proxy in front adds a
request id or a trace of its own to each head (`semantics.ID_FIELDS`), which no answer
depends on: a head not remembered as sent is looked up again with those lines cut out. A read
that is one whole head (most reads are) is looked up so before its end is searched for: the
lines cut never hold a head's end, so a cut that is a head remembered was cut from one head
(the performance page has the figures).

Why one module: finding a head's end, reading it, the heads remembered, and writing the
answer in order are one path run on every request, and share the connection's state (the
head being filled, the answers waiting); apart, each would take that state as parameters.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import re
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import httptools

from catalogctl.serve.accesslog import UNIX_PEER
from catalogctl.serve.clock import CLOCK
from catalogctl.serve.memfile import AVAILABLE, SENDFILE_MIN, MemoryFile
from catalogctl.serve.responses import CLOSE, HEAD, KEEP_ALIVE, KEEP_ALIVE_10, Prepared
from catalogctl.serve.semantics import (
    BAD_HEADER,
    BAD_LINE,
    HEAD_TOO_LARGE,
    URI_TOO_LONG,
    Rejected,
    RequestHead,
    decide,
    id_lines,
    request_line,
)
from catalogctl.serve.traffic import Traffic

if TYPE_CHECKING:
    from collections.abc import Callable

    from catalogctl.serve.accesslog import AccessLog, Parts
    from catalogctl.serve.options import ServeOptions
    from catalogctl.serve.responses import Table

# llhttp reads the header section after a request line of ours: the client's own line has
# been read and checked already (see the module's docstring).
_LINE = b"GET / HTTP/1.1\r\n"
# What cannot appear in a request line that has not ended yet: a TLS ClientHello or other
# binary bytes are refused at once instead of waiting for a line end that never comes.
_NOT_LINE = re.compile(rb"[^\x20-\x7e\r]")
_CR, _LF = 13, 10
# Heads remembered with their answers, and heads seen once, per worker; a head longer than
# HEAD_KEPT bytes is read each time. At most about 8 MB: each head remembered with its request
# line and the values read from it, and each head seen once.
HEADS_KEPT, HEAD_KEPT = 1024, 2048
# A head remembered: as read, its request line, its answer, and what the access log writes
# of them (`AccessLog.parts`; None without a log).
Known = tuple[RequestHead, bytes, Prepared, "Parts | None"]
_UNKNOWN = -2  # HttpProtocol.sock before it is looked up
LINGER = 2.0  # seconds a connection closed after an error keeps discarding what arrives
# Seconds a connection must have waited for a request before it may be closed to make room
# (`Connections.close_idle`): one accepted just now may have its request unread yet.
IDLE_CLOSABLE = 1.0


@dataclass(slots=True)
class Limits:
    max_line: int = 8190  # request line, and each header line
    max_headers: int = 100
    max_head: int = 65536  # the whole request head
    keepalive_timeout: float = 15.0


class HttptoolsEngine:
    """`serve --http httptools` (the default): an `HttpProtocol` for each connection."""

    def __init__(self, table: Table, options: ServeOptions, access_log: AccessLog | None) -> None:
        limits = Limits(
            options.max_line_size,
            options.max_headers,
            max(4 * options.max_line_size, 16384),
            options.keepalive_timeout,
        )
        self.traffic = self.conns = Connections(table, limits, access_log)
        self.options = options

    async def start(self) -> Callable[[], HttpProtocol]:
        conns = self.conns
        return lambda: HttpProtocol(conns)

    async def drain(self) -> int:
        """Idle connections close now; answers in flight get `--shutdown-timeout` seconds,
        then what is still open is aborted. Returns how many were."""
        conns = self.conns
        conns.stop_accepting_requests()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.shutdown_timeout
        while conns.open and loop.time() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - loop.time())))
        left = len(conns.open)
        if left:
            conns.abort_all()
            await asyncio.sleep(0)  # let the transports report connection_lost
        if conns.memfile is not None:
            conns.memfile.close()  # what the kernel still sends from it stays until sent
        return left

    def open_connections(self) -> int:
        return len(self.conns.open)

    def close_idle(self, count: int) -> int:
        return self.conns.close_idle(count)

    def sweep(self, now: float) -> None:
        self.conns.sweep(now)


class Connections(Traffic):
    """What the connections of one worker share: the traffic, limits and the open set."""

    def __init__(self, table: Table, limits: Limits, access_log: AccessLog | None) -> None:
        super().__init__(table, access_log)
        self.limits = limits
        self.open: set[HttpProtocol] = set()
        # A head answered twice without closing -> the head as read, its line, the answer and
        # the access log's text of them
        self.heads: dict[bytes, Known] = {}
        self.seen: set[bytes] = set()  # heads answered once without closing
        self.ids = id_lines(limits.max_line)
        # Answers of SENDFILE_MIN bytes or more go out from this file (`memfile`).
        self.memfile = MemoryFile() if AVAILABLE else None

    def serve(self, table: Table) -> None:
        super().serve(table)
        self.heads.clear()  # their answers came from the previous table

    def without_ids(self, raw: bytes) -> bytes:
        """`raw` with the lines of its `ID_FIELDS` cut out; `raw` itself where it has none,
        or where it has more header lines than allowed (it is read, and refused).

        A head cut so is answered as the head it was cut from: the lines cut are fields
        llhttp reads as any other (see `id_lines`), which nothing reads, within the line limit,
        and the head, at most HEAD_KEPT bytes, within the header and head limits."""
        parts = self.ids.split(raw)
        if len(parts) == 1 or raw.count(b"\n") - 2 > self.limits.max_headers:
            return raw
        return b"".join(parts)

    def remember(
        self, raw: bytes, head: RequestHead, line: bytes, answer: Prepared, parts: Parts | None
    ) -> None:
        """Keep a head (as sent, or without its request ids) the second time it is answered:
        a head that never comes again (a new target each time, say) would cost more to keep
        than it saves."""
        seen = self.seen
        if raw not in seen:
            if len(seen) >= HEADS_KEPT:
                seen.clear()
            seen.add(raw)
            return
        heads = self.heads
        if len(heads) >= HEADS_KEPT:
            heads.clear()
        heads[raw] = (head.copy(), line, answer, parts)

    def sweep(self, now: float) -> None:
        """Close connections whose head, idle time or stalled write outlived the timeout."""
        for conn in list(self.open):
            if conn.deadline < now:
                conn.expire()

    def stop_accepting_requests(self) -> None:
        """Graceful stop: idle connections close now, busy ones after their last answer."""
        self.stopping = True
        for conn in list(self.open):
            conn.close_when_idle()

    def abort_all(self) -> None:
        for conn in list(self.open):
            conn.abort()

    def close_idle(self, count: int) -> int:
        """Close up to `count` connections that have waited `IDLE_CLOSABLE` seconds or more
        for a request, those waiting longest first (to make room when descriptors run out);
        how many were closed."""
        # A connection's deadline is the keep-alive timeout after it last had an answer, or
        # after the first byte of the head it is receiving.
        since = asyncio.get_running_loop().time() + self.limits.keepalive_timeout - IDLE_CLOSABLE
        idle = [conn for conn in self.open if conn.deadline <= since and conn.idle()]
        closing = heapq.nsmallest(count, idle, key=lambda conn: conn.deadline)
        for conn in closing:
            conn.close_when_idle()
        return len(closing)


class HttpProtocol(asyncio.Protocol):
    __slots__ = (
        "buf",
        "closing",
        "conns",
        "deadline",
        "filling",
        "head",
        "ids",
        "line",
        "line_checked",
        "loop",
        "parser",
        "paused",
        "peer",
        "pending",
        "scanned",
        "sock",
        "started",
        "transport",
    )

    def __init__(self, conns: Connections) -> None:
        self.conns = conns
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        limits = conns.limits
        # The head llhttp fills; `head` is the request being answered: this one, or a head
        # remembered (`Connections.heads`), which is never changed.
        self.filling = RequestHead(
            limits.max_headers, limits.max_line, log=conns.access_log is not None
        )
        self.head = self.filling
        self.parser = httptools.HttpRequestParser(self.filling)
        # RFC 9112 §2.2: a header line may end in a bare LF (llhttp's documented option; a
        # bare CR is still refused).
        self.parser.set_dangerous_leniencies(lenient_optional_cr_before_lf=True)
        self.buf = b""  # the start of a head still arriving
        self.scanned = 0  # where the search for its end goes on
        self.line_checked = False  # its request line, once complete, has been checked
        self.line = b""  # the request line as received (the access log of a refused one)
        # Heads not remembered as sent are looked up without their request ids
        # (`Connections.without_ids`) until one has none: a connection from a proxy that adds
        # them has them on every request.
        self.ids = True
        self.started = 0
        self.paused = False  # the transport asked us to stop writing
        self.pending: deque[tuple[Prepared, bool, bytes]] | None = None
        self.closing = False  # no more requests are read on this connection
        self.peer: str = "-"
        self.deadline = 0.0
        # The socket's descriptor, for sendfile: looked up at the first large answer
        # (_UNKNOWN till then); -1 where sendfile is not used.
        self.sock = _UNKNOWN

    # --- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)  # uvloop's is not a subclass
        self.deadline = self.loop.time() + self.conns.limits.keepalive_timeout
        self.conns.open.add(self)
        if self.conns.access_log is not None:
            peer = transport.get_extra_info("peername")
            if isinstance(peer, tuple) and peer:
                self.peer = peer[0]
            else:
                self.peer = UNIX_PEER
        if self.conns.stopping:
            self.close_when_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self.conns.open.discard(self)
        self.sock = -1
        self.pending = None
        self.closing = True

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return  # discarding what a client sends after an error (lingering close)
        key = None  # what `data` is remembered as, once looked up
        if self.buf:
            data = self.buf + data
            scan = self.scanned
        else:
            scan = 0
            if self.conns.access_log is not None:
                self.started = time.perf_counter_ns()
            # Most reads are one whole head (at most HEAD_KEPT bytes): one remembered, as sent
            # or with its request ids cut out (then cut from one whole head), is answered now.
            # A head sent again is looked up here, not through `_lookup`: a call less on the
            # commonest read (20.1k instructions a request against 20.7k with the log).
            if len(data) <= HEAD_KEPT:
                known = self.conns.heads.get(data)
                if known is not None:
                    self._known(known)
                    return
                key = self._lookup(data)
                if key is None:
                    return
        pos, size = 0, len(data)
        while pos < size:
            if data[pos] == _CR or data[pos] == _LF:  # empty lines before a request line
                pos = _skip_empty_lines(data, pos)
                scan = max(scan, pos)
                if pos >= size:
                    break
            end = data.find(b"\n\r\n", scan)
            bare = data.find(b"\n\n", scan, end + 3 if end >= 0 else size)
            if bare >= 0:
                end = bare + 2
            elif end >= 0:
                end += 3
            else:
                self._partial(data if pos == 0 else data[pos:])
                return
            if pos == 0 and end == size:
                self._request(data, key)
            else:
                self._request(data[pos:end], None)
            if self.closing:
                return
            pos = scan = end
        self.buf = b""

    def pause_writing(self) -> None:
        self.paused = True
        if self.pending is None:
            self.pending = deque()
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        self.paused = False
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        self.deadline = self.loop.time() + self.conns.limits.keepalive_timeout
        pending = self.pending
        while pending and not self.paused:
            self._write(*pending.popleft())
        if not self.paused and not self.closing:
            self.pending = None
            transport.resume_reading()
        elif not pending and self.closing and not self.paused:
            transport.close()

    # --- reading a head -------------------------------------------------------------------

    def _partial(self, rest: bytes) -> None:
        """The start of a head whose end has not arrived: keep it, unless it is refused."""
        if not self.buf:
            # A request head must arrive within the timeout, however slowly it dribbles in.
            self.deadline = self.loop.time() + self.conns.limits.keepalive_timeout
        self.buf = rest
        self.scanned = max(0, len(rest) - 2)
        limits = self.conns.limits
        self.head = self.filling
        if len(rest) > limits.max_head:
            self.head.reset()
            self._answer(HEAD_TOO_LARGE, close=True)
            return
        newline = rest.find(b"\n")
        if newline < 0:
            if len(rest) > limits.max_line or _NOT_LINE.search(rest) is not None:
                self.head.reset()
                self.line = rest
                self._answer(URI_TOO_LONG if len(rest) > limits.max_line else BAD_LINE, close=True)
        elif not self.line_checked:
            self.line_checked = True
            line = rest[: newline - 1] if rest[newline - 1] == _CR else rest[:newline]
            try:
                request_line(line)
            except Rejected as exc:
                self._refuse_line(line, exc.answer)
            else:
                if len(line) > limits.max_line:
                    self._refuse_line(line, URI_TOO_LONG)

    def _lookup(self, raw: bytes) -> bytes | None:
        """Answer `raw` if it is a head remembered, as sent or with its request ids cut out
        (None then); else what to remember it by (`raw`, or the cut)."""
        heads = self.conns.heads
        known = heads.get(raw)
        key = raw
        if known is None and self.ids:
            key = self.conns.without_ids(raw)
            if key is not raw:
                known = heads.get(key)
        if known is None:
            return key
        self._known(known)
        return None

    def _request(self, raw: bytes, key: bytes | None) -> None:
        """A whole head: read it, decide, answer; or the answer to the same bytes before.
        `key`: what `_lookup` gave for it, where it was looked up."""
        self.line_checked = False
        conns = self.conns
        if key is None and len(raw) <= HEAD_KEPT:
            key = self._lookup(raw)
            if key is None:
                return
        if key is raw:
            self.ids = False  # a head without ids: this client's are not searched again
        limits = conns.limits
        head = self.head = self.filling
        head.reset()
        newline = raw.find(b"\n")
        line = raw[: newline - 1] if raw[newline - 1] == _CR else raw[:newline]
        self.line = line
        try:
            head.method, head.target, head.version, head.minor = request_line(line)
        except Rejected as exc:
            self._refuse_line(line, exc.answer)
            return
        if len(line) > limits.max_line:
            self._answer(URI_TOO_LONG, close=True)
            return
        if len(raw) > limits.max_head:
            self._answer(HEAD_TOO_LARGE, close=True)
            return
        try:
            self.parser.feed_data(_LINE + raw[newline + 1 :])
        except httptools.HttpParserCallbackError as exc:
            cause = exc.__context__
            self._answer(cause.answer if isinstance(cause, Rejected) else BAD_HEADER, close=True)
            return
        except httptools.HttpParserUpgrade:
            pass  # Upgrade is ignored (RFC 9110 §7.8): answered over HTTP/1.1, no 101
        except httptools.HttpParserError:
            self._answer(BAD_HEADER, close=True)
            return
        answer, close = decide(conns.table, head)
        parts = self._answer(answer, close)
        if not close and key is not None:
            # The same bytes get the same answer and log text (decide reads nothing else),
            # and llhttp, at the end of a request without content, need not see them again.
            conns.remember(key, head, line, answer, parts)

    def _known(self, known: Known) -> None:
        """A head remembered (`Connections.heads`): its answer, and its access log parts."""
        self.head, self.line, answer, parts = known
        self._answer(answer, False, parts)

    # --- writing --------------------------------------------------------------------------

    def _answer(self, prepared: Prepared, close: bool, parts: Parts | None = None) -> Parts | None:
        """Write, count and log `prepared`; returns the access log's text (None without a log)."""
        conns = self.conns
        head = self.head
        if close or conns.stopping:
            connection = CLOSE
            self.closing = True
        elif head.minor == 1:
            connection = KEEP_ALIVE
        else:
            connection = KEEP_ALIVE_10
        with_body = head.method != HEAD
        transport = self.transport
        if self.pending is not None:
            self.pending.append((prepared, with_body, connection))
        elif connection is CLOSE or transport is None or prepared.body_len >= SENDFILE_MIN:
            self._write(prepared, with_body, connection)
        else:
            transport.write(prepared.message(with_body, connection))
        body = prepared.body_len if with_body else 0
        status = prepared.status
        statuses = conns.statuses
        statuses[status] = statuses.get(status, 0) + 1
        conns.bytes_sent += body
        log = conns.access_log
        if log is not None:
            if parts is None:
                parts = log.parts(head, self.line, status, prepared.encoding, body)
            log.request(self, parts, self.started)
        if not self.closing:
            self.deadline = self.loop.time() + conns.limits.keepalive_timeout
        return parts

    def _refuse_line(self, line: bytes, prepared: Prepared) -> None:
        """A request line refused: its method is not known, but a HEAD still gets no body."""
        self.head.reset()
        self.line = line
        if line.startswith(b"HEAD "):
            self.head.method = HEAD
        self._answer(prepared, close=True)

    def _write(self, prepared: Prepared, with_body: bool, connection: bytes) -> None:
        transport = self.transport
        assert transport is not None
        if with_body and prepared.body_len >= SENDFILE_MIN and self.sock != -1:
            self._sendfile(prepared.message(with_body, connection), transport)
        else:
            transport.write(prepared.message(with_body, connection))
        if connection is CLOSE and not self.pending:
            if prepared.status >= 400 and transport.can_write_eof():
                # Half-close and let the client read the answer; what it still sends is
                # discarded (closing with unread data would reset the connection and lose
                # the answer).
                transport.write_eof()
                self.deadline = self.loop.time() + min(LINGER, self.conns.limits.keepalive_timeout)
            else:
                transport.close()

    def _sendfile(self, message: bytes, transport: asyncio.Transport) -> None:
        """A large answer, sent from the worker's memory file where nothing waits to be
        written before it; what the socket does not take at once is left to the transport."""
        memfile = self.conns.memfile
        if self.sock == _UNKNOWN:
            sock = transport.get_extra_info("socket")
            self.sock = sock.fileno() if sock is not None and memfile is not None else -1
        if memfile is None or self.sock < 0:
            transport.write(message)
            return
        if not transport.get_write_buffer_size() and not transport.is_closing():
            offset = memfile.offset(message, CLOCK.second)
            if offset >= 0:
                try:
                    sent = os.sendfile(self.sock, memfile.fd, offset, len(message))
                except (BlockingIOError, InterruptedError):
                    sent = 0
                except OSError:
                    # A closed connection is the transport's to report; a socket that takes
                    # no sendfile is written to from now on.
                    sent, self.sock = 0, -1
                if sent == len(message):
                    return
                if sent:
                    transport.write(memoryview(message)[sent:])
                    return
        transport.write(message)

    # --- closing --------------------------------------------------------------------------

    def idle(self) -> bool:
        """Waiting for a request (nothing of one received, or a head not yet whole: a client
        that sends a byte now and then holds a descriptor as an idle one does), nothing
        being written."""
        transport = self.transport
        return (
            not self.closing
            and self.pending is None
            and transport is not None
            and not transport.get_write_buffer_size()
        )

    def close_when_idle(self) -> None:
        """No further requests: close now, or once the answers still queued are written
        (`transport.close()` itself flushes what is buffered before it closes)."""
        self.closing = True
        if self.transport is not None and not self.pending:
            self.transport.close()

    def expire(self) -> None:
        """The deadline passed: a slow head, an idle connection or a client that stopped reading."""
        transport = self.transport
        if transport is not None:
            transport.abort() if transport.get_write_buffer_size() else transport.close()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


def _skip_empty_lines(data: bytes, pos: int) -> int:
    """RFC 9112 §2.2: empty lines received before a request line are ignored."""
    while True:
        if data.startswith(b"\r\n", pos):
            pos += 2
        elif data.startswith(b"\n", pos):
            pos += 1
        else:
            return pos
