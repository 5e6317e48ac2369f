"""The HTTP behaviour of every delivery path, as data: docs/reference/http.md is printed from it.

Each `Case` is one raw request (sent as is on a new connection), the answer the project decided
(`answer`, docs/reference/http.md), the RFC section, and for a path whose own HTTP parser decides
before catalogctl's code runs (nginx's, workerd's) what that path answers instead, as measured
(`paths`). `tests/test_http_paths.py` sends every case to every path and checks the answer.

    python -m tests.http_cases     # print the table of docs/reference/http.md

Request templates name the server and the ETags of the build they are sent to: `{host}`
(127.0.0.1:PORT), `{etag}` (/api/v1, identity), `{etag_br}`, `{etag_gzip}`, `{etag_bare}`
(the identity ETag without its quotes).

The reference model of the decisions (`choose_coding`, `if_match_holds`) is here too: the nginx
and Worker tests compare their negotiation with it on generated headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SERVE = "serve"  # catalogctl serve, the default engine (httptools)
SERVE_AIOHTTP = "serve-aiohttp"  # catalogctl serve --http aiohttp
NGINX = "nginx"  # nginx on the generated nginx.conf
WORKERD = "workerd"  # the Worker on workerd
PATHS = (SERVE, SERVE_AIOHTTP, NGINX, WORKERD)
PATH_TITLES = {
    SERVE: "serve (httptools)",
    SERVE_AIOHTTP: "serve (aiohttp)",
    NGINX: "nginx, generated config",
    WORKERD: "Worker on workerd",
}

# Kinds of answer, and what is checked of each (tests/test_http_paths.py):
DOCUMENT = "document"  # 200: the route table's bytes, ETag and headers for `encoding`
NOT_MODIFIED = "304"  # 304: ETag, Cache-Control, Vary, CORS, Date; no body, type or coding
PROBLEM = "problem"  # application/problem+json (RFC 9457) with the error headers and Date
NOT_FOUND = "not-found"  # the contract's §7 problem, `instance` = the path
# The section of the API contract (docs/reference/contract.md) on errors, as the table cites it.
CONTRACT_ERRORS = "[contract §7](contract.md#section-7)"
HTML = "html"  # the HTML page (403 for methods, 404 outside /api/) with the error headers
RUNTIME = "runtime"  # the path's own answer (its text, its headers): the status alone is checked
HTTP09 = "http/0.9"  # an HTTP/0.9 answer: a body without status line or headers
NOTHING = "nothing"  # no answer at all: the connection is closed


@dataclass(frozen=True)
class Answer:
    status: int
    kind: str
    closes: bool | None = None  # the connection is closed after it (None: not checked)
    encoding: str = "identity"  # DOCUMENT and NOT_MODIFIED: the variant sent
    interim: tuple[int, ...] = ()  # 1xx answers sent before it
    then: tuple[int, ...] = ()  # the answers to the requests pipelined behind it
    extra: tuple[str, ...] = ()  # headers the path adds to what was decided
    note: str = ""  # why a path answers so (its own parser, ...)


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    what: str  # the request, in words
    request: bytes
    answer: Answer
    rfc: str = ""
    paths: dict[str, Answer] = field(default_factory=dict)
    target: str = "/api/v1"  # the path the answer is about (documents, problems)

    def expected(self, path: str) -> Answer:
        return self.paths.get(path, self.answer)


def req(line: str, *headers: str, host: bool = True, body: bytes = b"") -> bytes:
    """A request: its line, `Host: {host}` (unless `host=False`), `headers`, CRLFs."""
    lines = [line, *(["Host: {host}"] if host else []), *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def get(*headers: str, target: str = "/api/v1") -> bytes:
    return req(f"GET {target} HTTP/1.1", *headers)


FOLLOW = req("GET /api/v1 HTTP/1.1", "Connection: close")  # a request pipelined behind
# What workerd's HTTP server answers before the Worker runs: a text/plain body, no Date.
WD = "workerd's HTTP server"
NX = "nginx's parser"
# What aiohttp's parser answers before the application runs (`serve --http aiohttp`, measured
# with aiohttp 3.14): HTTP/1.0 400, text/plain, its own Server header, the connection closed.
AIO = "aiohttp's parser"
NXF = "nginx's not-modified filter"


def _wd(status: int, closes: bool | None = True, note: str = WD) -> Answer:
    return Answer(status, RUNTIME, closes=closes, note=note)


def _aio(status: int, closes: bool | None = True, note: str = AIO) -> Answer:
    return Answer(status, RUNTIME, closes=closes, note=note)


def _problem(status: int, closes: bool | None = None) -> Answer:
    return Answer(status, PROBLEM, closes=closes)


def _doc(encoding: str = "identity", closes: bool | None = None) -> Answer:
    return Answer(200, DOCUMENT, encoding=encoding, closes=closes)


WORKER_CANNOT_CLOSE = "the Worker cannot close the connection"


def _worker_problem(status: int) -> Answer:
    """The Worker's own problem answer, on a connection only workerd may close."""
    return Answer(status, PROBLEM, closes=None, note=WORKER_CANNOT_CLOSE)


