"""`catalogctl check-links` against a local server whose paths behave like real links."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from catalogctl.errors import InputError
from catalogctl.links.catalog import url_problem
from catalogctl.links.options import parse_accept, parse_duration
from catalogctl.links.pacing import retry_after
from tests.conftest import SITE_TOML, ContentFactory, game_yaml, needs_fifos, require_program
from tests.processes import run, run_cli
from tests.terminal import ON_A_TERMINAL, shown


class LinkServer:
    """An aiohttp server on 127.0.0.1 in its own thread, recording every request it gets."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls  # HTTPS with this server context, or plain HTTP
        self.hits: Counter[tuple[str, str]] = Counter()  # (method, path with query)
        self.user_agents: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def count(self, path: str, method: str | None = None) -> int:
        """Requests for `path` (query ignored), of one method or all."""
        return sum(
            n
            for (m, p), n in self.hits.items()
            if p.partition("?")[0] == path and method in (None, m)
        )

    def _app(self) -> web.Application:
        @web.middleware
        async def record(request: web.Request, handler: Any) -> web.StreamResponse:
            self.hits[request.method, request.path_qs] += 1
            self.user_agents.add(request.headers.get("User-Agent", ""))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                response: web.StreamResponse = await handler(request)
                return response
            finally:
                self.in_flight -= 1

        async def html(_: web.Request) -> web.Response:
            return web.Response(text="<html>page</html>", content_type="text/html")

        async def png(_: web.Request) -> web.Response:
            return web.Response(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")

        def status(code: int, **headers: str) -> Any:
            async def handler(_: web.Request) -> web.Response:
                return web.Response(status=code, headers=headers, text=f"{code}")

            return handler

        def redirect(to: str, code: int = 302) -> Any:
            return status(code, Location=to)

        async def slow(_: web.Request) -> web.Response:
            await asyncio.sleep(3)  # the behaviour under test: a slow link
            return web.Response(text="late")

        async def slowish(_: web.Request) -> web.Response:
            await asyncio.sleep(0.05)  # the behaviour under test: a link that takes a while
            return web.Response(text="ok")

        def then_fine(code: int, **headers: str) -> Any:
            seen: set[str] = set()

            async def handler(request: web.Request) -> web.Response:
                if request.path not in seen:
                    seen.add(request.path)
                    return web.Response(status=code, headers=headers)
                return web.Response(text="fine now")

            return handler

        async def drop(request: web.Request) -> web.Response:
            assert request.transport is not None
            request.transport.close()
            raise asyncio.CancelledError

        async def chain(request: web.Request) -> web.Response:
            n = int(request.match_info["n"])
            return web.Response(status=302, headers={"Location": f"/chain/{n + 1}"})

        async def catalog(request: web.Request) -> web.Response:
            base = f"http://{request.host}"
            game = {
                "id": "live",
                "name": "Live",
                "description": "A deployed game.",
                "url": f"{base}/games/live/",
                "platforms": ["iOS"],
                "genres": ["Puzzle"],
                "icon": f"{base}/icons/live.png",
                "stores": [{"name": "App Store", "url": f"{base}/missing?pt=1"}],
            }
            return web.json_response({"schemaVersion": 1, "games": [game]})

        app = web.Application(middlewares=[record])
        r = app.router
        r.add_get("/api/v1/games", catalog)
        r.add_get("/games/moved/", redirect("/games/moved-here/", 301))
        r.add_get("/games/{id}/", html)
        r.add_get("/icons/not-an-image.png", html)
        r.add_get("/icons/{name}", png)
        r.add_get("/ok", html)
        r.add_get("/shared", html)
        r.add_get("/missing", status(404))
        r.add_get("/gone", status(410))
        r.add_get("/broken-server", status(500))
        r.add_get("/slow", slow)
        r.add_get("/slowish/{n}", slowish)
        r.add_get("/redirect", redirect("/ok"))
        r.add_get("/redirect-to-nothing", redirect("http://[::1"))
        r.add_get("/loop/a", redirect("/loop/b"))
        r.add_get("/loop/b", redirect("/loop/a"))
        r.add_get("/chain/{n}", chain)
        r.add_head("/head-refused", status(405, Allow="GET"))
        r.add_get("/head-refused", html, allow_head=False)
        r.add_head("/head-501", status(501))
        r.add_get("/head-501", html, allow_head=False)
        r.add_head("/head-403", status(403))
        r.add_get("/head-403", html, allow_head=False)
        r.add_head("/head-drops", drop)
        r.add_get("/head-drops", html, allow_head=False)
        r.add_get("/flaky", then_fine(503))
        r.add_get("/limited", then_fine(429, **{"Retry-After": "1"}))
        return app

    def start(self) -> None:
        async def up() -> None:
            self._runner = web.AppRunner(self._app(), handle_signals=False, shutdown_timeout=0.1)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.tls)
            await site.start()
            self.port = self._runner.addresses[0][1]

        self._thread.start()
        asyncio.run_coroutine_threadsafe(up(), self.loop).result(10)

    def stop(self) -> None:
        async def down() -> None:
            if self._runner is not None:
                await self._runner.cleanup()
            # Handlers still sleeping (the slow link) end here, not with the loop.
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


