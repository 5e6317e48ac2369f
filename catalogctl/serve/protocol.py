"""HTTP/1.1 connections on httptools (llhttp, the parser Node.js uses): our own asyncio protocol.

Requests are parsed by `httptools.HttpRequestParser` through its documented callbacks and
answered from `on_message_complete` with the prepared bytes of `Table.respond`, in order, so
keep-alive and pipelining need no queue or task. What a connection may cost is bounded: the
request line, each header line, the number of headers, the whole head and any body are
capped; a head must arrive, and an idle connection must send its next request, within the
keep-alive timeout; while the client does not read, answers wait (as references to prepared
bytes) and the socket is not read any further.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import httptools

from catalogctl.serve.accesslog import UNIX_PEER
from catalogctl.serve.responses import (
    CLOSE,
    HEAD,
    KEEP_ALIVE,
    KEEP_ALIVE_10,
    Prepared,
    Table,
    error_response,
)

if TYPE_CHECKING:
    from catalogctl.serve.accesslog import AccessLog

_REJECT = {
    400: error_response(400, "Bad Request", "The request could not be understood."),
    403: None,  # the site's own 403 page (set per table)
    413: error_response(413, "Content Too Large", "This service takes no request bodies."),
    414: error_response(414, "URI Too Long", "The request target is too long."),
    431: error_response(431, "Request Header Fields Too Large", "The request head is too large."),
    505: error_response(
        505, "HTTP Version Not Supported", "This server speaks HTTP/1.0 and HTTP/1.1."
    ),
}


@dataclass(slots=True)
class Limits:
    max_line: int = 8190  # request line, and each header line
    max_headers: int = 100
    max_head: int = 65536  # the whole request head
    max_body: int = 65536  # a body sent with a request (read and discarded)
    keepalive_timeout: float = 15.0


class _Rejected(Exception):
    """Raised from a parser callback to stop parsing; the status is on the connection."""


class Connections:
    """What the connections of one worker share: the table, limits, log and counters."""

    def __init__(self, table: Table, limits: Limits, access_log: AccessLog | None) -> None:
        self.table = table
        self.limits = limits
        self.access_log = access_log
        self.open: set[HttpProtocol] = set()
        self.stopping = False
        self.statuses: dict[int, int] = {}
        self.bytes_sent = 0
        self.requests = 0

    def count(self, status: int, body_bytes: int) -> None:
        statuses = self.statuses
        statuses[status] = statuses.get(status, 0) + 1
        self.bytes_sent += body_bytes

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


class HttpProtocol(asyncio.Protocol):
    __slots__ = (
        "accept_encoding",
        "answered_in_chunk",
        "body_bytes",
        "closing",
        "conns",
        "deadline",
        "forwarded",
        "head_bytes",
        "headers_seen",
        "if_none_match",
        "in_head",
        "loop",
        "parser",
        "paused",
        "peer",
        "pending",
        "referer",
        "reject_status",
        "started",
        "transport",
        "url",
        "user_agent",
        "x_forwarded_for",
    )

    def __init__(self, conns: Connections) -> None:
        self.conns = conns
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.url = b""
        self.accept_encoding: bytes | None = None
        self.if_none_match: bytes | None = None
        self.referer: bytes | None = None
        self.user_agent: bytes | None = None
        self.x_forwarded_for: bytes | None = None
        self.forwarded: bytes | None = None
        self.in_head = False
        self.answered_in_chunk = False
        self.head_bytes = 0
        self.headers_seen = 0
        self.body_bytes = 0
        self.reject_status = 400
        self.started = 0
        self.paused = False  # the transport asked us to stop writing
        self.pending: deque[tuple[Prepared, bool, bytes]] | None = None
        self.closing = False  # no more requests are read on this connection
        self.peer: str = "-"
        self.deadline = 0.0

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
        self.pending = None
        self.closing = True

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return  # discarding what a client sends after an error (lingering close)
        if self.in_head:
            self.head_bytes += len(data)
            if self.head_bytes > self.conns.limits.max_head:
                self._reject(431)
                return
            was_in_head = True
        else:
            was_in_head = False
            self.answered_in_chunk = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError:
            self._reject(self.reject_status)
        except httptools.HttpParserInvalidMethodError:
            # llhttp knows a fixed list of methods; any other one is still a method, which
            # SPEC §7 answers with 403.
            self._reject(403)
        except httptools.HttpParserUpgrade:
            # The request was answered (upgrades are not offered); nothing may follow it.
            self.close_when_idle()
        except httptools.HttpParserError as exc:
            # llhttp reports "Invalid HTTP version" for HTTP/1.2, HTTP/3.0, ...
            self._reject(505 if "version" in str(exc).lower() else 400)
        else:
            if self.in_head and not was_in_head and not self.answered_in_chunk:
                # The head began in this chunk and nothing before it: all of it is head.
                self.head_bytes = len(data)
                if self.head_bytes > self.conns.limits.max_head:
                    self._reject(431)

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

    # --- httptools callbacks --------------------------------------------------------------

    def on_message_begin(self) -> None:
        self.in_head = True
        self.head_bytes = 0
        self.headers_seen = 0
        self.body_bytes = 0
        self.url = b""
        self.accept_encoding = None
        self.if_none_match = None
        if self.conns.access_log is not None:
            self.started = time.perf_counter_ns()
            self.referer = self.user_agent = self.x_forwarded_for = self.forwarded = None
        # A request head must arrive within the timeout, however slowly it dribbles in.
        self.deadline = self.loop.time() + self.conns.limits.keepalive_timeout

    def on_url(self, url: bytes) -> None:
        self.url += url
        if len(self.url) > self.conns.limits.max_line:
            self.reject_status = 414
            raise _Rejected

    def on_header(self, name: bytes, value: bytes) -> None:
        limits = self.conns.limits
        self.headers_seen += 1
        if self.headers_seen > limits.max_headers or len(name) + len(value) > limits.max_line:
            self.reject_status = 431
            raise _Rejected
        key = name.lower()
        if key == b"accept-encoding":
            old = self.accept_encoding
            self.accept_encoding = value if old is None else old + b", " + value
        elif key == b"if-none-match":
            old = self.if_none_match
            self.if_none_match = value if old is None else old + b", " + value
        elif self.conns.access_log is not None:
            if key == b"user-agent":
                self.user_agent = value
            elif key == b"referer":
                self.referer = value
            elif key == b"x-forwarded-for":
                old = self.x_forwarded_for
                self.x_forwarded_for = value if old is None else old + b", " + value
            elif key == b"forwarded":
                old = self.forwarded
                self.forwarded = value if old is None else old + b", " + value

    def on_headers_complete(self) -> None:
        self.in_head = False
        version = self.parser.get_http_version()
        if version not in ("1.1", "1.0"):
            self.reject_status = 505
            raise _Rejected

    def on_body(self, body: bytes) -> None:
        self.body_bytes += len(body)
        if self.body_bytes > self.conns.limits.max_body:
            self.reject_status = 413
            raise _Rejected

    def on_message_complete(self) -> None:
        self.answered_in_chunk = True
        if self.closing:
            return
        parser = self.parser
        method = parser.get_method()
        conns = self.conns
        prepared = conns.table.respond(method, self.url, self.accept_encoding, self.if_none_match)
        if not parser.should_keep_alive() or conns.stopping:
            connection = CLOSE
            self.closing = True
        elif parser.get_http_version() == "1.1":
            connection = KEEP_ALIVE
        else:
            connection = KEEP_ALIVE_10
        with_body = method != HEAD
        if self.pending is not None:
            self.pending.append((prepared, with_body, connection))
        else:
            self._write(prepared, with_body, connection)
        body = prepared.body_len if with_body else 0
        conns.count(prepared.status, body)
        if conns.access_log is not None:
            conns.access_log.request(self, prepared, body, self.started)
        self.deadline = self.loop.time() + conns.limits.keepalive_timeout

    # --- writing --------------------------------------------------------------------------

    def _write(self, prepared: Prepared, with_body: bool, connection: bytes) -> None:
        transport = self.transport
        assert transport is not None
        transport.write(prepared.message(with_body, connection))
        if connection is CLOSE and not self.pending:
            transport.close()

    def _reject(self, status: int) -> None:
        """Answer a request that cannot be served, then close (reading on until then)."""
        if self.closing:
            return
        self.closing = True
        self.in_head = False
        conns = self.conns
        prepared = conns.table.forbidden if status == 403 else _REJECT[status]
        assert prepared is not None
        # No body for HEAD, whatever the error (the method is known unless it was the error).
        with_body = status == 403 or self.parser.get_method() != HEAD
        body = prepared.body_len if with_body else 0
        conns.count(status, body)
        if conns.access_log is not None:
            conns.access_log.request(self, prepared, body, self.started)
        if self.pending is not None:
            self.pending.append((prepared, with_body, CLOSE))
            return
        transport = self.transport
        assert transport is not None
        transport.write(prepared.message(with_body, CLOSE))
        # Half-close and let the client read the answer; what it still sends is discarded
        # (closing with unread data would reset the connection and lose the answer).
        if transport.can_write_eof():
            transport.write_eof()
            self.deadline = self.loop.time() + min(2.0, conns.limits.keepalive_timeout)
        else:
            transport.close()

    # --- closing --------------------------------------------------------------------------

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
