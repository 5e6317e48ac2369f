"""HTTP/1.1 above the parser: what a request head means, shared by both engines.

An engine fills a `RequestHead` (the request line's parts and the header fields that decide
the answer) and asks `decide` for the answer and whether the connection closes after it.
Everything the project chose for HTTP (request-line grammar, versions, Host, absolute-form
targets, Expect, Transfer-Encoding, methods, content, conditionals, Accept-Encoding) is
decided here or in the `Table` it calls, in the order RFC 9110 and RFC 9112 give; so the
httptools engine and the aiohttp application answer alike wherever the answer is ours.
"""

from __future__ import annotations

import ipaddress
import re

from catalogctl.serve.responses import GET, HEAD, Prepared, Table, problem

# --- the answers to requests that cannot be served ------------------------------------------

BAD_LINE = problem(400, "The request line is not `method SP request-target SP HTTP-version`.")
BAD_HEADER = problem(400, "A header field of the request could not be parsed.")
NO_HOST = problem(400, "An HTTP/1.1 request needs a Host header field.")
MANY_HOSTS = problem(400, "A request may carry one Host header field only.")
BAD_HOST = problem(400, "The Host header field is not a valid host [ : port ].")
BAD_TARGET = problem(400, "The request target is not a path or an http(s) URL with a host.")
BAD_FRAMING = problem(
    400, "The request's Transfer-Encoding or Content-Length does not frame its content."
)
CONTENT_TOO_LARGE = problem(413, "This service takes no request content.")
URI_TOO_LONG = problem(414, "The request target is too long.")
EXPECTATION_FAILED = problem(417, "The only expectation this server meets is 100-continue.")
HEAD_TOO_LARGE = problem(431, "The request head is too large.")
UNKNOWN_CODING = problem(501, "The request uses a transfer coding this server does not know.")
VERSION_NOT_SUPPORTED = problem(505, "This server speaks HTTP/1.0 and HTTP/1.1.")

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NOT_TARGET = re.compile(rb"[^\x21-\x7e]")  # a request-target is visible ASCII
_VERSION = re.compile(rb"HTTP/([0-9])\.([0-9])")
# RFC 3986: reg-name (which covers IPv4address) or IP-literal, then an optional port.
_HOST = re.compile(
    rb"(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*|\[([0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\])(?::[0-9]*)?"
)
_ABSOLUTE = re.compile(rb"([A-Za-z][A-Za-z0-9+\-.]*)://([^/?#]*)(.*)", re.S)
_AUTHORITY = re.compile(rb"[^/?#@]+:[0-9]+")  # CONNECT's authority-form (uri-host ":" port)
# Transfer codings of the IANA registry: known (never decoded: any content is refused).
_CODINGS = frozenset({b"chunked", b"gzip", b"x-gzip", b"deflate", b"compress", b"x-compress"})
_OPTIONS, _CONNECT, _ASTERISK = b"OPTIONS", b"CONNECT", b"*"


# Header fields that only tell one request from another: the request ids and trace contexts a
# proxy, load balancer or tracing library adds to each request. No answer depends on them (a
# `RequestHead` reads none), so a head not remembered as sent is looked up again with their
# lines cut out (`protocol.Connections.without_ids`).
ID_FIELDS = (
    "X-Request-Id",
    "X-Correlation-Id",
    "Request-Id",
    "traceparent",
    "tracestate",
    "X-Amzn-Trace-Id",
    "X-Cloud-Trace-Context",
    "CF-Ray",
    "X-B3-TraceId",
    "X-B3-SpanId",
    "X-B3-ParentSpanId",
    "X-B3-Sampled",
    "b3",
    "Fly-Request-Id",
)


class Rejected(Exception):
    """Raised while a head is read: the request gets `answer` and the connection closes."""

    def __init__(self, answer: Prepared) -> None:
        super().__init__(answer.status)
        self.answer = answer


def request_line(line: bytes) -> tuple[bytes, bytes, bytes, int]:
    """`method SP request-target SP HTTP-version` (RFC 9112 §3) → (method, target, version,
    minor version to answer as); raises `Rejected` (400, or 505 for another major version).
    Valid lines are remembered (`LINES_KEPT`): clients repeat a few lines, also where each
    head is new (a proxy in front adding a request id to each)."""
    known = _LINES.get(line)
    if known is not None:
        return known
    parts = line.split(b" ")
    if len(parts) != 3:  # a missing part, a trailing space, two spaces between parts
        raise Rejected(BAD_LINE)
    method, target, version = parts
    known = method, target, version, check_line(method, target, version)
    if len(line) <= LINE_KEPT:
        if len(_LINES) >= LINES_KEPT:
            _LINES.clear()
        _LINES[line] = known
    return known


LINES_KEPT, LINE_KEPT = 1024, 1024  # valid request lines remembered, up to this many bytes
_LINES: dict[bytes, tuple[bytes, bytes, bytes, int]] = {}