@pytest.fixture
def server() -> Iterator[LinkServer]:
    srv = LinkServer()
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def local_site(server: LinkServer) -> str:
    # Store links point at the local server: stores of kind "other" (any URL), plain http on
    # the loopback address.
    return (
        SITE_TOML.replace("https://games.example.com", server.base)
        .replace('name = "App Store"', 'name = "App Store"\nkind = "other"')
        .replace('name = "Google Play"', 'name = "Google Play"\nkind = "other"')
    )


def local_game(server: LinkServer, name: str, *, icon: str, ios: str, android: str) -> str:
    return game_yaml(name, icon=icon, ios=server.base + ios, android=server.base + android)


@pytest.fixture
def misbehaving(make_content: ContentFactory, server: LinkServer) -> Path:
    """A catalog whose links cover every behaviour of the server."""
    g = local_game
    return make_content(
        {
            "fine": g(server, "Fine", icon="/icons/fine.png", ios="/ok", android="/redirect"),
            "broken": g(
                server, "Broken", icon="/icons/not-an-image.png", ios="/missing", android="/loop/a"
            ),
            "flaky": g(server, "Flaky", icon="/icons/flaky.png", ios="/flaky", android="/limited"),
            "refuser": g(
                server, "Refuser", icon="/icons/refuser.png", ios="/head-refused", android="/slow"
            ),
            "moved": g(server, "Moved", icon="/icons/moved.png", ios="/ok", android="/gone"),
        },
        site=local_site(server),
    )


def links_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("check-links", *args, "--format", "json")
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return result.returncode, json.loads(result.stdout)


