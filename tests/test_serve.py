"""`catalogctl serve`: each behaviour in process (pytest-aiohttp), plus one real-socket test
for --workers, SIGHUP reload (good and bad content) and graceful shutdown."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import re
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web
from aiohttp.test_utils import BaseTestServer, TestClient
from typer.testing import CliRunner

from catalogctl.cli.app import app as cli_app
from catalogctl.content.loader import load_catalog
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.serve.server import (
    AccessLog,
    App,
    ServeOptions,
    _watch,
    choose_encoding,
    etag_matches,
    make_server,
)
from catalogctl.site.build import write_site
from catalogctl.site.load import SiteInput
from catalogctl.site.render import render
from tests import conformance
from tests.conftest import SAMPLE, ContentFactory, game_yaml, generate_catalog
from tests.serve_process import ServeProcess

AVAILABLE = ("br", "gzip")


class CatalogTestServer(BaseTestServer):
    """aiohttp's test server around our low-level server."""

    def __init__(self, app: App, options: ServeOptions) -> None:
        super().__init__(host="127.0.0.1")
        self.app = app
        self.options = options

    async def _make_runner(self, **kwargs: Any) -> web.ServerRunner:
        return web.ServerRunner(make_server(self.app, self.options))


Make = Callable[..., Awaitable[tuple[TestClient[Any, Any], App]]]


@pytest.fixture
def serve_app(aiohttp_client: Any) -> Make:
    async def make(root: Path = SAMPLE, **options: Any) -> tuple[TestClient[Any, Any], App]:
        source = SiteInput.open(root, base_url=options.pop("base_url", None))
        app = App(source, source.load())
        opts = ServeOptions(access_log=False, **options)
        client = await aiohttp_client(CatalogTestServer(app, opts))
        return client, app

    return make


async def raw(client: TestClient[Any, Any], target: str | bytes, method: str = "GET", **kw: Any):  # type: ignore[no-untyped-def]
    """A request sent verbatim (aiohttp's client would normalise the path)."""
    base = str(client.make_url("")).rstrip("/")
    return await asyncio.get_running_loop().run_in_executor(
        None, lambda: conformance.request(base, target, method, **kw)
    )


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


# --- the contract, in process -------------------------------------------------------------------


async def test_serve_api_v1_exact_bytes(serve_app: Make) -> None:
    client, app = await serve_app()
    res = app.table.site.resources["/api/v1"]
    resp = await client.get("/api/v1", headers={"Accept-Encoding": "identity"})
    assert resp.status == 200
    assert resp.headers["Content-Type"] == "application/json"
    assert await resp.read() == res.identity.body
    assert resp.headers["ETag"] == res.identity.etag
    assert resp.headers["Server"] == "catalogctl"
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert resp.headers["Vary"] == "Accept-Encoding"
    assert '</.well-known/api-catalog>; rel="api-catalog"' in resp.headers["Link"]
    assert "Deprecation" not in resp.headers and "Sunset" not in resp.headers


async def test_serve_head_has_get_headers_without_body(serve_app: Make) -> None:
    client, _ = await serve_app()
    get = await client.get("/api/v1/games", headers={"Accept-Encoding": "gzip"})
    head = await client.head("/api/v1/games", headers={"Accept-Encoding": "gzip"})
    assert head.status == get.status == 200
    drop = {"Date"}
    assert {k: v for k, v in head.headers.items() if k not in drop} == {
        k: v for k, v in get.headers.items() if k not in drop
    }
    assert await head.read() == b""


async def test_serve_gzip_and_br_variants(serve_app: Make) -> None:
    client, app = await serve_app()
    res = app.table.site.resources["/api/v1/games"]
    reply = await raw(client, "/api/v1/games", headers={"Accept-Encoding": "gzip"})
    assert reply.header("content-encoding") == "gzip"
    assert gzip.decompress(reply.body) == res.identity.body
    assert reply.header("etag") == res.variant("gzip").etag  # type: ignore[union-attr]
    reply = await raw(client, "/api/v1/games", headers={"Accept-Encoding": "br, gzip"})
    assert reply.header("content-encoding") == "br"
    assert reply.header("etag") == res.variant("br").etag  # type: ignore[union-attr]