CASES: list[Case] = []


def case(
    id: str,
    group: str,
    what: str,
    request: bytes,
    answer: Answer,
    rfc: str = "",
    target: str = "/api/v1",
    **paths: Answer,
) -> None:
    by_path = {k.replace("_", "-"): v for k, v in paths.items()}
    CASES.append(Case(id, group, what, request, answer, rfc, by_path, target))


# --- the request line -------------------------------------------------------------------------

LINE = "Request line"
BAD = _problem(400, closes=True)
case(
    "garbage",
    LINE,
    "not a request line (`HELLO`)",
    b"HELLO\r\n\r\n",
    BAD,
    "9112 §3",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "tls-hello",
    LINE,
    "a TLS ClientHello on the plain port",
    bytes.fromhex("16030100a5010000a103036a") + bytes(40),
    BAD,
    "9112 §3",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "method-only",
    LINE,
    "a method alone (`GET`)",
    b"GET\r\n\r\n",
    BAD,
    "9112 §3",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "no-version",
    LINE,
    "no version (`GET /api/v1`, HTTP/0.9's form)",
    b"GET /api/v1\r\n\r\n",
    BAD,
    "9112 §3",
    nginx=Answer(0, HTTP09, closes=True, note="nginx answers HTTP/0.9: the problem body alone"),
    workerd=_wd(400),
    serve_aiohttp=_aio(
        505, note=f"{AIO} reads HTTP/0.9: the 505 problem under the status line HTTP/0.9"
    ),
)
case(
    "bare-lf",
    LINE,
    "request and header lines ending in a bare LF",
    b"GET /api/v1 HTTP/1.1\nHost: {host}\n\n",
    _doc(),
    "9112 §2.2",
    serve_aiohttp=_aio(400),
)
case(
    "bare-cr",
    LINE,
    "a bare CR inside the head",
    req("GET /api/v1 HTTP/1.1", "X-A: 1\rX-B: 2"),
    BAD,
    "9112 §2.2",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "trailing-space",
    LINE,
    "a space after the version",
    req("GET /api/v1 HTTP/1.1 "),
    BAD,
    "9112 §3",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "two-spaces",
    LINE,
    "two spaces between method and target",
    req("GET  /api/v1 HTTP/1.1"),
    BAD,
    "9112 §3",
    workerd=_wd(400),
    serve_aiohttp=Answer(200, DOCUMENT, note=f"{AIO} takes two spaces"),
)

# --- versions -----------------------------------------------------------------------------------

VERSION = "Versions"
case(
    "http-1.0",
    VERSION,
    "`HTTP/1.0` (with Host)",
    req("GET /api/v1 HTTP/1.0"),
    _doc(closes=True),
    "9112 §9.3",
)
case("http-1.1", VERSION, "`HTTP/1.1`", get(), _doc(closes=False), "9112 §9.3")
case(
    "http-1.2",
    VERSION,
    "`HTTP/1.2`: a later 1.x",
    req("GET /api/v1 HTTP/1.2"),
    _doc(closes=False),
    "9110 §6.2",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "http-2.0",
    VERSION,
    "`HTTP/2.0` in an HTTP/1 request line",
    req("GET /api/v1 HTTP/2.0"),
    _problem(505, closes=True),
    "9110 §15.6.6",
    workerd=_wd(400),
    serve_aiohttp=_aio(505, note="the 505 problem under aiohttp's status line HTTP/2.0"),
)
case(
    "http-3.0",
    VERSION,
    "`HTTP/3.0`",
    req("GET /api/v1 HTTP/3.0"),
    _problem(505, closes=True),
    "9110 §15.6.6",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "h2-preface",
    VERSION,
    "the HTTP/2 connection preface (`PRI * HTTP/2.0`)",
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    _problem(505, closes=True),
    "9113 §3.4",
    workerd=Answer(0, NOTHING, closes=True, note="workerd closes without an answer"),
    serve_aiohttp=_aio(400),
)
for version in ("HTTP/1", "http/1.1", "HTTP/01.1"):
    case(
        f"version-{version.replace('/', '-').lower()}",
        VERSION,
        f"malformed version `{version}`",
        req(f"GET /api/v1 {version}"),
        BAD,
        "9112 §2.3",
        workerd=_wd(400),
        serve_aiohttp=_aio(400),
    )