def by_path(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """JSON entries keyed by path without query (each path is used by one kind of link)."""
    out: dict[str, dict[str, Any]] = {}
    for entry in doc["links"]:
        path = "/" + entry["url"].split("/", 3)[3].partition("?")[0]
        assert path not in out or path == "/ok", f"two entries for {path}"
        out[path] = entry
    return out


def test_check_links_judges_every_behaviour(misbehaving: Path, server: LinkServer) -> None:
    code, doc = links_json(str(misbehaving), "--timeout", "1")
    assert code == 1
    links = by_path(doc)
    fine = [
        "/games/fine/",
        "/icons/fine.png",
        "/ok",
        "/redirect",
        "/flaky",
        "/limited",
        "/head-refused",
    ]
    for path in fine:
        assert links[path]["ok"] is True, (path, links[path])
        assert links[path]["state"] == "ok", (path, links[path])
        assert links[path]["status"] == 200, path
    assert links["/redirect"]["final_url"] == server.base + "/ok"

    broken = {
        "/missing": "404 Not Found",
        "/gone": "410 Gone",
        "/loop/a": "redirect loop",
        "/slow": "timed out",
        "/icons/not-an-image.png": "not an image",
    }
    for path, message in broken.items():
        assert links[path]["ok"] is False, (path, links[path])
        assert message in links[path]["error"], (path, links[path])
    assert links["/missing"]["status"] == 404

    moved = links["/games/moved/"]
    assert moved["ok"] is True
    assert moved["state"] == "warning"
    assert "redirects to" in moved["warning"]

    summary = doc["summary"]
    assert summary["broken"] == 5
    assert summary["warnings"] == 1
    assert summary["links"] == len(doc["links"])


def test_check_links_requests_each_url_as_little_as_it_can(
    misbehaving: Path, server: LinkServer
) -> None:
    _, doc = links_json(str(misbehaving), "--timeout", "1")
    # A HEAD answered 2xx or 3xx is believed: no second request.
    for path in ("/games/fine/", "/icons/fine.png", "/loop/b"):
        assert server.count(path) == 1, (path, server.hits)
    # /loop/a?utm… → /loop/b → /loop/a → /loop/b: a loop, each URL asked once.
    assert server.count("/loop/a") == 2
    assert server.count("/icons/not-an-image.png") == 1
    # A 4xx answer to HEAD is confirmed with GET, once, and the verdict says so.
    links = by_path(doc)
    for path in ("/head-refused", "/missing", "/gone"):
        assert server.count(path, "HEAD") == 1, (path, server.hits)
        assert server.count(path, "GET") == 1, (path, server.hits)
        assert links[path]["method"] == "GET", links[path]
    assert links["/games/fine/"]["method"] == "HEAD"
    # 503 and 429 asked again once each, then fine.
    assert server.count("/flaky") == 2
    assert server.count("/limited") == 2
    # Nothing else is fetched with GET.
    gets = {p.partition("?")[0] for (m, p), n in server.hits.items() if m == "GET"}
    assert gets == {"/head-refused", "/missing", "/gone"}
    assert all(ua.startswith("catalogctl/") for ua in server.user_agents)


@pytest.mark.parametrize("path", ["/head-501", "/head-403", "/head-drops"])
def test_check_links_falls_back_to_get_when_head_fails(
    make_content: ContentFactory, server: LinkServer, path: str
) -> None:
    root = make_content(
        {"a": local_game(server, "A", icon="/icons/a.png", ios=path, android="/ok")},
        site=local_site(server),
    )
    code, doc = links_json(str(root))
    assert code == 0, doc
    assert server.count(path, "HEAD") == 1
    assert server.count(path, "GET") == 1
    (entry,) = [e for e in doc["links"] if path in e["url"]]
    assert (entry["status"], entry["method"]) == (200, "GET")


def test_check_links_dedups_a_url_shared_by_many_games(
    make_content: ContentFactory, server: LinkServer
) -> None:
    games = {
        f"game-{i}": local_game(
            server, f"Game {i}", icon="/icons/shared.png", ios="/shared", android=f"/ok?g={i}"
        )
        for i in range(25)
    }
    root = make_content(games, site=local_site(server))
    code, doc = links_json(str(root))
    assert code == 0
    assert server.count("/shared") == 1
    assert server.count("/icons/shared.png") == 1
    shared = [e for e in doc["links"] if "/shared?" in e["url"]]
    assert len(shared) == 1
    assert sorted(shared[0]["games"]) == sorted(games)
    assert shared[0]["field"] == "stores.App Store"
    # 25 pages + 25 android links + 1 shared store link + 1 shared icon, each listed once.
    assert len(doc["links"]) == 52
    assert len({e["url"] for e in doc["links"]}) == 52


def test_check_links_keeps_to_the_host_limit(
    make_content: ContentFactory, server: LinkServer
) -> None:
    games = {
        f"game-{i}": local_game(
            server,
            f"Game {i}",
            icon=f"/slowish/icon-{i}",
            ios=f"/slowish/ios-{i}",
            android=f"/slowish/android-{i}",
        )
        for i in range(15)
    }
    root = make_content(games, site=local_site(server))
    result = run_cli("check-links", str(root), "--host-concurrency", "3", "--exclude", "/games/")
    # Icons served as text/plain are broken, which is not what this test is about.
    assert result.returncode == 1
    assert server.count("/slowish/ios-0") == 1
    assert 1 < server.max_in_flight <= 3


def test_check_links_global_limit_caps_concurrency(
    make_content: ContentFactory, server: LinkServer
) -> None:
    games = {
        f"game-{i}": local_game(
            server, f"G{i}", icon="/icons/x.png", ios=f"/slowish/i{i}", android=f"/slowish/a{i}"
        )
        for i in range(15)
    }
    root = make_content(games, site=local_site(server))
    result = run_cli("check-links", str(root), "--max-concurrency", "2", "--host-concurrency", "10")
    assert result.returncode == 0, result.stdout + result.stderr
    assert server.max_in_flight == 2


def test_check_links_table_groups_problems_by_game(misbehaving: Path) -> None:
    result = run_cli("check-links", str(misbehaving), "--timeout", "1")
    assert result.returncode == 1
    table = result.stdout
    for text in ("broken", "stores.App Store", "stores.Google Play", "404", "redirect loop"):
        assert text in table
    assert "fine" not in table.split("broken", 1)[0]  # only games with problems are listed
    assert "5 broken, 1 warning" in result.stderr


def readable_at(width: int, text: str, messages: list[str], urls: list[str]) -> None:
    """Every line fits `width`; no word of a message is cut; every URL is there whole once
    the lines it folds over are joined."""
    from rich.cells import cell_len

    lines = text.splitlines()
    assert all(cell_len(line) <= width for line in lines), text
    words = set(text.split())
    for message in messages:
        for word in message.split():
            assert word in words, (word, text)
    joined = "".join(line.strip() for line in lines)
    for url in urls:
        assert url in joined, (url, text)


@pytest.mark.parametrize("columns", [80, 60])
def test_check_links_table_folds_to_a_narrow_layout(misbehaving: Path, columns: int) -> None:
    args = ["check-links", str(misbehaving), "--timeout", "1"]
    env = {**os.environ, "COLUMNS": str(columns), **ON_A_TERMINAL}  # the table is for a terminal
    doc = json.loads(run_cli(*args, "--format", "json", env=env).stdout)
    result = run_cli(*args, env=env)
    assert result.returncode == 1
    problems = [e for e in doc["links"] if e["state"] in ("broken", "warning")]
    messages = [e["error"] or e["warning"] for e in problems]
    readable_at(columns, shown(result.stdout), messages, [e["url"] for e in problems])
    assert "┃" not in result.stdout  # not the wide table
    wide = run_cli(*args, env={**os.environ, "COLUMNS": "120", **ON_A_TERMINAL})
    assert "┃ Game" in shown(wide.stdout)


def test_check_links_markdown_for_a_pr_comment(misbehaving: Path, server: LinkServer) -> None:
    result = run_cli("check-links", str(misbehaving), "--timeout", "1", "--format", "markdown")
    assert result.returncode == 1
    md = result.stdout
    assert md.startswith("### ")
    assert "| Game | Field | Status | Problem | URL |" in md
    row = next(line for line in md.splitlines() if "/missing" in line)
    assert row.startswith("| broken | stores.App Store | GET 404 |")  # the method of the verdict
    assert f"<{server.base}/games/moved/>" in md


def test_check_links_all_fine_exits_zero(make_content: ContentFactory, server: LinkServer) -> None:
    root = make_content(
        {"a": local_game(server, "A", icon="/icons/a.png", ios="/ok", android="/redirect")},
        site=local_site(server),
    )
    result = run_cli("check-links", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "0 broken, 0 warnings, 4 fine" in result.stderr


def test_check_links_strict_fails_on_warnings(
    make_content: ContentFactory, server: LinkServer
) -> None:
    root = make_content(
        {"moved": local_game(server, "M", icon="/icons/m.png", ios="/ok", android="/ok")},
        site=local_site(server),
    )
    assert run_cli("check-links", str(root)).returncode == 0
    assert run_cli("check-links", str(root), "--strict").returncode == 1


def test_check_links_accept_and_exclude(misbehaving: Path, server: LinkServer) -> None:
    code, doc = links_json(
        str(misbehaving),
        "--timeout",
        "1",
        "--accept",
        "200..299,404,410",
        "--exclude",
        "/loop/|/slow",
        "--exclude",
        "not-an-image",
    )
    assert code == 0
    links = by_path(doc)
    assert links["/missing"]["ok"] is True
    assert links["/loop/a"]["state"] == "excluded"
    assert server.count("/loop/a") == 0
    assert server.count("/slow") == 0
    assert doc["summary"]["excluded"] == 3


def test_check_links_include_checks_only_matching(misbehaving: Path, server: LinkServer) -> None:
    code, doc = links_json(str(misbehaving), "--include", r"/icons/")
    assert code == 1  # the non-image icon
    checked = {e["url"] for e in doc["links"] if e["state"] != "excluded"}
    assert checked and all("/icons/" in url for url in checked)
    assert server.count("/missing") == 0


@pytest.mark.parametrize(
    ("most", "error"), [(3, "more than 3 redirects"), (1, "more than 1 redirect")]
)
def test_check_links_bounds_redirects(
    make_content: ContentFactory, server: LinkServer, most: int, error: str
) -> None:
    root = make_content(
        {"a": local_game(server, "A", icon="/icons/a.png", ios="/chain/0", android="/ok")},
        site=local_site(server),
    )
    code, doc = links_json(str(root), "--max-redirects", str(most))
    assert code == 1
    (chained,) = [e for e in doc["links"] if "/chain/0" in e["url"]]
    assert chained["error"] == error
    assert server.count(f"/chain/{most}") == 1
    assert server.count(f"/chain/{most + 1}") == 0


def test_check_links_redirect_to_what_is_not_a_url_is_a_broken_link(
    make_content: ContentFactory, server: LinkServer
) -> None:
    root = make_content(
        {
            "a": local_game(
                server, "A", icon="/icons/a.png", ios="/redirect-to-nothing", android="/ok"
            )
        },
        site=local_site(server),
    )
    code, doc = links_json(str(root))
    assert code == 1
    (moved,) = [e for e in doc["links"] if "/redirect-to-nothing" in e["url"]]
    assert moved["state"] == "broken"
    assert moved["error"] == "redirects to 'http://[::1': not a URL"


@pytest.mark.parametrize(
    "entry",
    [
        {"checked": 10**400},
        {"checked": 1e300},
        {"checked": True},
        {"checked": "yesterday"},
        {"checked": -1},
        {"checked": "NOW", "kinds": ["store"]},
        {"kinds": 5},
        {"kinds": [1, 2]},
        {"kinds": True},
        [],
    ],
)
def test_check_links_cache_entry_not_as_written_is_checked_again(
    make_content: ContentFactory, server: LinkServer, tmp_path: Path, entry: object
) -> None:
    # A cache edited by hand, or by another program: the entry is dropped, the link checked.
    root = make_content(
        {"a": local_game(server, "A", icon="/icons/a.png", ios="/ok", android="/ok")},
        site=local_site(server),
    )
    if isinstance(entry, dict) and "checked" not in entry:
        entry = {"checked": time.time(), **entry}
    cache = tmp_path / "links.cache"
    icon = f"{server.base}/icons/a.png"
    cache.write_text(json.dumps({"catalogctl-link-cache": {icon: entry}}))
    code, doc = links_json(str(root), "--cache", str(cache))
    assert code == 0, doc
    assert server.count("/icons/a.png") >= 1
    stored = json.loads(cache.read_text())["catalogctl-link-cache"]
    assert isinstance(stored[icon]["checked"], float)


def test_check_links_cache_skips_recent_fine_links(
    misbehaving: Path, server: LinkServer, tmp_path: Path
) -> None:
    cache = tmp_path / "links.cache"
    args = (str(misbehaving), "--timeout", "1", "--cache", str(cache))
    links_json(*args)
    stored = json.loads(cache.read_text())["catalogctl-link-cache"]
    assert any("/games/fine/" in url for url in stored)
    assert not any("/missing" in url or "/games/moved/" in url for url in stored)

    server.hits.clear()
    code, doc = links_json(*args)
    assert code == 1
    assert server.count("/games/fine/") == 0
    assert server.count("/icons/fine.png") == 0
    assert server.count("/missing", "HEAD") == 1  # failures are never cached
    assert server.count("/games/moved/") == 1  # nor warnings
    assert by_path(doc)["/games/fine/"]["checked"] == "cache"
    assert doc["summary"]["cached"] > 0

    server.hits.clear()
    links_json(*args, "--max-cache-age", "0s")
    assert server.count("/games/fine/") == 1


@pytest.mark.skipif(os.name == "nt", reason="Windows files have no permission bits to read")
def test_check_links_cache_is_written_as_any_new_file_and_keeps_its_mode(
    misbehaving: Path, tmp_path: Path
) -> None:
    """The cache was written 0600 (the temporary file's mode): a CI cache restored for another
    user could not be read. It gets what the umask gives a new file, and keeps its mode."""
    cache = tmp_path / "links.cache"
    args = (str(misbehaving), "--timeout", "1", "--cache", str(cache))
    umask = os.umask(0o022)
    try:
        links_json(*args)
        assert cache.stat().st_mode & 0o777 == 0o644
        cache.chmod(0o600)
        links_json(*args)
        assert cache.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(umask)


def test_check_links_refuses_a_cache_file_that_is_not_its_own(
    misbehaving: Path, tmp_path: Path
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    result = run_cli("check-links", str(misbehaving), "--cache", str(other))
    assert result.returncode == 2
    assert "not a catalogctl link cache" in result.stderr
    assert other.read_text() == "my notes\n"
    nowhere = run_cli(
        "check-links", str(misbehaving), "--cache", str(tmp_path / "no-such-dir" / "cache")
    )
    assert nowhere.returncode == 2
    assert "no directory" in " ".join(nowhere.stderr.split())


@pytest.mark.parametrize(
    "kind", ["deep", "large", pytest.param("fifo", marks=needs_fifos), "device", "folder"]
)
def test_check_links_refuses_a_cache_it_cannot_have_written_without_reading_it_whole(
    misbehaving: Path, server: LinkServer, tmp_path: Path, kind: str
) -> None:
    # Nested brackets once made a RecursionError traceback; a FIFO was waited on for ever,
    # /dev/zero read until memory ran out. Each is refused before any link is requested.
    cache = tmp_path / "links.cache"
    words = ["links.cache"]
    if kind == "deep":
        cache.write_text("[" * 100_000 + "]" * 100_000)
        words += ["not a catalogctl link cache", "deeper than 64 levels"]
    elif kind == "large":
        with cache.open("wb") as fh:
            fh.truncate(257 << 20)  # sparse: nothing to read but its size
        words += ["not a catalogctl link cache", "larger than 256 MiB"]
    elif kind == "fifo":
        os.mkfifo(cache)
        words += ["cannot read the link cache", "not a regular file"]
    elif kind == "device":
        if os.name != "posix":
            pytest.skip("no /dev/zero")
        cache = Path("/dev/zero")
        words = ["/dev/zero", "not a regular file"]
    else:
        cache.mkdir()
        words += ["cannot read the link cache", "not a regular file"]
    result = run_cli("check-links", str(misbehaving), "--cache", str(cache), timeout=60)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    said = " ".join(result.stderr.split())
    assert all(word in said for word in words), result.stderr
    assert server.hits == Counter()
    if kind == "deep":
        assert cache.read_text().startswith("[[[")  # not ours: left as it was


def test_check_links_cache_it_writes_stays_within_what_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache grown past the size read back would stop every later run: the newest entries
    # that fit are kept.
    from catalogctl.links import cache as cache_module

    monkeypatch.setattr(cache_module, "MAX_CACHE_BYTES", 4096)
    path = tmp_path / "links.cache"
    now = time.time()
    entries = {
        f"https://example.com/{i}": {"checked": now - i, "status": 200, "kinds": ["url"]}
        for i in range(200)
    }
    cache_module.LinkCache(path, 86400, entries).save(now)
    assert 0 < path.stat().st_size <= 4096
    kept = cache_module.LinkCache.open(path, 86400).entries
    assert "https://example.com/0" in kept and "https://example.com/199" not in kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["links.cache"]


def test_check_links_offline_sends_no_request(misbehaving: Path, server: LinkServer) -> None:
    code, doc = links_json(str(misbehaving), "--offline")
    assert code == 0
    assert server.hits == Counter()
    assert {e["checked"] for e in doc["links"]} == {"offline"}


def games_file(tmp_path: Path, *games: dict[str, Any]) -> Path:
    """A games JSON document (SPEC §2.2) of `games`, each completed with the required fields."""
    full = [
        {"name": "Game", "description": "A game.", "platforms": ["iOS"], "genres": ["Puzzle"]}
        | game
        for game in games
    ]
    path = tmp_path / "games.json"
    path.write_text(json.dumps({"schemaVersion": 1, "games": full}))
    return path


def test_check_links_to_a_pipe_imports_neither_pydantic_nor_rich(tmp_path: Path) -> None:
    # Start-up: the catalog is validated by pydantic-core from a generated schema, and the
    # progress bar's rich only when stderr is a terminal. The report is written all the same.
    path = games_file(
        tmp_path,
        {
            "id": "x",
            "url": "https://games.example.com/games/x/",
            "icon": "https://games.example.com/x.png",
            "stores": [{"name": "App Store", "url": "https://apps.apple.com/app/id1"}],
        },
    )
    code = (
        "import sys; from catalogctl.cli.entry import main; sys.argv = ['catalogctl', "
        f"'check-links', {str(path)!r}, '--offline', '--format', 'json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'rich'}))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    proc = run([sys.executable, "-c", code], env=env, check=True)
    report, _, imported = proc.stdout.rpartition("\n[")
    assert json.loads(report)["summary"]["ok"] == 3
    assert imported == "]\n"


def test_check_links_json_has_a_line_for_each_link(tmp_path: Path) -> None:
    path = games_file(
        tmp_path,
        *(
            {
                "id": f"g{i}",
                "url": f"https://games.example.com/games/g{i}/",
                "icon": f'https://games.example.com/icons/g{i}.png?size=\u00e9"big"',
                "stores": [{"name": "App Store", "url": f"https://apps.apple.com/app/id{i}"}],
            }
            for i in range(3)
        ),
    )
    result = run_cli("check-links", path, "--offline", "--format", "json")
    assert result.returncode == 1, result.stderr  # the icons' URLs are not valid
    lines = result.stdout.splitlines()
    start = lines.index('  "links": [')
    entries = [json.loads(line.strip().removesuffix(",")) for line in lines[start + 1 : -2]]
    assert lines[-2:] == ["  ]", "}"]
    assert entries == json.loads(result.stdout)["links"]
    assert [e["field"] for e in entries] == ["url", "icon", "stores.App Store"] * 3
    assert entries[1]["url"] == 'https://games.example.com/icons/g0.png?size=\u00e9"big"'
    assert entries[1]["rule"] == "invalid-url"
    assert lines[:2] == ["{", '  "schema": "catalogctl/check-links/v1",']


def test_check_links_json_of_no_links(tmp_path: Path) -> None:
    result = run_cli("check-links", games_file(tmp_path), "--offline", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith('  "links": []\n}\n')
    assert json.loads(result.stdout)["summary"]["links"] == 0


def test_check_links_offline_reports_bad_syntax(tmp_path: Path) -> None:
    path = games_file(
        tmp_path,
        {
            "id": "x",
            "url": "https://games.example.com/games/x/",
            "icon": "ftp://example.com/x.png",
            "stores": [{"name": "App Store", "url": "https://exa mple.com/app"}],
        },
    )
    code, doc = links_json(str(path), "--offline")
    assert code == 1
    errors = {e["field"]: e["error"] for e in doc["links"] if not e["ok"]}
    assert errors == {
        "icon": "unsupported scheme ftp:",
        "stores.App Store": "the URL contains white space at position 12; "
        "encode it as %20 or remove it",
    }


def test_check_links_reads_a_build_directory(
    misbehaving: Path, server: LinkServer, tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    build = run_cli("build", misbehaving, "--out", dist)
    assert build.returncode == 0, build.stdout + build.stderr
    _, from_content = links_json(str(misbehaving), "--offline")
    _, from_build = links_json(str(dist), "--offline")
    assert from_build["links"] == from_content["links"]


def test_check_links_reads_a_deployed_catalog(server: LinkServer) -> None:
    code, doc = links_json(server.base)
    assert code == 1
    assert [(e["field"], e["ok"]) for e in doc["links"]] == [
        ("url", True),
        ("icon", True),
        ("stores.App Store", False),
    ]


def test_check_links_connection_refused_is_broken(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/x"
    path = games_file(
        tmp_path, {"id": "x", "url": url, "icon": url, "stores": [{"name": "S", "url": url}]}
    )
    code, doc = links_json(str(path), "--retries", "1")
    assert code == 1
    (entry,) = doc["links"]
    assert entry["error"].startswith("cannot connect")
    assert entry["field"] == "url, icon, stores.S"


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key, made by openssl: (cert, key)."""
    openssl = require_program("openssl", package="openssl")
    cert, key = folder / "cert.pem", folder / "key.pem"
    run(
        [
            *(openssl, "req", "-x509", "-nodes", "-days", "2"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-keyout", key, "-out", cert),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
    )
    return cert, key


def test_check_links_verifies_https_certificates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An HTTPS link whose certificate no trusted authority signed is broken, with the TLS
    error; trusted through SSL_CERT_FILE (docs/commands/check-links.md), the same link is fine."""
    cert, key = self_signed_certificate(tmp_path)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server = LinkServer(tls)
    server.start()
    try:
        url = f"{server.base}/ok"
        path = games_file(
            tmp_path,
            {"id": "x", "url": url, "icon": f"{server.base}/icons/x.png"}
            | {"stores": [{"name": "S", "url": url}]},
        )
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "no-authority.pem"))
        code, doc = links_json(str(path), "--retries", "0")
        assert code == 1
        assert [e["ok"] for e in doc["links"]] == [False, False]
        assert all("certificate verify failed" in e["error"] for e in doc["links"])
        assert server.hits.total() == 0  # nothing was asked over a connection not trusted

        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        code, doc = links_json(str(path), "--retries", "0")
        assert code == 0, doc
        assert [(e["ok"], e["status"]) for e in doc["links"]] == [(True, 200), (True, 200)]
        assert server.count("/ok", "HEAD") == 1 and server.count("/icons/x.png") >= 1
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("retries", "after"), [("0", "after 1 attempt"), ("1", "after 2 attempts")]
)
def test_check_links_counts_the_attempts_of_a_failing_server(
    tmp_path: Path, server: LinkServer, retries: str, after: str
) -> None:
    url = server.base + "/broken-server"
    path = games_file(
        tmp_path, {"id": "x", "url": url, "icon": url, "stores": [{"name": "S", "url": url}]}
    )
    code, doc = links_json(str(path), "--retries", retries)
    assert code == 1
    (entry,) = doc["links"]
    assert entry["error"] == f"500 Internal Server Error ({after})"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--accept", "ok"], "--accept"),
        (["--exclude", "("], "--exclude"),
        (["--max-cache-age", "soon"], "not a duration"),
        (["--timeout", "0"], "--timeout"),
    ],
)
def test_check_links_usage_errors(misbehaving: Path, args: list[str], message: str) -> None:
    result = run_cli("check-links", str(misbehaving), *args)
    assert result.returncode == 2
    assert message in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_check_links_missing_source_is_input_error(tmp_path: Path) -> None:
    result = run_cli("check-links", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert "not found" in result.stderr


def test_check_links_invalid_content_is_reported(make_content: ContentFactory) -> None:
    root = make_content({"bad": "---\nname: Bad\n---\n"})
    result = run_cli("check-links", str(root))
    assert result.returncode == 2
    message = " ".join(result.stderr.split())  # rich wraps long lines
    assert "is invalid (" in message
    assert "run `catalogctl validate" in message


def test_check_links_parsers() -> None:
    assert parse_accept("200..204, 403,500-501") == {200, 201, 202, 203, 204, 403, 500, 501}
    with pytest.raises(InputError):
        parse_accept("299..200")
    assert parse_duration("1d") == 86400
    assert parse_duration("90") == 90
    assert parse_duration("30m") == 1800
    assert retry_after("7") == 7
    assert retry_after("soon") is None
    now = 1_700_000_000.0
    from datetime import UTC, datetime

    when = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert retry_after(when, now=now) == pytest.approx(30)
    assert url_problem("https://apps.apple.com/app/id1") is None
    assert url_problem("https://host:99999/") is not None
    assert url_problem("mailto:x@example.com") == "unsupported scheme mailto:"
