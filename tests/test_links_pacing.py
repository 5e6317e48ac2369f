"""check-links and a rate-limited host: 429 slows that host alone, and never breaks a link the
host would serve a little later."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from catalogctl.links.pacing import FIRST_BACKOFF, FIRST_GAP, HostPace
from tests.processes import run_cli


class RateLimited:
    """Two hosts in one thread: `limited` (127.0.0.1) takes `rate` requests a second and
    answers 429 above that; `other` (127.0.0.2) answers everything at once."""

    def __init__(self, rate: int, retry_after: str | None = "1") -> None:
        self.rate = rate
        self.retry_after = retry_after
        self.accepted: list[float] = []  # monotonic times of the requests answered 200
        self.refused: list[float] = []  # … answered 429
        self.other: list[float] = []  # requests to the other host
        self.loop = asyncio.new_event_loop()
        self.ports: list[int] = []
        self._runners: list[web.AppRunner] = []
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def _limited(self) -> web.Application:
        async def handler(request: web.Request) -> web.Response:
            now = time.monotonic()
            recent = [t for t in self.accepted if t > now - 1.0]
            if len(recent) >= self.rate:
                self.refused.append(now)
                headers = {} if self.retry_after is None else {"Retry-After": self.retry_after}
                return web.Response(status=429, headers=headers)
            self.accepted.append(now)
            return web.Response(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handler)
        return app

    def _other(self) -> web.Application:
        async def handler(request: web.Request) -> web.Response:
            self.other.append(time.monotonic())
            return web.Response(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handler)
        return app

    def start(self) -> None:
        async def up() -> None:
            for host, application in (("127.0.0.1", self._limited()), ("127.0.0.2", self._other())):
                runner = web.AppRunner(application, handle_signals=False, shutdown_timeout=0.1)
                await runner.setup()
                await web.TCPSite(runner, host, 0).start()
                self.ports.append(runner.addresses[0][1])
                self._runners.append(runner)

        self._thread.start()
        asyncio.run_coroutine_threadsafe(up(), self.loop).result(10)

    def stop(self) -> None:
        async def down() -> None:
            for runner in self._runners:
                await runner.cleanup()

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    def catalog(self, tmp_path: Path, limited: int, other: int) -> Path:
        """A games JSON file: `limited` links on the limited host, `other` on the other."""
        urls = [f"http://127.0.0.1:{self.ports[0]}/page/{i}" for i in range(limited)]
        urls += [f"http://127.0.0.2:{self.ports[1]}/page/{i}" for i in range(other)]
        games = [
            {
                "id": f"g{i}",
                "name": f"G{i}",
                "description": "A game.",
                "url": url,
                "platforms": ["iOS"],
                "genres": ["Puzzle"],
                "icon": url,  # one distinct URL per game, in every role
                "stores": [{"name": "Store", "url": url}],
            }
            for i, url in enumerate(urls)
        ]
        path = tmp_path / "games.json"
        path.write_text(json.dumps({"schemaVersion": 1, "games": games}))
        return path


@pytest.fixture
def rate_limited(request: pytest.FixtureRequest) -> Iterator[RateLimited]:
    rate, retry_after = getattr(request, "param", (10, "1"))
    server = RateLimited(rate, retry_after)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def check(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("check-links", *args, "--format", "json")
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return result.returncode, json.loads(result.stdout)


def accepted_per_second(times: list[float]) -> int:
    """The most requests answered 200 in any one second."""
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


@pytest.mark.parametrize("per_host", ["64", "8"])
def test_check_links_paces_a_rate_limited_host(
    rate_limited: RateLimited, tmp_path: Path, per_host: str
) -> None:
    path = rate_limited.catalog(tmp_path, limited=100, other=100)
    code, doc = check(str(path), "--host-concurrency", per_host)
    assert code == 0, [e for e in doc["links"] if not e["ok"]][:3]
    assert doc["summary"]["ok"] == 200
    assert doc["summary"]["retries"] == 0  # a 429 is not a failure of the link
    assert doc["summary"]["rate_limited"] == len(rate_limited.refused) > 0
    assert len(rate_limited.accepted) == 100
    assert accepted_per_second(rate_limited.accepted) <= 10
    # The other host was never held back: its links were all asked before the limited host
    # took its first request after a pause (Retry-After: 1).
    first_refusal = min(rate_limited.refused)
    resumed = min(t for t in rate_limited.accepted if t > first_refusal)
    assert max(rate_limited.other) < resumed
    assert len(rate_limited.other) == 100


@pytest.mark.parametrize("rate_limited", [(10, None)], indirect=True)
def test_check_links_paces_a_host_that_sends_no_retry_after(
    rate_limited: RateLimited, tmp_path: Path
) -> None:
    path = rate_limited.catalog(tmp_path, limited=40, other=0)
    code, doc = check(str(path), "--host-concurrency", "64")
    assert code == 0, [e for e in doc["links"] if not e["ok"]][:3]
    assert len(rate_limited.accepted) == 40
    assert accepted_per_second(rate_limited.accepted) <= 10


@pytest.mark.parametrize("rate_limited", [(0, "1")], indirect=True)
def test_check_links_a_host_that_never_stops_refusing_is_broken_after_the_bound(
    rate_limited: RateLimited, tmp_path: Path
) -> None:
    path = rate_limited.catalog(tmp_path, limited=3, other=2)
    code, doc = check(str(path), "--rate-limit-wait", "2", "--retries", "0")
    assert code == 1
    broken = [e for e in doc["links"] if not e["ok"]]
    assert len(broken) == 3
    for entry in broken:
        assert entry["status"] == 429
        assert entry["rule"] == "broken-link"
        assert "429 Too Many Requests (still refused after" in entry["error"]
        assert "--rate-limit-wait 2 s" in entry["error"]
    assert doc["summary"]["ok"] == 2  # the other host's links


@pytest.mark.parametrize("rate_limited", [(0, "3600")], indirect=True)
def test_check_links_a_retry_after_past_the_bound_breaks_the_link_at_once(
    rate_limited: RateLimited, tmp_path: Path
) -> None:
    path = rate_limited.catalog(tmp_path, limited=1, other=0)
    code, doc = check(str(path))
    assert code == 1
    (entry,) = doc["links"]
    assert entry["error"] == (
        "429 Too Many Requests (the host asks to wait 3600 s; --rate-limit-wait allows 60 s)"
    )
    assert len(rate_limited.refused) == 1  # asked once, not again after a pause


# --- the pace of one host, step by step ---------------------------------------------------


async def test_host_pace_slows_down_once_per_round_of_requests() -> None:
    pace = HostPace(ceiling=8, max_pause=10.0)
    rounds = [await pace.turn(i) for i in range(8)]
    assert pace.in_flight == 8
    loop = asyncio.get_running_loop()
    before = loop.time()
    for r in rounds:  # all eight come back 429: one congestion event, not eight
        pace.answered(r, limited=True)
    assert pace.limit == 4
    assert pace.gap == FIRST_GAP
    assert before + FIRST_BACKOFF <= pace.resume_at <= loop.time() + FIRST_BACKOFF
    # A request of the new round answered 429 slows it down again.
    waiting = asyncio.ensure_future(pace.turn(8))
    await asyncio.sleep(0)
    assert not waiting.done()  # the pause holds it back
    r = await asyncio.wait_for(waiting, 5)
    assert loop.time() >= pace.resume_at - 0.01
    assert r == 1
    pace.answered(r, limited=True, pause=2.0)
    assert (pace.limit, pace.gap) == (2, 2 * FIRST_GAP)
    assert pace.resume_at >= loop.time() + 1.9
    pace.close()


async def test_host_pace_wins_the_pace_back_answer_by_answer() -> None:
    pace = HostPace(ceiling=4, max_pause=10.0)
    pace.limit, pace.gap = 1, 0.5
    for i in range(6):
        pace.next_start = 0.0
        r = await pace.turn(i)
        pace.answered(r, limited=False)
    assert pace.limit == 4  # one more in flight after as many answers as the limit
    assert 0 < pace.gap < 0.5
    pace.close()


async def test_host_pace_serves_the_oldest_link_first() -> None:
    pace = HostPace(ceiling=1, max_pause=10.0)
    first = await pace.turn(0)
    order: list[int] = []

    async def wait(rank: int) -> None:
        r = await pace.turn(rank)
        order.append(rank)
        pace.answered(r, limited=False)

    tasks = [asyncio.ensure_future(wait(rank)) for rank in (5, 3, 9, 1)]
    await asyncio.sleep(0)
    pace.answered(first, limited=False)
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == [1, 3, 5, 9]
    pace.close()
