"""`catalogctl serve`: the HTTP contract (SPEC §4, §7, §9) on aiohttp's low-level server.

Every response is prepared when the catalog is loaded (and again on reload): a request is a
dictionary lookup, an Accept-Encoding lookup (cached) and a write. The route table is the
same `Site` that `build` writes, so `serve` sends the bytes and headers a build holds.

Hot path: with the access log off, a plain keep-alive GET or HEAD is answered inside the
connection's `data_received`, once aiohttp's parser has read it, with one write of bytes
serialized at load time (`Wire`), so no request, response or task object is made for it;
everything else goes through aiohttp's request handling (see `_Protocol`).

Process model: one process by default; with `workers > 1` a supervisor forks N workers that
each bind the port with SO_REUSEPORT (the kernel spreads connections), forwards SIGHUP to
them and restarts a worker that dies. SIGTERM/SIGINT stop accepting, let in-flight responses
finish (up to `shutdown_timeout`) and exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import email.utils
import errno
import json
import logging
import os
import re
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from http import HTTPStatus
from typing import Any, Literal

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from aiohttp.http import HttpVersion11
from aiohttp.http_exceptions import BadHttpMethod
from aiohttp.streams import EMPTY_PAYLOAD
from aiohttp.web_protocol import RequestHandler

try:  # private: the fast path below is switched off where aiohttp does not have it
    from aiohttp.web_protocol import _ErrInfo
except ImportError:  # pragma: no cover - other aiohttp versions
    _ErrInfo = None  # type: ignore[assignment,misc]
from multidict import CIMultiDict, CIMultiDictProxy

from catalogctl.contract.routes import API_PREFIX, HTML, ErrorPage, Site, error_page
from catalogctl.errors import CatalogError, InputError
from catalogctl.site.load import SiteInput, count_games, load_isolated

SERVER_NAME = "catalogctl"  # the Server header: no version numbers
METHODS = frozenset({"GET", "HEAD"})

log = logging.getLogger("catalogctl.serve")
access_log = logging.getLogger("catalogctl.access")

Headers = CIMultiDictProxy[str]


# --- content negotiation and conditional requests -------------------------------------------


def parse_accept_encoding(value: str) -> dict[str, float]:
    """`gzip;q=0.5, br` → {"gzip": 0.5, "br": 1.0}; malformed q-values count as 0."""
    weights: dict[str, float] = {}
    for item in value.split(","):
        coding, _, params = item.partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, raw = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(raw.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        if coding == "x-gzip":  # RFC 9110 §8.4.1.3: an alias of gzip
            coding = "gzip"
        weights[coding] = max(q, weights.get(coding, 0.0))
    return weights


@lru_cache(maxsize=1024)
def choose_encoding(accept_encoding: str | None, available: tuple[str, ...]) -> str:
    """The content coding to send: the highest q-value, ties by `available` order (br first).

    No header means identity (RFC 9110 §12.5.3 allows any coding, but a client that sends no
    Accept-Encoding is often one that cannot decode). Identity is the fallback when nothing
    listed is available, even when the client ruled it out: sending the plain bytes beats 406.
    """
    if not accept_encoding or not available:
        return "identity"
    weights = parse_accept_encoding(accept_encoding)
    star = weights.get("*")
    best, best_q = "identity", 0.0
    for coding in available:
        q = weights.get(coding, star if star is not None else 0.0)
        if q > best_q:
            best, best_q = coding, q
    if best == "identity":
        return best
    identity_q = weights.get("identity", star if star is not None else 1.0)
    # Identity wins only when the client explicitly prefers it over every coding offered.
    return "identity" if "identity" in weights and identity_q > best_q else best


def etag_matches(if_none_match: str, etag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` is ignored."""
    value = if_none_match.strip()
    if value == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in _split_etags(value))


def _split_etags(value: str) -> Iterator[str]:
    # Entity tags cannot contain '"' inside, but may contain ',' — split on quotes, not commas.
    i, n = 0, len(value)
    while i < n:
        while i < n and value[i] in " \t,":
            i += 1
        if i >= n:
            return
        start = i
        if value.startswith("W/", i):
            i += 2
        if i < n and value[i] == '"':
            end = value.find('"', i + 1)
            if end < 0:
                return
            yield value[start : end + 1]
            i = end + 1
        else:  # not an entity tag: skip to the next comma
            end = value.find(",", i)
            i = n if end < 0 else end + 1


