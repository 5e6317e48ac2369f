"""Hostile options, remote servers and files: each refused with a clear error, bounded in time
and memory, and never followed to where it should not go.

Every server here is started by the test on 127.0.0.1; addresses elsewhere (link-local, a
"public" host) come from resolver answers injected into the network policy, and no socket is
ever connected to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from catalogctl.contract.values import cache_control_problem, listen_problem, user_agent_problem
from catalogctl.urls import base_url_problem, url_problem
from tests.conftest import needs_fifos, needs_posix_signals, needs_rlimits, needs_symlinks
from tests.processes import Arg, Program, cli, measure, run_cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "content"


def assert_usage_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    # Messages wrap at the terminal width: between words, or inside a long path.
    variants = (proc.stderr, " ".join(proc.stderr.split()), proc.stderr.replace("\n", ""))
    for word in words:
        assert any(word in v for v in variants), (word, proc.stderr)


# --- options that end up in headers and configurations ---------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "public\r\nX-Injected: 1",
        "public, max-age=300\n",
        "max-age=300\rSet-Cookie: a=b",
        "no-cache\x07",
        "max-age=$x",
        "max-age=5; add_header X 1",
        "max-age=abc",
        "",
        "public,,max-age=1",
        'no-cache="unterminated',
        "pùblic",
    ],
)
def test_cache_control_is_checked_when_parsed(tmp_path: Path, value: str) -> None:
    out = tmp_path / "dist"
    assert_usage_error(
        run_cli("build", SAMPLE, "--out", out, "--cache-control", value), "--cache-control"
    )
    assert not out.exists()


def test_cache_control_crlf_refused_by_serve_before_listening() -> None:
    proc = run_cli("serve", SAMPLE, "--port", "0", "--cache-control", "public\r\nX: 1", timeout=20)
    assert_usage_error(proc, "--cache-control", "line break")


@pytest.mark.parametrize(
    "value",
    [
        "public, max-age=300",
        "no-store",
        'no-cache="Set-Cookie, ETag", max-age=0',
        "public, max-age=60, stale-while-revalidate=30, immutable",
        "private",
        "x-custom-ext=token",
    ],
)
def test_cache_control_accepts_real_values(value: str) -> None:
    assert cache_control_problem(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "127.0.0.1:80; evil",
        "a b",
        "{",
        "80\n",
        "127.0.0.1:0",
        "127.0.0.1:99999",
        "unix:",
        "unix:/tmp/a;b",
        "unix:\udcff",  # a byte of a command line that is not UTF-8
        "[::1]80",
        "[zz]:80",
        "host_name..x:80",
        "127.0.0.1",
    ],
)
def test_nginx_listen_is_checked(value: str) -> None:
    assert listen_problem(value) is not None


@pytest.mark.parametrize(
    "value", ["8080", "127.0.0.1:8080", "*:80", "[::1]:8080", "localhost:80", "unix:/run/c.sock"]
)
def test_nginx_listen_accepts_every_documented_form(value: str) -> None:
    assert listen_problem(value) is None


def test_nginx_listen_trailing_newline_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert_usage_error(
        run_cli("build", SAMPLE, "--out", out, "--nginx-listen", "80\n"), "--nginx-listen"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "url", ["https://2130706433/", "https://0x7f.1/", "https://0177.0.0.1/", "https://1.2.3.0x4/"]
)
def test_url_checker_refuses_numeric_hosts_read_as_ipv4(url: str) -> None:
    assert url_problem(url) is not None


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://games.example.com", True),
        ("https://games.example.com/catalog", True),
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://games.example.com", False),
        ("http://10.0.0.1", False),
        ("https://games.example.com/", False),
        ("https://games.example.com?x=1", False),
        ("https://games.example.com#x", False),
    ],
)
def test_base_url_policy(url: str, ok: bool) -> None:
    assert (base_url_problem(url) is None) is ok


@pytest.mark.parametrize("command", ["build", "serve"])
@pytest.mark.parametrize(
    "url",
    ['https://x.example/"><script>alert(1)</script>', "http://x.example", "https://x.example/"],
)
def test_base_url_option_exit_2(tmp_path: Path, command: str, url: str) -> None:
    extra = ["--out", tmp_path / "dist"] if command == "build" else ["--port", "0"]
    proc = run_cli(command, SAMPLE, *extra, "--base-url", url, timeout=20)
    assert_usage_error(proc, "--base-url")
    assert not (tmp_path / "dist").exists()


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--host", "a..b", ("--host", "is not a host name")),
        ("--host", "x" * 64, ("--host", "is not a host name")),
        ("--metrics", "a..b:0", ("--metrics", "is not a host name")),
    ],
)
def test_serve_host_that_is_no_host_name_exit_2(
    option: str, value: str, words: tuple[str, ...]
) -> None:
    # An empty label or one over 63 letters: IDNA refuses it before any lookup.
    proc = run_cli("serve", SAMPLE, "--port", "0", option, value, timeout=20)
    assert_usage_error(proc, *words)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--user-agent", "bot\r\nX-Injected: 1"),
        ("--user-agent", ""),
        ("--exclude", "("),
        ("--include", "[a-"),
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--max-retry-wait", "inf"),
    ],
)
def test_check_links_options_exit_2(option: str, value: str) -> None:
    proc = run_cli("check-links", SAMPLE, "--offline", option, value)
    assert_usage_error(proc, option)


def test_user_agent_checker() -> None:
    assert user_agent_problem("mybot/1.0 (+https://x.example)") is None
    assert user_agent_problem(" leading") is not None
    assert user_agent_problem("x\x7f") is not None


# --- a hostile server on 127.0.0.1 -------------------------------------------------------------


def measured(*args: Arg, timeout: float = 120) -> tuple[int, str, float, float]:
    """(exit code, stderr + stdout, seconds, peak RSS in MiB) of `catalogctl args`, run alone."""
    done = measure(cli(*args), timeout=timeout)
    # Messages wrap at 80 columns; a JSON report on stdout is joined to them as it is.
    err = " ".join(done.proc.stderr.split()) + "\n" + done.proc.stdout
    return done.proc.returncode, err, done.seconds, done.peak_mib


def gzip_bomb(members: int = 160) -> bytes:
    """~10 MB of gzip that inflates to members x 64 MiB (10 GiB) of spaces."""
    member = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9, mtime=0)
    return member * members


def gzipped(body: bytes) -> Any:
    """A handler answering `body` as gzip-encoded JSON."""

    async def handler(_: web.Request) -> web.Response:
        headers = {"Content-Encoding": "gzip"}
        return web.Response(body=body, content_type="application/json", headers=headers)

    return handler


class HostileServer:
    """An aiohttp server on 127.0.0.1 (own thread) whose answers attack the client."""

    def __init__(self, catalog: bytes) -> None:
        self.catalog = catalog
        self.bomb = gzip_bomb()
        self.loop = asyncio.new_event_loop()
        self.port = self.raw_port = 0
        self._raw_server: asyncio.Server
        self.requests: list[str] = []
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _app(self) -> web.Application:
        @web.middleware
        async def record(request: web.Request, handler: Any) -> web.StreamResponse:
            self.requests.append(request.path)
            response: web.StreamResponse = await handler(request)
            return response

        async def ok(_: web.Request) -> web.Response:
            return web.Response(body=self.catalog, content_type="application/json")

        async def bomb(_: web.Request) -> web.Response:
            headers = {"Content-Encoding": "gzip"}
            return web.Response(body=self.bomb, content_type="application/json", headers=headers)

        async def endless(request: web.Request) -> web.StreamResponse:
            resp = web.StreamResponse(headers={"Content-Type": "application/json"})
            await resp.prepare(request)
            chunk = b" " * 65536
            with contextlib.suppress(ConnectionError):
                while True:
                    await resp.write(chunk)
            return resp

        async def drip(request: web.Request) -> web.StreamResponse:
            resp = web.StreamResponse(headers={"Content-Type": "application/json"})
            await resp.prepare(request)
            with contextlib.suppress(ConnectionError):
                while True:
                    await resp.write(b" ")
                    await asyncio.sleep(0.05)  # the behaviour under test: a server that drips
            return resp

        async def huge(request: web.Request) -> web.StreamResponse:
            resp = web.StreamResponse(headers={"Content-Type": "application/json"})
            resp.content_length = 10**12
            await resp.prepare(request)
            await resp.write(b"{")
            await asyncio.sleep(60)  # the behaviour under test: a server that stalls
            return resp

        async def page(_: web.Request) -> web.Response:
            return web.Response(text="<html>page</html>", content_type="text/html")

        async def png(_: web.Request) -> web.Response:
            return web.Response(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")

        async def head_refused(_: web.Request) -> web.Response:
            return web.Response(status=405, headers={"Allow": "GET"})

        def redirect(location: str) -> Any:
            async def handler(request: web.Request) -> web.Response:
                to = location.replace("PORT", str(self.port))
                return web.Response(status=302, headers={"Location": to})

            return handler

        app = web.Application(middlewares=[record])
        r = app.router
        r.add_get("/ok/api/v1/games", ok)
        r.add_get("/bomb/api/v1/games", bomb)
        whole = gzip.compress(self.catalog, mtime=0)
        r.add_get("/gzip/api/v1/games", gzipped(whole))
        r.add_get("/cut-gzip/api/v1/games", gzipped(whole[: len(whole) // 2]))
        r.add_get("/endless/api/v1/games", endless)
        r.add_get("/drip/api/v1/games", drip)
        r.add_get("/huge/api/v1/games", huge)
        r.add_get("/to-metadata/api/v1/games", redirect("http://169.254.169.254/latest/meta-data/"))
        r.add_get("/to-private/api/v1/games", redirect("http://private.test:PORT/ok/api/v1/games"))
        r.add_get("/to-self/api/v1/games", redirect("/ok/api/v1/games"))
        # Links: HEAD refused, so the checker asks with GET and must not read the body.
        for path, handler in (("/endless-get", endless), ("/bomb-get", bomb)):
            r.add_route("HEAD", path, head_refused)
            r.add_get(path, handler, allow_head=False)
        r.add_get("/page", page)
        r.add_get("/icon.png", png)
        r.add_get("/to-metadata", redirect("http://169.254.169.254/latest/meta-data/"))
        r.add_get("/to-private", redirect("http://private.test:PORT/page"))
        return app

    async def _raw(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A raw HTTP server: /drip sends its head a byte at a time, /flood endless headers."""
        with contextlib.suppress(ConnectionError):
            line = await reader.readline()
            self.requests.append(line.decode("latin-1").strip())
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
            if b" /drip" in line:
                while True:
                    writer.write(b"X-Drip: .\r\n")
                    await writer.drain()
                    await asyncio.sleep(0.05)  # the behaviour under test: a dripping head
            else:
                for i in range(100_000):
                    writer.write(b"X-Flood-%d: %s\r\n" % (i, b"x" * 100))
                    await writer.drain()
        writer.close()

    def start(self) -> None:
        async def up() -> None:
            self._runner = web.AppRunner(self._app(), handle_signals=False, shutdown_timeout=0.1)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            self.port = self._runner.addresses[0][1]
            self._raw_server = await asyncio.start_server(self._raw, "127.0.0.1", 0)
            self.raw_port = self._raw_server.sockets[0].getsockname()[1]

        self._thread.start()
        asyncio.run_coroutine_threadsafe(up(), self.loop).result(10)

    def stop(self) -> None:
        async def down() -> None:
            if self._runner is not None:
                await self._runner.cleanup()
            self._raw_server.close()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    from catalogctl.sources.core import load_source

    games = load_source(SAMPLE).games
    srv = HostileServer(json.dumps({"schemaVersion": 1, "games": games}).encode())
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every connect() of this process, refused unless it goes to 127.0.0.1."""
    attempts: list[Any] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guard(address: Any) -> None:
        attempts.append(address)
        if not (isinstance(address, tuple) and address[0] == "127.0.0.1"):
            raise OSError(f"the test refused a connection to {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        guard(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    return attempts


# --- diff: bounded reads of a URL source --------------------------------------------------------


@needs_rlimits
def test_diff_gzip_bomb_is_cut_at_the_limit(hostile: HostileServer) -> None:
    code, err, seconds, peak = measured(
        "diff", f"{hostile.base}/bomb", SAMPLE, "--max-body", "16MiB"
    )
    assert code == 2, err
    assert "Traceback" not in err
    assert "/bomb/api/v1/games" in err and "inflates to more than 16 MiB" in err
    assert "--max-body" in err
    assert peak < 250, f"peak RSS {peak:.0f} MiB"
    assert seconds < 30


def test_diff_reads_a_gzip_encoded_catalog(hostile: HostileServer) -> None:
    from catalogctl.sources.core import load_source

    snapshot = load_source(f"{hostile.base}/gzip")
    assert snapshot.games == json.loads(hostile.catalog)["games"]


def test_diff_gzip_cut_off_midway_is_refused(hostile: HostileServer) -> None:
    from catalogctl.errors import InputError
    from catalogctl.sources.core import load_source

    with pytest.raises(InputError) as info:
        load_source(f"{hostile.base}/cut-gzip")
    message = info.value.message
    assert message.endswith(
        "/cut-gzip/api/v1/games: the body ends in the middle of its compressed data"
    )


@needs_rlimits
def test_diff_gzip_bomb_with_the_default_limit(hostile: HostileServer) -> None:
    code, err, _, peak = measured("diff", f"{hostile.base}/bomb", SAMPLE)
    assert code == 2 and "inflates to more than 64 MiB" in err, err
    assert peak < 400, f"peak RSS {peak:.0f} MiB"


@needs_rlimits
def test_diff_endless_body_is_cut_at_the_limit(hostile: HostileServer) -> None:
    code, err, seconds, peak = measured(
        "diff", f"{hostile.base}/endless", SAMPLE, "--max-body", "8MiB"
    )
    assert code == 2, err
    assert "is longer than 8 MiB" in err and "/endless/api/v1/games" in err
    assert "Traceback" not in err
    assert peak < 250, f"peak RSS {peak:.0f} MiB"
    assert seconds < 30


@needs_rlimits
def test_diff_declared_length_over_the_limit_is_refused_unread(hostile: HostileServer) -> None:
    code, err, seconds, _ = measured("diff", f"{hostile.base}/huge", SAMPLE, "--timeout", "30")
    assert code == 2, err
    assert "1,000,000,000,000 bytes long; the limit is 64 MiB" in err
    assert seconds < 20  # refused from the header, not after the server's 60 s stall


@needs_rlimits
def test_diff_slow_drip_ends_at_the_total_deadline(hostile: HostileServer) -> None:
    code, err, seconds, _ = measured("diff", f"{hostile.base}/drip", SAMPLE, "--timeout", "2")
    assert code == 2, err
    assert "within 2 s" in err and "--timeout" in err and "Traceback" not in err
    assert seconds < 15  # a byte every 50 ms never trips a per-read timeout


def test_diff_follows_a_redirect_on_the_same_host(hostile: HostileServer) -> None:
    from catalogctl.sources.core import load_source

    snapshot = load_source(f"{hostile.base}/to-self")
    assert snapshot.games


def test_diff_redirect_to_link_local_is_refused_before_connecting(
    hostile: HostileServer, loopback_only: list[Any]
) -> None:
    from catalogctl.errors import InputError
    from catalogctl.sources.core import load_source

    with pytest.raises(InputError, match=r"169\.254\.169\.254 a link-local address") as info:
        load_source(f"{hostile.base}/to-metadata")
    assert "never connects" in info.value.message
    assert all(a[0] == "127.0.0.1" for a in loopback_only), loopback_only


def test_diff_resolver_answer_link_local_is_refused_before_connecting(
    loopback_only: list[Any],
) -> None:
    from catalogctl.errors import InputError
    from catalogctl.sources.core import load_source
    from catalogctl.sources.net import NetworkPolicy

    policy = NetworkPolicy(hosts={"metadata.test": ["169.254.169.254"]})
    with pytest.raises(InputError, match=r"metadata\.test resolves to 169\.254\.169\.254"):
        load_source("http://metadata.test/", policy=policy)
    assert loopback_only == []  # not even a connection attempt


def _public_test_host(host: str, ip: Any) -> Any:
    from catalogctl.sources.net import default_reach

    return "public" if host == "public.test" else default_reach(host, ip)


def test_diff_redirect_from_public_to_private_is_refused(
    hostile: HostileServer, loopback_only: list[Any]
) -> None:
    from catalogctl.errors import InputError
    from catalogctl.sources.core import load_source
    from catalogctl.sources.net import NetworkPolicy

    hosts = {"public.test": ["127.0.0.1"], "private.test": ["127.0.0.1"]}
    policy = NetworkPolicy(hosts=hosts, reach=_public_test_host)
    url = f"http://public.test:{hostile.port}/to-private"
    before = len(hostile.requests)
    with pytest.raises(InputError, match=r"from the public host public\.test to the private"):
        load_source(url, policy=policy)
    assert hostile.requests[before:] == ["/to-private/api/v1/games"]  # private.test never asked
    allowed = NetworkPolicy(hosts=hosts, reach=_public_test_host, allow_private=True)
    assert load_source(url, policy=allowed).games


def test_diff_bad_size_option_exit_2() -> None:
    proc = run_cli("diff", SAMPLE, SAMPLE, "--max-body", "lots")
    assert_usage_error(proc, "--max-body")


# --- check-links: heads only, bounded, and never where it should not go ------------------------


def links_file(tmp_path: Path, base: str, pages: list[str]) -> Path:
    """A games JSON file with one game per page URL (icon and store fine)."""
    games = [
        {
            "id": f"g{i}",
            "name": f"G{i}",
            "description": "A game.",
            "url": page,
            "platforms": ["iOS"],
            "genres": ["Puzzle"],
            "icon": f"{base}/icon.png",
            "stores": [{"name": "App Store", "url": f"{base}/page"}],
        }
        for i, page in enumerate(pages)
    ]
    path = tmp_path / "games.json"
    path.write_text(json.dumps({"schemaVersion": 1, "games": games}))
    return path


@needs_rlimits
def test_check_links_never_reads_bodies(hostile: HostileServer, tmp_path: Path) -> None:
    b = hostile.base
    path = links_file(tmp_path, b, [f"{b}/endless-get", f"{b}/bomb-get"])
    code, err, seconds, peak = measured("check-links", path, "--format", "json")
    assert code == 0, err
    assert "Traceback" not in err
    assert peak < 150, f"peak RSS {peak:.0f} MiB"
    assert seconds < 20


@needs_rlimits
def test_check_links_slow_head_ends_at_the_deadline(hostile: HostileServer, tmp_path: Path) -> None:
    b = hostile.base
    path = links_file(tmp_path, b, [f"http://127.0.0.1:{hostile.raw_port}/drip"])
    code, err, seconds, _ = measured(
        "check-links", path, "--timeout", "1", "--retries", "0", "--format", "json"
    )
    assert code == 1, err
    assert "timed out after 1 s" in err and "/drip" in err
    assert seconds < 15  # a header byte every 50 ms never trips a per-read timeout


@needs_rlimits
def test_check_links_header_flood_is_a_failed_link(hostile: HostileServer, tmp_path: Path) -> None:
    b = hostile.base
    path = links_file(tmp_path, b, [f"http://127.0.0.1:{hostile.raw_port}/flood"])
    code, err, _, peak = measured("check-links", path, "--retries", "0", "--format", "json")
    assert code == 1, err
    assert "invalid HTTP response" in err and "/flood" in err
    assert "Traceback" not in err
    assert peak < 150, f"peak RSS {peak:.0f} MiB"


def _links(*urls: str) -> Any:
    from catalogctl.links.catalog import Link, LinkRef

    return [Link(url, [LinkRef(f"g{i}", "url")]) for i, url in enumerate(urls)]


async def test_check_links_redirect_to_link_local_is_refused(
    hostile: HostileServer, loopback_only: list[Any]
) -> None:
    from catalogctl.links.core import check_links_async
    from catalogctl.links.options import CheckOptions

    report = await check_links_async(_links(f"{hostile.base}/to-metadata"), CheckOptions())
    (result,) = report.results
    assert result.state == "broken"
    assert result.error is not None
    assert "redirect refused: 169.254.169.254 a link-local address" in result.error
    assert all(a[0] == "127.0.0.1" for a in loopback_only), loopback_only


async def test_check_links_resolver_answer_link_local_is_refused_before_connecting(
    loopback_only: list[Any],
) -> None:
    from catalogctl.links.core import check_links_async
    from catalogctl.links.options import CheckOptions
    from catalogctl.sources.net import NetworkPolicy

    policy = NetworkPolicy(hosts={"metadata.test": ["169.254.169.254"], "mcast.test": ["ff02::1"]})
    options = CheckOptions(policy=policy, retries=0)
    urls = ("http://metadata.test/latest/", "http://mcast.test/", "http://0.0.0.0:80/")
    report = await check_links_async(_links(*urls), options)
    errors = [r.error or "" for r in report.results]
    assert "metadata.test resolves to 169.254.169.254, a link-local address" in errors[0]
    assert "mcast.test resolves to ff02::1, a multicast address" in errors[1]
    assert "0.0.0.0 an unspecified address" in errors[2]
    assert loopback_only == []  # not even a connection attempt
    assert report.requests == 0


async def test_check_links_redirect_from_public_to_private(
    hostile: HostileServer, loopback_only: list[Any]
) -> None:
    from catalogctl.links.core import check_links_async
    from catalogctl.links.options import CheckOptions
    from catalogctl.sources.net import NetworkPolicy

    hosts = {"public.test": ["127.0.0.1"], "private.test": ["127.0.0.1"]}
    url = f"http://public.test:{hostile.port}/to-private"
    policy = NetworkPolicy(hosts=hosts, reach=_public_test_host)
    before = len(hostile.requests)
    report = await check_links_async(_links(url), CheckOptions(policy=policy))
    (result,) = report.results
    assert result.state == "broken"
    assert "from the public host public.test to the private address private.test" in (
        result.error or ""
    )
    assert hostile.requests[before:] == ["/to-private"]  # the private page was never asked
    allowed = NetworkPolicy(hosts=hosts, reach=_public_test_host, allow_private=True)
    report = await check_links_async(_links(url), CheckOptions(policy=allowed))
    assert report.results[0].state == "warning"  # a game page that redirects, but reached
    assert report.results[0].status == 200


# --- build: --out symlinks, failed and killed builds ------------------------------------------


def tree(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


def leftovers(parent: Path, name: str) -> list[Path]:
    return sorted(parent.glob(f".{name}.catalogctl-*"))


@needs_symlinks
def test_build_out_symlink_is_followed_never_replaced(tmp_path: Path) -> None:
    real = tmp_path / "releases" / "current"
    assert run_cli("build", SAMPLE, "--out", real).returncode == 0
    (real / "public" / "llms.txt").write_text("stale")
    link = tmp_path / "dist"
    link.symlink_to(real, target_is_directory=True)
    proc = run_cli("build", SAMPLE, "--out", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and link.readlink() == real
    assert (real / "manifest.json").is_file()
    assert (real / "public" / "llms.txt").read_text() != "stale"  # the target was rebuilt
    assert leftovers(real.parent, real.name) == []


@needs_symlinks
@pytest.mark.parametrize("kind", ["dangling", "file"])
def test_build_out_symlink_to_nothing_or_a_file_exit_2(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "elsewhere"
    if kind == "file":
        target.write_text("keep me")
    link = tmp_path / "dist"
    link.symlink_to(target)
    proc = run_cli("build", SAMPLE, "--out", link)
    assert_usage_error(proc, "--out", str(link))
    assert link.is_symlink() and link.readlink() == target
    assert (target.read_text() == "keep me") if kind == "file" else not target.exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("build", SAMPLE, "--out", "{long}"), ("cannot create the build directory",)),
        (("build", SAMPLE, "--out", "{file}/dist"), ("cannot create the build directory",)),
        (("init", "{long}"), ("not a folder",)),
        (("init", "{empty}", "--games", "{long}"), ("the games folder",)),
        (("validate", SAMPLE, "--format", "json", "--output", "{long}"), ("--output",)),
        (("diff", SAMPLE, SAMPLE, "--output", "{long}"), ("--output",)),
        (("validate", "{long}"), ("cannot read",)),
        (("schema", "page", "{long}"), ("cannot read",)),
    ],
    ids=[
        "build-out",
        "build-out-in-a-file",
        "init",
        "init-games",
        "validate-output",
        "diff-output",
        "validate",
        "schema",
    ],
)
def test_paths_the_system_cannot_look_at_exit_2(
    tmp_path: Path, args: tuple[str | Path, ...], words: tuple[str, ...]
) -> None:
    # A name longer than a file system takes (ENAMETOOLONG), a folder that is a file: a
    # message naming what was refused, never a traceback.
    (tmp_path / "file").write_text("")
    (tmp_path / "empty").mkdir()
    places = {"long": str(tmp_path / ("n" * 5000)), "file": str(tmp_path / "file")}
    places["empty"] = str(tmp_path / "empty")
    proc = run_cli(*(a.format(**places) if isinstance(a, str) else a for a in args))
    assert_usage_error(proc, *words)


@pytest.mark.parametrize(
    "args",
    [
        ("build", SAMPLE, "--out", "", "--force"),
        ("validate", SAMPLE, "--output", ""),
        ("check-links", "--offline", SAMPLE, "--cache", ""),
        ("serve", SAMPLE, "--unix", ""),
    ],
    ids=["build-out", "validate-output", "check-links-cache", "serve-unix"],
)
def test_an_empty_path_option_is_refused_not_read_as_here(
    tmp_path: Path, args: tuple[str | Path, ...]
) -> None:
    # `--out "$DIST"` with DIST unset: Python reads "" as the current folder, which
    # `build --force` would replace with a build.
    (tmp_path / "keep.txt").write_text("mine")
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "is empty" in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("validate", "site", "--output", "site/site.toml"), "is the site's site.toml"),
        (("validate", "site", "--format", "json", "--output", "site/games/r.json"), "games"),
        (("check-links", "--offline", "site", "--output", "site/site.toml"), "site.toml"),
        (("diff", "old.json", "site", "--output", "old.json"), "is a catalog"),
        (("diff", "dist", "site", "--output", "dist/manifest.json"), "the build's manifest"),
    ],
    ids=["validate-site-toml", "validate-games-folder", "check-links", "diff-json", "diff-build"],
)
def test_a_report_never_replaces_what_the_command_reads(
    tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    """`--output content/site.toml` wrote the report over site.toml (and one in the games
    folder is read as a page next time): refused before anything is read or written."""
    site = tmp_path / "site"
    shutil.copytree(SAMPLE, site)
    assert run_cli("build", site, "--out", tmp_path / "dist").returncode == 0
    shutil.copy(tmp_path / "dist/public/api/v1/games/index.json", tmp_path / "old.json")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    said = " ".join((proc.stderr + proc.stdout).split())
    assert "nothing was written" in said and words in said and "Traceback" not in said, said
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_failed_build_leaves_out_exactly_as_it_was(tmp_path: Path) -> None:
    from catalogctl.content.loader import load_catalog
    from catalogctl.errors import CatalogError
    from catalogctl.site.build import write_site
    from catalogctl.site.render import render

    out = tmp_path / "dist"
    site = render(load_catalog(SAMPLE), compress=False)
    write_site(site, out)
    before, inode = tree(out), out.stat().st_ino

    def disk_full() -> Iterator[tuple[str, bytes]]:
        yield "nginx/catalog.conf", b"# half written\n"
        raise OSError(28, "No space left on device")

    with pytest.raises(CatalogError, match="left as it was"):
        write_site(site, out, extra=disk_full())
    assert tree(out) == before and out.stat().st_ino == inode
    assert leftovers(tmp_path, "dist") == []


KILLED_BUILD = """
import sys, time
from pathlib import Path
from catalogctl.content.loader import load_catalog
from catalogctl.site.build import write_site
from catalogctl.site.render import render

