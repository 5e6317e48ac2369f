"""Side by side: nginx on the generated config, plain nginx, and `catalogctl serve`.

Run from the repository root with the project installed (needs `nginx` and `wrk`):

    python benchmarks/bench_nginx.py [--games 1000] [--duration 5] [--rounds 3] [--connections 64]
    python benchmarks/bench_nginx.py --instructions [--requests 4000]   # needs valgrind

It builds a generated catalog of --games games once (`catalogctl build --nginx-listen`) and
starts, on the same build:

- nginx on the generated configuration, `nginx -p DIR -c nginx/nginx.conf -g 'daemon off;'`;
- "plain gzip_static": nginx on a minimal hand-written production configuration, the
  reference a generated configuration must match: exact locations with `alias` to the
  identity file, `gzip_static on`, sendfile, tcp_nopush, open_file_cache, keepalive, access log
  off, the same worker count (and none of the contract: no ETag of the build, no negotiation
  beyond gzip_static's, no CORS or Cache-Control headers, no problem JSON);
- a bare aiohttp handler returning the precomputed bytes (uvloop, 2 processes on one port, no
  contract at all): the reference the goals for serve come from;
- `catalogctl serve DIR` with 1 and 2 workers, the access log on (to a file), as in
  production;

then checks that every server answers each request with 200 and serve's bytes, and runs wrk
(one thread, --connections keep-alive connections, on the same cores) against each in turn,
--rounds times interleaved, for:

- `/api/v1` (identity),
- `/api/v1/games` identity,
- `/api/v1/games` with `Accept-Encoding: gzip`.

For each row it prints the median requests/s, the median p99 latency, and requests/s as a
ratio to nginx on the generated configuration (/nginx) and to plain nginx (/plain), both
measured in the same run. Goals on a 2-core machine: serve --workers 2 >= 0.6x nginx on
/api/v1 and >= 0.75x on /api/v1/games with gzip; the generated configuration ~1.0x plain.

Throughput on a shared 2-core machine moves by 10-20% between runs. `--instructions` gives a
figure that does not: each nginx configuration runs once under valgrind (callgrind, one
process), answers --requests requests per case on one keep-alive connection, and the
user-space instructions nginx executed per request are printed (the run with 100 requests is
subtracted, so start-up does not count). The kernel's share (sendfile, the socket) is the
same for both configurations and is not counted.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.catalogs import generate_catalog  # noqa: E402
from tests.nginx_process import NginxProcess, free_port, state_dir  # noqa: E402
from tests.serve_process import ServeProcess  # noqa: E402

# Debian installs nginx in /usr/sbin, which is not on a user's PATH.
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

CASES = [
    ("/api/v1", None),
    ("/api/v1/games", None),
    ("/api/v1/games", "gzip"),
]


def plain_nginx_conf(build: Path, port: int) -> str:
    """A minimal production nginx.conf for the same build: what an operator would write."""
    public = build.absolute() / "public"
    user = "user root;  # the build is in a private temp dir\n" if os.geteuid() == 0 else ""
    return f"""{user}worker_processes auto;