# --- the prepared route table -----------------------------------------------------------------


class Wire:
    """An answer as the bytes aiohttp writes for it on an HTTP/1.1 keep-alive connection.

    Status line, headers and Content-Length are serialized once, exactly as aiohttp's
    `web.Response` would; only the Date header (to the second, RFC 9110 §6.6.1) changes, so
    the whole message is joined again at most once a second. A request is then one write.
    """

    __slots__ = ("_body", "_head", "_message", "_second", "_stamped")

    # Bodies above this size are sent beside the head (one writev), not joined to it, so a
    # large document is never held twice.
    JOIN_LIMIT = 256 * 1024

    def __init__(self, status: int, headers: Headers, body: bytes) -> None:
        lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if status != 304:  # aiohttp drops it from a 304 (RFC 9110 §8.6)
            lines.append(f"Content-Length: {len(body)}")
        self._head = ("\r\n".join(lines) + "\r\n").encode("utf-8")
        self._body = body
        self._second = -1
        self._stamped = b""  # head + Date + blank line
        self._message: bytes | None = None  # all of it, when the body is small enough

    @staticmethod
    def possible(status: int, headers: Headers, body: bytes) -> bool:
        """Whether aiohttp would write the same head for GET and HEAD (so one `Wire` serves
        both), and every header is one it would send as is."""
        if status == 304:
            if body:
                return False
        elif not body or status < 200 or status == 204:
            return False
        return not any(_UNSAFE_HEADER.search(k + v) for k, v in headers.items())

    def send(self, transport: asyncio.Transport, with_body: bool) -> None:
        now = int(time.time())
        if now != self._second:
            self._stamp(now)
        if not with_body:
            transport.write(self._stamped)
        elif self._message is not None:
            transport.write(self._message)
        else:
            transport.writelines((self._stamped, self._body))

    def _stamp(self, now: int) -> None:
        date = f"Date: {email.utils.formatdate(now, usegmt=True)}\r\n\r\n".encode("ascii")
        self._stamped = self._head + date
        small = len(self._body) <= self.JOIN_LIMIT
        self._message = self._stamped + self._body if small else None
        self._second = now


# What aiohttp refuses in a header (it would raise at request time, a 500).
_UNSAFE_HEADER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Answer:
    """One prepared response: status, complete headers (Content-Length aside) and body; `wire`
    holds its serialized form when it can be sent without aiohttp's response machinery."""

    status: int
    headers: Headers
    body: bytes
    etag: str = ""
    wire: Wire | None = dataclasses.field(default=None, compare=False, repr=False)

    @classmethod
    def prepared(cls, status: int, headers: Headers, body: bytes, etag: str = "") -> Answer:
        wire = Wire(status, headers, body) if Wire.possible(status, headers, body) else None
        return cls(status, headers, body, etag, wire)


@dataclass(frozen=True, slots=True)
class Route:
    full: dict[str, Answer]  # encoding → 200
    not_modified: dict[str, Answer]  # encoding → 304
    encodings: tuple[str, ...]  # the encoded variants on offer, in preference order


