"""Throughput of `catalogctl serve` beside a tuned nginx serving the same bytes, in one run.

    python benchmarks/bench_serve.py                    # 1,000 games, 3 rounds of 5 s
    python benchmarks/bench_serve.py --rounds 5 --duration 10 --workers 2
    python benchmarks/bench_serve.py --in-process       # Python's share of a request
    python benchmarks/bench_serve.py --compare ../base  # beside another checkout's serve
    python benchmarks/bench_serve.py --compare ../a --compare ../b  # beside two of them
    python benchmarks/bench_serve.py --request-id       # no two request heads alike
    python benchmarks/bench_serve.py --connections 64   # only wrk -c64 (the default: 64,2000)
    python benchmarks/bench_serve.py --idle 4000        # how idle connections fall, no timing
    python benchmarks/bench_serve.py --close            # a connection for each request

Builds a generated catalog of --games games (random descriptions, so the games document
compresses like real text: ~80 KB gzip for 1,000 games) and starts, each on its own port:

- nginx as a careful operator runs it for static files (`NGINX_CONF` below): sendfile,
  tcp_nopush, open_file_cache, gzip_static, keep-alive, access log off, --workers worker
  processes, serving the build's files (the bytes serve sends);
- `catalogctl serve BUILD --workers N` as in production: the access log on, to a file;
- the same with `--quiet` (no access log);
- the same with `--http aiohttp` (the aiohttp engine), the access log on, to a file;
- with `--compare DIR` (once or more), serve as in production run from the checkout in DIR (a
  git worktree of an earlier commit, say), in the same interleaved rounds: a change's effect,
  measured.

With `--close`, every request asks to close its connection (`Connection: close`), as clients
that do not keep connections alive: each request opens one.

With `--request-id`, every request carries an `X-Request-Id` header of its own (a wrk Lua
script), as requests do behind a proxy or load balancer that adds one: no two heads alike.

Before timing, every server must answer each request with 200 and the same bytes as serve
(an nginx that cannot read its files answers 404, fast). Then `wrk -t2 -cC -dDs --latency
--timeout 10s` runs against each in turn, --rounds times interleaved, for `/api/v1` and
`/api/v1/games` with `Accept-Encoding: gzip`, with each number of connections C in
--connections (64, as an app's clients or a proxy's pool; 2,000, many clients at once). For
each row it prints the median requests/s, the median of the per-round ratios to nginx, the
CPU time the server's processes spent per request (user and system, from /proc: steadier
than requests/s on a shared machine), the median p50 and p99 latency, and how wrk's
connections fell between the workers halfway through (the busiest worker's share, from
/proc). Everything shares the machine's cores (wrk too): compare ratios, not absolute
figures. The benchmark raises its soft open-file limit to the hard one, for wrk's sockets
(the servers inherit it; nginx sets its own, `worker_rlimit_nofile`, as catalogctl's
generated config does). Needs nginx and wrk (Debian packages `nginx`, `wrk`), and Linux.

`--idle N` times nothing: it opens N connections that send nothing to each server in turn,
prints how many each worker holds once all are accepted, then sends 200 requests on new
connections and counts the answers (200 each, while the idle ones stay open).

`--in-process` measures what Python spends per request in the httptools engine, without
sockets: the same requests are fed to its protocol with a transport that drops what it is
given, with and without the access log (to /dev/null), and the CPU time per request is
printed (the median of --rounds runs of 200,000 requests); then the same for requests whose
head the worker has not seen before, each with a header of its own (`X-Request-Id`, as a
proxy or load balancer in front adds: looked up again without it) or a query string of its
own (read each time), where a head sent again is answered from memory. Each case is a
connection of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.serve_process import connections_per_process  # noqa: E402

SITE_TOML = """\
base_url = "https://games.example.com"
title = "Example Games"
description = "Mobile games by Example Games."
game_url = "{base_url}/games/{id}/"

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
"""

NGINX_CONF = """\
{user}worker_processes {workers};
worker_rlimit_nofile 4224;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 1000000;
    open_file_cache max=64 inactive=60s;
    open_file_cache_valid 60s;
    open_file_cache_errors on;
    access_log off;
    gzip off;
    gzip_static on;
    gzip_vary on;
    types {{ }}
    default_type application/json;
    client_body_temp_path {state}/client_body;
    server {{
        listen 127.0.0.1:{port} reuseport backlog=4096;
        location = /api/v1 {{ alias {public}/api/v1/index.json; }}
        location = /api/v1/games {{ alias {public}/api/v1/games/index.json; }}
    }}
}}
"""

CASES = [("/api/v1", None), ("/api/v1/games", "gzip")]


def generate(root: Path, games: int, seed: int = 1) -> Path:
    """A content tree of `games` pages whose text compresses like prose (not like a pattern)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    (root / "games").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    for i in range(games):
        name = " ".join(rng.choice(vocab).title() for _ in range(rng.randint(1, 3)))
        desc = " ".join(rng.choice(vocab) for _ in range(rng.randint(5, 12))).capitalize()
        platforms = rng.choice([["iOS"], ["Android"], ["iOS", "Android"]])
        stores = ""
        if "iOS" in platforms:
            stores += f"  ios: https://apps.apple.com/app/{rng.choice(vocab)}/id{100000 + i}\n"
        if "Android" in platforms:
            package = f"com.{rng.choice(vocab)}.g{i}"
            stores += f"  android: https://play.google.com/store/apps/details?id={package}\n"
        genre = rng.choice(["Puzzle", "Arcade", "Strategy"])
        (root / "games" / f"game-{i:04d}.md").write_text(
            f'---\nname: "{name} {i}"\ndescription: "{desc}."\n'
            f"platforms: [{', '.join(platforms)}]\ngenres: [{genre}]\n"
            f"icon: /icons/g{i}.png\nstores:\n{stores}---\nBody.\n",
            encoding="utf-8",
        )
    return root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args!r} exited with {proc.returncode}")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def start(cmd: list[str], port: int, root: Path = ROOT) -> subprocess.Popen[bytes]:
    """`cmd` listening on `port` (a `python -m catalogctl` imports catalogctl from `root`)."""
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=root,  # `python -m` imports from the working directory first
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    wait_listening(port, proc)
    time.sleep(0.5)  # every worker listening
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # its own session: the process and its workers
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


