"""serve's HTTP behaviour, case by case, over raw sockets, for each engine (`--http`).

Each case is a request sent as bytes and the answer the project chose for it (the table in
docs/reference/http.md): the status, whether the connection closes, what kind of body comes
back. Every answer must carry `Date`; every error we produce carries the project's error
headers and a problem+json body. Where aiohttp's own parser answers before the application
runs, `AIOHTTP` holds what it answers (measured) and the test checks exactly that, so a new
aiohttp that changes it fails here and the docs' table is updated with it.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.contract.routes import Site
from catalogctl.serve.options import ENGINES
from catalogctl.site.render import render
from tests.conftest import SAMPLE
from tests.serve_process import ServeProcess

TIMEOUT = 10.0
OURS = (400, 412, 413, 414, 417, 431, 501, 505)  # errors with a problem+json body


@dataclass(frozen=True)
class Want:
    status: int
    close: bool = False  # the server closes the connection after this answer
    kind: str = "problem"  # problem | html | document | aiohttp (aiohttp's own text/plain)
    version: str = "HTTP/1.1"  # in the status line


@dataclass
class Answer:
    version: str
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return ", ".join(values) if values else None


def _read(
    sock: socket.socket, buf: bytes = b"", *, no_body: bool = False
) -> tuple[Answer | None, bytes]:
    """One response (Content-Length framed; no body after HEAD) and what follows."""
    while b"\r\n\r\n" not in buf:
        chunk = _recv(sock)
        if not chunk:
            return None, buf
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    found = re.fullmatch(r"(HTTP/\d\.\d) (\d{3}) .*", lines[0])
    assert found, f"malformed status line {lines[0]!r}"
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    length = 0 if no_body else int(headers.get("content-length", ["0"])[0])
    while len(rest) < length:
        chunk = _recv(sock)
        assert chunk, "connection closed inside a body"
        rest += chunk
    answer = Answer(found.group(1), int(found.group(2)), headers, rest[:length])
    return answer, rest[length:]


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def _closed(sock: socket.socket) -> bool:
    """Whether the server closes the connection (waits for EOF, at most TIMEOUT)."""
    try:
        return _recv(sock) == b""
    except TimeoutError:
        return False


NEXT = b"GET /api/v1 HTTP/1.1\r\nHost: x\r\n\r\n"


def _exchange(
    url: str, data: bytes, answers: int = 1, *, head: bool = False
) -> tuple[list[Answer], bool]:
    """Send `data`, read `answers` responses; then whether the connection is closed (for an
    open one, a further request must be answered)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        sock.sendall(data)
        got: list[Answer] = []
        rest = b""
        for _ in range(answers):
            answer, rest = _read(sock, rest, no_body=head)
            assert answer is not None, f"no answer {len(got) + 1} to {data[:60]!r}"
            got.append(answer)
        assert rest == b"", f"unexpected bytes after the answers: {rest[:80]!r}"
        try:
            sock.sendall(NEXT)
        except OSError:
            return got, True
        sock.settimeout(TIMEOUT)
        answer, _ = _read(sock)
        if answer is None:
            return got, True
        assert answer.status == 200, f"the next request on the connection got {answer.status}"
        return got, False


@pytest.fixture(scope="module", params=ENGINES)
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, Site]]:
    engine = request.param
    proc = ServeProcess(str(SAMPLE), "--http", engine)
    try:
        yield engine, proc.url, render(load_catalog(SAMPLE))
    finally:
        assert proc.stop() == 0


def _check(answer: Answer, want: Want, request: bytes) -> None:
    name = request.split(b"\n")[0][:60]
    assert (answer.version, answer.status) == (want.version, want.status), name
    assert answer.header("date"), f"{name!r}: no Date"
    media = (answer.header("content-type") or "").split(";")[0]
    if want.kind == "problem":
        assert media == "application/problem+json", name
        doc = json.loads(answer.body)
        assert doc["type"] == "about:blank" and doc["status"] == want.status, name
        assert doc["title"] and doc["detail"], name
    elif want.kind == "html":
        assert media == "text/html", name
    elif want.kind == "document":
        assert media == "application/json" and answer.header("etag"), name
    elif want.kind == "aiohttp":  # aiohttp's own error page
        assert media == "text/plain", name
        assert (answer.header("server") or "").startswith("Python/"), name
        return
    if want.status in OURS or want.kind != "document":
        assert answer.header("cache-control") == "no-store", name
        assert answer.header("x-content-type-options") == "nosniff", name
        assert answer.header("access-control-allow-origin") == "*", name
    assert answer.header("server") == "catalogctl", name
    if want.close and want.version == "HTTP/1.1":
        assert answer.header("connection") == "close", name


