"""Throughput of `catalogctl check-links` against a local server that answers after 50 ms.

Run from the repository root with the project installed:

    python benchmarks/bench_links.py [--links 10000] [--delay 0.05] [--concurrency 64]

A server process on 127.0.0.1 answers every request after --delay seconds (image/png for
icons, text/html otherwise). A games JSON file of --links distinct URLs (a game page, an icon
and two store links per game) is checked with --concurrency requests in flight, all on one
host (so `--host-concurrency` is raised to --concurrency). It prints, for each run:

- `bound`: the latency bound links × delay / concurrency (7.8 s for the defaults);
- `reference`: a bare aiohttp loop sending the same HEAD requests through a semaphore, in this
  run, on this machine: what the client and server can do at all;
- `core`: `catalogctl.links.core.check_links` (collect, judge, dedup, per-host limits, retries);
- `cli`: the whole `catalogctl check-links FILE --format json` process, start-up included.

Each with links/s and its ratio to the bound (goal: within 1.5x) and to the reference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def serve(delay: float) -> None:
    """The slow server (runs in its own process so that it has a core of its own)."""
    from aiohttp import web

    async def handler(request: web.Request) -> web.Response:
        await asyncio.sleep(delay)
        kind = "image/png" if request.path.startswith("/icons/") else "text/html"
        return web.Response(body=b"x", content_type=kind)

    async def main() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handler)
        runner = web.AppRunner(app, access_log=None, handle_signals=True)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        print(runner.addresses[0][1], flush=True)
        await asyncio.Event().wait()

    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())


def games(base: str, n_links: int) -> list[dict[str, object]]:
    out = []
    for i in range(n_links // 4):
        out.append(
            {
                "id": f"game-{i:05d}",
                "name": f"Game {i}",
                "description": "A game.",
                "url": f"{base}/games/game-{i:05d}/",
                "platforms": ["iOS", "Android"],
                "genres": ["Puzzle"],
                "icon": f"{base}/icons/game-{i:05d}.png",
                "stores": [
                    {"name": "App Store", "url": f"{base}/ios/{i}?pt=1&ct=c&mt=8"},
                    {"name": "Google Play", "url": f"{base}/android/{i}?utm_source=s"},
                ],
            }
        )
    return out


async def reference(urls: list[str], concurrency: int) -> float:
    import aiohttp

    started = time.perf_counter()
    slots = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(url: str) -> None:
            async with slots, session.head(url) as resp:
                assert resp.status == 200

        await asyncio.gather(*(one(u) for u in urls))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=10_000)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.delay)
        return

    from catalogctl.links.core import CheckOptions, check_links, collect_links

    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--delay", str(args.delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}"
        catalog = games(base, args.links)
        links = collect_links(catalog)
        n = len(links)
        bound = n * args.delay / args.concurrency
        print(f"{n} distinct links, {args.delay * 1000:.0f} ms each, {args.concurrency} at once")
        print(f"{'bound':>10}: {bound:6.2f} s  {n / bound:7.0f} links/s")

        try:
            import uvloop

            ref = uvloop.run(reference([link.url for link in links], args.concurrency))
        except ImportError:
            ref = asyncio.run(reference([link.url for link in links], args.concurrency))

        def line(name: str, seconds: float) -> None:
            print(
                f"{name:>10}: {seconds:6.2f} s  {n / seconds:7.0f} links/s  "
                f"{seconds / bound:.2f}x the bound  {seconds / ref:.2f}x the reference"
            )

        line("reference", ref)

        options = CheckOptions(
            max_concurrency=args.concurrency, host_concurrency=args.concurrency, timeout=30
        )
        report = check_links(links, options)
        assert report.summary()["broken"] == 0, report.broken[:3]
        assert report.requests == n, report.requests
        line("core", report.seconds)

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "games.json"
            path.write_text(json.dumps({"schemaVersion": 1, "games": catalog}))
            started = time.perf_counter()
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "catalogctl",
                    "check-links",
                    str(path),
                    "--max-concurrency",
                    str(args.concurrency),
                    "--host-concurrency",
                    str(args.concurrency),
                    "--timeout",
                    "30",
                    "--format",
                    "json",
                ],
                capture_output=True,
                text=True,
                check=False,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            elapsed = time.perf_counter() - started
            assert proc.returncode == 0, proc.stderr[-2000:]
            assert json.loads(proc.stdout)["summary"]["ok"] == n
        line("cli", elapsed)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