# --- Host ---------------------------------------------------------------------------------------

HOST = "Host"
case(
    "no-host",
    HOST,
    "HTTP/1.1 without Host",
    req("GET /api/v1 HTTP/1.1", host=False),
    BAD,
    "9112 §3.2",
    workerd=_wd(400, closes=None),
    serve_aiohttp=_aio(400),
)
case(
    "two-hosts",
    HOST,
    "two Host lines",
    req("GET /api/v1 HTTP/1.1", "Host: b.example"),
    BAD,
    "9112 §3.2",
    workerd=_worker_problem(400),
    serve_aiohttp=_aio(400),
)
for name, host, why in (
    ("space", "a b", "a space"),
    ("at", "a@b", "`@`"),
    ("port", "a:80x", "a port with a letter"),
    ("percent", "a%zz", "`%` without two hex digits"),
):
    case(
        f"host-{name}",
        HOST,
        f"Host holding {why} (`{host}`)",
        req("GET /api/v1 HTTP/1.1", f"Host: {host}", host=False),
        BAD,
        "9110 §7.2",
        workerd=_worker_problem(400),
    )
case(
    "host-ipv6",
    HOST,
    "Host an IP-literal (`[::1]:80`)",
    req("GET /api/v1 HTTP/1.1", "Host: [::1]:80", host=False),
    _doc(),
    "9110 §7.2",
)
case(
    "absolute-form",
    HOST,
    "absolute-form target `http://games.example/api/v1`",
    req("GET http://games.example/api/v1 HTTP/1.1"),
    _doc(),
    "9112 §3.2.2",
)
case(
    "absolute-empty",
    HOST,
    "absolute-form with an empty authority (`http:///api/v1`)",
    req("GET http:///api/v1 HTTP/1.1"),
    BAD,
    "9110 §4.2.1",
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "absolute-ftp",
    HOST,
    "absolute-form with another scheme (`ftp://x/api/v1`)",
    req("GET ftp://x/api/v1 HTTP/1.1"),
    BAD,
    "9110 §4.2",
    workerd=Answer(200, DOCUMENT, note="workerd hands the Worker the path alone"),
)
case(
    "http-1.0-no-host",
    HOST,
    "HTTP/1.0 without Host",
    req("GET /api/v1 HTTP/1.0", host=False),
    _doc(closes=True),
    "9112 §3.2",
    workerd=_wd(400, closes=None),
)

# --- Expect -------------------------------------------------------------------------------------

EXPECT = "Expect"
case(
    "expect-no-content",
    EXPECT,
    "`Expect: 100-continue` on a GET without content",
    get("Expect: 100-continue"),
    _doc(closes=False),
    "9110 §10.1.1",
    nginx=Answer(200, DOCUMENT, interim=(100,), note="nginx's core sends 100 Continue"),
)
case(
    "expect-post",
    EXPECT,
    "`Expect: 100-continue` on a POST with Content-Length (content not sent)",
    req("POST /api/v1 HTTP/1.1", "Expect: 100-continue", "Content-Length: 5"),
    Answer(403, HTML, closes=True),
    "9110 §10.1.1",
    nginx=Answer(403, HTML, note="nginx keeps the connection, waiting for the content"),
)
case(
    "expect-get-content",
    EXPECT,
    "`Expect: 100-continue` on a GET with Content-Length (content not sent)",
    get("Expect: 100-continue", "Content-Length: 5"),
    _problem(413, closes=True),
    "9110 §10.1.1",
    nginx=Answer(413, PROBLEM, note="nginx says close, then reads the content first"),
)
case(
    "expect-other",
    EXPECT,
    "another expectation (`Expect: teapot`)",
    get("Expect: teapot"),
    _problem(417, closes=False),
    "9110 §10.1.1",
)

