"""`catalogctl serve` in process: the protocol, the prepared answers, limits and the access log.

Each test runs a `Worker` (the code every serving process runs) on 127.0.0.1 and a free port
inside the test's event loop and talks to it with raw sockets or aiohttp's client. The
process model (supervisor, reloads across workers, signals, sockets handed over by systemd)
is tested on real processes in test_serve_processes.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gzip
import json
import os
import random
import re
import signal
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from aiohttp import ClientSession

from catalogctl.content.loader import load_catalog
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.serve import clock
from catalogctl.serve import memfile as memfile_module
from catalogctl.serve.accesslog import AccessLog, Sink, TrustedProxies
from catalogctl.serve.memfile import FILE_SECONDS, SENDFILE_MIN, MemoryFile
from catalogctl.serve.metrics import Counters
from catalogctl.serve.negotiation import choose_encoding, etag_matches, if_match_passes
from catalogctl.serve.options import ENGINES, AccessFormat, ServeOptions, Setup
from catalogctl.serve.protocol import (
    HEAD_KEPT,
    HEADS_KEPT,
    Connections,
    HttpProtocol,
    HttptoolsEngine,
    Limits,
)
from catalogctl.serve.responses import Table
from catalogctl.serve.semantics import ID_FIELDS, RequestHead
from catalogctl.serve.worker import Worker
from catalogctl.site.build import write_site
from catalogctl.site.render import render
from catalogctl.sources.served import SiteInput
from tests import conformance
from tests.catalogs import generate_catalog
from tests.conftest import SAMPLE, ContentFactory, game_yaml, needs_posix_signals, needs_proc
from tests.processes import run_cli, wait_until_async
from tests.serve_process import loading_process

AVAILABLE = ("br", "gzip")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """`--http`: each test taking it runs on both engines."""
    return str(request.param)


class Running:
    """A worker serving in the test's loop."""

    def __init__(self, worker: Worker, sock: socket.socket) -> None:
        self.worker = worker
        host, port = sock.getsockname()[:2]
        self.host, self.port = host, port
        self.url = f"http://{host}:{port}"

    @property
    def table(self) -> Table:
        return self.worker.table

    async def request(
        self, target: str | bytes, method: str = "GET", **kw: Any
    ) -> conformance.Reply:
        """One request sent verbatim (aiohttp's client would normalise the path)."""
        return await asyncio.get_running_loop().run_in_executor(
            None, lambda: conformance.request(self.url, target, method, **kw)
        )

    async def exchange(self, data: bytes, timeout: float = 10) -> bytes:
        """Send raw bytes, read until the server closes."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(data)
        await writer.drain()
        reply = await asyncio.wait_for(reader.read(), timeout=timeout)
        writer.close()
        return reply


@asynccontextmanager
async def running(
    root: Path = SAMPLE,
    *,
    base_url: str | None = None,
    access_fd: int | None = None,
    reloads: bool = False,
    **options: Any,
) -> AsyncIterator[Running]:
    source = SiteInput.open(root, base_url=base_url)
    opts = ServeOptions(access_log=access_fd is not None, **options)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    counters = Counters(2)
    counters.slot = counters.claim(os.getpid())
    setup = Setup(
        options=opts,
        sock=sock,
        source=source,
        fingerprint=source.fingerprint(),
        counters=counters,
        access_fd=access_fd,
    )
    worker = Worker(Table(source.load()), setup, reloads=reloads)
    listening = asyncio.Event()
    task = asyncio.get_running_loop().create_task(
        worker.run(on_listening=listening.set, signals=False)
    )
    await asyncio.wait_for(listening.wait(), 10)
    try:
        yield Running(worker, sock)
    finally:
        worker.stop()
        await asyncio.wait_for(task, opts.shutdown_timeout + 10)
        sock.close()


def _request(method: str, target: str, *headers: str, version: str = "1.1") -> bytes:
    lines = [f"{method} {target} HTTP/{version}", "Host: x", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


def _responses(data: bytes) -> list[tuple[str, dict[str, str], bytes]]:
    """Split a stream of responses (to GET or HEAD: Content-Length framed)."""
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        length = int(headers.get("content-length", "0")) if headers.get("x-has-body") else 0
        out.append((lines[0], headers, rest[:length]))
        data = rest[length:]
    return out


# --- negotiation and conditional requests -----------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "identity"),
        ("", "identity"),
        ("gzip", "gzip"),
        ("br", "br"),
        ("gzip, deflate, br", "br"),
        ("gzip;q=1, br;q=0.5", "gzip"),
        ("br;q=0.5, gzip;q=0.8", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0", "identity"),
        ("gzip;q=0, br;q=0", "identity"),
        ("*", "br"),
        ("*;q=0, gzip", "gzip"),
        ("br;q=0, *", "gzip"),
        ("*;q=0", "identity"),
        ("identity;q=0", "identity"),  # nothing else acceptable: plain bytes beat a 406
        ("identity, gzip;q=0.5", "identity"),
        ("GZip", "gzip"),
        ("x-gzip", "gzip"),
        ("gzip;q=abc", "identity"),
        ("gzip;q=inf", "identity"),  # float() takes these; RFC 9110 §12.4.2 does not
        ("gzip;q=1_0", "identity"),
        ("gzip;q=.5", "identity"),
        ("gzip;q=1.", "gzip"),
        ("br;q=0.999, gzip;q=1.000", "gzip"),
        ("deflate", "identity"),
        (" gzip ; q=0.9 , br ; q=0.9 ", "br"),
    ],
)
def test_serve_choose_encoding(accept: str | None, expected: str) -> None:
    assert choose_encoding(accept, AVAILABLE) == expected


@pytest.mark.parametrize(
    ("header", "matches"),
    [
        ('"abc"', True),
        ('W/"abc"', True),
        ('"x", "abc"', True),
        ('"x","abc"', True),
        ("*", True),
        ('"abcd"', False),
        ("abc", False),
        ('"a,b", "abc"', True),
        ("", False),
    ],
)
def test_serve_etag_matches(header: str, matches: bool) -> None:
    assert etag_matches(header, '"abc"') is matches


@pytest.mark.parametrize(
    ("header", "passes"),
    [
        ('"abc"', True),
        ("*", True),
        (' "x" , "abc" ', True),
        (', ,"abc",', True),  # empty list elements are allowed (RFC 9110 §5.6.1)
        ('"a,b", "abc"', True),
        ('W/"abc"', False),  # strong comparison: a weak tag never matches
        ('"abcd"', False),
        ("abc", False),  # not an entity tag: the field is malformed
        ('"abc", junk', False),
        ('*, "abc"', False),
        ('"abc" "x"', False),
        ("", False),
    ],
)
def test_serve_if_match_passes(header: str, passes: bool) -> None:
    assert if_match_passes(header, '"abc"') is passes
    assert not if_match_passes('"abc"', 'W/"abc"')


# --- the contract, in process -------------------------------------------------------------------


async def test_serve_api_v1_exact_bytes(engine: str) -> None:
    async with running(http=engine) as srv:
        res = srv.table.site.resources["/api/v1"]
        reply = await srv.request("/api/v1", headers={"Accept-Encoding": "identity"})
    assert reply.status == 200
    assert reply.header("content-type") == "application/json"
    assert reply.body == res.identity.body
    assert reply.header("etag") == res.identity.etag
    assert reply.header("server") == "catalogctl"
    assert reply.header("access-control-allow-origin") == "*"
    assert reply.header("vary") == "Accept-Encoding"
    assert '</.well-known/api-catalog>; rel="api-catalog"' in (reply.header("link") or "")
    assert reply.header("deprecation") is None and reply.header("sunset") is None


async def test_serve_head_has_get_headers_without_body(engine: str) -> None:
    async with running(http=engine) as srv:
        get = await srv.request("/api/v1/games", headers={"Accept-Encoding": "gzip"})
        head = await srv.request("/api/v1/games", "HEAD", headers={"Accept-Encoding": "gzip"})
        whole = await srv.exchange(_request("HEAD", "/api/v1/games", "Connection: close"))
    assert head.status == get.status == 200
    assert head.stable_headers() == get.stable_headers()
    assert whole.endswith(b"\r\n\r\n")  # nothing after the head


async def test_serve_gzip_and_br_variants(engine: str) -> None:
    async with running(http=engine) as srv:
        res = srv.table.site.resources["/api/v1/games"]
        reply = await srv.request("/api/v1/games", headers={"Accept-Encoding": "gzip"})
        assert reply.header("content-encoding") == "gzip"
        assert gzip.decompress(reply.body) == res.identity.body
        assert reply.header("etag") == res.variant("gzip").etag  # type: ignore[union-attr]
        reply = await srv.request("/api/v1/games", headers={"Accept-Encoding": "br, gzip"})
        assert reply.header("content-encoding") == "br"
        assert reply.header("etag") == res.variant("br").etag  # type: ignore[union-attr]


async def test_serve_if_none_match_304(engine: str) -> None:
    async with running(http=engine) as srv:
        etag = srv.table.site.resources["/api/v1/games"].identity.etag
        plain = {"Accept-Encoding": "identity"}
        reply = await srv.request(
            "/api/v1/games", headers={**plain, "If-None-Match": f'"o", {etag}'}
        )
        assert reply.status == 304
        assert reply.header("etag") == etag
        assert reply.header("cache-control") == "public, max-age=300"
        assert reply.header("vary") == "Accept-Encoding"
        assert reply.header("content-length") is None and reply.header("content-type") is None
        assert reply.body == b""
        reply = await srv.request("/api/v1/games", headers={**plain, "If-None-Match": '"old"'})
        assert reply.status == 200
        # the ETag belongs to one representation: the br variant does not match it
        reply = await srv.request(
            "/api/v1/games", headers={"Accept-Encoding": "br", "If-None-Match": etag}
        )
        assert reply.status == 200


async def test_serve_not_found_problem_uses_path_as_sent(engine: str) -> None:
    async with running(http=engine) as srv:
        for target, instance in (
            ("/api/nope?x=1", "/api/nope"),
            ('/api/a"b\\c', '/api/a"b\\c'),
            ("/api/%2e%2e/openapi.json", "/api/%2e%2e/openapi.json"),
            ("/api/../openapi.json", "/api/../openapi.json"),
            ("/api/v1/", "/api/v1/"),
            ("http://example.com/api/x?y", "/api/x"),  # absolute-form
        ):
            reply = await srv.request(target)
            assert reply.status == 404, target
            assert reply.header("content-type") == "application/problem+json"
            assert reply.header("cache-control") == "no-store"
            assert json.loads(reply.body)["instance"] == instance
            assert reply.body == srv.table.site.not_found.body(instance)


async def test_serve_other_methods_403_html(engine: str) -> None:
    async with running(http=engine) as srv:
        for method in ("POST", "DELETE", "OPTIONS", "PROPFIND"):
            reply = await srv.request("/api/v1", method, body=b"{}" if method == "POST" else b"")
            assert reply.status == 403, method
            assert reply.media_type == "text/html"
            assert b"<html" in reply.body
        # a method llhttp does not know is still a method: 403, not 400 (aiohttp's parser,
        # llhttp too, refuses it before the application runs: measured, see test_serve_http)
        reply = await srv.request("/api/v1", "BREW")
        assert reply.status == (403 if engine == "httptools" else 400)


async def test_serve_unknown_outside_api_404_html_and_query_ignored(engine: str) -> None:
    async with running(http=engine) as srv:
        reply = await srv.request("/robots.txt")
        assert reply.status == 404 and reply.media_type == "text/html"
        reply = await srv.request("/api/v1/games?platform=iOS&page=2")
        assert reply.body == srv.table.site.resources["/api/v1/games"].identity.body


async def test_serve_base_url_rewrites_documents(engine: str) -> None:
    async with running(http=engine, base_url="http://127.0.0.1:9999") as srv:
        data = (await srv.request("/api/v1")).json()
    assert data["endpoints"]["games"] == "http://127.0.0.1:9999/api/v1/games"  # type: ignore[index]


async def test_serve_build_directory(tmp_path: Path, engine: str) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    async with running(tmp_path / "dist", http=engine) as srv:
        reply = await srv.request("/api/v1/games")
    assert reply.status == 200
    assert reply.body == (tmp_path / "dist/public/api/v1/games/index.json").read_bytes()


def test_serve_build_cache_control_override(tmp_path: Path) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    site = SiteInput.open(tmp_path / "dist", cache_control="no-cache").load()
    assert dict(site.resources["/api/v1"].headers)["Cache-Control"] == "no-cache"


def test_serve_header_with_line_break_refused(tmp_path: Path) -> None:
    """A header value that could split the response is an error at load, never sent."""
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    site = SiteInput.open(tmp_path / "dist", cache_control="no-cache\r\nSet-Cookie: x=1").load()
    with pytest.raises(Exception, match="control characters"):
        Table(site)


async def test_serve_deprecated_lifecycle_headers(
    make_content: ContentFactory, engine: str
) -> None:
    from tests.test_conformance_serve import DEPRECATED_SITE

    async with running(make_content(site=DEPRECATED_SITE), http=engine) as srv:
        reply = await srv.request("/api/v1")
    assert reply.header("deprecation") == "@1772323200"
    assert reply.header("sunset") == "Tue, 01 Sep 2026 00:00:00 GMT"
    assert 'rel="deprecation"' in (reply.header("link") or "")


async def test_serve_aiohttp_client_decodes_precompressed_gzip(engine: str) -> None:
    async with (
        running(http=engine) as srv,
        ClientSession() as session,
        session.get(f"{srv.url}/api/v1/games") as resp,
    ):
        assert resp.headers["Content-Encoding"] in ("br", "gzip")
        assert await resp.read() == srv.table.site.resources["/api/v1/games"].identity.body


# --- HTTP/1.1: versions, keep-alive, pipelining ---------------------------------------------------


async def test_serve_pipelined_requests_answered_in_order(engine: str) -> None:
    async with running(http=engine) as srv:
        etag = srv.table.answer("GET", "/api/v1/games", "gzip", None).etag
        data = b"".join(
            [
                _request("GET", "/api/v1"),
                _request("HEAD", "/api/v1/games", "Accept-Encoding: gzip"),
                _request("GET", "/api/v1/games", "Accept-Encoding: gzip", f"If-None-Match: {etag}"),
                _request("GET", "/api/nothing"),
                _request("DELETE", "/api/v1"),
                _request("GET", "/api", "Expect: 100-continue"),
                _request("GET", "/api/v1", 'If-Match: "x"'),
                _request("GET", "/llms.txt", "Connection: close"),
            ]
        )
        if engine == "httptools":
            # Never answered. (aiohttp's parser refuses the whole packet with a 400 when a
            # request follows `Connection: close` in it: measured, see test_serve_http.)
            data += _request("GET", "/api/v1")
        reply = await srv.exchange(data)
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)
    assert statuses == [b"200", b"200", b"304", b"404", b"403", b"200", b"412", b"200"]
    assert reply.count(b"\r\nServer: catalogctl\r\n") == 8
    assert reply.count(b"Connection: close") == 1  # the last one, which closed


async def test_serve_head_sent_again_gets_the_same_answer() -> None:
    """A head answered twice without closing is remembered with its answer: each of these
    heads, sent a second and a third time on the same connection after the others (read
    again, then answered from memory), gets what it got the first time."""
    async with running() as srv:
        etag = srv.table.answer("GET", "/api/v1/games", "gzip", None).etag
        heads = [
            _request("GET", "/api/v1"),
            _request("GET", "/api/v1/games", "Accept-Encoding: gzip"),
            _request("HEAD", "/api/v1/games", "Accept-Encoding: br"),
            _request("GET", "/api/v1/games", "Accept-Encoding: gzip", f"If-None-Match: {etag}"),
            _request("GET", "/api/v1/games", "Accept-Encoding: gzip", f"If-Match: {etag}"),
            _request("GET", "/api/v1", 'If-Match: "x"'),
            _request("GET", "/api/nothing"),
            _request("HEAD", "/api/nothing"),
            _request("DELETE", "/api/v1"),
            _request("GET", "/api", "Expect: 100-continue"),
            _request("GET", "http://x/api/v1?q=1"),
            _request("GET", "/api/v1", "Connection: keep-alive", version="1.0"),
            _request("GET", "/api/v1", "User-Agent: a", "Referer: http://r/"),
            _request("GET", "/api/v1", "Upgrade: h2c", "Connection: Upgrade, HTTP2-Settings"),
            b"\r\n" + _request("GET", "/llms.txt"),
        ]
        once = b"".join(heads)
        last = _request("GET", "/api/v1", "Connection: close")
        reply = await srv.exchange(once + once + once + last)
    answers: list[tuple[bytes, dict[bytes, bytes], bytes]] = []
    for head in heads * 3:
        status, _, reply = reply.partition(b"\r\n")
        fields, _, reply = reply.partition(b"\r\n\r\n")
        headers = dict(line.split(b": ", 1) for line in fields.split(b"\r\n"))
        length = int(headers.get(b"Content-Length", b"0"))
        if head.lstrip().startswith(b"HEAD ") or status.endswith(b" 304 Not Modified"):
            length = 0
        headers.pop(b"Date")
        answers.append((status, headers, reply[:length]))
        reply = reply[length:]
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n") and b"Connection: close\r\n" in reply
    first, again = answers[: len(heads)], answers[len(heads) :]
    assert [a[0].split()[1] for a in first] == [
        b"200", b"200", b"200", b"304", b"200", b"412", b"404", b"404",
        b"403", b"200", b"200", b"200", b"200", b"200", b"200",
    ]  # fmt: skip
    assert again == first * 2
    assert first[11][1][b"Connection"] == b"keep-alive"  # HTTP/1.0 asking to keep it


async def test_serve_reload_reaches_a_head_sent_before(make_content: ContentFactory) -> None:
    """After a reload, a head answered before (and remembered) gets the new catalog."""
    root = make_content()
    async with running(root, reloads=True) as srv:
        reader, writer = await asyncio.open_connection(srv.host, srv.port)

        async def games() -> int:
            writer.write(_request("GET", "/api/v1/games"))
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            return len(json.loads(await reader.readexactly(length))["games"])

        assert await games() == 2
        assert await games() == 2
        (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
        etag = srv.table.etag
        srv.worker.request_reload()

        async def reloaded() -> bool:
            return srv.table.etag != etag

        await wait_until_async(reloaded)
        assert await games() == 3
        writer.close()


class _Recording:
    """A transport that keeps what the protocol writes, and notes a half-close or a close."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def get_extra_info(self, name: str) -> object:
        return ("127.0.0.1", 40000) if name == "peername" else None

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.written.append(b"<eof>")

    def close(self) -> None:
        self.written.append(b"<close>")

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