pid nginx/nginx.pid;
error_log nginx/error.log warn;
events {{ worker_connections 4096; }}
http {{
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 100000;
    open_file_cache max=64 inactive=60s;
    open_file_cache_valid 60s;
    open_file_cache_errors on;
    access_log off;
    gzip off;
    gzip_static on;
    gzip_vary on;
    types {{ }}
    default_type application/json;
    client_body_temp_path nginx/client_body_temp;
    server {{
        listen 127.0.0.1:{port} reuseport backlog=4096;
        location = /api/v1 {{ alias {public}/api/v1/index.json; }}
        location = /api/v1/games {{ alias {public}/api/v1/games/index.json; }}
    }}
}}
"""


def start_plain_nginx(tmp: Path, build: Path) -> NginxProcess:
    prefix, port = tmp / "plain", free_port()
    (prefix / "nginx").mkdir(parents=True)
    (prefix / "nginx" / "nginx.conf").write_text(plain_nginx_conf(build, port))
    return NginxProcess(prefix, port, exe=NGINX)


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


def fetch(url: str, path: str, encoding: str | None) -> tuple[int, bytes, str | None]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": encoding or "identity"})
        resp = conn.getresponse()
        return resp.status, resp.read(), resp.getheader("Content-Encoding")
    finally:
        conn.close()


def check_same_bytes(servers: dict[str, str]) -> None:
    """Before timing: every server answers 200 with serve's bytes and coding (an nginx that
    cannot read its files answers 404, fast)."""
    for path, encoding in CASES:
        answers = {name: fetch(url, path, encoding) for name, url in servers.items()}
        reference = answers["serve --workers 1"]
        for name, answer in answers.items():
            if answer[0] != 200 or answer[1:] != reference[1:]:
                raise SystemExit(
                    f"{name} answers {path} (Accept-Encoding: {encoding}) with {answer[0]}, "
                    f"{len(answer[1])} bytes, coding {answer[2]}: not serve's bytes"
                )


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


def callgrind_instructions(
    prefix: Path, conf: Path, port: int, path: str, encoding: str | None, requests: int
) -> int:
    """User-space instructions nginx executes for `requests` requests (start-up included)."""
    # One process: the master serves (with reuseport, a second worker's socket would take
    # connections that nobody accepts).
    one = conf.with_name(conf.name + ".callgrind")
    one.write_text(conf.read_text().replace("worker_processes auto;", "worker_processes 1;"))
    out = prefix / "nginx" / "callgrind.out"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", NGINX, "-p"]
    cmd += [
        str(prefix),
        "-c",
        str(one.relative_to(prefix)),
        "-g",
        "daemon off; master_process off;",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("nginx under valgrind did not start")
            time.sleep(0.2)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        headers = {"Accept-Encoding": encoding} if encoding else {}
        for _ in range(requests):
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit(f"{path}: {response.status}")
        conn.close()
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGTERM)  # callgrind does not see SIGQUIT while in epoll_wait
        _, err = proc.communicate(timeout=60)
    found = re.search(r"Collected : (\d+)", err)
    if found is None:
        raise SystemExit(f"no callgrind total:\n{err[-2000:]}")
    return int(found.group(1))


def instructions(tmp: Path, build: Path, port: int, requests: int) -> None:
    plain_port = free_port()
    plain = tmp / "plain"
    (plain / "nginx").mkdir(parents=True)
    (plain / "nginx" / "nginx.conf").write_text(plain_nginx_conf(build, plain_port))
    configs = {
        "nginx": (build, build / "nginx" / "nginx.conf", port),
        "plain gzip_static": (plain, plain / "nginx" / "nginx.conf", plain_port),
    }
    print(f"user-space instructions per request (callgrind, {requests} requests per case)")
    print(f"{'request':<34} {'server':<18} {'instr/req':>10} {'/plain':>7}")
    for path, encoding in [*CASES, ("/api/v1/games", "gzip, deflate, br")]:
        name = path + (f" ({encoding})" if encoding else "")
        per_request = {}
        for server, (prefix, conf, listen) in configs.items():
            base = callgrind_instructions(prefix, conf, listen, path, encoding, 100)
            total = callgrind_instructions(prefix, conf, listen, path, encoding, 100 + requests)
            per_request[server] = (total - base) / requests
        for server, value in per_request.items():
            ratio = value / per_request["plain gzip_static"]
            print(f"{name:<34} {server:<18} {value:>10,.0f} {ratio:>6.2f}x")


def main() -> None:
    if sys.argv[1:2] == ["--bare"]:
        bare(int(sys.argv[2]), Path(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--instructions", action="store_true", help="count nginx's instructions (valgrind)"
    )
    parser.add_argument("--requests", type=int, default=4000, help="per case, --instructions")
    args = parser.parse_args()
    for tool in ("nginx", "valgrind") if args.instructions else ("nginx", "wrk"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is not installed")

    with tempfile.TemporaryDirectory(prefix="bench-nginx-") as tmp:
        content = generate_catalog(Path(tmp) / "content", args.games)
        build, port = Path(tmp) / "dist", free_port()
        state_dir(build).mkdir()  # nginx's pid file, error log and temp files
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
                "--nginx-state-dir",
                str(state_dir(build)),
            ],
            check=True,
            capture_output=True,
        )
        if args.instructions:
            instructions(Path(tmp), build, port, args.requests)
            return
        nginx = NginxProcess(build, port, exe=NGINX)
        plain = start_plain_nginx(Path(tmp), build)
        servers = {"nginx": nginx.url, "plain gzip_static": plain.url}
        serves = []
        bare_port = free_port()
        bares = start_bare(bare_port, build)
        servers["bare aiohttp x2"] = f"http://127.0.0.1:{bare_port}"
        try:
            for workers in (1, 2):  # as in production: the access log on
                log = Path(tmp) / f"access-{workers}.log"
                serves.append(ServeProcess(str(build), "--workers", str(workers), access_log=log))
                servers[f"serve --workers {workers}"] = serves[-1].url
            time.sleep(1)
            check_same_bytes(servers)
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
            print(
                f"{'request':<24} {'server':<18} {'req/s':>9} {'p99 ms':>7} "
                f"{'/nginx':>7} {'/plain':>7}"
            )
            for path, encoding in CASES:
                name = path + (f" ({encoding})" if encoding else "")
                nginx_rps, plain_rps = (
                    statistics.median(r for r, _ in results[(path, encoding, server)])
                    for server in ("nginx", "plain gzip_static")
                )
                for server in servers:
                    runs = results[(path, encoding, server)]
                    rps = statistics.median(r for r, _ in runs)
                    p99 = statistics.median(p for _, p in runs)
                    print(
                        f"{name:<24} {server:<18} {rps:>9,.0f} {p99:>7.2f} "
                        f"{rps / nginx_rps:>6.2f}x {rps / plain_rps:>6.2f}x"
                    )
        finally:
            for proc in serves:
                proc.stop()
            for bare_proc in bares:
                bare_proc.terminate()
                bare_proc.wait()
            plain.stop()
            nginx.stop()


if __name__ == "__main__":
    main()