# --- Transfer-Encoding and content --------------------------------------------------------------

FRAMING = "Transfer-Encoding and content"
case(
    "te-http-1.0",
    FRAMING,
    "HTTP/1.0 with Transfer-Encoding",
    req("GET /api/v1 HTTP/1.0", "Transfer-Encoding: chunked", body=b"0\r\n\r\n"),
    BAD,
    "9112 §6.1",
    workerd=_wd(400),
)
case(
    "te-and-cl",
    FRAMING,
    "Transfer-Encoding and Content-Length together (POST)",
    req(
        "POST /api/v1 HTTP/1.1",
        "Transfer-Encoding: chunked",
        "Content-Length: 5",
        body=b"0\r\n\r\n",
    ),
    BAD,
    "9112 §6.3",
    workerd=Answer(403, HTML, note="workerd passes it on; the Worker answers the method"),
    serve_aiohttp=_aio(400),
)
case(
    "te-not-chunked",
    FRAMING,
    "Transfer-Encoding whose final coding is not chunked (`gzip`)",
    req("POST /api/v1 HTTP/1.1", "Transfer-Encoding: gzip"),
    BAD,
    "9112 §6.3",
    nginx=Answer(501, PROBLEM, closes=True, note=f"{NX}: any coding but chunked"),
    workerd=_wd(400),
    serve_aiohttp=_aio(400),
)
case(
    "te-unknown",
    FRAMING,
    "a transfer coding nobody knows (`foo, chunked`)",
    req("POST /api/v1 HTTP/1.1", "Transfer-Encoding: foo, chunked", body=b"0\r\n\r\n"),
    _problem(501, closes=True),
    "9112 §6.1",
    workerd=Answer(403, HTML, note="workerd passes it on; the Worker answers the method"),
)
case(
    "get-content",
    FRAMING,
    "GET with content (`Content-Length: 3`)",
    get("Content-Length: 3") + b"abc",
    _problem(413, closes=True),
    "",
    workerd=_worker_problem(413),
)
case(
    "upgrade-h2c",
    FRAMING,
    "`Upgrade: h2c` (what `curl --http2` sends), a request pipelined behind",
    get(
        "Connection: Upgrade, HTTP2-Settings",
        "Upgrade: h2c",
        "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
    )
    + FOLLOW,
    Answer(200, DOCUMENT, then=(200,)),
    "9110 §7.8",
    serve_aiohttp=Answer(200, DOCUMENT, note=f"{AIO}: the request behind is not read"),
)
case(
    "upgrade-websocket",
    FRAMING,
    "`Upgrade: websocket`",
    get(
        "Connection: Upgrade",
        "Upgrade: websocket",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ),
    _doc(closes=False),
    "9110 §7.8",
)

# --- methods and limits -------------------------------------------------------------------------

METHOD = "Methods and limits"
case(
    "post",
    METHOD,
    "POST",
    req("POST /api/v1 HTTP/1.1", "Content-Length: 0"),
    Answer(403, HTML),
    CONTRACT_ERRORS,
)
case(
    "unknown-method",
    METHOD,
    "a method nobody knows (`FOO`)",
    req("FOO /api/v1 HTTP/1.1"),
    Answer(403, HTML),
    CONTRACT_ERRORS,
    workerd=_wd(501),
    serve_aiohttp=_aio(400),
)
case(
    "long-target",
    METHOD,
    "a 20 KB request target",
    req("GET /api/" + "x" * 20000 + " HTTP/1.1"),
    _problem(414, closes=True),
    "9112 §3",
    target="/api/" + "x" * 20000,
    workerd=Answer(404, NOT_FOUND, note="workerd takes targets up to 64 KB"),
    serve_aiohttp=_aio(400),
)
case(
    "long-header",
    METHOD,
    "a 20 KB header line",
    get("X-Filler: " + "y" * 20000),
    _problem(431, closes=True),
    "6585 §5",
    workerd=Answer(200, DOCUMENT, note="workerd takes heads up to 128 KB"),
    serve_aiohttp=_aio(400),
)
case(
    "non-ascii-target",
    METHOD,
    "a request target with a byte outside ASCII",
    "GET /api/\u00e9 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(),
    _problem(400),
    "9112 §3.2",
    serve_aiohttp=_aio(400),
)