def files():
    print("staging", flush=True)
    time.sleep(600)  # the build hangs mid-staging until the test kills it
    yield "x", b""

site = render(load_catalog(Path(sys.argv[1])), compress=False)
write_site(site, Path(sys.argv[2]), extra=files())
"""


@needs_posix_signals
def test_killed_build_leaves_nothing_the_next_build_keeps(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert run_cli("build", SAMPLE, "--out", out).returncode == 0
    before = tree(out)
    with Program(
        [sys.executable, "-c", KILLED_BUILD, SAMPLE, out], stdout=subprocess.PIPE
    ) as build:
        build.wait_for_line(lambda line: line == "staging")  # mid-build: the staging dir exists
        build.signal(signal.SIGKILL)
        assert build.wait(timeout=10) == -signal.SIGKILL
    (stale,) = leftovers(tmp_path, "dist")
    assert f"catalogctl-staging-{build.proc.pid}." in stale.name
    assert tree(out) == before  # the killed build never touched --out
    # A live build's staging directory (this test's own pid) is not touched.
    live = tmp_path / f".dist.catalogctl-staging-{os.getpid()}.live"
    live.mkdir()
    proc = run_cli("build", SAMPLE, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert leftovers(tmp_path, "dist") == [live]


# --- diff: linear in hostile catalogs and OpenAPI documents ----------------------------------


def _game(gid: str, name: str) -> dict[str, Any]:
    return {
        "id": gid,
        "name": name,
        "description": "A game.",
        "url": f"https://games.example.com/games/{gid}/",
        "platforms": ["iOS"],
        "genres": ["Puzzle"],
        "icon": "https://games.example.com/icon.png",
        "stores": [{"name": "App Store", "url": "https://apps.apple.com/app/x/id1"}],
    }


def web_root(path: Path, games: list[dict[str, Any]], openapi: Any = None) -> Path:
    (path / "api" / "v1" / "games").mkdir(parents=True)
    doc = {"schemaVersion": 1, "games": games}
    (path / "api" / "v1" / "games" / "index.json").write_text(json.dumps(doc))
    if openapi is not None:
        text = openapi if isinstance(openapi, str) else json.dumps(openapi)
        (path / "openapi.json").write_text(text)
    return path


@needs_rlimits
def test_diff_many_games_with_one_name_is_linear(tmp_path: Path) -> None:
    """Every removed and added game shares name and store URL: the rename pass stays linear."""
    n = 20_000
    old = web_root(tmp_path / "old", [_game(f"old-{i}", "Same") for i in range(n)])
    new = web_root(tmp_path / "new", [_game(f"new-{i}", "Same") for i in range(n)])
    code, out, seconds, _ = measured("diff", old, new, "--format", "json")
    assert code == 1, out[:500]
    doc = json.loads(out.partition("\n")[2])
    renames = [c for c in doc["changes"] if c.get("rule") == "id-rename"]
    assert len(renames) == n
    assert seconds < 60  # quadratic, this took minutes


def _openapi(schema: Any, **operation: Any) -> dict[str, Any]:
    response = {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
    get = {"responses": response, **operation}
    return {
        "openapi": "3.1.0",
        "paths": {"/api/v1/games": {"get": get}},
        "components": {
            "schemas": {"Loop": {"anyOf": [{"$ref": "#/components/schemas/Loop"}] * 50}}
        },
    }


def test_diff_hostile_openapi_documents(tmp_path: Path) -> None:
    games = [_game("a", "A")]
    # As deep as the JSON depth limit (64) allows below the schema's own 10 levels.
    deep = '{"type": "object", "properties": {"x": ' * 26 + '{"type": "object"}' + "}}" * 26
    old = _openapi(
        {"enum": list(range(50_000)), "required": [{}], "properties": {"deep": "DEEP"}},
        parameters=5,
    )
    new = _openapi(
        {
            "enum": list(range(1, 50_001)),
            "required": "x",
            "anyOf": [{"$ref": "#/components/schemas/Loop"}] * 50,
        },
        parameters=[{"name": {}}],
    )
    a = web_root(tmp_path / "a", games, json.dumps(old).replace('"DEEP"', deep))
    b = web_root(tmp_path / "b", games, new)
    code, out, seconds, _ = measured("diff", a, b, "--format", "json")
    assert code == 1, out[:2000]
    assert "Traceback" not in out
    assert seconds < 60


def test_diff_openapi_nested_too_deeply_exit_2(tmp_path: Path) -> None:
    games = [_game("a", "A")]
    a = web_root(tmp_path / "a", games, "[" * 200_000 + "]" * 200_000)
    proc = run_cli("diff", a, a)
    assert_usage_error(proc, "deeper than 64 levels (limit: 64)", "openapi.json")


def test_diff_openapi_with_a_huge_integer_says_so_in_its_own_words(tmp_path: Path) -> None:
    """Python refuses an integer of more than 4,300 digits with advice about its own settings
    (`sys.set_int_max_str_digits`): the message names the document's number instead."""
    games = [_game("a", "A")]
    a = web_root(
        tmp_path / "a", games, '{"openapi": "3.1.0", "paths": {}, "x": ' + "9" * 5000 + "}"
    )
    proc = run_cli("diff", a, a)
    assert_usage_error(proc, "openapi.json holds an integer longer than 100 digits, the limit")
    assert "sys." not in proc.stderr
    assert "4300" not in proc.stderr