def check_line(method: bytes, target: bytes, version: bytes) -> int:
    """The minor version to answer as: HTTP/1.x with x >= 2 is answered as HTTP/1.1."""
    if version == b"HTTP/1.1":
        minor = 1
    elif version == b"HTTP/1.0":
        minor = 0
    else:
        found = _VERSION.fullmatch(version)
        if found is None:  # HTTP/1, http/1.1, HTTP/01.1, HTTP/1.10
            raise Rejected(BAD_LINE)
        if found.group(1) != b"1":  # HTTP/2.0 (and its preface), HTTP/3.0, HTTP/0.9
            raise Rejected(VERSION_NOT_SUPPORTED)
        minor = 1
    if (method not in (GET, HEAD) and _TOKEN.fullmatch(method) is None) or (
        not target or _NOT_TARGET.search(target) is not None
    ):
        raise Rejected(BAD_LINE)
    return minor


class RequestHead:
    """One request's line and the header fields that decide its answer, as bytes.

    `on_header` is httptools' callback (the httptools engine hands this object to the
    parser); the aiohttp application calls it for each raw header. A field sent on several
    lines is joined with ", " (RFC 9110 §5.3); Host lines are counted.
    """

    __slots__ = (
        "accept_encoding",
        "connection",
        "content_length",
        "expect",
        "fields",
        "forwarded",
        "host",
        "hosts",
        "if_match",
        "if_none_match",
        "log",
        "max_field",
        "max_fields",
        "method",
        "minor",
        "rare",
        "referer",
        "target",
        "transfer_encoding",
        "user_agent",
        "version",
        "x_forwarded_for",
    )

    def __init__(self, max_fields: int = 100, max_field: int = 8190, *, log: bool = True) -> None:
        self.max_fields = max_fields
        self.max_field = max_field
        self.log = log  # keep what the access log shows (Referer, User-Agent, proxies)
        self.rare = True
        self.reset()

    def reset(self) -> None:
        """For the next request. The fields most requests lack are cleared only when the
        last request set one of them (`rare`)."""
        self.method = b""  # empty until the request line is read
        self.target = b""
        self.version = b""
        self.minor = 1
        self.fields = self.hosts = 0
        self.host = b""
        self.accept_encoding: bytes | None = None
        self.if_none_match: bytes | None = None
        if self.rare:
            self.rare = False
            self.if_match: bytes | None = None
            self.expect: bytes | None = None
            self.transfer_encoding: bytes | None = None
            self.content_length: bytes | None = None
            self.connection: bytes | None = None
            self.referer: bytes | None = None
            self.user_agent: bytes | None = None
            self.x_forwarded_for: bytes | None = None
            self.forwarded: bytes | None = None

    def copy(self) -> RequestHead:
        """A copy that reading the next request into this head leaves as it is."""
        new = RequestHead.__new__(RequestHead)
        new.accept_encoding = self.accept_encoding
        new.connection = self.connection
        new.content_length = self.content_length
        new.expect = self.expect
        new.fields = self.fields
        new.forwarded = self.forwarded
        new.host = self.host
        new.hosts = self.hosts
        new.if_match = self.if_match
        new.if_none_match = self.if_none_match
        new.log = self.log
        new.max_field = self.max_field
        new.max_fields = self.max_fields
        new.method = self.method
        new.minor = self.minor
        new.rare = self.rare
        new.referer = self.referer
        new.target = self.target
        new.transfer_encoding = self.transfer_encoding
        new.user_agent = self.user_agent
        new.version = self.version
        new.x_forwarded_for = self.x_forwarded_for
        return new

    def on_header(self, name: bytes, value: bytes) -> None:
        self.fields += 1
        if self.fields > self.max_fields or len(name) + len(value) > self.max_field:
            raise Rejected(HEAD_TOO_LARGE)
        key = name.lower()
        if key == b"host":
            self.hosts += 1
            self.host = value.rstrip(b" \t")
        elif key == b"accept-encoding":
            old = self.accept_encoding
            self.accept_encoding = value if old is None else old + b", " + value
        elif key == b"if-none-match":
            old = self.if_none_match
            self.if_none_match = value if old is None else old + b", " + value
        elif key in _LISTS:
            self.rare = True
            slot = _LISTS[key]
            old = getattr(self, slot)
            setattr(self, slot, value if old is None else old + b", " + value)
        elif key == b"content-length":
            # A second Content-Length line is refused (llhttp does the same).
            self.rare = True
            self.content_length = value.rstrip(b" \t") if self.content_length is None else b""
        elif self.log:
            self.rare = True
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


_LISTS = {
    b"if-match": "if_match",
    b"expect": "expect",
    b"transfer-encoding": "transfer_encoding",
    b"connection": "connection",
}


