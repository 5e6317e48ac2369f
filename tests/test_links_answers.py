"""check-links and answers that differ by method, and icons whose bodies must be read: each
verdict names the method it rests on, and no body is read past its limit or its time."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.processes import run_cli

PNG = b"\x89PNG\r\n\x1a\n"


class MethodServer:
    """An aiohttp server on 127.0.0.1 (own thread) whose paths answer HEAD and GET apart."""

    def __init__(self) -> None:
        self.hits: Counter[tuple[str, str]] = Counter()
        self.cut_off = threading.Event()  # a client went away in the middle of a stream
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _app(self) -> web.Application:
        @web.middleware
        async def record(request: web.Request, handler: Any) -> web.StreamResponse:
            self.hits[request.method, request.path] += 1
            response: web.StreamResponse = await handler(request)
            return response

        def status(code: int, kind: str = "text/html") -> Any:
            async def handler(_: web.Request) -> web.Response:
                return web.Response(status=code, content_type=kind)

            return handler

        async def page(_: web.Request) -> web.Response:
            return web.Response(text="<html>page</html>", content_type="text/html")

        def stream(total: int | None, pause: float = 0.0) -> Any:
            """An image sent in chunks, without a length: `total` bytes, or without end."""

            async def handler(request: web.Request) -> web.StreamResponse:
                resp = web.StreamResponse(headers={"Content-Type": "image/png"})
                await resp.prepare(request)
                if request.method == "HEAD":
                    return resp
                chunk = PNG + b"\0" * 65528
                sent = 0
                try:
                    while total is None or sent < total:
                        await resp.write(chunk)
                        sent += len(chunk)
                        if pause:
                            await asyncio.sleep(pause)  # the behaviour under test: a drip
                    await resp.write_eof()
                except ConnectionError:
                    self.cut_off.set()
                return resp

            return handler

        async def declared_huge(_: web.Request) -> web.Response:
            resp = web.Response(status=200, content_type="image/png")
            resp.headers["Content-Length"] = str(10**9)  # HEAD only: no body follows
            return resp

        app = web.Application(middlewares=[record])
        r = app.router
        for code in (400, 401, 403, 404, 405, 406, 410, 451):
            r.add_route("HEAD", f"/head-{code}", status(code))
            r.add_get(f"/head-{code}", page, allow_head=False)
        r.add_route("HEAD", "/missing", status(404))
        r.add_get("/missing", status(404), allow_head=False)
        r.add_get("/page", page)
        r.add_route("HEAD", "/icons/endless.png", stream(None))
        r.add_get("/icons/endless.png", stream(None), allow_head=False)
        r.add_route("HEAD", "/icons/small-stream.png", stream(3 * 65536))
        r.add_get("/icons/small-stream.png", stream(3 * 65536), allow_head=False)
        r.add_route("HEAD", "/icons/drip.png", stream(None, pause=0.2))
        r.add_get("/icons/drip.png", stream(None, pause=0.2), allow_head=False)
        r.add_route("HEAD", "/icons/declared-huge.png", declared_huge)
        r.add_get("/icons/fine.png", status(200, "image/png"))
        return app

    def start(self) -> None:
        async def up() -> None:
            self._runner = web.AppRunner(self._app(), handle_signals=False, shutdown_timeout=0.1)
            await self._runner.setup()
            await web.TCPSite(self._runner, "127.0.0.1", 0).start()
            self.port = self._runner.addresses[0][1]

        self._thread.start()
        asyncio.run_coroutine_threadsafe(up(), self.loop).result(10)

    def stop(self) -> None:
        async def down() -> None:
            if self._runner is not None:
                await self._runner.cleanup()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


@pytest.fixture
def server() -> Iterator[MethodServer]:
    srv = MethodServer()
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def catalog(tmp_path: Path, server: MethodServer, *, pages: list[str], icon: str) -> Path:
    """One game per page path, each with `icon` and a fine store link."""
    b = server.base
    games = [
        {
            "id": f"g{i}",
            "name": f"G{i}",
            "description": "A game.",
            "url": b + path,
            "platforms": ["iOS"],
            "genres": ["Puzzle"],
            "icon": b + icon,
            "stores": [{"name": "Store", "url": f"{b}/page"}],
        }
        for i, path in enumerate(pages)
    ]
    path = tmp_path / "games.json"
    path.write_text(json.dumps({"schemaVersion": 1, "games": games}))
    return path


def entries(*args: str) -> dict[str, dict[str, Any]]:
    result = run_cli("check-links", *args, "--format", "json")
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return {"/" + e["url"].split("/", 3)[3]: e for e in json.loads(result.stdout)["links"]}


HEAD_REFUSALS = [400, 401, 403, 404, 405, 406, 410, 451]


def test_check_links_confirms_every_4xx_to_head_with_get(
    server: MethodServer, tmp_path: Path
) -> None:
    pages = [f"/head-{code}" for code in HEAD_REFUSALS]
    path = catalog(tmp_path, server, pages=pages, icon="/icons/fine.png")
    links = entries(str(path))
    for page in pages:
        assert (links[page]["state"], links[page]["status"]) == ("ok", 200), links[page]
        assert links[page]["method"] == "GET"
        assert server.hits["HEAD", page] == 1
        assert server.hits["GET", page] == 1
    assert links["/page"]["method"] == "HEAD"
    assert server.hits["GET", "/page"] == 0


def test_check_links_a_404_to_both_methods_is_broken_by_get(
    server: MethodServer, tmp_path: Path
) -> None:
    path = catalog(tmp_path, server, pages=["/missing"], icon="/icons/fine.png")
    entry = entries(str(path))["/missing"]
    assert (entry["state"], entry["status"], entry["method"]) == ("broken", 404, "GET")
    assert entry["error"] == "404 Not Found"


# Every format names the method of a verdict: the answer GET got, after HEAD's 404.
FORMAT_SHOWS_METHOD = {
    "table": r"404 Not Found \(GET\)",  # piped: one line per problem link
    "markdown": r"\| GET 404 \|",
    "github": r"404 Not Found \(GET\)",
    "sarif": r"404 Not Found \(GET\)",
    "junit": r"404 Not Found \(GET\)",
    "json": r'"method": "GET"',
}


@pytest.mark.parametrize("fmt", sorted(FORMAT_SHOWS_METHOD))
def test_check_links_every_format_names_the_method_of_a_verdict(
    server: MethodServer, tmp_path: Path, fmt: str
) -> None:
    path = catalog(tmp_path, server, pages=["/missing"], icon="/icons/fine.png")
    result = run_cli("check-links", path, "--format", fmt, env={**os.environ, "COLUMNS": "160"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(FORMAT_SHOWS_METHOD[fmt], result.stdout), result.stdout


# --- icon bodies ------------------------------------------------------------------------


def test_check_links_an_icon_whose_body_never_ends_is_a_finding(
    server: MethodServer, tmp_path: Path
) -> None:
    path = catalog(tmp_path, server, pages=["/page"], icon="/icons/endless.png")
    result = run_cli("check-links", str(path), "--max-icon-size", "256KiB", "--format", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    doc = json.loads(result.stdout)
    (icon,) = [e for e in doc["links"] if e["field"] == "icon"]
    assert icon["rule"] == "icon-too-large"
    assert icon["error"] == "icon is larger than 256 KiB (--max-icon-size)"
    assert icon["method"] == "GET"
    # Read up to the limit, then cut off: the server's endless stream ends.
    assert server.cut_off.wait(10)


def test_check_links_an_icon_declared_too_large_is_a_finding_without_its_body(
    server: MethodServer, tmp_path: Path
) -> None:
    path = catalog(tmp_path, server, pages=["/page"], icon="/icons/declared-huge.png")
    icon = entries(str(path))["/icons/declared-huge.png"]
    assert icon["rule"] == "icon-too-large"
    assert icon["error"] == "icon is 1,000,000,000 bytes; --max-icon-size allows 4 MiB"
    assert server.hits["GET", "/icons/declared-huge.png"] == 0


def test_check_links_a_streamed_icon_under_the_limit_is_fine(
    server: MethodServer, tmp_path: Path
) -> None:
    path = catalog(tmp_path, server, pages=["/page"], icon="/icons/small-stream.png")
    icon = entries(str(path))["/icons/small-stream.png"]
    assert (icon["state"], icon["method"]) == ("ok", "GET")


def test_check_links_an_icon_body_that_drips_ends_at_the_timeout(
    server: MethodServer, tmp_path: Path
) -> None:
    path = catalog(tmp_path, server, pages=["/page"], icon="/icons/drip.png")
    icon = entries(str(path), "--timeout", "1", "--retries", "0")["/icons/drip.png"]
    assert icon["state"] == "broken"
    assert icon["error"] == "icon body not read: timed out after 1 s"