# --- a build directory edited or damaged after the build ---------------------------------------


def _damaged_build(tmp_path: Path, change: Any) -> Path:
    build = tmp_path / "dist"
    proc = run_cli("build", SAMPLE, "--out", build)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((build / "manifest.json").read_text(encoding="utf-8"))
    change(manifest)
    (build / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return build


def _set(path: str, value: object) -> Any:
    def change(manifest: dict[str, Any]) -> None:
        *parents, last = path.split("|")
        node: Any = manifest
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return change


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (_set("routes|/api/v1/games|etag", 5), "routes./api/v1/games.etag"),
        (_set("not_found|content_type", []), "not_found.content_type"),
        (_set("base_url", None), "base_url"),
        (_set("routes|/api/v1|headers|0|1", "a\u0101"), "routes./api/v1.headers.0.1"),
        (_set("routes|/api/v1|headers|0|1", "a\r\nSet-Cookie: x=1"), "routes./api/v1.headers"),
        (_set("errors|404|headers", [["Bad Name", "x"]]), "errors.404.headers.0.0"),
        (_set("routes|/api/v1|file", 7), "routes./api/v1.file"),
    ],
    ids=["etag", "content-type", "base-url", "latin-1", "crlf", "header-name", "file"],
)
@pytest.mark.parametrize("command", ["serve", "diff", "check-links"])
def test_a_manifest_catalogctl_did_not_write_is_refused_before_use(
    tmp_path: Path, change: Any, where: str, command: str
) -> None:
    # Its values become response headers: a wrong type or a control character would end in
    # a traceback at start, or on every 404 once serving.
    build = _damaged_build(tmp_path, change)
    args = {
        "serve": ("serve", build, "--port", "0"),
        "diff": ("diff", build, SAMPLE),
        "check-links": ("check-links", "--offline", build),
    }[command]
    proc = run_cli(*args, timeout=60)
    assert_usage_error(proc, "is not one catalogctl wrote", where, "build it again")