def _answer(conns: Connections, data: bytes) -> bytes:
    """What a new connection of `conns` writes for `data` (its Date fields taken out)."""
    transport = _Recording()
    conn = HttpProtocol(conns)
    conn.connection_made(transport)  # type: ignore[arg-type]
    conn.data_received(data)
    return re.sub(rb"\r\nDate: [^\r]*", b"", b"".join(transport.written))


def test_serve_heads_remembered_are_bounded() -> None:
    """A head is kept the second time it is answered (a head with a field of its own each
    time is not); at most HEADS_KEPT heads are kept, each up to HEAD_KEPT bytes, and as many
    seen once; a client sending a new head each time, or a long one, is answered the same."""
    table = Table(SiteInput.open(SAMPLE).load())
    transport = _Recording()
    written = transport.written

    async def run() -> Connections:
        conns = Connections(table, Limits(), None)
        conn = HttpProtocol(conns)
        conn.connection_made(transport)  # type: ignore[arg-type]
        for i in range(100):
            conn.data_received(_request("GET", "/api/v1", f"X-Session: {i}"))
        assert not conns.heads
        for i in range(HEADS_KEPT + 100):
            conn.data_received(_request("GET", f"/api/v1?n={i}") * 2)
        long = _request("GET", "/api/v1", "User-Agent: " + "u" * HEAD_KEPT)
        conn.data_received(long * 3)
        assert long not in conns.heads and long not in conns.seen
        return conns

    conns = asyncio.run(run())
    assert 0 < len(conns.heads) <= HEADS_KEPT and 0 < len(conns.seen) <= HEADS_KEPT
    assert len(written) == 100 + 2 * (HEADS_KEPT + 100) + 3
    assert all(w.startswith(b"HTTP/1.1 200 OK\r\n") for w in written)