async def test_serve_if_none_match_304(serve_app: Make) -> None:
    client, app = await serve_app()
    etag = app.table.site.resources["/api/v1/games"].identity.etag
    plain = {"Accept-Encoding": "identity"}
    resp = await client.get("/api/v1/games", headers={**plain, "If-None-Match": f'"old", {etag}'})
    assert resp.status == 304
    assert resp.headers["ETag"] == etag
    assert resp.headers["Cache-Control"] == "public, max-age=300"
    assert resp.headers["Vary"] == "Accept-Encoding"
    assert await resp.read() == b""
    resp = await client.get("/api/v1/games", headers={**plain, "If-None-Match": '"old"'})
    assert resp.status == 200
    # the ETag belongs to one representation: the br variant does not match it
    resp = await client.get(
        "/api/v1/games", headers={"Accept-Encoding": "br", "If-None-Match": etag}
    )
    assert resp.status == 200


async def test_serve_not_found_problem_uses_path_as_sent(serve_app: Make) -> None:
    client, app = await serve_app()
    for target, instance in (
        ("/api/nope?x=1", "/api/nope"),
        ('/api/a"b\\c', '/api/a"b\\c'),
        ("/api/%2e%2e/openapi.json", "/api/%2e%2e/openapi.json"),
        ("/api/../openapi.json", "/api/../openapi.json"),
        ("/api/v1/", "/api/v1/"),
    ):
        reply = await raw(client, target)
        assert reply.status == 404, target
        assert reply.header("content-type") == "application/problem+json"
        assert reply.header("cache-control") == "no-store"
        body = json.loads(reply.body)
        assert body["instance"] == instance
        assert reply.body == app.table.site.not_found.body(instance)


async def test_serve_other_methods_403_html(serve_app: Make) -> None:
    client, _ = await serve_app()
    for method in ("POST", "DELETE", "OPTIONS"):
        resp = await client.request(method, "/api/v1")
        assert resp.status == 403
        assert resp.headers["Content-Type"].startswith("text/html")
        assert b"<html" in await resp.read()
    # a method the HTTP parser does not know is still a method: 403, not 400
    reply = await raw(client, "/api/v1", "BREW")
    assert reply.status == 403 and reply.media_type == "text/html"


async def test_serve_unknown_outside_api_404_html(serve_app: Make) -> None:
    client, _ = await serve_app()
    resp = await client.get("/robots.txt")
    assert resp.status == 404
    assert resp.headers["Content-Type"].startswith("text/html")


async def test_serve_query_ignored(serve_app: Make) -> None:
    client, app = await serve_app()
    resp = await client.get("/api/v1/games?platform=iOS&page=2")
    assert resp.status == 200
    assert await resp.read() == app.table.site.resources["/api/v1/games"].identity.body


async def test_serve_base_url_rewrites_documents(serve_app: Make) -> None:
    client, _ = await serve_app(base_url="http://127.0.0.1:9999")
    data = await (await client.get("/api/v1")).json()
    assert data["endpoints"]["games"] == "http://127.0.0.1:9999/api/v1/games"


async def test_serve_build_directory(serve_app: Make, tmp_path: Path) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    client, _ = await serve_app(tmp_path / "dist")
    resp = await client.get("/api/v1/games")
    assert resp.status == 200
    assert await resp.read() == (tmp_path / "dist/public/api/v1/games/index.json").read_bytes()


def test_serve_build_cache_control_override(tmp_path: Path) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    site = SiteInput.open(tmp_path / "dist", cache_control="no-cache").load()
    headers = dict(site.resources["/api/v1"].headers)
    assert headers["Cache-Control"] == "no-cache"