# --- conditional requests -----------------------------------------------------------------------

COND = "Conditional requests"
case("if-match", COND, "If-Match: the ETag", get("If-Match: {etag}"), _doc(), "9110 §13.1.1")
case("if-match-star", COND, "If-Match: `*`", get("If-Match: *"), _doc(), "9110 §13.1.1")
case(
    "if-match-list",
    COND,
    "If-Match: a list holding the ETag",
    get('If-Match: "x", {etag}'),
    _doc(),
    "9110 §13.1.1",
)
case(
    "if-match-weak",
    COND,
    "If-Match: the ETag as a weak tag (`W/`)",
    get("If-Match: W/{etag}"),
    _problem(412),
    "9110 §13.1.1",
)
case(
    "if-match-other",
    COND,
    "If-Match: another ETag",
    get('If-Match: "nope"'),
    _problem(412),
    "9110 §13.1.1",
)
case(
    "if-match-other-coding",
    COND,
    "If-Match: the ETag of another encoding",
    get("If-Match: {etag_gzip}"),
    _problem(412),
    "9110 §13.1.1",
)
case(
    "if-match-unquoted",
    COND,
    "If-Match: the ETag without its quotes (malformed)",
    get("If-Match: {etag_bare}"),
    _problem(412),
    "9110 §13.1.1",
)
case(
    "if-match-junk",
    COND,
    "If-Match: junk, then the ETag (malformed)",
    get("If-Match: junk, {etag}"),
    _problem(412),
    "9110 §13.1.1",
    nginx=Answer(200, DOCUMENT, note=f"{NXF} skips an element it cannot read"),
)
case(
    "if-match-404",
    COND,
    "If-Match: another ETag, on an unknown path",
    get('If-Match: "nope"', target="/api/nope"),
    Answer(404, NOT_FOUND),
    "9110 §13.2.1",
    target="/api/nope",
)
case(
    "if-match-first",
    COND,
    "If-Match failing, If-None-Match matching",
    get('If-Match: "nope"', "If-None-Match: {etag}"),
    _problem(412),
    "9110 §13.2.2",
)
case(
    "if-match-then-inm",
    COND,
    "If-Match and If-None-Match both naming the ETag",
    get("If-Match: {etag}", "If-None-Match: {etag}"),
    Answer(304, NOT_MODIFIED),
    "9110 §13.2.2",
)
case(
    "ius",
    COND,
    "If-Unmodified-Since: a date in 2000",
    get("If-Unmodified-Since: Sat, 01 Jan 2000 00:00:00 GMT"),
    _doc(),
    "9110 §13.1.4",
)
case(
    "ius-early",
    COND,
    "If-Unmodified-Since: a date in 1975",
    get("If-Unmodified-Since: Wed, 01 Jan 1975 00:00:00 GMT"),
    _doc(),
    "9110 §13.1.4",
    nginx=Answer(412, PROBLEM, note=f"{NXF}: before the file's time (1980-88)"),
)
case(
    "ius-malformed",
    COND,
    "If-Unmodified-Since: not a date",
    get("If-Unmodified-Since: soon"),
    _doc(),
    "9110 §13.1.4",
    nginx=Answer(412, PROBLEM, note=f"{NXF}"),
)
case(
    "ims",
    COND,
    "If-Modified-Since: a date in 2100",
    get("If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT"),
    _doc(),
    "9110 §13.1.3",
)
case(
    "inm",
    COND,
    "If-None-Match: the ETag",
    get("If-None-Match: {etag}"),
    Answer(304, NOT_MODIFIED),
    "9110 §13.1.2",
)
case(
    "inm-head",
    COND,
    "If-None-Match: the ETag, HEAD",
    req("HEAD /api/v1 HTTP/1.1", "If-None-Match: {etag}"),
    Answer(304, NOT_MODIFIED),
    "9110 §13.1.2",
)
case(
    "inm-weak",
    COND,
    "If-None-Match: the ETag as a weak tag",
    get("If-None-Match: W/{etag}"),
    Answer(304, NOT_MODIFIED),
    "9110 §13.1.2",
)
case(
    "inm-star",
    COND,
    "If-None-Match: `*`",
    get("If-None-Match: *"),
    Answer(304, NOT_MODIFIED),
    "9110 §13.1.2",
)
case(
    "inm-list",
    COND,
    "If-None-Match: a list holding the ETag",
    get('If-None-Match: "x", {etag}'),
    Answer(304, NOT_MODIFIED),
    "9110 §13.1.2",
)
case(
    "inm-other",
    COND,
    "If-None-Match: another ETag",
    get('If-None-Match: "nope"'),
    _doc(),
    "9110 §13.1.2",
)
case(
    "inm-br",
    COND,
    "If-None-Match: the br ETag, with Accept-Encoding: br",
    get("Accept-Encoding: br", "If-None-Match: {etag_br}"),
    Answer(304, NOT_MODIFIED, encoding="br"),
    "9110 §13.1.2",
)
case(
    "inm-br-list",
    COND,
    "If-None-Match: a list holding the br ETag, Accept-Encoding: br",
    get("Accept-Encoding: br", 'If-None-Match: "x", {etag_br}'),
    Answer(304, NOT_MODIFIED, encoding="br"),
    "9110 §15.4.5",
    nginx=Answer(
        304,
        NOT_MODIFIED,
        encoding="br",
        extra=("content-encoding",),
        note=f"{NXF}: its 304 repeats Content-Encoding",
    ),
)
case(
    "inm-404",
    COND,
    "If-None-Match: `*`, on an unknown path",
    get("If-None-Match: *", target="/api/nope"),
    Answer(404, NOT_FOUND),
    "9110 §13.2.1",
    target="/api/nope",
)