def _headers(*groups: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> Headers:
    merged: CIMultiDict[str] = CIMultiDict()
    for group in groups:
        for name, value in group:
            merged.add(name, value)
    merged["Server"] = SERVER_NAME
    return CIMultiDictProxy(merged)


# Headers a 304 repeats (RFC 9110 §15.4.5): those a 200 would send, bar the body's own.
_NOT_304 = frozenset({"content-type", "content-encoding", "content-length"})


@dataclass(frozen=True, slots=True)
class Table:
    """The precomputed responses of one `Site`."""

    site: Site
    routes: dict[str, Route]
    not_found_headers: Headers
    not_found_html: Answer
    forbidden: Answer
    bad_request: Answer
    server_error: Answer
    games: int
    # (method, target, Accept-Encoding, If-None-Match) → prepared bytes, for requests that hit
    # a route: a handful of distinct keys in practice; bounded against clients that vary them.
    _wires: dict[tuple[str, str, str | None, str | None], Wire] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )
    WIRES_KEPT = 1024

    @classmethod
    def build(cls, site: Site) -> Table:
        routes: dict[str, Route] = {}
        for path, res in site.resources.items():
            full: dict[str, Answer] = {}
            not_modified: dict[str, Answer] = {}
            for variant in (res.identity, *res.encoded):
                own = [("Content-Type", res.content_type), ("ETag", variant.etag)]
                if variant.encoding != "identity":
                    own.append(("Content-Encoding", variant.encoding))
                headers = _headers(own, res.headers)
                full[variant.encoding] = Answer.prepared(200, headers, variant.body, variant.etag)
                kept = [(k, v) for k, v in headers.items() if k.lower() not in _NOT_304]
                not_modified[variant.encoding] = Answer.prepared(
                    304, _headers(kept), b"", variant.etag
                )
            routes[path] = Route(full, not_modified, tuple(v.encoding for v in res.encoded))
        nf = site.not_found
        return cls(
            site=site,
            routes=routes,
            not_found_headers=_headers([("Content-Type", nf.content_type)], nf.headers),
            not_found_html=_page(site.errors.get(404), 404, "Not Found", "Nothing here."),
            forbidden=_page(
                site.errors.get(403),
                403,
                "Forbidden",
                "This service is read-only: use GET or HEAD.",
            ),
            bad_request=_page(None, 400, "Bad Request", "The request could not be understood."),
            server_error=_page(None, 500, "Internal Server Error", "Please try again later."),
            games=count_games(site),
        )

    def answer(
        self, method: str, target: str, accept_encoding: str | None, if_none_match: str | None
    ) -> Answer:
        """The response to a request; `target` is the request target exactly as sent."""
        if method not in METHODS:
            return self.forbidden
        path = target.partition("?")[0]
        route = self.routes.get(path)
        if route is None:
            if path.startswith(API_PREFIX):
                return Answer(404, self.not_found_headers, self.site.not_found.body(path))
            return self.not_found_html
        encoding = choose_encoding(accept_encoding, route.encodings) if route.encodings else ""
        full = route.full[encoding or "identity"]
        if if_none_match is not None and etag_matches(if_none_match, full.etag):
            return route.not_modified[encoding or "identity"]
        return full

    def wire(
        self, method: str, target: str, accept_encoding: str | None, if_none_match: str | None
    ) -> Wire | None:
        """The prepared bytes of `answer(...)`, or None when it has none; remembered."""
        key = (method, target, accept_encoding, if_none_match)
        wire = self._wires.get(key)
        if wire is None:
            path = request_target(target)
            wire = self.answer(method, path, accept_encoding, if_none_match).wire
            if (
                wire is not None
                and len(self._wires) < self.WIRES_KEPT
                and path.partition("?")[0] in self.routes
            ):
                self._wires[key] = wire
        return wire


def _page(page: ErrorPage | None, status: int, title: str, text: str) -> Answer:
    if page is None:
        no_store = (("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"))
        page = ErrorPage(status, HTML, no_store, error_page(status, title, text))
    headers = _headers([("Content-Type", page.content_type)], page.headers)
    return Answer.prepared(status, headers, page.body)


# --- options, logging -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    access_log: bool = True
    log_format: Literal["text", "json"] = "text"
    watch: bool = False
    watch_interval: float = 1.0
    keepalive_timeout: float = 15.0  # also bounds how long a request head may take to arrive
    shutdown_timeout: float = 10.0
    max_line_size: int = 8190
    max_field_size: int = 8190
    max_headers: int = 100
    backlog: int = 1024


@dataclass(frozen=True, slots=True)
class Ready:
    """What the server reports once it listens."""

    url: str
    base_url: str  # the base URL the documents were rendered for
    host: str
    port: int
    workers: int
    games: int
    source: str
    pid: int


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = getattr(record, "access", None) or {
            "time": _now_iso(record.created),
            "level": record.levelname.lower(),
            "message": record.getMessage(),
        }
        if "pid" not in entry:
            entry["pid"] = record.process
        return json.dumps(entry, ensure_ascii=True)


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        if getattr(record, "access", None):
            return record.getMessage()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        return f"{stamp} [{record.process}] {record.levelname.lower()}: {record.getMessage()}"


def configure_logging(log_format: Literal["text", "json"]) -> None:
    """Server events to stderr, access log lines to stdout; text or JSON lines."""
    formatter: logging.Formatter = _JsonFormatter() if log_format == "json" else _TextFormatter()
    for logger, stream in ((log, sys.stderr), (access_log, sys.stdout)):
        logger.handlers.clear()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(formatter)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    # aiohttp's own loggers would print tracebacks for malformed requests; our handler logs
    # one line for those instead.
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)