def decide(table: Table, head: RequestHead, prefix: bytes = b"") -> tuple[Prepared, bool]:
    """The answer to a request head and whether the connection closes after it.

    The order: framing (Transfer-Encoding, Content-Length), Host, the request target's form,
    Expect, the method (403), content on GET/HEAD (413), then the route table (404, content
    coding, If-Match → 412, If-None-Match → 304). `prefix` is where an aiohttp application
    is mounted (removed from the path).
    """
    try:
        content = False
        if head.transfer_encoding is not None or head.content_length is not None:
            content = _content(head)
        if head.hosts != 1:
            if head.hosts or head.minor:
                return (MANY_HOSTS if head.hosts else NO_HOST), True
        elif not _HOSTS.get(head.host) and not valid_host(head.host):
            return BAD_HOST, True
        method, target = head.method, head.target
        if target[:1] != b"/":
            target = _origin_form(method, target)
    except Rejected as exc:
        return exc.answer, True
    if head.expect is not None and not _continue_only(head.expect):
        return EXPECTATION_FAILED, content or not persistent(head)
    if method not in (GET, HEAD):
        return table.forbidden, content or not persistent(head)
    if content:
        return CONTENT_TOO_LARGE, True
    found = table.respond(
        method, target, head.accept_encoding, head.if_match, head.if_none_match, prefix
    )
    if head.connection is None:
        return found, head.minor == 0
    return found, not persistent(head)


def persistent(head: RequestHead) -> bool:
    """Whether the connection stays open after this request (RFC 9112 §9.3)."""
    connection = head.connection
    if connection is None:
        return head.minor == 1
    options = {token.strip(b" \t").lower() for token in connection.split(b",")}
    return b"keep-alive" in options if head.minor == 0 else b"close" not in options


def _content(head: RequestHead) -> bool:
    """Whether content follows the head (RFC 9112 §6); raises `Rejected` when it cannot be
    framed: TE on HTTP/1.0, TE with Content-Length, chunked not last, an unknown coding."""
    te = head.transfer_encoding
    if te is None:
        length = head.content_length
        if not length or not length.isdigit():
            raise Rejected(BAD_FRAMING)
        return int(length) > 0
    if head.minor == 0 or head.content_length is not None:
        raise Rejected(BAD_FRAMING)
    codings = [c.partition(b";")[0].strip(b" \t").lower() for c in te.split(b",")]
    codings = [c for c in codings if c]
    if not codings or codings[-1] != b"chunked" or b"chunked" in codings[:-1]:
        raise Rejected(BAD_FRAMING)
    if not _CODINGS.issuperset(codings):
        raise Rejected(UNKNOWN_CODING)
    return True


def _continue_only(expect: bytes) -> bool:
    members = [m.strip(b" \t").lower() for m in expect.split(b",")]
    return all(m == b"100-continue" for m in members if m)


def _origin_form(method: bytes, target: bytes) -> bytes:
    """An absolute-form target's path and query (RFC 9112 §3.2.2); asterisk-form for
    OPTIONS and authority-form for CONNECT pass (those methods get 403); else `Rejected`."""
    found = _ABSOLUTE.fullmatch(target)
    if found is not None:
        scheme, authority, rest = found.groups()
        if (
            scheme.lower() not in (b"http", b"https")
            or not authority
            or b"@" in authority
            or not valid_host(authority)
            or authority.startswith(b":")
        ):
            raise Rejected(BAD_TARGET)
        if rest[:1] != b"/":
            rest = b"/" + rest
        return rest
    if (method == _OPTIONS and target == _ASTERISK) or (
        method == _CONNECT and _AUTHORITY.fullmatch(target) and valid_host(target)
    ):
        return b"/"
    raise Rejected(BAD_TARGET)


_HOSTS: dict[bytes, bool] = {}


def valid_host(value: bytes) -> bool:
    """`uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2); remembered per value."""
    known = _HOSTS.get(value)
    if known is None:
        found = _HOST.fullmatch(value)
        known = found is not None
        if found is not None and found.group(1) is not None and found.group(1)[:1] not in b"vV":
            try:
                ipaddress.IPv6Address(found.group(1).decode("ascii"))
            except ValueError:
                known = False
        if len(_HOSTS) < 1024:
            _HOSTS[value] = known
    return known


def id_lines(max_line: int) -> re.Pattern[bytes]:
    """A line of one of `ID_FIELDS` with the line end before it, that does not go on to the
    next line (obs-fold): the name as a token, a colon, then visible ASCII, spaces and tabs
    (what llhttp takes in any field value), name and value within `max_line` bytes. Lines
    ending in a bare LF, a bare CR or bytes outside ASCII are not cut: such heads are read."""
    names = b"|".join(re.escape(name.encode("ascii")) for name in ID_FIELDS)
    room = max(0, max_line - max(len(name) for name in ID_FIELDS) - 1)
    return re.compile(rb"\r\n(?i:%s):[\t\x20-\x7e]{0,%d}(?=\r\n[^\t ])" % (names, room))