# --- Accept-Encoding ----------------------------------------------------------------------------

AE = "Accept-Encoding"
for value, coding, rfc in (
    (None, "identity", "9110 §12.5.3"),
    ("", "identity", "9110 §12.5.3"),
    ("gzip", "gzip", "9110 §12.5.3"),
    ("br", "br", "9110 §12.5.3"),
    ("gzip, deflate, br, zstd", "br", "9110 §12.5.3"),
    ("GZIP", "gzip", "9110 §12.5.3"),
    ("x-gzip", "gzip", "9110 §8.4.1.3"),
    ("*", "br", "9110 §12.5.3"),
    ("*;q=0", "identity", "9110 §12.5.3"),
    ("br;q=0, *", "gzip", "9110 §12.5.3"),
    ("gzip;q=1, br;q=0.5", "gzip", "9110 §12.5.3"),
    ("gzip;q=0.5, br;q=0.5", "br", "9110 §12.5.3"),
    ("br;q=0.5, gzip;Q=0.8", "gzip", "9110 §12.4.2"),
    ("identity;q=1, gzip;q=0.5", "identity", "9110 §12.5.3"),
    ("gzip ; q=0.001", "gzip", "9110 §12.4.2"),
    ("gzip;q=1.000", "gzip", "9110 §12.4.2"),
    ("gzip;q=1.0001", "identity", "9110 §12.4.2"),
    ("gzip;q=0.1234", "identity", "9110 §12.4.2"),
    ("gzip;q=inf", "identity", "9110 §12.4.2"),
    ("gzip;q=1_0", "identity", "9110 §12.4.2"),
    ("gzip;q=2", "identity", "9110 §12.4.2"),
    ("gzip;q=-1", "identity", "9110 §12.4.2"),
    ("gzip;q=.5", "identity", "9110 §12.4.2"),
    ("gzip;q=", "identity", "9110 §12.4.2"),
    ("gzip;q=nan", "identity", "9110 §12.4.2"),
    ("gzip;q = 1", "identity", "9110 §12.4.2"),
    ("gzip;level=1", "identity", "9110 §12.5.3"),
    ("gzip;q=0, x-gzip", "identity", ""),
    ("gzip br", "identity", "9110 §12.5.3"),
):
    headers = () if value is None else (f"Accept-Encoding: {value}",)
    what = "no Accept-Encoding" if value is None else f"`{value}`" if value else "empty"
    slug = re.sub(r"[^A-Za-z0-9=.]+", "-", (value or "empty").replace("*", "star")).strip("-")
    slug = "none" if value is None else slug
    case(f"ae-{slug}", AE, what, get(*headers), _doc(coding), rfc)
