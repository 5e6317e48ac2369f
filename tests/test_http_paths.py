"""The same raw requests against every delivery path, each answer checked against the table.

One build of the sample content (`catalogctl build --target cloudflare`, nginx listening on a
free port) is served four ways: `catalogctl serve BUILD` (the default engine, and
`--http aiohttp`), nginx on the build's `nginx/nginx.conf`, and the Worker on workerd. Every
case of `tests/http_cases.py` goes to each, over a new raw connection, and the answer is checked
against the decided answer, or against what that path's own parser answers where the table says
so (docs/reference/http.md is printed from the same data).
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from catalogctl.contract.routes import Resource, Site, Variant
from catalogctl.site.problem import PROBLEMS
from catalogctl.site.readback import read_build
from tests.conftest import ROOT, SAMPLE
from tests.edge_process import WorkerdProcess, build_project
from tests.http_cases import (
    CASES,
    DOCUMENT,
    FOLLOW,
    HTML,
    HTTP09,
    NGINX,
    NOT_FOUND,
    NOT_MODIFIED,
    NOTHING,
    PATHS,
    PROBLEM,
    RUNTIME,
    SERVE,
    SERVE_AIOHTTP,
    WORKERD,
    Answer,
    Case,
    markdown_table,
)
from tests.nginx_process import NginxProcess, free_port, state_dir
from tests.processes import run_cli
from tests.serve_process import ServeProcess

TIMEOUT = 10.0
IMF_FIXDATE = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT")
STATUS_LINE = re.compile(rb"(HTTP/\d\.\d) (\d{3})(?: (.*))?")


@dataclass
class Server:
    path: str
    port: int
    site: Site

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The sample, built for every path; nginx.conf listens on a port of its own."""
    out = tmp_path_factory.mktemp("http-paths") / "dist"
    port = free_port()
    state = state_dir(out)
    state.mkdir()
    build_project(
        SAMPLE, out, "--nginx-listen", f"127.0.0.1:{port}", "--nginx-state-dir", str(state)
    )
    return out, port


def _serve_has_engine_option() -> bool:
    """Whether `catalogctl serve` takes `--http` (the aiohttp engine)."""
    proc = run_cli("serve", "--help", cwd=ROOT)
    return "--http" in proc.stdout