@needs_rlimits
def test_a_build_file_past_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    """A build file past MAX_BUILD_FILE (1 GiB: no file catalogctl writes comes near) is
    refused by its size, not read into memory first (a sparse file: no disk is used)."""
    from catalogctl.site.readback import MAX_BUILD_FILE

    build = _damaged_build(tmp_path, lambda manifest: None)
    target = build / "public" / "openapi.json"
    with target.open("r+b") as file:
        file.truncate(MAX_BUILD_FILE + 1)
    for args in (("diff", build, SAMPLE), ("check-links", "--offline", build)):
        done = measure(cli(*args), timeout=60)
        assert_usage_error(done.proc, "public/openapi.json", "is larger than 1024 MiB")
        assert done.peak_mib < 300, f"peak RSS {done.peak_mib:.0f} MiB: the file was read"


@pytest.mark.parametrize("over", [0, 1])
def test_a_build_file_at_the_size_limit_is_read_one_past_it_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, over: int
) -> None:
    """Both sides of MAX_BUILD_FILE, with the limit set to the size of a build's largest
    file: at the limit the build loads, one byte under it (the file one past) it is refused."""
    from catalogctl.errors import InputError
    from catalogctl.site import readback as build_module

    build = _damaged_build(tmp_path, lambda manifest: None)
    manifest = json.loads((build / "manifest.json").read_text(encoding="utf-8"))
    named = [route["file"] for route in manifest["routes"].values()]
    largest = max((build / name).stat().st_size for name in named)
    monkeypatch.setattr(build_module, "MAX_BUILD_FILE", largest - over)
    if over:
        with pytest.raises(InputError, match="is larger than"):
            build_module.read_build(build)
    else:
        assert build_module.read_build(build).resources