case(
    "ae-long",
    AE,
    "6 KB: `gzip, gzip, …`",
    get("Accept-Encoding: " + "gzip, " * 1000 + "br"),
    _doc("br"),
    "9110 §12.5.3",
)
case(
    "ae-long-q",
    AE,
    "7 KB: `x;q=0.5, …, gzip;q=0.9`",
    get("Accept-Encoding: " + "x;q=0.5, " * 800 + "gzip;q=0.9"),
    _doc("gzip"),
    "9110 §12.5.3",
)


# --- the reference model of the decisions -------------------------------------------------------

_WEIGHT = re.compile(r";[ \t]*[qQ]=(?:(1)(?:\.0{0,3})?|(0(?:\.[0-9]{0,3})?))[ \t]*\Z")


def accept_encoding_weights(value: str) -> dict[str, float]:
    """Coding → q: `coding [ OWS ";" OWS "q=" qvalue ]`, anything else q=0; names
    case-insensitive, `x-gzip` is gzip, the first element naming a coding counts."""
    weights: dict[str, float] = {}
    for item in value.split(","):
        coding, semi, params = item.partition(";")
        coding = coding.strip(" \t").lower()
        if not coding:
            continue
        coding = "gzip" if coding == "x-gzip" else coding
        if coding in weights:
            continue
        weight = _WEIGHT.match(semi + params) if semi else None
        q = 1.0 if not semi else 0.0 if weight is None else 1.0 if weight[1] else float(weight[2])
        weights[coding] = q
    return weights


def choose_coding(accept_encoding: str | None, offered: tuple[str, ...]) -> str:
    """The highest q among `offered` (server preference first), `*` for unlisted ones;
    identity when nothing is acceptable, or when listed with a higher q than the choice."""
    if not accept_encoding or not offered:
        return "identity"
    weights = accept_encoding_weights(accept_encoding)
    star = weights.get("*", 0.0)
    best, best_q = "identity", 0.0
    for coding in offered:
        q = weights.get(coding, star)
        if q > best_q:
            best, best_q = coding, q
    if best != "identity" and weights.get("identity", 0.0) > best_q:
        return "identity"
    return best


# --- the table of docs/reference/http.md --------------------------------------------------------

_WORDS = {
    DOCUMENT: "",
    NOT_MODIFIED: "",
    PROBLEM: "problem",
    NOT_FOUND: f"{CONTRACT_ERRORS} problem",
    HTML: "HTML page",
    RUNTIME: "its own text",
    HTTP09: "",
    NOTHING: "",
}


def describe(answer: Answer) -> str:
    """An answer in a few words: `400 problem, close`, `200 br`, `100, then 200`."""
    if answer.kind == NOTHING:
        words = "no answer"
    elif answer.kind == HTTP09:
        words = "HTTP/0.9 body"
    else:
        words = f"{answer.status}"
        if answer.kind in (DOCUMENT, NOT_MODIFIED) and answer.encoding != "identity":
            words += f" {answer.encoding}"
        if _WORDS[answer.kind]:
            words += f" {_WORDS[answer.kind]}"
    if answer.interim:
        words = ", ".join(str(s) for s in answer.interim) + f", then {words}"
    if answer.then:
        words += ", then " + ", ".join(str(s) for s in answer.then)
    if answer.extra:
        words += " + " + ", ".join(answer.extra)
    if answer.closes:
        words += ", close"
    elif answer.closes is False:
        words += ", keep-alive"
    return words


def _cell(case: Case, path: str) -> str:
    own = case.paths.get(path)
    if own is None:
        return "="
    return f"{describe(own)} ({own.note})" if own.note else describe(own)


def markdown_table() -> str:
    """The table of docs/reference/http.md: "=" is the decided answer."""
    head = ["case", "decided answer", "RFC", *(PATH_TITLES[p] for p in PATHS)]
    lines = []
    group = ""
    for c in CASES:
        if c.group != group:
            group = c.group
            lines += ["", f"### {group}", "", "| " + " | ".join(head) + " |"]
            lines.append("|" + "---|" * len(head))
        cells = [c.what, describe(c.answer), c.rfc, *(_cell(c, p) for p in PATHS)]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines).strip() + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