@pytest.fixture(scope="module", params=PATHS)
def server(
    request: pytest.FixtureRequest,
    build: tuple[Path, int],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    out, nginx_port = build
    site = read_build(out)
    path = request.param
    if path in (SERVE, SERVE_AIOHTTP):
        engine: tuple[str, ...] = ()
        if path == SERVE_AIOHTTP:
            if not _serve_has_engine_option():
                pytest.skip("catalogctl serve has no --http option (the aiohttp engine) yet")
            engine = ("--http", "aiohttp")
        log = tmp_path_factory.mktemp("serve-log") / "access.log"
        serve = ServeProcess(str(out), *engine, access_log=log)  # production: the log is on
        try:
            yield Server(path, int(serve.url.rsplit(":", 1)[1]), site)
        finally:
            assert serve.stop() == 0
    elif path == NGINX:
        nginx = NginxProcess(out, nginx_port)
        try:
            yield Server(path, nginx_port, site)
        finally:
            assert nginx.stop() == 0
    else:
        workerd = WorkerdProcess(out)
        try:
            yield Server(path, workerd.port, site)
        finally:
            assert workerd.stop() == 0


# --- a raw HTTP/1.1 exchange ----------------------------------------------------------------


@dataclass
class Reply:
    version: str
    status: int
    headers: list[tuple[str, str]]  # names lower-cased, in order
    body: bytes

    def header(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k == name]
        return ", ".join(values) if values else None


@dataclass
class Exchange:
    replies: list[Reply] = field(default_factory=list)  # 1xx included, in order
    raw: bytes = b""  # what arrived that is not a reply (an HTTP/0.9 answer)


class Connection:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""
        self.eof = False

    def close(self) -> None:
        self.sock.close()

    def _fill(self) -> bool:
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.eof = True
        self.buf += chunk
        return bool(chunk)

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                raise AssertionError(f"connection closed {n - len(self.buf)} bytes short")
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            if not self._fill():
                raise AssertionError(f"connection closed inside a line: {self.buf[:80]!r}")
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def at_eof(self) -> bool:
        """Whether the server closes the connection with nothing more to say."""
        while not self.eof:
            self._fill()
        return not self.buf

    def reply(self, *, head: bool) -> Reply | None:
        """The next reply, or None if the connection closes first (or sends no status line)."""
        while len(self.buf) < 5 and not self.eof:
            self._fill()
        if not self.buf.startswith(b"HTTP/"):
            return None
        match = STATUS_LINE.fullmatch(self._line())
        assert match, "malformed status line"
        headers = []
        while line := self._line():
            name, sep, value = line.decode("latin-1").partition(":")
            assert sep, f"malformed header line {line!r}"
            headers.append((name.strip().lower(), value.strip()))
        reply = Reply(match[1].decode(), int(match[2]), headers, b"")
        if head or reply.status in (204, 304) or reply.status < 200:
            return reply
        if (reply.header("transfer-encoding") or "").lower() == "chunked":
            while size := int(self._line().split(b";")[0], 16):
                reply.body += self._take(size)
                self._take(2)
            while self._line():  # trailers
                pass
        elif (length := reply.header("content-length")) is not None:
            reply.body = self._take(int(length))
        else:
            while self._fill():
                pass
            reply.body, self.buf = self.buf, b""
        return reply


def _request(case: Case, server: Server) -> bytes:
    res = server.site.resources["/api/v1"]
    values = {
        "{host}": server.host,
        "{etag}": res.identity.etag,
        "{etag_bare}": res.identity.etag.strip('"'),
        **{f"{{etag_{v.encoding}}}": v.etag for v in res.encoded},
    }
    data = case.request
    for key, value in values.items():
        data = data.replace(key.encode(), value.encode())
    return data


def _exchange(case: Case, server: Server, answer: Answer) -> tuple[Exchange, Connection]:
    conn = Connection(server.port)
    conn.sock.sendall(_request(case, server))
    head = case.request.startswith(b"HEAD ")
    got = Exchange()
    while (reply := conn.reply(head=head)) is not None:
        got.replies.append(reply)
        if reply.status >= 200:
            break
    if not got.replies:
        while conn._fill():
            pass
        got.raw, conn.buf = conn.buf, b""
    for _ in answer.then:
        following = conn.reply(head=False)
        assert following is not None, "no answer to the request pipelined behind"
        got.replies.append(following)
    return got, conn


# --- the checks ---------------------------------------------------------------------------


def _variant(res: Resource, encoding: str) -> Variant:
    found = res.identity if encoding == "identity" else res.variant(encoding)
    assert found is not None, f"the build has no {encoding} variant of {res.path}"
    return found


def _error_headers(reply: Reply) -> None:
    assert reply.header("cache-control") == "no-store", reply.headers
    assert reply.header("x-content-type-options") == "nosniff", reply.headers
    assert reply.header("access-control-allow-origin") == "*", reply.headers


def _check_final(case: Case, server: Server, answer: Answer, reply: Reply) -> None:
    head = case.request.startswith(b"HEAD ")
    assert reply.status == answer.status, f"status {reply.status}, body {reply.body[:200]!r}"
    if answer.kind == RUNTIME:
        return
    date = reply.header("date")
    assert date is not None and IMF_FIXDATE.fullmatch(date), f"Date {date!r}"
    if not case.request.split(b"\r\n", 1)[0].endswith((b"HTTP/1.0", b"HTTP/1.0 ")):
        assert reply.version == "HTTP/1.1", f"answered in {reply.version}"
    site = server.site
    if answer.kind in (DOCUMENT, NOT_MODIFIED):
        res = site.resources[case.target]
        variant = _variant(res, answer.encoding)
        assert reply.header("etag") == variant.etag, f"ETag {reply.header('etag')}"
        route = {k.lower(): v for k, v in res.headers}
        assert reply.header("cache-control") == route["cache-control"]
        assert reply.header("access-control-allow-origin") == "*"
        assert reply.header("vary") == route.get("vary")
    if answer.kind == DOCUMENT:
        assert reply.body == (b"" if head else variant.body), f"{len(reply.body)} bytes"
        coding = reply.header("content-encoding")
        assert coding == (None if answer.encoding == "identity" else answer.encoding), coding
        assert reply.header("content-type") == res.content_type
    elif answer.kind == NOT_MODIFIED:
        assert reply.body == b""
        assert reply.header("content-type") is None
        coding = reply.header("content-encoding")
        allowed = answer.encoding if "content-encoding" in answer.extra else None
        assert coding == allowed, f"Content-Encoding {coding!r} on a 304"
    elif answer.kind == PROBLEM:
        _error_headers(reply)
        assert reply.header("content-type") == "application/problem+json"
        if not head:
            doc = json.loads(reply.body)
            want = {"type": "about:blank", "title": PROBLEMS[answer.status][0]}
            assert {k: doc.get(k) for k in want} == want, doc
            assert doc.get("status") == answer.status and type(doc["status"]) is int, doc
            assert isinstance(doc.get("detail"), str), doc
    elif answer.kind == NOT_FOUND:
        _error_headers(reply)
        assert reply.body == (b"" if head else site.not_found.body(case.target))
    elif answer.kind == HTML:
        _error_headers(reply)
        assert (reply.header("content-type") or "").startswith("text/html")


def _check(case: Case, server: Server) -> None:
    answer = case.expected(server.path)
    got, conn = _exchange(case, server, answer)
    try:
        if answer.kind == NOTHING:
            assert not got.replies and got.raw == b"", f"answered {got.raw[:200]!r}"
        elif answer.kind == HTTP09:
            assert not got.replies, "answered with a status line"
            assert b'"status":400' in got.raw, got.raw[:200]
        else:
            assert got.replies, f"no answer; got {got.raw[:200]!r}"
            interim = tuple(r.status for r in got.replies if r.status < 200)
            assert interim == answer.interim, f"interim answers {interim}"
            finals = [r for r in got.replies if r.status >= 200]
            _check_final(case, server, answer, finals[0])
            assert tuple(r.status for r in finals[1:]) == answer.then
        if answer.closes:
            assert conn.at_eof(), "the connection stays open"
        elif answer.closes is False:
            conn.sock.sendall(FOLLOW.replace(b"{host}", server.host.encode()))
            following = conn.reply(head=False)
            assert following is not None and following.status == 200, "no keep-alive"
    finally:
        conn.close()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_http_behaviour(server: Server, case: Case) -> None:
    _check(case, server)


def test_http_table_in_the_docs() -> None:
    """docs/reference/http.md holds the table printed from tests/http_cases.py."""
    page = (ROOT / "docs" / "reference" / "http.md").read_text(encoding="utf-8")
    assert markdown_table() in page, (
        "the table in docs/reference/http.md differs from tests/http_cases.py: "
        "reprint it with `python -m tests.http_cases`"
    )


def test_every_path_named_in_the_table_is_run() -> None:
    assert {p for c in CASES for p in c.paths} <= set(PATHS)
    assert {NGINX, WORKERD} <= {p for c in CASES for p in c.paths}