# --request-id: each request carries an X-Request-Id of its own, as a proxy in front adds.
REQUEST_ID_LUA = """\
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
function request()
  n = n + 1
  local headers = {}
  for k, v in pairs(wrk.headers) do headers[k] = v end
  headers["X-Request-Id"] = string.format("%d-%d", tid, n)
  return wrk.format(nil, nil, headers)
end
"""


def workers(pid: int) -> list[int]:
    """The processes under `pid` that serve: its children, or itself when it has none."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return sorted(found) or [pid]


def wrk(
    url: str,
    encoding: str | None,
    duration: int,
    connections: int,
    script: Path | None = None,
    server: int | None = None,
    close: bool = False,
) -> dict[str, float]:
    """wrk's figures; with `server` (a pid), also the busiest worker's share of wrk's
    connections halfway through."""
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "10s"]
    cmd.append(url)
    if encoding:
        cmd += ["-H", f"Accept-Encoding: {encoding}"]
    if close:
        cmd += ["-H", "Connection: close"]
    if script is not None:
        cmd += ["-s", str(script)]
    share: list[float] = []
    if server is not None:
        port = int(url.split(":")[2].split("/", maxsplit=1)[0])

        def look() -> None:
            held = connections_per_process(port, workers(server)).values()
            if sum(held) >= connections / 2:  # (with --close, few are open at a time)
                share.append(max(held) / sum(held))

        timer = threading.Timer(duration / 2, look)
        timer.start()
    out = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        check=True,
        timeout=duration + 60,
    )
    if server is not None:
        timer.join()
    text = out.stdout
    if "Non-2xx" in text or "Socket errors" in text:
        raise SystemExit(f"wrk saw errors on {url}:\n{text}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))  # type: ignore[union-attr]
    done = int(re.search(r"(\d+) requests in", text).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    figures = {"rps": rps, "requests": done, "p50": _ms(*p50), "p99": _ms(*p99)}
    if share:
        figures["share"] = share[0]
    return figures


def idle(ports: dict[str, int], procs: dict[str, subprocess.Popen[bytes]], count: int) -> None:
    """--idle: how `count` connections that send nothing fall between each server's workers,
    and whether normal requests are answered meanwhile."""
    print(f"# {count:,} idle connections to each server in turn, then 200 requests")
    print(f"{'server':<16}{'held by each worker':<28}{'busiest':>8}{'answered 200':>14}")
    for name, proc in procs.items():
        socks = [socket.create_connection(("127.0.0.1", ports[name])) for _ in range(count)]
        try:
            deadline = time.monotonic() + 60
            while True:
                held = sorted(connections_per_process(ports[name], workers(proc.pid)).values())
                if sum(held) >= count or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            answered = sum(fetch(ports[name], "/api/v1", None)[0] == 200 for _ in range(200))
        finally:
            for sock in socks:
                sock.close()
        shown = " / ".join(f"{n:,}" for n in reversed(held))
        print(f"{name:<16}{shown:<28}{max(held) / max(1, sum(held)):>8.0%}{answered:>14}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of `pid` and every process under it (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total / os.sysconf("SC_CLK_TCK")


def fetch(port: int, path: str, encoding: str | None) -> tuple[int, bytes, str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": encoding or "identity"})
        resp = conn.getresponse()
        return resp.status, resp.read(), resp.getheader("Content-Encoding")
    finally:
        conn.close()


def check_same_bytes(ports: dict[str, int]) -> None:
    """Every server answers 200 with serve's bytes (and coding) before any is timed."""
    for path, encoding in CASES:
        answers = {name: fetch(port, path, encoding) for name, port in ports.items()}
        reference = answers["serve"]
        for name, answer in answers.items():
            if answer[0] != 200 or answer[1:] != reference[1:]:
                raise SystemExit(
                    f"{name} answers {path} (Accept-Encoding: {encoding}) with {answer[0]}, "
                    f"{len(answer[1])} bytes, coding {answer[2]}; serve with {reference[0]}, "
                    f"{len(reference[1])} bytes, coding {reference[2]}: not the same bytes"
                )