@needs_fifos
@needs_symlinks
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_build_file_that_is_not_a_regular_file_is_refused_not_read(
    tmp_path: Path, kind: str
) -> None:
    # A FIFO would block the reader for ever, /dev/zero would be read for ever.
    build = _damaged_build(tmp_path, lambda manifest: None)
    target = build / "public" / "openapi.json"
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target.symlink_to(os.devnull if os.name == "posix" else "NUL")
    else:
        target.mkdir()
    # /dev/null is reached by a symlink, which leads out of the build: refused as such.
    said = "a symlink to a file outside the build" if kind == "device" else "not a regular file"
    for args in (("diff", build, SAMPLE), ("check-links", "--offline", build)):
        proc = run_cli(*args, timeout=60)
        assert_usage_error(proc, "public/openapi.json", said)


@needs_fifos
@needs_symlinks
@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("fifo", "is a FIFO"),
        ("device", "is a device"),
        ("folder", "is a folder"),
        ("dangling", "a symbolic link to nothing"),
    ],
)
def test_a_web_root_openapi_that_is_not_a_regular_file_is_an_error_not_skipped(
    tmp_path: Path, kind: str, said: str
) -> None:
    # A web root (a build's public/ without its manifest) whose openapi.json cannot be read
    # was compared as if it had none: "no differences", exit 0, the contract never checked.
    build = _damaged_build(tmp_path, lambda manifest: None)
    root = build / "public"
    target = root / "openapi.json"
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target.symlink_to(os.devnull if os.name == "posix" else "NUL")
    elif kind == "folder":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "nowhere.json")
    for other in (root, SAMPLE):
        proc = run_cli("diff", root, other, timeout=60)
        assert_usage_error(proc, "public/openapi.json", said, "contract cannot be compared")
    # With no openapi.json at all, the web root is read without a contract, as before.
    if kind == "folder":
        target.rmdir()
    else:
        target.unlink()
    proc = run_cli("diff", root, SAMPLE, timeout=60)
    assert proc.returncode == 0, proc.stderr
