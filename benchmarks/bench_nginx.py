"""Side by side: nginx on the generated config, `catalogctl serve --workers 1` and `--workers 2`.

Run from the repository root with the project installed (needs `nginx` and `wrk`):

    python benchmarks/bench_nginx.py [--games 1000] [--duration 5] [--rounds 3] [--connections 64]

It builds a generated catalog of --games games once (`catalogctl build --nginx-listen`),
starts nginx with `nginx -p DIR -c nginx/nginx.conf -g 'daemon off;'` (sendfile, tcp_nopush,
open_file_cache, keepalive, access log off) and `catalogctl serve DIR --quiet` with 1 and 2
workers on the same build, then runs wrk (one thread, --connections keep-alive connections,
on the same cores) against each in turn, --rounds times interleaved, for:

- `/api/v1` (identity),
- `/api/v1/games` identity,
- `/api/v1/games` with `Accept-Encoding: gzip`.

A fourth row per request is the reference the goals come from: a bare aiohttp handler
returning the precomputed bytes (uvloop, 2 processes on one port, no contract at all).

For each row it prints the median requests/s, the median p99 latency and the ratio
serve/nginx of requests/s (nginx is the reference, measured in the same run). Goals on a
2-core machine: serve --workers 2 >= 0.6x nginx on /api/v1 and >= 0.75x on /api/v1/games
with gzip.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import generate_catalog  # noqa: E402
from tests.nginx_process import NginxProcess, free_port  # noqa: E402
from tests.serve_process import ServeProcess  # noqa: E402

CASES = [
    ("/api/v1", None),
    ("/api/v1/games", None),
    ("/api/v1/games", "gzip"),
]


def wrk(url: str, encoding: str | None, duration: int, connections: int) -> tuple[float, float]:
    """(requests/s, p99 in ms) of one wrk run."""
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", url]
    if encoding:
        cmd += ["-H", f"Accept-Encoding: {encoding}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise SystemExit(f"wrk saw errors on {url}:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
    return rps, float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def bare(port: int, build: Path) -> None:
    """The reference handler: aiohttp + uvloop returning precomputed bytes, nothing else."""
    import asyncio

    import uvloop
    from aiohttp import web

    public = build / "public"
    bodies = {
        ("/api/v1", False): (public / "api/v1/index.json").read_bytes(),
        ("/api/v1/games", False): (public / "api/v1/games/index.json").read_bytes(),
        ("/api/v1/games", True): (public / "api/v1/games/index.json.gz").read_bytes(),
    }

    async def handle(request: web.BaseRequest) -> web.Response:
        gz = "gzip" in request.headers.get("Accept-Encoding", "")
        resp = web.Response(body=bodies[(request.path, gz)], content_type="application/json")
        if gz:
            resp.headers["Content-Encoding"] = "gzip"
        return resp

    async def run() -> None:
        runner = web.ServerRunner(web.Server(handle), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, reuse_port=True).start()
        await asyncio.Event().wait()

    uvloop.run(run())


def start_bare(port: int, build: Path, processes: int = 2) -> list[subprocess.Popen[bytes]]:
    procs = [
        subprocess.Popen([sys.executable, __file__, "--bare", str(port), str(build)])
        for _ in range(processes)
    ]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return procs
        time.sleep(0.05)
    raise SystemExit("the bare aiohttp reference did not start")


def main() -> None:
    if sys.argv[1:2] == ["--bare"]:
        bare(int(sys.argv[2]), Path(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for tool in ("nginx", "wrk"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is not installed")

    with tempfile.TemporaryDirectory(prefix="bench-nginx-") as tmp:
        content = generate_catalog(Path(tmp) / "content", args.games)
        build, port = Path(tmp) / "dist", free_port()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "catalogctl",
                "build",
                str(content),
                "--out",
                str(build),
                "--nginx-listen",
                f"127.0.0.1:{port}",
            ],
            check=True,
            capture_output=True,
        )
        nginx = NginxProcess(build, port)
        servers = {"nginx": nginx.url}
        serves = []
        bare_port = free_port()
        bares = start_bare(bare_port, build)
        servers["bare aiohttp x2"] = f"http://127.0.0.1:{bare_port}"
        try:
            for workers in (1, 2):
                serves.append(ServeProcess(str(build), "--workers", str(workers)))
                servers[f"serve --workers {workers}"] = serves[-1].url
            time.sleep(1)
            print(
                f"{args.games} games, wrk -t1 -c{args.connections} -d{args.duration}s, "
                f"median of {args.rounds} interleaved rounds"
            )
            results: dict[tuple[str, str | None, str], list[tuple[float, float]]] = {}
            for _ in range(args.rounds):  # interleaved, so that drift on a shared machine evens out
                for path, encoding in CASES:
                    for server, url in servers.items():
                        wrk(url + path, encoding, 1, args.connections)  # warm-up
                        run = wrk(url + path, encoding, args.duration, args.connections)
                        results.setdefault((path, encoding, server), []).append(run)
            print(f"{'request':<24} {'server':<18} {'req/s':>9} {'p99 ms':>7} {'serve/nginx':>11}")
            for path, encoding in CASES:
                name = path + (f" ({encoding})" if encoding else "")
                reference = statistics.median(r for r, _ in results[(path, encoding, "nginx")])
                for server in servers:
                    runs = results[(path, encoding, server)]
                    rps = statistics.median(r for r, _ in runs)
                    p99 = statistics.median(p for _, p in runs)
                    ratio = "" if server == "nginx" else f"{rps / reference:.2f}x"
                    print(f"{name:<24} {server:<18} {rps:>9,.0f} {p99:>7.2f} {ratio:>11}")
        finally:
            for proc in serves:
                proc.stop()
            for bare_proc in bares:
                bare_proc.terminate()
                bare_proc.wait()
            nginx.stop()


if __name__ == "__main__":
    main()