# Lines of request ids and traces, inserted into a head: those that are cut out when the head is
# looked up among those remembered, then those that are not (the head is read, and answered as
# read: refused where it must be).
CUT = [
    "X-Request-Id: 0f3c-77",
    "x-request-id: 1",
    "TRACEPARENT: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "traceparent: 00-a-b-01\r\ntracestate: congo=t61rcWkgMzE",
    "X-Amzn-Trace-Id: Root=1-67891233-abcdef012345678912345678",
    "X-Request-Id:",
    "X-Request-Id: \t a b \t",
    "b3: 80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1",
    "CF-Ray: 230b030023ae2822-SJC\r\nX-Request-Id: 7",
]
NOT_CUT = [
    "X-Request-Id : 1",  # space before the colon: 400
    "X-Request-Id: a\x00b",  # a NUL in the value: 400
    "X-Request-Id: a\rb",  # a bare CR: 400
    "X-Request-Id: a\x7f",  # DEL: 400
    "X-Request-Id: caf\xc3\xa9",  # bytes outside ASCII: read (llhttp takes them)
    "X-Request-Id: 1\r\n folded",  # obs-fold: 400
    "X-Request-Id: " + "x" * 120,  # past --max-line-size (100 here): 431
    "\r\n".join(f"X-Request-Id: {n}" for n in range(101)),  # 101 fields, past 100: 431
    "X-Request-Idx: 1",  # another field: read
]


@pytest.mark.parametrize("lines", CUT + NOT_CUT)
def test_serve_head_with_request_ids_answered_as_read(lines: str) -> None:
    """A head not remembered as sent is looked up again with its request ids and traces cut
    out (a proxy adds one of its own to every request): the answer is the one reading the
    head gives, refusals included, wherever the lines stand, read alone or with another head;
    only well-formed lines of those fields are cut."""
    table = Table(SiteInput.open(SAMPLE).load())
    etag = table.answer("GET", "/api/v1/games", "gzip", None).etag
    remembered = [
        _request("GET", "/api/v1"),
        _request("GET", "/api/v1/games", "Accept-Encoding: gzip"),
        _request("HEAD", "/api/v1/games", "Accept-Encoding: gzip", f"If-None-Match: {etag}"),
        _request("GET", "/api/nothing", "User-Agent: a"),
        _request("DELETE", "/api/v1"),
    ]

    async def run() -> None:
        limits = Limits(max_line=100)
        memory = Connections(table, limits, None)
        for head in remembered:
            assert _answer(memory, head * 2).count(b"HTTP/1.1 ") == 2
        cut = lines in CUT
        for head in remembered:
            line, _, rest = head.partition(b"\r\n")
            for sent in (
                line + b"\r\n" + lines.encode("latin-1") + b"\r\n" + rest,  # before Host
                head[:-2] + lines.encode("latin-1") + b"\r\n\r\n",  # the last field
            ):
                assert (memory.without_ids(sent) == head) is cut
                for data in (sent, sent * 2, sent + head):  # one read, or two heads in one
                    fresh = Connections(table, limits, None)
                    assert _answer(memory, data) == _answer(fresh, data)

    asyncio.run(run())


@pytest.mark.parametrize("seed", range(4))
def test_serve_heads_with_mutated_request_ids_answered_as_read(seed: int) -> None:
    """Differential, on 2,000 heads per seed: request id lines (any of `ID_FIELDS`, any case)
    with bytes inserted that a line may or may not hold (CR, LF, tab, space, colon, NUL, DEL,
    0xFF), anywhere among the fields of remembered heads (an LF inserted may end a head early:
    two requests in one read), under small and default limits: a worker that remembers gets
    the answer a fresh read gives, every time."""
    rng = random.Random(seed)
    table = Table(SiteInput.open(SAMPLE).load())
    remembered = [
        _request("GET", "/api/v1"),
        _request("GET", "/api/v1/games", "Accept-Encoding: gzip"),
        _request("HEAD", "/api/nothing", "Connection: keep-alive", version="1.0"),
    ]
    inserted = b'\r\n\t :\x00\x7f\xffaZ-;,="\\/'

    def id_line() -> bytes:
        name = rng.choice(ID_FIELDS)
        name = "".join(c.swapcase() if rng.random() < 0.3 else c for c in name)
        value = "".join(rng.choice("abc123-=;") for _ in range(rng.randint(0, 20)))
        line = f"{name}:{' ' * rng.randint(0, 2)}{value}".encode()
        for _ in range(rng.choice([0, 0, 1, 2])):
            at = rng.randint(0, len(line))
            line = line[:at] + bytes([rng.choice(inserted)]) + line[at:]
        return line

    async def run() -> int:
        limits = Limits(max_line=rng.choice([40, 100, 8190]), max_headers=rng.choice([3, 100]))
        memory = Connections(table, limits, None)
        for head in remembered:
            _answer(memory, head * 2)
        cut = 0
        for _ in range(2000):
            line, _, rest = rng.choice(remembered).partition(b"\r\n")
            fields = rest[:-4].split(b"\r\n")
            for _ in range(rng.randint(1, 3)):
                fields.insert(rng.randint(0, len(fields)), id_line())
            sent = line + b"\r\n" + b"\r\n".join(fields) + b"\r\n\r\n"
            cut += memory.without_ids(sent) in memory.heads
            assert _answer(memory, sent) == _answer(Connections(table, limits, None), sent), sent
        return cut

    assert asyncio.run(run()) > 200, "too few heads were answered from memory to judge"


