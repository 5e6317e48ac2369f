"""Requests/s and p99 latency of `catalogctl serve`, measured with wrk.

Starts `catalogctl serve --workers N --quiet` on the sample content (or a generated catalog)
and, as the reference in the same run, a bare aiohttp low-level server (uvloop, the same
number of SO_REUSEPORT processes) that answers every request with one fixed body. Each
figure is quoted as a ratio against that reference, so runs on different machines compare.

    .venv/bin/python benchmarks/bench_serve.py                  # 2 workers, 5 s per run
    .venv/bin/python benchmarks/bench_serve.py --workers 1 --duration 10 --games 300

Needs wrk (Debian package `wrk`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REFERENCE = r"""
import asyncio, os, socket, sys
import uvloop
from aiohttp import web

BODY = b'{"version": "v1", "status": "supported"}\n'
HEADERS = {"Content-Type": "application/json"}

async def handler(request):
    return web.Response(body=BODY, headers=HEADERS)

async def main(port):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    runner = web.ServerRunner(web.Server(handler, access_log=None))
    await runner.setup()
    await web.SockSite(runner, sock, backlog=1024).start()
    await asyncio.Event().wait()

port, workers = int(sys.argv[1]), int(sys.argv[2])
for _ in range(workers - 1):
    if os.fork() == 0:
        break
uvloop.run(main(port))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.1)
        else:
            time.sleep(0.3)  # let every worker start listening
            return
    raise SystemExit(f"nothing listens on {port}")


def wrk(url: str, duration: int, connections: int, gzip: bool) -> tuple[float, float]:
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", url]
    if gzip:
        cmd[1:1] = ["-H", "Accept-Encoding: gzip"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    assert p99, out
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    if "Non-2xx" in out:
        raise SystemExit(f"wrk saw errors for {url}:\n{out}")
    return rps, float(p99.group(1)) * scale


def start(cmd: list[str], port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    wait_listening(port)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)  # its own session: the process and any workers
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--games", type=int, default=0, help="generated catalog size (0: sample)")
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")

    content = ROOT / "content"
    if args.games:
        sys.path.insert(0, str(ROOT))
        from tests.conftest import generate_catalog

        content = generate_catalog(Path(tempfile.mkdtemp()) / "content", args.games)

    ref_port = free_port()
    ref = start([sys.executable, "-c", REFERENCE, str(ref_port), str(args.workers)], ref_port)
    try:
        wrk(f"http://127.0.0.1:{ref_port}/", 1, args.connections, gzip=False)  # warm-up
        ref_rps, ref_p99 = wrk(
            f"http://127.0.0.1:{ref_port}/", args.duration, args.connections, gzip=False
        )
    finally:
        stop(ref)

    port = free_port()
    serve_cmd = [sys.executable, "-m", "catalogctl", "serve", str(content), "--port", str(port)]
    serve_cmd += ["--workers", str(args.workers), "--quiet"]
    srv = start(serve_cmd, port)
    rows = []
    try:
        wrk(f"http://127.0.0.1:{port}/api/v1", 1, args.connections, gzip=False)  # warm-up
        for path in ("/api/v1", "/api/v1/games"):
            for gzip in (False, True):
                rps, p99 = wrk(
                    f"http://127.0.0.1:{port}{path}", args.duration, args.connections, gzip
                )
                rows.append((path, "gzip" if gzip else "identity", rps, p99))
    finally:
        stop(srv)

    print(
        f"# {platform.node()} · {os.cpu_count()} CPUs · {platform.machine()}"
        f" · Python {platform.python_version()} · {args.workers} workers · "
        f"wrk -t2 -c{args.connections} -d{args.duration}s"
    )
    print(f"reference (bare aiohttp handler): {ref_rps:,.0f} req/s, p99 {ref_p99:.2f} ms")
    print(f"{'path':<16}{'encoding':<10}{'req/s':>10}{'x ref':>8}{'p99 ms':>9}")
    for path, enc, rps, p99 in rows:
        print(f"{path:<16}{enc:<10}{rps:>10,.0f}{rps / ref_rps:>8.2f}{p99:>9.2f}")
    print(
        json.dumps(
            {
                "reference": {"rps": ref_rps, "p99_ms": ref_p99},
                "serve": [
                    {"path": p, "encoding": e, "rps": r, "ratio": r / ref_rps, "p99_ms": ms}
                    for p, e, r, ms in rows
                ],
            }
        )
    )


if __name__ == "__main__":
    main()