def _now_iso(created: float) -> str:
    return dt.datetime.fromtimestamp(created, dt.UTC).isoformat(timespec="milliseconds")


def _printable(text: str) -> str:
    # Request targets are attacker-controlled: escape anything that could forge a log line.
    return json.dumps(text, ensure_ascii=True)[1:-1]


class AccessLog(AbstractAccessLogger):
    """One line per response: Common Log Format plus timing, or a JSON object."""

    def __init__(self, logger: logging.Logger, log_format: str) -> None:
        super().__init__(logger, log_format)
        self.json = log_format == "json"

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        headers = request.headers
        version = f"HTTP/{request.version.major}.{request.version.minor}"
        size = response.body_length
        if self.json:
            entry = {
                "time": _now_iso(_time_now()),
                "remote": request.remote,
                "method": request.method,
                "path": request.raw_path,
                "protocol": version,
                "status": response.status,
                "bytes": size,
                "encoding": response.headers.get("Content-Encoding", "identity"),
                "duration_ms": round(time * 1000, 3),
                "referer": headers.get("Referer"),
                "user_agent": headers.get("User-Agent"),
            }
            self.logger.info("", extra={"access": entry})
            return
        stamp = time_stamp()
        line = (
            f'{request.remote or "-"} - - [{stamp}] "{request.method} '
            f'{_printable(request.raw_path)} {version}" {response.status} {size} '
            f'"{_printable(headers.get("Referer", "-"))}" '
            f'"{_printable(headers.get("User-Agent", "-"))}" {time * 1000:.3f}ms'
        )
        self.logger.info(line, extra={"access": True})


def _time_now() -> float:
    return time.time()


def time_stamp() -> str:
    return time.strftime("%d/%b/%Y:%H:%M:%S %z", time.localtime())


# --- the aiohttp side -------------------------------------------------------------------------


# What the fast path below relies on in aiohttp's connection handler (as in aiohttp 3.14);
# with an aiohttp that lacks any of it, every request takes aiohttp's ordinary path.
_FAST_PATH_SLOTS = (
    "_waiter",
    "_messages",
    "_manager",
    "_parser",
    "_keepalive_timeout",
    "_keepalive_handle",
    "_next_keepalive_close_time",
    "_buffer_paused",
    "_msg_queue_resume_size",
)
_FAST_PATH = (
    all(
        any(name in getattr(cls, "__slots__", ()) for cls in RequestHandler.__mro__)
        for name in _FAST_PATH_SLOTS
    )
    and callable(getattr(RequestHandler, "_resume_reading_if_drained", None))
    and _ErrInfo is not None
)


class _Protocol(RequestHandler):
    """aiohttp's connection handler, with our own bodies (and no traceback) for bad requests,
    and a fast path: when the access log is off and the connection is idle, a plain GET or
    HEAD (HTTP/1.1, keep-alive, no body) is answered from `data_received` with one write of
    its prepared bytes, the ones aiohttp would have written, without a request object, a
    response object or a task. Anything else (HTTP/1.0, `Connection: close`, a body, an
    upgrade, a parse error, an answer built per request, a connection whose writes are
    paused, a request queued behind one in progress) is left to aiohttp, in order."""

    app: App
    fast: bool

    def data_received(self, data: bytes) -> None:
        waiter = self._waiter
        if not self.fast or waiter is None or waiter.done() or self._messages:
            RequestHandler.data_received(self, data)
            return
        # The request loop is idle, waiting for a message: parse without waking it, answer
        # what we can right here, and wake it only for what is left.
        self._waiter = None
        try:
            RequestHandler.data_received(self, data)
        finally:
            self._waiter = waiter
        messages = self._messages
        if not messages:
            return
        transport = self.transport
        prepared = self.app.table.wire
        answered = 0
        while messages:
            message, payload = messages[0]
            if (
                payload is not EMPTY_PAYLOAD
                or transport is None
                or transport.is_closing()
                or self._paused
                or isinstance(message, _ErrInfo)
                or message.should_close
                or message.upgrade
                or (message.version is not HttpVersion11 and message.version != HttpVersion11)
            ):
                break
            headers = message.headers
            method = message.method
            wire = prepared(
                method, message.path, headers.get("Accept-Encoding"), headers.get("If-None-Match")
            )
            if wire is None:
                break
            wire.send(transport, method != "HEAD")
            messages.popleft()
            answered += 1
            if self._parser is not None:
                self._parser.message_consumed()
        if answered:
            self._answered(answered)
        if messages and not waiter.done():
            waiter.set_result(None)

    def _answered(self, count: int) -> None:
        """What aiohttp's request loop does after a keep-alive response, for `count` of them."""
        loop = self._loop
        manager = self._manager
        if manager is not None:
            manager.requests_count += count
        close_time = loop.time() + self._keepalive_timeout
        self._next_keepalive_close_time = close_time
        if self._keepalive_handle is None and self._keepalive_timeout > 0:
            self._keepalive_handle = loop.call_at(close_time, self._process_keepalive)
        if self._buffer_paused and len(self._messages) <= self._msg_queue_resume_size:
            self._resume_reading_if_drained()

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("response already started")
        table = self.app.table
        answer = table.bad_request if 400 <= status < 500 else table.server_error
        if isinstance(exc, BadHttpMethod) and "HTTPS" not in str(exc):
            # The parser knows a fixed list of methods; any other one is still a method
            # that SPEC §7 answers with 403 (the connection closes: the parser gave up).
            status, answer = 403, table.forbidden
        if status >= 500:
            log.error("error handling %s %s: %r", request.method, request.raw_path, exc)
        resp = web.Response(status=status, body=answer.body, headers=answer.headers)
        resp.force_close()
        return resp


