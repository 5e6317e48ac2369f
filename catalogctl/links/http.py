"""The HTTP/1.1 client of the link check: one request at a time per connection, kept alive per
host, the answer's head parsed by llhttp (httptools), a body read only when asked for and then
only up to a limit.

A link check asks for heads, not documents, so this client does only that: HEAD or GET, no
request body, no cookies, no proxies, no compression (`Accept-Encoding: identity`), no
redirects (the checker follows them, to bound them and to check each hop's address). Every
connection goes to an address the network policy allowed (`PolicyResolver`): the address that
was checked is the address connected to. An answer's head is bounded (64 KiB, 128 fields); a
GET whose body is not wanted is cut off after the head; a body that is wanted is counted, not
kept, and cut off past its limit. The caller bounds the time of each request.

It exists for speed: a general client (aiohttp) spent about 70 µs of CPU per request on what
a link check never uses, three times what this one spends (docs/commands/check-links.md).
"""

from __future__ import annotations

import asyncio
import re
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

import httptools

if TYPE_CHECKING:
    from catalogctl.sources.net import PolicyResolver

MAX_HEAD = 64 * 1024  # bytes of an answer's status line and header fields
MAX_FIELDS = 128
Failure = Literal["connect", "dropped", "invalid", "tls", "refused"]
# Characters left as they are in a request target: the reserved ones and '%' (escapes the URL
# already has); everything else (non-ASCII, controls) is percent-encoded.
_SAFE = "!$%&'()*+,/:;=?@~"
_PLAIN = re.compile(r"[A-Za-z0-9!$%&'()*+,/:;=?@~._-]*")  # needs no encoding
# host (a name, or an IPv6 address in brackets) and port; no user name
_AUTHORITY = re.compile(r"(?:\[([0-9A-Fa-f:.]+)\]|([^:@\[\]]+))(?::([0-9]{0,5}))?\Z")


class RequestFailed(Exception):
    """A request that got no usable answer: `kind` says how it failed, the message why."""

    def __init__(self, kind: Failure, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Target:
    """Where a URL's request goes, and what it says."""

    scheme: str
    host: str  # IDNA-encoded, lower case, without brackets
    port: int
    authority: str  # the Host field
    path: str  # the request target: path and query, percent-encoded

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)