async def test_serve_deprecated_lifecycle_headers(
    serve_app: Make, make_content: ContentFactory
) -> None:
    from tests.test_conformance_serve import DEPRECATED_SITE

    client, _ = await serve_app(make_content(site=DEPRECATED_SITE))
    resp = await client.get("/api/v1")
    assert resp.headers["Deprecation"] == "@1772323200"
    assert resp.headers["Sunset"] == "Tue, 01 Sep 2026 00:00:00 GMT"
    assert 'rel="deprecation"' in resp.headers["Link"]
    assert (await resp.json())["status"] == "deprecated"


# --- limits and slow clients ----------------------------------------------------------------------


async def test_serve_header_too_large_400(serve_app: Make) -> None:
    client, _ = await serve_app(max_field_size=1024)
    reply = await raw(client, "/api/v1", headers={"X-Big": "a" * 4000})
    assert reply.status == 400
    assert reply.header("server") == "catalogctl"
    reply = await raw(client, "/api/v1")
    assert reply.status == 200


async def test_serve_slowloris_connection_closed(serve_app: Make) -> None:
    """A client that never finishes its request head is disconnected after the timeout."""
    client, _ = await serve_app(keepalive_timeout=0.5)
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\n")
    await writer.drain()
    for _ in range(3):  # keep dribbling header bytes, as slowloris does
        await asyncio.sleep(0.2)
        writer.write(b"X-a: b\r\n")
    data = await asyncio.wait_for(reader.read(), timeout=30)
    assert data == b""  # closed without a response
    writer.close()


async def test_serve_idle_connection_closed(serve_app: Make) -> None:
    client, _ = await serve_app(keepalive_timeout=0.3)
    reader, writer = await asyncio.open_connection(client.host, client.port)
    assert await asyncio.wait_for(reader.read(), timeout=30) == b""
    writer.close()


# --- the fast path (access log off) sends what aiohttp's response objects send ------------------


def _request(method: str, target: str, *headers: str, version: str = "1.1") -> bytes:
    lines = [f"{method} {target} HTTP/{version}", "Host: x", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


async def _exchange(client: TestClient[Any, Any], data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(data)
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), timeout=30)  # the last request closes
    writer.close()
    return re.sub(rb"\r\nDate: [^\r]*", b"\r\nDate: -", reply)


async def test_serve_fast_path_sends_the_bytes_aiohttp_would(serve_app: Make) -> None:
    """With the access log off, simple requests are answered from prepared bytes; every reply
    (Date aside) must equal the one aiohttp's own response path sends with the log on."""
    fast, app = await serve_app()
    slow_options = ServeOptions(access_log=True)
    assert make_server(app, ServeOptions(access_log=False))().fast  # type: ignore[attr-defined]
    assert not make_server(app, slow_options)().fast  # type: ignore[attr-defined]
    etag = app.table.answer("GET", "/api/v1/games", "gzip", None).etag
    last = _request("GET", "/llms.txt", "Connection: close")
    pipelined = [
        _request("GET", "/api/v1"),
        _request("HEAD", "/api/v1/games", "Accept-Encoding: gzip"),
        _request("GET", "/api/v1/games?page=2", "Accept-Encoding: br, gzip"),
        _request("GET", "/api/v1/games", "Accept-Encoding: gzip", f"If-None-Match: {etag}"),
        _request("HEAD", "/api/v1/games", "Accept-Encoding: gzip", f"If-None-Match: {etag}"),
        _request("GET", '/api/a"b%0a?x=1'),
        _request("HEAD", "/api/nothing"),
        _request("GET", "/nowhere"),
        _request("DELETE", "/api/v1"),
        _request("GET", "http://example.com/openapi.json"),
        _request("GET", "/api", "Content-Length: 2") + b"{}",
        _request("GET", "/api/v1", "Connection: keep-alive", version="1.0"),
        last,
    ]
    alone = [_request("GET", "/api/v1", version="1.0"), *pipelined]
    slow: TestClient[Any, Any] = TestClient(
        CatalogTestServer(App(app.source, app.table.site), slow_options)
    )
    async with slow:
        for data in (b"".join(pipelined), *(one + last for one in alone)):
            got = await _exchange(fast, data)
            assert got == await _exchange(slow, data)
        assert (await _exchange(fast, b"".join(pipelined))).count(b"\r\nServer: ") == 13