class _DroppingTransport:
    """What the protocol writes to, for --in-process: kept nowhere."""

    def write(self, data: bytes) -> None:
        pass

    def get_extra_info(self, name: str) -> object:
        return ("127.0.0.1", 40000) if name == "peername" else None

    def close(self) -> None:
        pass


def in_process(build: Path, rounds: int) -> None:
    import asyncio

    sys.path.insert(0, str(ROOT))
    from catalogctl.serve.accesslog import AccessLog, Sink
    from catalogctl.serve.protocol import Connections, HttpProtocol, Limits
    from catalogctl.serve.responses import Table
    from catalogctl.sources.served import SiteInput

    table = Table(SiteInput.open(build).load())
    requests = {
        "/api/v1": b"GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n\r\n",
        "/api/v1/games (gzip)": b"GET /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
        b"Accept-Encoding: gzip\r\n\r\n",
    }
    count = 200_000

    async def run() -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        print(f"# Python {platform.python_version()} · CPU time per request, median of {rounds}")
        for label, log in (("access log on", AccessLog(Sink(null))), ("--quiet", None)):
            conns = Connections(table, Limits(), log)

            def client(conns: Connections = conns) -> HttpProtocol:
                """A connection of its own for each case, as each is a client of its own."""
                conn = HttpProtocol(conns)
                conn.connection_made(_DroppingTransport())  # type: ignore[arg-type]
                return conn

            for path, data in requests.items():
                conn = client()
                runs = []
                for _ in range(rounds):
                    started = time.process_time()
                    for _ in range(count):
                        conn.data_received(data)
                    runs.append((time.process_time() - started) / count * 1e6)
                print(f"{label:<16}{path:<32}{statistics.median(runs):6.2f} us")
            # Heads the worker has not seen before: each with a header of its own, as behind
            # a proxy that adds a request id; each with a target of its own.
            unseen = {
                "/api/v1, own X-Request-Id": b"GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
                b"X-Request-Id: %d-%d\r\n\r\n",
                "/api/v1?N, own target": b"GET /api/v1?%d-%d HTTP/1.1\r\n"
                b"Host: 127.0.0.1:8000\r\n\r\n",
            }
            for path, pattern in unseen.items():
                conn = client()
                runs = []
                for r in range(rounds):
                    new = [pattern % (r, i) for i in range(count)]
                    started = time.process_time()
                    for data in new:
                        conn.data_received(data)
                    runs.append((time.process_time() - started) / count * 1e6)
                print(f"{label:<16}{path:<32}{statistics.median(runs):6.2f} us")
            if log is not None:
                log.flush()
        os.close(null)

    asyncio.run(run())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--connections",
        type=lambda value: [int(c) for c in value.split(",")],
        default=[64, 2000],
        help="wrk's connections, each a case of its own (default: 64,2000)",
    )
    ap.add_argument("--in-process", action="store_true", help="Python's cost per request")
    ap.add_argument(
        "--idle", type=int, metavar="N", help="how N idle connections fall between workers"
    )
    ap.add_argument(
        "--request-id",
        action="store_true",
        help="each request with an X-Request-Id of its own, as behind a proxy adding one",
    )
    ap.add_argument("--close", action="store_true", help="each request on a connection of its own")
    ap.add_argument(
        "--compare",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also run serve (access log on) from another checkout, e.g. a git worktree "
        "(may be given more than once)",
    )
    args = ap.parse_args()
    if args.in_process:
        with tempfile.TemporaryDirectory(prefix="bench-serve-") as scratch:
            content = generate(Path(scratch) / "content", args.games)
            build = Path(scratch) / "dist"
            subprocess.run(
                [sys.executable, "-m", "catalogctl", "build", str(content), "--out", str(build)],
                check=True,
                capture_output=True,
            )
            in_process(build, args.rounds)
        return
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # wrk: a socket per connection
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for program, package in ((nginx, "nginx"), ("wrk", "wrk")):
        if shutil.which(program) is None:
            raise SystemExit(f"{program} is not installed (Debian: apt-get install {package})")

    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    content = generate(tmp / "content", args.games)
    build = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "catalogctl", "build", str(content), "--out", str(build)],
        check=True,
        capture_output=True,
    )
    gz_size = (build / "public/api/v1/games/index.json.gz").stat().st_size

    state = tmp / "nginx"
    state.mkdir()
    names = ["nginx", "serve", "serve-quiet", "aiohttp"]
    compares = {f"serve@{i}": Path(directory).resolve() for i, directory in enumerate(args.compare)}
    names[2:2] = compares
    ports = {name: free_port() for name in names}
    conf = state / "nginx.conf"
    user = "user root;\n" if os.geteuid() == 0 else ""  # the build is in a private temp dir
    conf.write_text(
        NGINX_CONF.format(
            user=user,
            workers=args.workers,
            state=state,
            port=ports["nginx"],
            public=build.absolute() / "public",
        )
    )
    serve = [sys.executable, "-m", "catalogctl", "serve", str(build), "--workers"]
    serve += [str(args.workers), "--host", "127.0.0.1", "--port"]
    aiohttp_log = str(tmp / "access-aiohttp.log")
    commands = {
        "nginx": [nginx, "-p", str(state), "-c", str(conf), "-g", "daemon off;"],
        "serve": [*serve, str(ports["serve"]), "--access-log", str(tmp / "access.log")],
        "serve-quiet": [*serve, str(ports["serve-quiet"]), "--quiet"],
        "aiohttp": [
            *serve,
            str(ports["aiohttp"]),
            "--http",
            "aiohttp",
            "--access-log",
            aiohttp_log,
        ],
    }
    roots = dict.fromkeys(names, ROOT)
    for name, compare in compares.items():
        commands[name] = [*serve, str(ports[name]), "--access-log", str(tmp / f"{name}.log")]
        roots[name] = compare
    labels = {
        "nginx": "nginx (tuned, access log off)",
        "serve": f"serve --workers {args.workers} (access log on)",
        **{name: f"the same from {compare.name}" for name, compare in compares.items()},
        "serve-quiet": f"serve --workers {args.workers} --quiet",
        "aiohttp": f"serve --workers {args.workers} --http aiohttp (log on)",
    }
    labels = {name: label for name, label in labels.items() if name in commands}
    script = None
    if args.request_id:
        script = tmp / "request-id.lua"
        script.write_text(REQUEST_ID_LUA, encoding="utf-8")
    procs = {name: start(commands[name], ports[name], roots[name]) for name in labels}
    results: dict[tuple[str, str, int], list[dict[str, float]]] = {}
    try:
        check_same_bytes(ports)
        if args.idle:
            idle(ports, procs, args.idle)
        else:
            results = timed(args, ports, procs, script)
    finally:
        for proc in procs.values():
            stop(proc)
    if args.idle:
        shutil.rmtree(tmp, ignore_errors=True)
        return
    log_lines = sum(1 for _ in (tmp / "access.log").open()) if (tmp / "access.log").exists() else 0
    shutil.rmtree(tmp, ignore_errors=True)
    report(args, gz_size, labels, results, log_lines)