class _Server(web.Server):
    def __init__(self, app: App, **kwargs: Any) -> None:
        super().__init__(app.handle, **kwargs)
        self.app = app

    def __call__(self) -> RequestHandler:
        proto = _Protocol(self, loop=self._loop, **self._kwargs)
        proto.app = self.app
        proto.fast = _FAST_PATH and proto.access_logger is None
        return proto


class App:
    """One worker's state: the current table, swapped whole on reload."""

    def __init__(
        self,
        source: SiteInput,
        site: Site,
        *,
        announce_reloads: bool = True,
        fingerprint: tuple[tuple[str, int, int], ...] | None = None,
    ) -> None:
        self.source = source
        self.table = Table.build(site)
        # what the files looked like before `site` was loaded (--watch compares against it)
        self.fingerprint = fingerprint if fingerprint is not None else source.fingerprint()
        self.announce_reloads = announce_reloads
        self._reloading: asyncio.Task[None] | None = None
        self._again = False

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        headers = request.headers
        answer = self.table.answer(
            request.method,
            request_target(request.raw_path),
            headers.get("Accept-Encoding"),
            headers.get("If-None-Match"),
        )
        return web.Response(status=answer.status, body=answer.body, headers=answer.headers)

    def request_reload(self) -> None:
        """Reload in the background; a request arriving meanwhile runs once more afterwards."""
        if self._reloading is not None and not self._reloading.done():
            self._again = True
            return
        self._reloading = asyncio.get_running_loop().create_task(self.reload())

    async def reload(self) -> None:
        while True:
            self._again = False
            loop = asyncio.get_running_loop()
            failure = None
            try:
                site = await loop.run_in_executor(None, load_isolated, self.source)
                table = Table.build(site)
            except CatalogError as exc:
                failure = exc.message
            except Exception as exc:  # noqa: BLE001 - a reload must never take the server down
                failure = repr(exc)
            if failure is not None:
                log.error("reload failed, still serving the previous catalog: %s", failure)
            else:
                self.table = table
                if self.announce_reloads:
                    log.info("reloaded %s: %d games", self.source.display, table.games)
            if not self._again:
                return


def request_target(target: str) -> str:
    """The path part of a request target as sent (origin-form as is; absolute-form cut)."""
    if target.startswith("/"):
        return target
    # absolute-form (`GET http://host/api/v1`): the path part, still as sent
    if "://" in target:
        rest = target.split("://", 1)[1]
        slash = rest.find("/")
        return rest[slash:] if slash >= 0 else "/"
    return target


def make_server(app: App, options: ServeOptions) -> web.Server:
    """The aiohttp low-level server for `app` (used by workers and by in-process tests)."""
    return _Server(
        app,
        access_log_class=AccessLog,
        access_log=access_log if options.access_log else None,
        access_log_format=options.log_format,
        keepalive_timeout=options.keepalive_timeout,
        max_line_size=options.max_line_size,
        max_field_size=options.max_field_size,
        max_headers=options.max_headers,
        handler_cancellation=False,
    )


# --- sockets ----------------------------------------------------------------------------------