def test_serve_request_id_fields_decide_nothing() -> None:
    """What makes cutting them out safe: a request head reads none of `ID_FIELDS`."""
    for name in ID_FIELDS:
        head, plain = RequestHead(), RequestHead()
        head.on_header(name.encode(), b"v")
        plain.on_header(b"X-Other", b"v")
        assert [getattr(head, slot) for slot in RequestHead.__slots__] == [
            getattr(plain, slot) for slot in RequestHead.__slots__
        ], name


def test_request_head_copy_keeps_every_field() -> None:
    """A remembered head is a copy: reading the next request does not change it."""
    head = RequestHead()
    values = [f"value {n}".encode() for n in range(len(RequestHead.__slots__))]
    for name, value in zip(RequestHead.__slots__, values, strict=True):
        setattr(head, name, value)
    copy = head.copy()
    head.reset()  # what reading the next request starts with
    assert [getattr(copy, name) for name in RequestHead.__slots__] == values


@pytest.mark.parametrize(
    ("request_line", "status"),
    [
        (b"HEAD /api/v1 HTTP/2.0", 505),
        (b"HEAD /api/\x01 HTTP/1.1", 400),
        (b"HEAD /api/ v1 HTTP/1.1", 400),
        (b"HEAD /api/v1 HTTP/1.1\r\nHost: y", 400),  # two Host fields
    ],
)
async def test_serve_error_answer_to_head_has_no_body(request_line: bytes, status: int) -> None:
    async with running() as srv:
        reply = await srv.exchange(request_line + b"\r\nHost: x\r\n\r\n")
    assert reply.startswith(f"HTTP/1.1 {status} ".encode()), reply[:80]
    assert b"Connection: close\r\n" in reply
    assert reply.endswith(b"\r\n\r\n"), "an error answer to HEAD carries no body"


async def test_serve_answers_http10_as_http11_and_closes_unless_asked() -> None:
    async with running() as srv:
        reply = await srv.exchange(b"GET /api/v1 HTTP/1.0\r\n\r\n")
        assert reply.startswith(b"HTTP/1.1 200 OK\r\n") and b"Connection: close\r\n" in reply
        keep = _request("GET", "/api/v1", "Connection: keep-alive", version="1.0")
        reply = await srv.exchange(keep + _request("GET", "/api/v1", version="1.0"))
        assert reply.count(b"HTTP/1.1 200 OK") == 2
        assert b"Connection: keep-alive\r\n" in reply


# --- limits and slow clients ----------------------------------------------------------------------


async def test_serve_header_line_too_large_431() -> None:
    async with running(max_line_size=1024) as srv:
        reply = await srv.request("/api/v1", headers={"X-Big": "a" * 4000})
        assert reply.status == 431 and reply.header("server") == "catalogctl"
        assert (await srv.request("/api/v" + "1" * 2000)).status == 414
        assert (await srv.request("/api/v1")).status == 200


async def test_serve_too_many_headers_431() -> None:
    async with running(max_headers=20) as srv:
        reply = await srv.request("/api/v1", headers={f"X-{i}": "y" for i in range(30)})
        assert reply.status == 431


async def test_serve_endless_header_value_bounded() -> None:
    """A header that never ends (no line break) is cut off at the head limit, not buffered."""
    async with running(max_line_size=1024) as srv:
        reader, writer = await asyncio.open_connection(srv.host, srv.port)
        writer.write(b"GET /api/v1 HTTP/1.1\r\nX-Endless: ")
        for _ in range(512):  # 512 kB: more than one read of the socket, whatever its size
            writer.write(b"a" * 1024)
            await writer.drain()
        writer.write_eof()
        reply = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        assert reply.startswith(b"HTTP/1.1 431 ")


async def test_serve_request_content_is_never_read() -> None:
    """A request with content is answered from its head (403 for the method, 413 for GET)
    and the connection closed; the client can read the answer while still sending."""
    async with running() as srv:
        reply = await srv.request("/api/v1", "POST", body=b"x" * 200_000)
        assert reply.status == 403 and reply.header("connection") == "close"
        reply = await srv.request("/api/v1", "GET", body=b"x" * 200_000)
        assert reply.status == 413 and reply.header("connection") == "close"