def target(url: str) -> Target:
    """The request target of an http(s) URL; ValueError when it has none.

    Read with string methods, not `urllib.parse.urlsplit` (whose cache holds 128 URLs, fewer
    than a catalog has): 6 µs a URL instead of 15, 7 % of the CPU time of checking 8,000
    links (benchmarks/bench_links.py).
    """
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url}")
    rest = rest.partition("#")[0]
    end = len(rest)
    for sep in "/?":
        i = rest.find(sep, 0, end)
        if i >= 0:
            end = i
    m = _AUTHORITY.match(rest[:end])
    if m is None:
        raise ValueError(f"not an http(s) URL with a host: {url}")
    bracketed, name, port_text = m.groups()
    host = (bracketed or name).lower()
    if not host.isascii():
        host = host.encode("idna").decode("ascii")
    port = int(port_text or (443 if scheme == "https" else 80))
    if not 0 < port < 65536:
        raise ValueError(f"not a port: {port_text}")
    shown = f"[{host}]" if bracketed else host
    authority = f"{shown}:{port}" if port_text else shown
    path = rest[end:]
    if not path.startswith("/"):
        path = "/" + path
    if _PLAIN.fullmatch(path) is None:
        path = quote(path, safe=_SAFE)
    return Target(scheme, host, port, authority, path)


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer's status and header fields (names in lower case; the last of a repeated
    field), and what was read of its body."""

    status: int
    fields: dict[str, str]
    body: int | None = None  # bytes of the body, when it was read to its end
    over: bool = False  # the body went past the limit it was read with

    @property
    def length(self) -> int | None:
        """The Content-Length the answer declares, when it is a plain number."""
        value = self.fields.get("content-length", "").strip()
        return int(value) if value.isdigit() else None


class _Connection(asyncio.Protocol):
    """One connection: sends a request, parses its answer, and says whether it may be reused."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.used = False  # it has carried an answer before
        self.reusable = True
        self._waiter: asyncio.Future[Answer] | None = None
        self._parser: httptools.HttpResponseParser | None = None
        self._mode = ""  # "head": no body; "skip": close after the head; "count": read the body
        self._limit = 0
        self._fields: dict[str, str] = {}
        self._count = 0  # bytes received of this answer
        self._head = 0  # bytes of its header fields
        self._body = 0
        self._status = 0

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a TCP or TLS transport

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        if parser is None:  # bytes nobody asked for: the framing cannot be trusted
            self.reusable = False
            self.close()
            return
        self._count += len(data)
        try:
            parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            self._fail("invalid", str(exc.__context__ or exc))
        except httptools.HttpParserError as exc:
            self._fail("invalid", str(exc) or type(exc).__name__)
        except httptools.HttpParserUpgrade:
            self._fail("invalid", "the server switched protocols")
        else:
            if self._status == 0 and self._count > MAX_HEAD:  # still no end of the head
                self._fail("invalid", f"the answer's head is longer than {MAX_HEAD // 1024} KiB")

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        if self._waiter is None or self._waiter.done():
            return
        if self._mode == "count" and self._status and self._framed_by_close():
            self._finish(Answer(self._status, self._fields, self._body))
        elif self._count == 0 and self.used:
            self._fail("dropped", "stale")  # a kept-alive connection the server had closed
        else:
            self._fail("dropped", f"connection closed by the server{f' ({exc})' if exc else ''}")

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        if len(self._fields) >= MAX_FIELDS:
            raise ValueError(f"the answer has more than {MAX_FIELDS} header fields")
        self._head += len(name) + len(value) + 4  # "name: value\r\n"
        if self._head > MAX_HEAD:
            raise ValueError(f"the answer's head is longer than {MAX_HEAD // 1024} KiB")
        self._fields[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        assert self._parser is not None
        status = self._parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            self._fields = {}  # an interim answer: the final one follows
            return
        self._status = status
        if not self._parser.should_keep_alive():
            self.reusable = False
        answer = Answer(status, self._fields)
        if self._mode == "head":
            self._parser = None  # the answer to HEAD ends with its head
            self._finish(answer)
        elif self._mode == "skip":
            self.reusable = False  # its body is never read: the connection goes
            self._finish(answer)
        else:
            length = answer.length
            if length is not None and length > self._limit:
                self.reusable = False
                self._finish(Answer(status, self._fields, None, over=True))

    def on_body(self, body: bytes) -> None:
        if self._mode != "count":
            self.reusable = False  # a body after a HEAD answer: the framing cannot be trusted
            return
        self._body += len(body)
        if self._body > self._limit:
            self.reusable = False
            self._finish(Answer(self._status, self._fields, None, over=True))

    def on_message_complete(self) -> None:
        if self._mode == "count" and self._status:
            self._parser = None
            self._finish(Answer(self._status, self._fields, self._body))

    # the request
    async def exchange(self, request: bytes, mode: str, limit: int) -> Answer:
        """Send `request` and wait for its answer (the caller bounds the time)."""
        assert self.transport is not None
        self._mode, self._limit = mode, limit
        self._fields, self._count, self._body, self._status, self._head = {}, 0, 0, 0, 0
        self._parser = httptools.HttpResponseParser(self)
        self._waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        try:
            return await self._waiter
        finally:
            self.used = True
            self._waiter = None

    def _framed_by_close(self) -> bool:
        """The body ends when the connection does (no length, not chunked)."""
        fields = self._fields
        return (
            "content-length" not in fields
            and "chunked" not in fields.get("transfer-encoding", "").lower()
        )

    def _finish(self, answer: Answer) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(answer)
        if not self.reusable:
            self.close()

    def _fail(self, kind: Failure, message: str) -> None:
        self.reusable = False
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(RequestFailed(kind, message))
        self.close()

    def close(self) -> None:
        self._parser = None
        self.reusable = False
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()  # nothing is left to send; no lingering close


class Client:
    """Connections to every host of a run, kept alive between requests."""

    def __init__(self, resolver: PolicyResolver, *, user_agent: str) -> None:
        self.resolver = resolver
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._refusals: dict[str, str | None] = {}
        self._tls: ssl.SSLContext | None = None
        self.sent = 0  # requests written to a connection
        # The fields after Host, the same for every request (the CLI checked the User-Agent).
        self._fields = (
            f"User-Agent: {user_agent}\r\nAccept: */*\r\nAccept-Encoding: identity\r\n\r\n"
        ).encode("latin-1")

    async def request(self, method: str, t: Target, *, body_limit: int | None = None) -> Answer:
        """The answer to `method t`: its head only, or with `body_limit` its body counted.

        Raises `RequestFailed`.
        """
        refused = await self.refusal(t.host)
        if refused is not None:
            raise RequestFailed("refused", refused)
        head = f"{method} {t.path} HTTP/1.1\r\nHost: {t.authority}\r\n".encode("ascii")
        request = head + self._fields
        mode = "head" if method == "HEAD" else "skip" if body_limit is None else "count"
        while True:
            conn = self._reuse(t.key) or await self._connect(t)
            self.sent += 1
            try:
                answer = await conn.exchange(request, mode, body_limit or 0)
            except RequestFailed as exc:
                if exc.kind == "dropped" and str(exc) == "stale":
                    continue  # sent on a connection that was already closing: a new one
                raise
            except BaseException:
                conn.close()  # cancelled or timed out mid-answer: the connection goes
                raise
            if conn.reusable and not conn.closed:
                self._idle.setdefault(t.key, []).append(conn)
            else:
                conn.close()  # not kept for another request: closed now, not when collected
            return answer

    async def refusal(self, host: str) -> str | None:
        """Why the policy refuses `host` (None: allowed), decided once per host.

        Raises RequestFailed("connect") when the host cannot be looked up (not remembered: a
        retry looks it up again).
        """
        try:
            return self._refusals[host]
        except KeyError:
            pass
        try:
            refused = await self.resolver.refusal(host)
        except OSError as exc:
            raise RequestFailed("connect", f"cannot connect: {exc.strerror or exc}") from None
        self._refusals[host] = refused
        return refused

    def _reuse(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.reusable and not conn.closed:
                return conn
        return None

    async def _connect(self, t: Target) -> _Connection:
        loop = asyncio.get_running_loop()
        tls = self._tls_context() if t.scheme == "https" else None
        error: OSError | None = None
        for address in await self.resolver.addresses(t.host):
            try:
                _, conn = await loop.create_connection(
                    _Connection,
                    str(address),
                    t.port,
                    ssl=tls,
                    server_hostname=t.host if tls is not None else None,
                )
            except ssl.SSLError as exc:  # the certificate or the handshake
                raise RequestFailed("tls", f"TLS error: {exc}") from None
            except OSError as exc:
                error = exc
                continue
            return conn
        reason = "no address" if error is None else (error.strerror or str(error))
        raise RequestFailed("connect", f"cannot connect to {t.authority}: {reason}")

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()  # certificates and host names verified
        return self._tls

    def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()


__all__ = ["Answer", "Client", "RequestFailed", "Target", "target"]