def _bind(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_ADDRCONFIG
        )
    except socket.gaierror as exc:
        raise InputError(f"cannot resolve --host {host!r}: {exc.strerror}") from exc
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(addr)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        hint = (
            " (is another server running there? try --port)"
            if exc.errno == errno.EADDRINUSE
            else ""
        )
        raise InputError(f"cannot listen on {host}:{port}: {reason}{hint}") from exc
    sock.setblocking(False)
    return sock


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


# --- running ----------------------------------------------------------------------------------


def _event_loop() -> asyncio.AbstractEventLoop:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


async def _serve_socket(
    app: App,
    sock: socket.socket,
    options: ServeOptions,
    on_listening: Callable[[], object] | None,
    *,
    watch: bool,
) -> None:
    loop = asyncio.get_running_loop()
    server = make_server(app, options)
    runner = web.ServerRunner(server, shutdown_timeout=options.shutdown_timeout)
    await runner.setup()
    site = web.SockSite(runner, sock, backlog=options.backlog)
    await site.start()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, app.request_reload)
    watcher = loop.create_task(_watch(app)) if watch else None
    if on_listening is not None:
        on_listening()
    try:
        await stop.wait()
    finally:
        if watcher is not None:
            watcher.cancel()
        # Stops listening, lets in-flight responses finish, closes idle keep-alive connections.
        await runner.cleanup()


async def _watch(app: App, interval: float = 1.0) -> None:
    seen = app.fingerprint
    while True:
        await asyncio.sleep(interval)
        now = app.source.fingerprint()
        if now != seen:
            seen = now
            log.info("change detected in %s, reloading", app.source.display)
            app.request_reload()