def timed(
    args: argparse.Namespace,
    ports: dict[str, int],
    procs: dict[str, subprocess.Popen[bytes]],
    script: Path | None,
) -> dict[tuple[str, str, int], list[dict[str, float]]]:
    """The wrk runs: a warm-up, then --rounds rounds, the servers interleaved."""
    results: dict[tuple[str, str, int], list[dict[str, float]]] = {}
    for name in procs:  # warm-up
        for path, enc in CASES:
            for connections in args.connections:
                url = f"http://127.0.0.1:{ports[name]}{path}"
                wrk(url, enc, 1, connections, script, close=args.close)
    for _ in range(args.rounds):
        for connections in args.connections:
            for path, enc in CASES:
                for name, proc in procs.items():
                    url = f"http://127.0.0.1:{ports[name]}{path}"
                    before = cpu_seconds(proc.pid)
                    figures = wrk(
                        url, enc, args.duration, connections, script, proc.pid, args.close
                    )
                    spent = cpu_seconds(proc.pid) - before
                    figures["cpu_us"] = spent / max(1.0, figures["requests"]) * 1e6
                    results.setdefault((name, path, connections), []).append(figures)
    return results


def report(
    args: argparse.Namespace,
    gz_size: int,
    labels: dict[str, str],
    results: dict[tuple[str, str, int], list[dict[str, float]]],
    log_lines: int,
) -> None:
    print(
        f"# {platform.node()} · {os.cpu_count()} CPUs · Python {platform.python_version()} · "
        f"{args.games} games (games JSON {gz_size:,} B gzip) · "
        f"wrk -t2 -d{args.duration}s × {args.rounds} rounds, medians"
        + (" · an X-Request-Id of its own on each request" if args.request_id else "")
        + (" · Connection: close" if args.close else "")
    )
    print(
        f"{'server':<44}{'path':<22}{'-c':>6}{'req/s':>9}{'x nginx':>9}{'CPU us/req':>12}"
        f"{'p50 ms':>8}{'p99 ms':>8}{'busiest':>9}"
    )
    rows = []
    for connections in args.connections:
        for path, enc in CASES:
            shown = path + (" (gzip)" if enc else "")
            base = results[("nginx", path, connections)]
            for name, label in labels.items():
                runs = results[(name, path, connections)]
                rps = statistics.median(r["rps"] for r in runs)
                ratio = statistics.median(
                    r["rps"] / b["rps"] for r, b in zip(runs, base, strict=True)
                )
                cpu = statistics.median(r["cpu_us"] for r in runs)
                p50 = statistics.median(r["p50"] for r in runs)
                p99 = statistics.median(r["p99"] for r in runs)
                shares = [r["share"] for r in runs if "share" in r]
                share = statistics.median(shares) if shares else None
                busiest = f"{share:.0%}" if share is not None and args.workers > 1 else "-"
                print(
                    f"{label:<44}{shown:<22}{connections:>6}{rps:>9,.0f}{ratio:>9.2f}"
                    f"{cpu:>12.1f}{p50:>8.2f}{p99:>8.2f}{busiest:>9}"
                )
                rows.append(
                    {
                        "server": name,
                        "path": path,
                        "encoding": enc or "identity",
                        "connections": connections,
                        "rps": rps,
                        "ratio": ratio,
                        "cpu_us_per_request": cpu,
                        "p50_ms": p50,
                        "p99_ms": p99,
                        "busiest_worker_share": share,
                        "rounds": [r["rps"] for r in runs],
                        "ratios": [r["rps"] / b["rps"] for r, b in zip(runs, base, strict=True)],
                    }
                )
    print(f"# access lines written to the file: {log_lines:,}")
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