def test_serve_prepared_bytes_kept_for_routes_only_and_bounded() -> None:
    """Clients that vary targets and headers cannot grow a worker's memory without bound."""
    source = SiteInput.open(SAMPLE)
    table = App(source, source.load()).table
    for i in range(3 * table.WIRES_KEPT):
        assert table.wire("GET", f"/nowhere/{i}", None, None) is not None  # 404 page, not kept
        assert table.wire("GET", f"/api/v1?page={i}", f"gzip;q=0.{i % 10}", None) is not None
    assert len(table._wires) == table.WIRES_KEPT
    assert all(target.startswith("/api/v1?") for _, target, _, _ in table._wires)
    assert table.wire("GET", "/api/nothing", None, None) is None  # built per request


# --- access log -----------------------------------------------------------------------------------


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("fmt", ["text", "json"])
async def test_serve_access_log(serve_app: Make, fmt: str) -> None:
    logger = logging.getLogger("catalogctl.access")
    handler = _Records()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        source = SiteInput.open(SAMPLE)
        app = App(source, source.load())
        options = ServeOptions(access_log=True, log_format=fmt)  # type: ignore[arg-type]
        async with TestClient(CatalogTestServer(app, options)) as client:
            await raw(client, '/api/a"b%0aX?q=1', headers={"User-Agent": 'ua "quoted" \\'})
    finally:
        logger.removeHandler(handler)
    assert len(handler.records) == 1
    record = handler.records[0]
    if fmt == "json":
        entry = record.access  # type: ignore[attr-defined]
        assert entry["status"] == 404 and entry["method"] == "GET"
        assert entry["path"].startswith('/api/a"b')
    else:
        line = record.getMessage()
        assert "\n" not in line  # no forged log lines
        assert '"ua \\"quoted\\" \\\\"' in line  # quotes in fields are escaped
        assert " 404 " in line


async def test_serve_access_logger_disabled_costs_nothing() -> None:
    source = SiteInput.open(SAMPLE)
    server = make_server(App(source, source.load()), ServeOptions(access_log=False))
    assert server._kwargs["access_log"] is None  # aiohttp then skips logging
    assert AccessLog  # the class used when it is on


# --- reload ---------------------------------------------------------------------------------