def serve(
    source: SiteInput,
    options: ServeOptions,
    *,
    site: Site | None = None,
    on_ready: Callable[[Ready], None] | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT. Raises `CatalogError` when it cannot start."""
    fingerprint = source.fingerprint()  # before loading: --watch sees edits made meanwhile
    site = site if site is not None else source.load()
    games = Table.build(site).games
    if options.workers > 1:
        _supervise(source, site, options, games, on_ready, fingerprint)
        return
    sock = _bind(options.host, options.port, reuse_port=False)
    port = sock.getsockname()[1]
    ready = Ready(
        _url(options.host, port),
        site.base_url,
        options.host,
        port,
        1,
        games,
        source.display,
        os.getpid(),
    )
    app = App(source, site, fingerprint=fingerprint)
    loop = _event_loop()
    try:
        loop.run_until_complete(
            _serve_socket(
                app,
                sock,
                options,
                (lambda: on_ready(ready)) if on_ready else None,
                watch=options.watch,
            )
        )
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
        sock.close()


# --- workers ----------------------------------------------------------------------------------

_SUPERVISOR_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD)


class _SignalInbox:
    """Signals as bytes on a pipe (`signal.set_wakeup_fd`), so the supervisor can wait with
    select and never holds signals blocked (a child it forks would inherit a blocked mask)."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.set_blocking(self.write_fd, False)
        self.previous_fd = signal.set_wakeup_fd(self.write_fd, warn_on_full_buffer=False)
        self.previous = {sig: signal.signal(sig, self._noop) for sig in _SUPERVISOR_SIGNALS}

    @staticmethod
    def _noop(signum: int, frame: object) -> None:
        """The number arrives on the wake-up fd; nothing to do here."""

    def wait(self, timeout: float) -> list[int]:
        import select

        if select.select([self.read_fd], [], [], timeout)[0]:
            with contextlib.suppress(BlockingIOError):
                return list(os.read(self.read_fd, 256))
        return []

    def forget(self) -> None:
        """In a forked worker: default signal handling, before it sets up its own."""
        signal.set_wakeup_fd(-1)
        for sig in _SUPERVISOR_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        os.close(self.read_fd)
        os.close(self.write_fd)

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        os.close(self.read_fd)
        os.close(self.write_fd)


def _supervise(
    source: SiteInput,
    site: Site,
    options: ServeOptions,
    games: int,
    on_ready: Callable[[Ready], None] | None,
    fingerprint: tuple[tuple[str, int, int], ...],
) -> None:
    if not hasattr(socket, "SO_REUSEPORT"):
        raise InputError("--workers needs SO_REUSEPORT, which this platform lacks")
    # Bind once without SO_REUSEPORT so a port in use is an error, not a silent share.
    probe = _bind(options.host, options.port, reuse_port=False)
    port = probe.getsockname()[1]
    probe.close()
    holder = _bind(options.host, port, reuse_port=True)  # keeps the port ours until exit
    children: dict[int, float] = {}
    stopping = False
    inbox = _SignalInbox()
    ready_r, ready_w = os.pipe()  # each worker writes one byte once it listens

    def spawn(notify: int | None) -> None:
        # Signals stay blocked only across fork(), until the child has dropped our handlers.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SUPERVISOR_SIGNALS)
        pid = os.fork()
        if pid == 0:  # the worker
            code, failure = 0, None
            try:
                inbox.forget()
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                listening = (lambda: os.write(notify, b".")) if notify is not None else None
                _worker(source, site, options, port, listening)
            except CatalogError as exc:
                code, failure = 2, exc.message
            except BaseException:
                log.exception("worker %d failed", os.getpid())
                code = 1
            finally:
                if failure is not None:
                    log.error("worker %d: %s", os.getpid(), failure)
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        children[pid] = time.monotonic()

    try:
        for _ in range(options.workers):
            spawn(ready_w)
        os.close(ready_w)
        ready_w = -1
        _await_workers(ready_r, options.workers)
        if on_ready is not None:
            on_ready(
                Ready(
                    _url(options.host, port),
                    site.base_url,
                    options.host,
                    port,
                    options.workers,
                    games,
                    source.display,
                    os.getpid(),
                )
            )
        seen = fingerprint if options.watch else None
        while children:
            received = inbox.wait(options.watch_interval)
            if signal.SIGTERM in received or signal.SIGINT in received:
                if not stopping:
                    _signal_all(children, signal.SIGTERM)
                stopping = True
            elif signal.SIGHUP in received and not stopping:
                site = _reload_supervisor(source, site, children)
            elif not received and seen is not None and not stopping:
                now = source.fingerprint()
                if now != seen:
                    seen = now
                    log.info("change detected in %s, reloading", source.display)
                    site = _reload_supervisor(source, site, children)
            for pid in _reap(children):
                started = children.pop(pid)
                if not stopping:
                    log.error("worker %d exited unexpectedly; starting another", pid)
                    if time.monotonic() - started < 1.0:
                        time.sleep(1.0)  # do not spin if workers die at start
                    spawn(None)
    finally:
        if children:
            _signal_all(children, signal.SIGKILL)
            for pid in list(children):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
        holder.close()
        with contextlib.suppress(OSError):
            os.close(ready_r)
        if ready_w >= 0:
            os.close(ready_w)
        inbox.close()


def _await_workers(ready_r: int, workers: int, timeout: float = 30.0) -> None:
    import select

    deadline = time.monotonic() + timeout
    got = 0
    while got < workers:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([ready_r], [], [], left)[0]:
            raise CatalogError("the workers did not start listening in time")
        chunk = os.read(ready_r, workers - got)
        if not chunk:
            raise CatalogError("a worker exited before it started listening")
        got += len(chunk)


def _reload_supervisor(source: SiteInput, site: Site, children: dict[int, float]) -> Site:
    """Validate and render once here; workers reload only when the content is good."""
    try:
        new = load_isolated(source)
        games = Table.build(new).games
    except CatalogError as exc:
        failure = exc.message
    except Exception as exc:  # noqa: BLE001 - a reload must never take the server down
        failure = repr(exc)
    else:
        _signal_all(children, signal.SIGHUP)
        log.info("reloaded %s: %d games (%d workers)", source.display, games, len(children))
        return new
    log.error("reload failed, still serving the previous catalog: %s", failure)
    return site


def _signal_all(children: dict[int, float], sig: signal.Signals) -> None:
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _reap(children: dict[int, float]) -> list[int]:
    done = []
    for pid in list(children):
        try:
            got, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            got = pid
        if got == pid:
            done.append(pid)
    return done


def _die_with_parent() -> None:
    """Linux: a worker gets SIGTERM when its supervisor dies, even by SIGKILL."""
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the supervisor died before prctl took effect
        os._exit(0)


def _worker(
    source: SiteInput,
    site: Site,
    options: ServeOptions,
    port: int,
    listening: Callable[[], object] | None,
) -> None:
    _die_with_parent()
    sock = _bind(options.host, port, reuse_port=True)
    app = App(source, site, announce_reloads=False)
    loop = _event_loop()
    try:
        loop.run_until_complete(_serve_socket(app, sock, options, listening, watch=False))
    finally:
        loop.close()
        sock.close()