H = b"Host: x\r\n"
GET = b"GET /api/v1 HTTP/1.1\r\n"
CLOSED = Want(400, close=True, kind="aiohttp", version="HTTP/1.0")  # aiohttp's own 400

# (id, request, answer, answer from the aiohttp engine where aiohttp's parser decides)
CASES: list[tuple[str, bytes, Want, Want | None]] = [
    # request line (RFC 9112 §3)
    ("garbage", b"garbage\r\n\r\n", Want(400, close=True), CLOSED),
    (
        "tls-hello",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32),
        Want(400, True),
        CLOSED,
    ),
    (
        "missing-version",
        b"GET /api/v1\r\n" + H + b"\r\n",
        Want(400, close=True),
        Want(505, True, version="HTTP/0.9"),
    ),
    ("missing-target", b"GET HTTP/1.1\r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    ("trailing-space", b"GET /api/v1 HTTP/1.1 \r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    (
        "two-spaces",
        b"GET  /api/v1 HTTP/1.1\r\n" + H + b"\r\n",
        Want(400, close=True),
        Want(200, kind="document"),
    ),
    ("leading-empty-lines", b"\r\n\r\n" + GET + H + b"\r\n", Want(200, kind="document"), None),
    # line ends (RFC 9112 §2.2)
    ("bare-lf", b"GET /api/v1 HTTP/1.1\nHost: x\n\n", Want(200, kind="document"), CLOSED),
    ("bare-lf-header", GET + b"Host: x\n\r\n", Want(200, kind="document"), CLOSED),
    ("bare-cr", GET + b"Host: x\rY: z\r\n\r\n", Want(400, close=True), CLOSED),
    # versions (RFC 9110 §6.2, §15.6.6; RFC 9112 §2.3)
    (
        "http-1.0",
        b"GET /api/v1 HTTP/1.0\r\n\r\n",
        Want(200, close=True, kind="document"),
        Want(200, True, "document", "HTTP/1.0"),
    ),
    ("http-1.2", b"GET /api/v1 HTTP/1.2\r\n" + H + b"\r\n", Want(200, kind="document"), CLOSED),
    ("http-1.9", b"GET /api/v1 HTTP/1.9\r\n" + H + b"\r\n", Want(200, kind="document"), CLOSED),
    (
        "http-2.0",
        b"GET /api/v1 HTTP/2.0\r\n" + H + b"\r\n",
        Want(505, close=True),
        Want(505, True, version="HTTP/2.0"),
    ),
    ("http-3.0", b"GET /api/v1 HTTP/3.0\r\n" + H + b"\r\n", Want(505, close=True), CLOSED),
    ("h2-preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Want(505, close=True), CLOSED),
    ("version-HTTP/1", b"GET /api/v1 HTTP/1\r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    ("version-lowercase", b"GET /api/v1 http/1.1\r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    (
        "version-leading-zero",
        b"GET /api/v1 HTTP/01.1\r\n" + H + b"\r\n",
        Want(400, close=True),
        CLOSED,
    ),
    # Host (RFC 9112 §3.2, RFC 9110 §7.2)
    ("no-host", GET + b"\r\n", Want(400, close=True), CLOSED),
    ("two-hosts", GET + H + b"Host: y\r\n\r\n", Want(400, close=True), CLOSED),
    ("host-with-space", GET + b"Host: a b\r\n\r\n", Want(400, close=True), None),
    ("host-with-slash", GET + b"Host: x/y\r\n\r\n", Want(400, close=True), None),
    ("host-bad-ipv6", GET + b"Host: [::g]:80\r\n\r\n", Want(400, close=True), None),
    ("host-ipv6", GET + b"Host: [::1]:8000\r\n\r\n", Want(200, kind="document"), None),
    ("host-empty", GET + b"Host:\r\n\r\n", Want(200, kind="document"), None),
    (
        "http-1.0-no-host",
        b"GET /api/v1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        Want(200, kind="document"),
        Want(200, False, "document", "HTTP/1.0"),
    ),
    # targets (RFC 9112 §3.2, RFC 9110 §4.2.1)
    (
        "absolute-form",
        b"GET http://example.com/api/v1 HTTP/1.1\r\n" + H + b"\r\n",
        Want(200, kind="document"),
        None,
    ),
    (
        "absolute-empty-host",
        b"GET http:///api/v1 HTTP/1.1\r\n" + H + b"\r\n",
        Want(400, close=True),
        CLOSED,
    ),
    ("absolute-ftp", b"GET ftp://x/api/v1 HTTP/1.1\r\n" + H + b"\r\n", Want(400, close=True), None),
    ("no-leading-slash", b"GET api/v1 HTTP/1.1\r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    ("asterisk-with-get", b"GET * HTTP/1.1\r\n" + H + b"\r\n", Want(400, close=True), CLOSED),
    (
        "non-ascii-target",
        "GET /api/é HTTP/1.1\r\n".encode() + H + b"\r\n",
        Want(400, close=True),
        CLOSED,
    ),
    # Expect (RFC 9110 §10.1.1)
    (
        "expect-100-no-content",
        GET + H + b"Expect: 100-continue\r\n\r\n",
        Want(200, kind="document"),
        None,
    ),
    (
        "expect-100-post",
        b"POST /api/v1 HTTP/1.1\r\n" + H + b"Expect: 100-continue\r\nContent-Length: 5\r\n\r\n",
        Want(403, True, "html"),
        None,
    ),
    (
        "expect-100-get-content",
        GET + H + b"Expect: 100-continue\r\nContent-Length: 5\r\n\r\n",
        Want(413, close=True),
        None,
    ),
    ("expect-other", GET + H + b"Expect: teapot\r\n\r\n", Want(417), None),
    # framing (RFC 9112 §6)
    (
        "http-1.0-transfer-encoding",
        b"GET /api/v1 HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        Want(400, close=True),
        Want(400, True, version="HTTP/1.0"),
    ),
    (
        "te-and-cl",
        b"POST /api/v1 HTTP/1.1\r\n"
        + H
        + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        Want(400, close=True),
        CLOSED,
    ),
    (
        "te-not-chunked-last",
        b"POST /api/v1 HTTP/1.1\r\n" + H + b"Transfer-Encoding: gzip\r\n\r\n",
        Want(400, close=True),
        CLOSED,
    ),
    (
        "te-unknown",
        b"POST /api/v1 HTTP/1.1\r\n" + H + b"Transfer-Encoding: foo, chunked\r\n\r\n0\r\n\r\n",
        Want(501, close=True),
        None,
    ),
    ("get-with-content", GET + H + b"Content-Length: 2\r\n\r\n{}", Want(413, close=True), None),
    (
        "get-content-length-0",
        GET + H + b"Content-Length: 0\r\n\r\n",
        Want(200, kind="document"),
        None,
    ),
    # methods (SPEC §7)
    (
        "post",
        b"POST /api/v1 HTTP/1.1\r\n" + H + b"Content-Length: 2\r\n\r\n{}",
        Want(403, True, "html"),
        None,
    ),
    ("delete", b"DELETE /api/v1 HTTP/1.1\r\n" + H + b"\r\n", Want(403, kind="html"), None),
    ("unknown-method", b"BREW /api/v1 HTTP/1.1\r\n" + H + b"\r\n", Want(403, kind="html"), CLOSED),
    ("lowercase-method", b"get /api/v1 HTTP/1.1\r\n" + H + b"\r\n", Want(403, kind="html"), CLOSED),
    (
        "options-asterisk",
        b"OPTIONS * HTTP/1.1\r\n" + H + b"\r\n",
        Want(403, kind="html"),
        Want(404, kind="aiohttp"),
    ),
    # header syntax
    ("space-before-colon", GET + b"Host : x\r\n\r\n", Want(400, close=True), CLOSED),
    ("nul-in-value", GET + H + b"X: a\x00b\r\n\r\n", Want(400, close=True), CLOSED),
    ("obs-fold", GET + H + b"X: a\r\n b\r\n\r\n", Want(400, close=True), CLOSED),
    # limits (--max-header-size 8190 and 100 header fields by default; aiohttp has no limit
    # on the whole head)
    (
        "long-target",
        b"GET /api/" + b"a" * 9000 + b" HTTP/1.1\r\n" + H + b"\r\n",
        Want(414, True),
        CLOSED,
    ),
    ("long-header", GET + H + b"X: " + b"a" * 9000 + b"\r\n\r\n", Want(431, True), CLOSED),
    (
        "many-headers",
        GET + H + b"".join(b"X-%d: y\r\n" % i for i in range(120)) + b"\r\n",
        Want(431, True),
        CLOSED,
    ),
    (
        "head-over-32-KiB",
        GET + H + b"".join(b"X-%d: %s\r\n" % (i, b"y" * 900) for i in range(40)) + b"\r\n",
        Want(431, True),
        Want(200, kind="document"),
    ),
    # a request after `Connection: close` is not read (aiohttp refuses the whole packet)
    (
        "after-connection-close",
        GET + H + b"Connection: close\r\n\r\n" + NEXT,
        Want(200, close=True, kind="document"),
        CLOSED,
    ),
]


@pytest.mark.parametrize(
    ("request_bytes", "want", "aiohttp_want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_serve_http_case(
    server: tuple[str, str, Site], request_bytes: bytes, want: Want, aiohttp_want: Want | None
) -> None:
    engine, url, _ = server
    if engine == "aiohttp" and aiohttp_want is not None:
        want = aiohttp_want
    (answer,), closed = _exchange(url, request_bytes)
    _check(answer, want, request_bytes)
    assert closed is want.close, f"connection {'closed' if closed else 'left open'}"


def test_serve_http_upgrade_is_ignored_and_the_next_request_answered(
    server: tuple[str, str, Site],
) -> None:
    """`curl --http2` on http:// sends Upgrade: h2c; the answer is HTTP/1.1 (no 101) and a
    request pipelined behind it is answered too."""
    engine, url, _ = server
    upgrade = GET + H + b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
    upgrade += b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"
    websocket = GET + H + b"Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
    following = b"GET /api/nope HTTP/1.1\r\nHost: x\r\n\r\n"
    cases = [websocket] if engine == "aiohttp" else [upgrade, websocket]
    for first in cases:
        (one, two), closed = _exchange(url, first + following, answers=2)
        assert (one.status, two.status) == (200, 404)
        assert not closed


def test_serve_http_upgrade_h2c_pipelined_on_aiohttp_is_not_answered() -> None:
    """Measured: behind an `Upgrade: h2c` request in the same packet, aiohttp answers the
    first request and reads nothing more; the connection ends at the keep-alive timeout."""
    proc = ServeProcess(str(SAMPLE), "--http", "aiohttp", "--keepalive-timeout", "1")
    try:
        host, port = proc.url.removeprefix("http://").rsplit(":", 1)
        data = GET + H + b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
        data += b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n" + NEXT
        with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
            sock.sendall(data)
            first, rest = _read(sock)
            assert first is not None and first.status == 200
            second, _ = _read(sock, rest)
            assert second is None  # closed (keep-alive timeout) without a second answer
    finally:
        assert proc.stop() == 0


def _conditional(url: str, path: str, headers: dict[str, str], method: str = "GET") -> Answer:
    lines = [f"{method} {path} HTTP/1.1", "Host: x", *(f"{k}: {v}" for k, v in headers.items())]
    (answer,), _ = _exchange(url, ("\r\n".join(lines) + "\r\n\r\n").encode(), head=method == "HEAD")
    return answer


def test_serve_http_if_match(server: tuple[str, str, Site]) -> None:
    """If-Match (RFC 9110 §13.1.1): `*` or a strong match passes; a weak tag, another tag,
    another representation's tag or a malformed field gets 412 with the error headers."""
    _, url, site = server
    res = site.resources["/api/v1/games"]
    etag = res.identity.etag
    gzip_etag = res.variant("gzip").etag  # type: ignore[union-attr]
    for value in (etag, "*", f'"x", {etag}', f'{etag},"y"', f", {etag} ,"):
        assert _conditional(url, "/api/v1/games", {"If-Match": value}).status == 200, value
    for value in (f"W/{etag}", '"nope"', gzip_etag, etag.strip('"'), f"{etag}, x", "", "*, *"):
        answer = _conditional(url, "/api/v1/games", {"If-Match": value})
        _check(answer, Want(412), b"If-Match: " + value.encode())
        assert answer.header("connection") is None, "a 412 keeps the connection"
    gz = {"Accept-Encoding": "gzip"}
    assert _conditional(url, "/api/v1/games", {**gz, "If-Match": gzip_etag}).status == 200
    assert _conditional(url, "/api/v1/games", {**gz, "If-Match": etag}).status == 412


def test_serve_http_if_match_before_if_none_match(server: tuple[str, str, Site]) -> None:
    """RFC 9110 §13.2.2: If-Match first (a failure is 412 even when If-None-Match would give
    304); when it passes, If-None-Match decides."""
    _, url, site = server
    etag = site.resources["/api/v1"].identity.etag
    both = {"If-Match": '"nope"', "If-None-Match": etag}
    assert _conditional(url, "/api/v1", both).status == 412
    both = {"If-Match": etag, "If-None-Match": etag}
    not_modified = _conditional(url, "/api/v1", both)
    assert (not_modified.status, not_modified.body) == (304, b"")
    assert not_modified.header("etag") == etag and not_modified.header("date")
    assert _conditional(url, "/api/v1", {"If-Match": etag, "If-None-Match": '"x"'}).status == 200
    assert _conditional(url, "/api/v1", {"If-None-Match": "garbage"}).status == 200


def test_serve_http_preconditions_ignored_where_the_answer_is_not_2xx(
    server: tuple[str, str, Site],
) -> None:
    _, url, _ = server
    for headers in ({"If-Match": '"nope"'}, {"If-None-Match": "*"}):
        assert _conditional(url, "/api/nope", headers).status == 404
        assert _conditional(url, "/nope", headers).status == 404
        assert _conditional(url, "/api/v1", headers, "DELETE").status == 403


def test_serve_http_unmodified_and_modified_since_ignored(server: tuple[str, str, Site]) -> None:
    """No Last-Modified is sent, so the date preconditions do not apply (§13.1.3, §13.1.4)."""
    _, url, _ = server
    for name in ("If-Unmodified-Since", "If-Modified-Since"):
        for value in ("Sat, 01 Jan 2000 00:00:00 GMT", "Tue, 01 Jan 2999 00:00:00 GMT", "x"):
            assert _conditional(url, "/api/v1", {name: value}).status == 200


@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        ("gzip;q=inf", "identity"),
        ("gzip;q=1_0", "identity"),
        ("gzip;q=2", "identity"),
        ("gzip;q=0.1234", "identity"),
        ("gzip;q=-1", "identity"),
        ("gzip;q=", "identity"),
        ("gzip;q=nan", "identity"),
        ("gzip; q = 1", "identity"),
        ("gzip;level=1", "identity"),
        ("gzip;q=1.000", "gzip"),
        ("gzip;q=0.001", "gzip"),
        ("gzip ; Q=0.5", "gzip"),
        ("br;q=0.5, gzip;q=0.5", "br"),
        ("gzip;q=0.5, identity;q=0.5", "gzip"),
        ("identity;q=0.6, gzip;q=0.5", "identity"),
        ("br;q=inf, gzip;q=0.1", "gzip"),
        ("*;q=0.5, br;q=0", "gzip"),
    ],
)
def test_serve_http_accept_encoding_qvalues(
    server: tuple[str, str, Site], accept: str, coding: str
) -> None:
    """RFC 9110 §12.4.2: a q-value outside `0[.ddd]` / `1[.000]` counts as q=0."""
    _, url, site = server
    answer = _conditional(url, "/api/v1/games", {"Accept-Encoding": accept})
    assert answer.status == 200
    assert (answer.header("content-encoding") or "identity") == coding
    res = site.resources["/api/v1/games"]
    variant = res.identity if coding == "identity" else res.variant(coding)
    assert variant is not None and answer.body == variant.body


def test_serve_http_date_on_every_answer(server: tuple[str, str, Site]) -> None:
    """RFC 9110 §6.6.1: Date on 200, 304, 403, 404 (both kinds), 412, 413, 417 and HEAD."""
    _, url, site = server
    etag = site.resources["/api/v1"].identity.etag
    for method, path, headers in [
        ("GET", "/api/v1", {}),
        ("HEAD", "/api/v1", {}),
        ("GET", "/api/v1", {"If-None-Match": etag}),
        ("GET", "/api/v1", {"If-Match": '"x"'}),
        ("GET", "/api/v1", {"Expect": "x"}),
        ("HEAD", "/api/v1", {"Content-Length": "1"}),
        ("PUT", "/api/v1", {}),
        ("GET", "/api/nope", {}),
        ("GET", "/nope", {}),
    ]:
        answer = _conditional(url, path, headers, method)
        assert re.fullmatch(
            r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", answer.header("date") or ""
        )