async def test_serve_reload_good_and_bad_content(
    serve_app: Make, make_content: ContentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_content()
    client, app = await serve_app(root)
    assert len((await (await client.get("/api/v1/games")).json())["games"]) == 2
    (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
    await app.reload()
    assert len((await (await client.get("/api/v1/games")).json())["games"]) == 3
    (root / "games" / "gamma.md").write_text("---\nname: [broken\n---\n", encoding="utf-8")
    logger = logging.getLogger("catalogctl.serve")
    logger.addHandler(caplog.handler)
    try:
        await app.reload()
    finally:
        logger.removeHandler(caplog.handler)
    assert len((await (await client.get("/api/v1/games")).json())["games"]) == 3
    assert "reload failed" in caplog.text and "gamma.md" in caplog.text


async def test_serve_watch_reloads_on_change(serve_app: Make, make_content: ContentFactory) -> None:
    root = make_content()
    _, app = await serve_app(root)
    task = asyncio.get_running_loop().create_task(_watch(app, interval=0.05))
    try:
        await asyncio.sleep(0.1)
        (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
        for _ in range(400):
            await asyncio.sleep(0.05)
            if app.table.games == 3:
                break
    finally:
        task.cancel()
    assert app.table.games == 3


# --- start-up errors (no traceback) -------------------------------------------------------------


def test_serve_missing_source_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["serve", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    with pytest.raises(InputError):
        SiteInput.open(tmp_path / "nope")


def test_serve_invalid_content_exit_1(make_content: ContentFactory) -> None:
    root = make_content({"bad": "---\nname: X\n---\n"})
    result = CliRunner().invoke(cli_app, ["serve", str(root), "--port", "0"])
    assert result.exit_code == 1
    assert "content is invalid" in result.output
    assert "Traceback" not in result.output
    with pytest.raises(ContentInvalid):
        SiteInput.open(root).load()


def test_serve_base_url_with_build_exit_2(tmp_path: Path) -> None:
    write_site(render(load_catalog(SAMPLE)), tmp_path / "dist")
    result = CliRunner().invoke(
        cli_app, ["serve", str(tmp_path / "dist"), "--base-url", "http://x.example"]
    )
    assert result.exit_code == 2
    assert "--base-url" in result.output


def test_serve_port_in_use_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for workers in ("1", "2"):
            result = CliRunner().invoke(
                cli_app, ["serve", str(SAMPLE), "--port", str(port), "--workers", workers]
            )
            assert result.exit_code == 2, result.output
            assert "cannot listen" in result.output
            assert "Traceback" not in result.output


# --- one real-socket test: workers, SIGHUP, graceful shutdown -----------------------------------


def _games(url: str) -> int:
    reply = conformance.request(url, "/api/v1/games")
    assert reply.status == 200
    return len(json.loads(reply.body)["games"])


def test_serve_workers_reload_and_graceful_shutdown(tmp_path: Path) -> None:
    # 1,600 games: big enough that loading parses on a process pool, which a reload must
    # run apart from the server's own signal handling
    root = generate_catalog(tmp_path / "content", 1600)
    proc = ServeProcess(str(root), "--workers", "2", quiet=False)
    try:
        # both workers answer (each logs its pid with the access line)
        assert proc.proc.stdout is not None
        for _ in range(40):
            assert conformance.request(proc.url, "/api/v1").status == 200
        pids = {json.loads(proc.proc.stdout.readline())["pid"] for _ in range(40)}
        assert len(pids) == 2, pids

        # SIGHUP with good content: every worker serves the new catalog
        (root / "games" / "game-00000.md").unlink()
        proc.signal(signal.SIGHUP)
        proc.wait_for("reloaded")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and {_games(proc.url) for _ in range(10)} != {1599}:
            time.sleep(0.1)
        assert {_games(proc.url) for _ in range(10)} == {1599}

        # SIGHUP with bad content: logged with the file, the previous catalog stays up
        (root / "games" / "game-00001.md").write_text("---\nname: [\n---\n", encoding="utf-8")
        proc.signal(signal.SIGHUP)
        assert "game-00001.md" in str(proc.wait_for("reload failed")["message"])
        assert {_games(proc.url) for _ in range(10)} == {1599}

        # SIGTERM while a response is being written (20 pipelined requests, none read yet,
        # fill the socket buffers): the server waits for it, and what arrives is whole.
        host, port, netloc = conformance._address(proc.url)
        slow = socket.create_connection((host, port))
        slow.sendall(f"GET /api/v1/games HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode() * 20)
        time.sleep(0.5)
        proc.signal(signal.SIGTERM)
        time.sleep(0.5)
        assert proc.proc.poll() is None  # still finishing the response in flight
        received = b""
        slow.settimeout(30)
        while chunk := slow.recv(1 << 20):
            received += chunk
        slow.close()
        complete = 0
        while received:
            head, _, rest = received.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            assert len(rest) >= length, "a response was cut short"
            assert json.loads(rest[:length])["schemaVersion"] == 1
            received, complete = rest[length:], complete + 1
        assert 1 <= complete < 20
        assert proc.proc.wait(30) == 0
    finally:
        proc.stop()


async def test_serve_client_session_smoke(serve_app: Make) -> None:
    """aiohttp's own client decodes our precompressed gzip transparently."""
    client, app = await serve_app()
    async with ClientSession() as session, session.get(client.make_url("/api/v1/games")) as resp:
        assert resp.headers["Content-Encoding"] in ("br", "gzip")
        assert await resp.read() == app.table.site.resources["/api/v1/games"].identity.body