async def test_serve_slowloris_connection_closed() -> None:
    """A client that never finishes its request head is disconnected after the timeout."""
    async with running(keepalive_timeout=0.5) as srv:
        reader, writer = await asyncio.open_connection(srv.host, srv.port)
        writer.write(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\n")
        await writer.drain()
        started = asyncio.get_running_loop().time()
        data = b""
        with contextlib.suppress(ConnectionError):
            for _ in range(50):  # keep dribbling header bytes, as slowloris does
                await asyncio.sleep(0.1)  # the behaviour under test: a slow client
                if reader.at_eof():
                    break
                writer.write(b"X-a: b\r\n")
                await writer.drain()
            data = await asyncio.wait_for(reader.read(), timeout=10)
        elapsed = asyncio.get_running_loop().time() - started
        writer.close()
    assert data == b""  # closed without a response
    assert elapsed < 3  # within the timeout (and the sweep's granularity), not at 5 s


async def test_serve_idle_connection_closed() -> None:
    async with running(keepalive_timeout=0.3) as srv:
        reader, writer = await asyncio.open_connection(srv.host, srv.port)
        writer.write(_request("GET", "/api/v1"))
        first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert first.startswith(b"HTTP/1.1 200")
        rest = await asyncio.wait_for(reader.read(), timeout=10)  # the body, then closed
        assert len(rest) == len(srv.table.site.resources["/api/v1"].identity.body)
        writer.close()


async def test_serve_client_that_does_not_read_is_not_buffered_without_bound() -> None:
    """Thousands of pipelined requests from a client that never reads: the worker stops
    reading its socket and holds references to prepared bytes, not copies."""
    async with running(shutdown_timeout=0.5) as srv:
        sock = socket.create_connection((srv.host, srv.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        data = _request("GET", "/api/v1/games") * 50_000  # 2 MB of requests
        loop = asyncio.get_running_loop()
        writer = loop.create_task(loop.sock_sendall(sock, data))
        engine = srv.worker.engine
        assert isinstance(engine, HttptoolsEngine)

        async def stopped_reading() -> bool:
            return any(conn.paused for conn in engine.conns.open)

        await wait_until_async(stopped_reading, timeout=30)
        writer.cancel()
        conns = engine.conns
        assert conns is not None
        (conn,) = conns.open
        assert conn.transport is not None
        body = len(srv.table.site.resources["/api/v1/games"].identity.body)
        # what the transport holds: its high-water mark (64 kB) and one answer at most
        assert conn.transport.get_write_buffer_size() <= 65536 + 2 * body
        assert conn.pending is not None and len(conn.pending) < 50_000  # references, not copies
        # the server stopped reading: most requests still wait in the kernel's buffers
        assert sum(conns.statuses.values()) < 25_000
        sock.close()


@pytest.mark.parametrize("size", ["small", "large"])
async def test_serve_client_that_reads_late_gets_every_answer(
    size: str, large: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that pipelines more than the server will buffer and only then reads: the
    server stops writing (and reading) while the client is behind, then answers every request,
    in order, once the client catches up. Large answers (past SENDFILE_MIN) leave the memory
    file only in part when the socket is full: the transport writes the rest."""
    root, count = (SAMPLE, 3000) if size == "small" else (large, 300)
    sends: list[tuple[int, int]] = []  # (bytes asked, bytes the socket took)
    if memfile_module.AVAILABLE:
        sendfile = os.sendfile

        def counted(out_fd: int, in_fd: int, offset: int | None, count: int) -> int:
            sent = sendfile(out_fd, in_fd, offset, count)
            sends.append((count, sent))
            return sent

        monkeypatch.setattr(os, "sendfile", counted)
    async with running(root) as srv:
        engine = srv.worker.engine
        assert isinstance(engine, HttptoolsEngine)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        await asyncio.wait_for(loop.sock_connect(sock, (srv.host, srv.port)), 10)
        requests = _request("GET", "/api/v1/games") * (count - 1)
        data = requests + _request("GET", "/api/v1/games", "Connection: close")
        sender = loop.create_task(loop.sock_sendall(sock, data))

        async def paused() -> bool:
            return any(conn.paused for conn in engine.conns.open)

        await wait_until_async(paused, timeout=30)
        received = bytearray()
        while chunk := await asyncio.wait_for(loop.sock_recv(sock, 1 << 20), 30):
            received += chunk
        await asyncio.wait_for(sender, 10)
        sock.close()
    body = srv.table.site.resources["/api/v1/games"].identity.body
    answers = bytes(received).split(b"HTTP/1.1 ")[1:]
    assert len(answers) == count
    assert all(a.startswith(b"200 OK\r\n") and a.endswith(b"\r\n\r\n" + body) for a in answers)
    if size == "large" and memfile_module.AVAILABLE:
        assert any(sent == asked for asked, sent in sends), "no answer left the file whole"
        assert any(sent < asked for asked, sent in sends), "the socket never filled up"


# --- large answers, sent from the worker's memory file -------------------------------------------


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog whose games document is past SENDFILE_MIN (identity) and /api/v1 is not."""
    return generate_catalog(tmp_path_factory.mktemp("large") / "content", 300)


def _answers(data: bytes, methods: list[str]) -> list[tuple[str, dict[str, str], bytes]]:
    """A stream of answers to `methods` in order, split by Content-Length."""
    out = []
    for method in methods:
        head, _, data = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        length = int(headers["content-length"]) if method == "GET" else 0
        out.append((lines[0], headers, data[:length]))
        data = data[length:]
    assert data == b"", "bytes after the last answer"
    return out


needs_memfd = pytest.mark.skipif(
    not memfile_module.AVAILABLE, reason="this system has no memfd_create or sendfile"
)


def _memfile(srv: Running) -> MemoryFile | None:
    engine = srv.worker.engine
    assert isinstance(engine, HttptoolsEngine)
    return engine.conns.memfile


async def test_serve_large_answers_byte_for_byte_on_both_sides_of_sendfile_min(
    large: Path,
) -> None:
    """Answers past SENDFILE_MIN go out from the memory file, smaller ones are written: both
    arrive whole, in order, in every form (keep-alive, HTTP/1.0 keep-alive, HEAD, close)."""
    requests = [
        ("GET", "/api/v1/games", ()),
        ("GET", "/api/v1", ()),
        ("HEAD", "/api/v1/games", ()),
        ("GET", "/api/v1/games", ("Accept-Encoding: gzip",)),
        ("GET", "/api/v1/games", ()),
        ("GET", "/api/v1/games", ("Connection: keep-alive",), "1.0"),
        ("GET", "/api/v1/games", ("Connection: close",)),
    ]
    data = b"".join(
        _request(r[0], r[1], *r[2], version=r[3] if len(r) > 3 else "1.1") for r in requests
    )
    async with running(large) as srv:
        table = srv.table
        games = table.answer("GET", "/api/v1/games", None, None)
        assert games.body_len >= SENDFILE_MIN > table.answer("GET", "/api/v1", None, None).body_len
        reply = await srv.exchange(data)
        memfile = _memfile(srv)
        placed = dict(memfile.offsets) if memfile is not None else {}
    answers = _answers(reply, [r[0] for r in requests])
    for (method, target, headers, *_), (status, got, body) in zip(requests, answers, strict=True):
        accept = "gzip" if "Accept-Encoding: gzip" in headers else None
        want = table.answer(method, target, accept, None)
        assert status == "HTTP/1.1 200 OK"
        assert body == (want.body if method == "GET" else b"")
        assert got["content-length"] == str(want.body_len)
        assert got["etag"] == want.etag
    assert answers[5][1]["connection"] == "keep-alive"
    assert answers[6][1]["connection"] == "close"
    if memfile_module.AVAILABLE:
        assert placed, "no answer was sent from the memory file"
        assert all(len(message) >= SENDFILE_MIN for message in placed)
    else:
        assert memfile is None


@needs_memfd
async def test_serve_large_answer_placed_again_each_second(
    large: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer's Date changes each second: the file gets the new bytes appended, and the
    bytes it held are never changed (the kernel may still be sending them)."""
    now = [1_800_000_000.0]
    monkeypatch.setattr(clock, "time", SimpleNamespace(time=lambda: now[0]))
    async with running(large) as srv:
        memfile = _memfile(srv)
        assert memfile is not None
        first = await srv.exchange(_request("GET", "/api/v1/games", "Connection: close"))
        placed = memfile.size
        assert os.pread(memfile.fd, placed, 0) == first
        now[0] += 1
        second = await srv.exchange(_request("GET", "/api/v1/games", "Connection: close"))
        assert memfile.size == 2 * placed
        assert os.pread(memfile.fd, placed, 0) == first  # unchanged
        assert os.pread(memfile.fd, placed, placed) == second
    assert b"Date: Fri, 15 Jan 2027 08:00:00 GMT\r\n" in first
    assert b"Date: Fri, 15 Jan 2027 08:00:01 GMT\r\n" in second
    assert first.replace(b":00 GMT", b":01 GMT", 1) == second


async def _three_games_documents(root: Path) -> None:
    """The games document asked for three times on one connection arrives whole each time."""
    async with running(root) as srv:
        want = srv.table.answer("GET", "/api/v1/games", None, None)
        reply = await srv.exchange(
            _request("GET", "/api/v1/games") * 3 + _request("GET", "/api/v1", "Connection: close")
        )
    answers = _answers(reply, ["GET"] * 4)
    assert [body for _, _, body in answers[:3]] == [want.body] * 3


def _made_in(fd: int) -> str:
    """Where a file of answers is: "memory" (`memfd_create`), or the directory it is in."""
    target = str(Path(f"/proc/self/fd/{fd}").readlink())
    return "memory" if target.startswith("/memfd:") else str(Path(target).parent)


@needs_memfd
@needs_proc
@pytest.mark.parametrize("spool", ["a directory", "no directory"])
async def test_serve_large_answers_from_a_file_without_a_name_or_from_memory(
    large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spool: str
) -> None:
    """Large answers go out from a file without a name in SPOOL where one can be made there
    (no name: nothing is left in it), else from a memory file: the same bytes either way."""
    folder = tmp_path / "spool"
    if spool == "a directory":
        folder.mkdir()
    monkeypatch.setattr(memfile_module, "SPOOL", str(folder))
    async with running(large) as srv:
        want = srv.table.answer("GET", "/api/v1/games", None, None)
        reply = await srv.exchange(
            _request("GET", "/api/v1/games") * 2 + _request("GET", "/api/v1", "Connection: close")
        )
        memfile = _memfile(srv)
        assert memfile is not None and memfile.fd >= 0
        made_in = _made_in(memfile.fd)
    answers = _answers(reply, ["GET"] * 3)
    assert [body for _, _, body in answers[:2]] == [want.body] * 2
    if spool == "a directory":
        assert made_in == str(folder)
        assert list(folder.iterdir()) == []
    else:
        assert made_in == "memory"


@needs_memfd
@pytest.mark.parametrize("error", [errno.EMFILE, errno.ENOMEM])
async def test_serve_large_answers_written_when_no_memory_file_can_be_made(
    large: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: int
) -> None:
    """Out of descriptors or memory: the answer is written as a small one is, and the file is
    not tried again within the second."""
    calls = []
    monkeypatch.setattr(memfile_module, "SPOOL", str(tmp_path / "no directory"))

    def memfd_create(name: str, flags: int = 0) -> int:
        calls.append(name)
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(os, "memfd_create", memfd_create)
    await _three_games_documents(large)
    assert 1 <= len(calls) <= 2  # once a second at most (the requests may straddle one)


@needs_memfd
async def test_serve_socket_that_refuses_sendfile_is_written_to(
    large: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def sendfile(out_fd: int, in_fd: int, offset: int | None, count: int) -> int:
        calls.append(out_fd)
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    monkeypatch.setattr(os, "sendfile", sendfile)
    await _three_games_documents(large)
    assert len(calls) == 1, "sendfile tried again on a socket that refused it"


@needs_memfd
def test_memory_file_starts_a_new_file_past_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past FILE_MAX bytes the next second starts a new file; within a second the file only
    grows, so no answer asked for in that second is written twice."""
    monkeypatch.setattr(memfile_module, "FILE_MAX", 150)
    memfile = MemoryFile()
    try:
        assert memfile.offset(b"a" * 60, 1) == 0
        assert memfile.offset(b"a" * 60, 1) == 0  # the same bytes, the same second: placed once
        assert memfile.offset(b"b" * 100, 1) == 60
        assert memfile.offset(b"a" * 60, 1) == 0  # past 150 bytes, the same second: kept
        assert memfile.size == 160
        assert memfile.offset(b"b" * 100, 2) == 0  # a new second past 150 bytes: a new file
        assert memfile.offset(b"a" * 60, 2) == 100
        assert os.pread(memfile.fd, 300, 0) == b"b" * 100 + b"a" * 60
        assert memfile.offset(b"a" * 60, 3) == 0  # 160 bytes again: a new file
        assert memfile.offset(b"a" * 60, 4) == 60  # 60 bytes: the same file
    finally:
        memfile.close()


@needs_memfd
def test_memory_file_is_started_again_after_file_seconds() -> None:
    """A file is appended to for FILE_SECONDS at most: the kernel writes pages dirty for 30 s
    to disk, and the pages of a file without a name closed before that never are."""
    memfile = MemoryFile()
    try:
        assert memfile.offset(b"a" * 60, 100) == 0
        assert memfile.offset(b"a" * 60, 100 + FILE_SECONDS - 1) == 60
        assert memfile.offset(b"a" * 60, 100 + FILE_SECONDS) == 0
        assert memfile.opened == 100 + FILE_SECONDS
        assert os.pread(memfile.fd, 200, 0) == b"a" * 60
    finally:
        memfile.close()


@needs_memfd
@needs_proc
def test_memory_file_that_cannot_grow_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write to the file fails (the disk or memory is full: ENOSPC): the answer is written to
    the socket for the rest of the second, and the next second starts a new file, in memory
    from then on."""
    monkeypatch.setattr(memfile_module, "SPOOL", str(tmp_path))
    memfile = MemoryFile()
    try:
        assert memfile.offset(b"a" * 60, 1) == 0
        assert _made_in(memfile.fd) == str(tmp_path)
        pwrite = os.pwrite

        def full(fd: int, data: bytes, offset: int) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "pwrite", full)
        assert memfile.offset(b"b" * 60, 1) == -1
        assert memfile.fd == -1 and memfile.offset(b"b" * 60, 1) == -1
        monkeypatch.setattr(os, "pwrite", pwrite)
        assert memfile.offset(b"b" * 60, 2) == 0
        assert os.pread(memfile.fd, 200, 0) == b"b" * 60
        assert _made_in(memfile.fd) == "memory"
    finally:
        memfile.close()


# --- access log -----------------------------------------------------------------------------------


@pytest.fixture
def access_log(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A log file for `running(access_fd=...)`: its path and a descriptor, closed after."""
    path = tmp_path / "access.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    yield path, fd
    os.close(fd)


@pytest.mark.parametrize("fmt", ["text", "json", "common", "combined"])
async def test_serve_access_log_formats(
    fmt: AccessFormat, access_log: tuple[Path, int], engine: str
) -> None:
    path, fd = access_log
    async with running(http=engine, access_fd=fd, access_log_format=fmt) as srv:
        await srv.request('/api/a"b%0aX?q=1', headers={"User-Agent": 'ua "quoted" \\ \xe9'})
        await srv.request("/api/v1", "HEAD")
        await srv.request("/api/v1/games", headers={"Accept-Encoding": "gzip"})
        gz = srv.table.site.resources["/api/v1/games"].variant("gzip")
    lines = path.read_text("ascii").splitlines()
    assert len(lines) == 3
    if fmt == "json":
        entries = [json.loads(line) for line in lines]
        assert entries[0]["status"] == 404 and entries[0]["path"] == '/api/a"b%0aX?q=1'
        assert entries[0]["user_agent"] == 'ua "quoted" \\ \xe9'
        assert entries[1]["bytes"] == 0  # HEAD: no body sent
        assert entries[2]["bytes"] == len(gz.body) and entries[2]["encoding"] == "gzip"  # type: ignore[union-attr]
        assert all(isinstance(e["duration_us"], int) for e in entries)
        assert entries[0]["pid"] == os.getpid() and entries[0]["remote"] == "127.0.0.1"
        return
    clf = re.compile(
        r'127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] "([^"]*)" (\d{3}) (\d+|-)'
    )
    first = clf.match(lines[0])
    assert first, lines[0]
    assert first.group(1) == "GET /api/a\\x22b%0aX?q=1 HTTP/1.1"  # nginx's escaping
    assert clf.match(lines[1]).group(3) == "-"  # type: ignore[union-attr]
    assert clf.match(lines[2]).group(3) == str(len(gz.body))  # type: ignore[union-attr]
    if fmt == "common":
        assert lines[0].endswith(" 404 " + lines[0].rsplit(" ", 1)[1])
        assert "ua" not in lines[0]
    else:
        assert '"ua \\x22quoted\\x22 \\x5C \\xE9"' in lines[0]
    if fmt == "text":
        assert all(re.search(r" \d+us$", line) for line in lines)


@pytest.mark.parametrize("fmt", ["text", "json"])
async def test_serve_access_log_shows_a_refused_line_as_received(
    fmt: AccessFormat, access_log: tuple[Path, int]
) -> None:
    """A request line the server could not read is logged as it came (cut at 1024 bytes),
    a HEAD among them; a line read before is answered and logged the same way again."""
    path, fd = access_log
    long_target = b"/" + b"x" * 2000
    async with running(access_fd=fd, access_log_format=fmt) as srv:
        for _ in range(2):
            reply = await srv.exchange(b"HEAD /api/v1 HTTP/1.1 extra\r\n\r\n")
            assert reply.startswith(b"HTTP/1.1 400 ")
            reply = await srv.exchange(b"GET " + long_target + b" HTTP/1.1 x\r\n\r\n")
            assert reply.startswith(b"HTTP/1.1 400 ")
            reply = await srv.exchange(b"GET /api/v1 HTTP/1.0\r\nHost: a\r\n\r\n")
            assert reply.startswith(b"HTTP/1.1 200 ")
    lines = path.read_text("ascii").splitlines()
    assert len(lines) == 6
    if fmt == "json":
        entries = [json.loads(line) for line in lines]
        assert [e["path"] for e in entries[:3]] == [
            "HEAD /api/v1 HTTP/1.1 extra",
            ("GET " + long_target.decode() + " HTTP/1.1 x")[:1024],
            "/api/v1",
        ]
        assert [e["method"] for e in entries[:3]] == [None, None, "GET"]
        assert [e["status"] for e in entries] == [400, 400, 200] * 2
        return
    shown = [re.search(r'"([^"]*)" (\d{3}) ', line) for line in lines]
    assert [(m.group(1), m.group(2)) for m in shown if m] == [
        ("HEAD /api/v1 HTTP/1.1 extra", "400"),
        (("GET " + long_target.decode() + " HTTP/1.1 x")[:1024], "400"),
        ("GET /api/v1 HTTP/1.0", "200"),
    ] * 2


async def test_serve_access_log_of_heads_sent_again(access_log: tuple[Path, int]) -> None:
    """Heads answered from memory are logged as sent, each with its own fields; a line
    refused after them is logged as received, not as the head before it."""
    path, fd = access_log
    one = _request("GET", "/api/v1", "User-Agent: one")
    two = _request("HEAD", "/api/v1/games", "User-Agent: two", "Referer: http://r/")
    async with running(access_fd=fd, access_log_format="json") as srv:
        reply = await srv.exchange((one + two) * 3 + b"GET /x HTTP/1.1 x\r\n\r\n")
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", reply) == [b"200"] * 6 + [b"400"]
        reply = await srv.exchange(one + b"\x16\x03\x01\x02\x00\x01")  # then a TLS hello
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", reply) == [b"200", b"400"]
        reply = await srv.exchange(one + two + _request("GET", "/", "Connection: close"))
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", reply) == [b"200", b"200", b"404"]
    entries = [json.loads(line) for line in path.read_text("ascii").splitlines()]
    shown = [(e["method"], e["path"], e["status"], e["user_agent"], e["referer"]) for e in entries]
    assert shown == [
        ("GET", "/api/v1", 200, "one", None),
        ("HEAD", "/api/v1/games", 200, "two", "http://r/"),
    ] * 3 + [
        (None, "GET /x HTTP/1.1 x", 400, None, None),
        ("GET", "/api/v1", 200, "one", None),
        (None, "\x16\x03\x01\x02\x00\x01", 400, None, None),
        ("GET", "/api/v1", 200, "one", None),
        ("HEAD", "/api/v1/games", 200, "two", "http://r/"),
        ("GET", "/", 404, None, None),
    ]
    sizes = [e["bytes"] for e in entries]
    assert [sizes[i] for i in (0, 2, 4, 7, 9)] == [sizes[0]] * 5 and sizes[0] > 0
    assert [sizes[i] for i in (1, 3, 5, 10)] == [0, 0, 0, 0]  # HEAD


async def _one_by_one(srv: Running, heads: list[bytes]) -> list[int]:
    """Each head sent once its previous answer has arrived (a read of its own), on one
    connection; the statuses."""
    reader, writer = await asyncio.open_connection(srv.host, srv.port)
    statuses = []
    try:
        for head in heads:
            writer.write(head)
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            statuses.append(int(answer.split(b" ", 2)[1]))
            length = re.search(rb"\r\nContent-Length: (\d+)\r\n", answer)
            if not head.startswith(b"HEAD ") and length is not None:
                await asyncio.wait_for(reader.readexactly(int(length.group(1))), 10)
    finally:
        writer.close()
    return statuses


@pytest.mark.parametrize("fmt", ["text", "json", "common", "combined"])
async def test_serve_access_log_of_heads_sent_again_one_by_one(
    fmt: AccessFormat, access_log: tuple[Path, int], engine: str
) -> None:
    """A head sent again and again, each in a read of its own, is logged each time as the
    first time: its own line, status, bytes, referer and agent, and the client a trusted
    proxy names in it."""
    path, fd = access_log
    one = _request("GET", "/api/v1", "User-Agent: one", "X-Forwarded-For: 203.0.113.7")
    two = _request("HEAD", "/api/v1/games", "User-Agent: two", "Referer: http://r/")
    three = _request("GET", "/nope", "X-Forwarded-For: 198.51.100.1")
    async with running(
        http=engine, access_fd=fd, access_log_format=fmt, forwarded_allow_ips="127.0.0.1"
    ) as srv:
        statuses = await _one_by_one(srv, [one, two, three] * 4)
        size = len(srv.table.site.resources["/api/v1"].identity.body)
    assert statuses == [200, 200, 404] * 4
    lines = path.read_text("ascii").splitlines()
    if fmt == "json":
        entries = [json.loads(line) for line in lines]
        for entry in entries:
            del entry["time"], entry["duration_us"]
        assert entries[0] == {
            "remote": "203.0.113.7",
            "method": "GET",
            "path": "/api/v1",
            "protocol": "HTTP/1.1",
            "status": 200,
            "bytes": size,
            "encoding": "identity",
            "referer": None,
            "user_agent": "one",
            "pid": os.getpid(),
        }
        assert entries[1]["bytes"] == 0 and entries[1]["referer"] == "http://r/"
        assert entries[1]["remote"] == "127.0.0.1" and entries[2]["remote"] == "198.51.100.1"
        assert entries == entries[:3] * 4
        return
    unstamped = [re.sub(r" \[[^]]+\] ", " [] ", re.sub(r" \d+us$", " us", ln)) for ln in lines]
    expected = {
        "common": [
            f'203.0.113.7 - - [] "GET /api/v1 HTTP/1.1" 200 {size}',
            '127.0.0.1 - - [] "HEAD /api/v1/games HTTP/1.1" 200 -',
            f'198.51.100.1 - - [] "GET /nope HTTP/1.1" 404 {lines[2].rsplit(" ", 1)[1]}',
        ],
        "combined": [
            f'203.0.113.7 - - [] "GET /api/v1 HTTP/1.1" 200 {size} "-" "one"',
            '127.0.0.1 - - [] "HEAD /api/v1/games HTTP/1.1" 200 - "http://r/" "two"',
            f'198.51.100.1 - - [] "GET /nope HTTP/1.1" 404 {lines[2].split()[9]} "-" "-"',
        ],
    }
    expected["text"] = [line + " us" for line in expected["combined"]]
    assert unstamped == expected[fmt] * 4


@pytest.mark.parametrize(
    ("allow", "peer", "xff", "forwarded", "client"),
    [
        ("127.0.0.1", "127.0.0.1", "203.0.113.7", None, "203.0.113.7"),
        ("127.0.0.1", "127.0.0.1", "198.51.100.1, 203.0.113.7", None, "203.0.113.7"),
        (
            "127.0.0.1,203.0.113.0/24",
            "127.0.0.1",
            "198.51.100.1, 203.0.113.7",
            None,
            "198.51.100.1",
        ),
        ("10.0.0.1", "127.0.0.1", "203.0.113.7", None, "127.0.0.1"),  # untrusted peer
        ("*", "192.0.2.9", None, 'for="[2001:db8::1]:4711";proto=https', "2001:db8::1"),
        ("*", "192.0.2.9", None, "for=192.0.2.60:80, for=198.51.100.17", "192.0.2.60"),
        ("192.0.2.9", "192.0.2.9", None, "for=192.0.2.60:80, for=198.51.100.17", "198.51.100.17"),
        ("unix", "unix:", "203.0.113.7", None, "203.0.113.7"),
    ],
)
def test_serve_forwarded_allow_ips(
    allow: str, peer: str, xff: str | None, forwarded: str | None, client: str
) -> None:
    trusted = TrustedProxies(allow)
    got = trusted.client(peer, xff and xff.encode(), forwarded and forwarded.encode())
    assert got == client


def test_serve_forwarded_allow_ips_rejects_garbage() -> None:
    result = run_cli("serve", "--forwarded-allow-ips", "10.0.0.1,bogus")
    assert result.returncode == 2 and "bogus" in result.stdout + result.stderr


def test_serve_access_log_never_blocks_on_a_full_pipe() -> None:
    """A reader that stopped reading: lines wait in memory up to a bound, then are dropped and
    counted; the server never waits for the pipe."""
    read_fd, write_fd = os.pipe()
    try:
        sink = Sink(write_fd)
        sink.MAX_BACKLOG = 1 << 16  # type: ignore[misc]
        line = b"x" * 99 + b"\n"
        for _ in range(5000):  # 500 kB: far more than a pipe and the backlog hold
            sink.write(line)
        assert sink.dropped > 0
        assert sink.backlog_size <= sink.MAX_BACKLOG
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_serve_access_log_lines_wait_for_a_slow_reader() -> None:
    """A pipe whose reader is behind: the lines it cannot take yet wait in memory, and are
    written, whole and in order, when the reader catches up; none is dropped."""
    read_fd, write_fd = os.pipe()
    sink = Sink(write_fd)
    lines = [b"%06d " % i + b"z" * 93 + b"\n" for i in range(3000)]  # more than a pipe holds
    for line in lines:
        sink.write(line)
    assert sink.backlog  # the pipe is full: the rest waits
    expected = b"".join(lines)
    received = bytearray()
    caught_up = asyncio.Event()

    def readable() -> None:
        received.extend(os.read(read_fd, 1 << 16))
        if len(received) >= len(expected):
            caught_up.set()

    loop = asyncio.get_running_loop()
    loop.add_reader(read_fd, readable)
    try:
        await asyncio.wait_for(caught_up.wait(), 30)
    finally:
        loop.remove_reader(read_fd)
        sink.close()
        os.close(read_fd)
        os.close(write_fd)
    assert bytes(received) == expected
    assert sink.dropped == 0 and not sink.backlog


def test_serve_access_log_lines_are_whole_on_a_shared_pipe() -> None:
    read_fd, write_fd = os.pipe()
    sink = Sink(write_fd)
    assert sink.chunk <= 4096
    sink.write(b"".join(b"%05d " % i + b"y" * 200 + b"\n" for i in range(15)))
    data = os.read(read_fd, 1 << 16)
    os.close(read_fd)
    os.close(write_fd)
    assert [len(line) for line in data.splitlines()] == [206] * 15


async def test_serve_access_log_is_written_while_the_server_runs(
    access_log: tuple[Path, int], engine: str
) -> None:
    path, fd = access_log
    async with running(http=engine, access_fd=fd) as srv:
        await srv.request("/api/v1")

        async def written() -> bool:
            return path.read_text().count("\n") == 1

        await wait_until_async(written, timeout=10)


def test_serve_access_log_format_is_checked() -> None:
    assert set(AccessLog.__init__.__annotations__) >= {"fmt"}
    result = run_cli("serve", "--access-log-format", "apache")
    assert result.returncode == 2


# --- reload (one process: it reloads itself) ---------------------------------------------------


async def test_serve_reload_good_and_bad_content(
    make_content: ContentFactory, caplog: pytest.LogCaptureFixture, engine: str
) -> None:
    root = make_content()
    caplog.set_level("INFO", logger="catalogctl.serve")
    import logging

    logger = logging.getLogger("catalogctl.serve")
    logger.addHandler(caplog.handler)
    try:
        async with running(root, http=engine, reloads=True) as srv:

            async def games() -> int:
                return len((await srv.request("/api/v1/games")).json()["games"])  # type: ignore[index]

            assert await games() == 2
            (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
            srv.worker.request_reload()

            async def three() -> bool:
                return await games() == 3

            await wait_until_async(three)
            assert f"reloaded {root}: 3 games, ETag {srv.table.etag}" in caplog.text
            (root / "games" / "gamma.md").write_text("---\nname: [broken\n---\n", encoding="utf-8")
            srv.worker.request_reload()

            async def failed() -> bool:
                return "failed" in caplog.text

            await wait_until_async(failed)
            assert await games() == 3
    finally:
        logger.removeHandler(caplog.handler)
    assert "still serving the previous catalog (3 games" in caplog.text
    assert "gamma.md" in caplog.text


async def test_serve_reload_log_words_one_game_in_the_singular(
    make_content: ContentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_content({"solo": game_yaml("Solo")})
    caplog.set_level("INFO", logger="catalogctl.serve")
    import logging

    logger = logging.getLogger("catalogctl.serve")
    logger.addHandler(caplog.handler)
    try:
        async with running(root, reloads=True) as srv:
            srv.worker.request_reload()

            async def reloaded() -> bool:
                return "reloaded" in caplog.text

            await wait_until_async(reloaded)
            assert f"reloaded {root}: 1 game, ETag {srv.table.etag}" in caplog.text
    finally:
        logger.removeHandler(caplog.handler)


@needs_posix_signals
@needs_proc
async def test_serve_abandons_a_reload_that_hangs(
    make_content: ContentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A reload whose loading hangs (stopped here, as on a disk that stops answering) is
    abandoned after the reload timeout: logged, the loading process killed, the previous
    catalog still served."""
    import logging

    root = make_content()
    caplog.set_level("ERROR", logger="catalogctl.serve")
    logger = logging.getLogger("catalogctl.serve")
    logger.addHandler(caplog.handler)
    try:
        async with running(root, reloads=True, reload_timeout=1.0) as srv:
            (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
            srv.worker.request_reload()
            loader = loading_process(os.getpid(), timeout=10)
            os.kill(loader, signal.SIGSTOP)

            async def abandoned() -> bool:
                return "loading took longer than 1 s" in caplog.text

            await wait_until_async(abandoned, timeout=30)
            assert "still serving the previous catalog (2 games" in caplog.text
            assert not Path(f"/proc/{loader}").exists()  # killed and reaped
            games = (await srv.request("/api/v1/games")).json()["games"]  # type: ignore[index]
            assert len(games) == 2
    finally:
        logger.removeHandler(caplog.handler)


async def test_serve_watch_reloads_on_change(make_content: ContentFactory, engine: str) -> None:
    root = make_content()
    async with running(root, http=engine, reloads=True, watch=True, watch_interval=0.05) as srv:
        (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")

        async def reloaded() -> bool:
            return srv.table.games == 3

        await wait_until_async(reloaded)


class _WatchesNoSocket(asyncio.SelectorEventLoop):
    """An event loop that cannot watch a socket for the program, as Windows' proactor loop."""

    def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:
        raise NotImplementedError


def test_serve_accepts_through_the_loop_where_it_watches_no_socket() -> None:
    """Where the loop cannot watch a socket (Windows' proactor loop), the loop's own server
    accepts for the worker, which answers alike and stops as usual."""
    source = SiteInput.open(SAMPLE)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    setup = Setup(
        options=ServeOptions(access_log=False),
        sock=sock,
        source=source,
        fingerprint=None,
        counters=Counters(2),
    )
    worker = Worker(Table(source.load()), setup)
    loop = _WatchesNoSocket()
    listening = threading.Event()
    serving = worker.run(on_listening=listening.set, signals=False)
    thread = threading.Thread(target=loop.run_until_complete, args=(serving,))
    thread.start()
    try:
        assert listening.wait(timeout=30)
        assert worker.acceptor is not None and worker.acceptor.server is not None
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        assert conformance.request(url, "/api/v1").status == 200
    finally:
        loop.call_soon_threadsafe(worker.stop)
        thread.join(timeout=30)
        loop.close()
        sock.close()


# --- metrics ------------------------------------------------------------------------------------


def test_serve_metrics_survive_a_worker_and_count_by_status() -> None:
    counters = Counters(3)
    counters.slot = counters.claim(1)
    counters.publish({200: 5, 404: 2, 418: 1}, 1234, 3, 0)
    counters.retire(counters.slot)  # the worker is gone: its counts stay
    counters.slot = counters.claim(2)
    counters.publish({200: 1}, 10, 1, 0)
    counters.catalog('"abc"', 7)
    counters.add("reloads")
    text = counters.render()
    assert 'catalogctl_requests_total{code="200"} 6' in text
    assert 'catalogctl_requests_total{code="404"} 2' in text
    assert 'catalogctl_requests_total{code="other"} 1' in text
    assert "catalogctl_response_body_bytes_total 1244" in text
    assert "catalogctl_connections_open 1" in text
    assert "catalogctl_reloads_total 1" in text
    assert 'catalogctl_catalog_info{etag="\\"abc\\""} 1' in text
    assert "catalogctl_catalog_games 7" in text


# --- start-up errors (no traceback) -------------------------------------------------------------


def test_serve_missing_source_exit_2(tmp_path: Path) -> None:
    result = run_cli("serve", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "Traceback" not in result.stdout + result.stderr
    with pytest.raises(InputError):
        SiteInput.open(tmp_path / "nope")


def test_serve_invalid_content_exit_1(make_content: ContentFactory) -> None:
    root = make_content({"bad": "---\nname: X\n---\n"})
    result = run_cli("serve", str(root), "--port", "0")
    assert result.returncode == 1
    assert "content is invalid" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    with pytest.raises(ContentInvalid):
        SiteInput.open(root).load()


def test_serve_base_url_with_build_exit_2(tmp_path: Path) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    result = run_cli("serve", tmp_path / "dist", "--base-url", "http://x.example")
    assert result.returncode == 2
    assert "--base-url" in result.stdout + result.stderr


def test_serve_port_in_use_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args in (["--port", str(port)], ["--port", "0", "--metrics", f"127.0.0.1:{port}"]):
            result = run_cli("serve", str(SAMPLE), *args)
            assert result.returncode == 2, result.stdout + result.stderr
            assert "cannot listen" in result.stdout + result.stderr
            assert "Traceback" not in result.stdout + result.stderr


def test_serve_http_engine_is_checked() -> None:
    result = run_cli("serve", "--http", "h11")
    assert result.returncode == 2 and "h11" in result.stdout + result.stderr


def test_serve_metrics_address_checked() -> None:
    result = run_cli("serve", "--metrics", "nope")
    assert result.returncode == 2 and "HOST:PORT" in result.stdout + result.stderr


# --- public interfaces only -----------------------------------------------------------------------

_PRIVATE_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<from>[\w.]+)\s+import\s+(?P<names>[^#\n]+)|import\s+(?P<mod>[\w.]+))", re.M
)
_PRIVATE_ATTR = re.compile(
    r"\b(aiohttp|httptools|uvloop|multidict|yarl|pydantic|typer|rich|yaml|brotli|asyncio|socket)\.(_[A-Za-z]\w*)"
)


def test_no_private_names_of_dependencies() -> None:
    """The package uses documented interfaces only: no `_name` module or attribute of another
    package is imported or reached (our own `_private` names are fine)."""
    found = []
    for path in sorted((ROOT / "catalogctl").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        for m in _PRIVATE_IMPORT.finditer(text):
            module = m.group("from") or m.group("mod")
            if module.split(".")[0] == "catalogctl":
                continue
            parts = module.split(".")
            if m.group("names"):
                parts += re.findall(r"(\w+)(?:\s+as\s+\w+)?", m.group("names"))
            private = [p for p in parts if p.startswith("_") and not p.endswith("__")]
            if private:
                found.append(f"{where}: {m.group(0).strip()}")
        found += [f"{where}: {m.group(0)}" for m in _PRIVATE_ATTR.finditer(text)]
    assert found == []
