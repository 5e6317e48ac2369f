"""Side by side: the Cloudflare Worker on a local workerd, nginx on the generated config, serve.

Run from the repository root with the project installed (needs `workerd`, `nginx` and `wrk`):

    python benchmarks/bench_edge.py [--games 1000] [--duration 5] [--rounds 3] [--connections 64]

It builds a generated catalog of --games games once with `catalogctl build --target
cloudflare --nginx-listen ...` and starts, on the same build:

- the Worker on workerd, from the build directory: `workerd serve cloudflare/workerd.capnp`
  (one process; workerd runs a Worker's requests on one thread);
- "workerd, fixed bytes": workerd with a Worker that returns the same documents from memory
  (picked by path and by "gzip" in Accept-Encoding) and does nothing else: the runtime's own
  ceiling on this machine;
- nginx on the generated configuration (`nginx -p DIR -c nginx/nginx.conf`), the tuned peer;
- `catalogctl serve DIR --workers 2` with its access log on (to a file), as in production;

checks that each answers every request 200 with the same bytes (a server that cannot read its
files answers 404 fast), then runs wrk (one thread, --connections keep-alive connections, on
the same cores) against each in turn, --rounds times interleaved, for `/api/v1`,
`/api/v1/games` identity and `/api/v1/games` with `Accept-Encoding: gzip`. It prints the
median requests/s, the median p99 latency and requests/s as a ratio to nginx measured in the
same run.

The figures are informative: on Cloudflare the Worker runs in every data centre, next to the
clients, and one machine's throughput says little about that. They show what a request costs
the Worker (route table lookup, negotiation, bytes kept in the isolate) against the runtime's
floor and against nginx.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.catalogs import generate_catalog  # noqa: E402
from tests.edge_process import WorkerdProcess, free_port  # noqa: E402
from tests.nginx_process import NginxProcess, state_dir  # noqa: E402
from tests.serve_process import ServeProcess  # noqa: E402

CASES = [
    ("/api/v1", None),
    ("/api/v1/games", None),
    ("/api/v1/games", "gzip"),
]

FIXED_WORKER = """\
import v1 from "./v1.bin";
import games from "./games.bin";
import gamesGz from "./games.gz.bin";
const json = { "Content-Type": "application/json" };
const gzip = { "Content-Type": "application/json", "Content-Encoding": "gzip" };
export default {
  fetch(request) {
    if (request.url.endsWith("/api/v1")) return new Response(v1, { headers: json });
    if ((request.headers.get("Accept-Encoding") || "").includes("gzip")) {
      return new Response(gamesGz, { headers: gzip, encodeBody: "manual" });
    }
    return new Response(games, { headers: json });
  },
};
"""

FIXED_CAPNP = """\
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "fixed", worker = .fixed)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "fixed")],
);
const fixed :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "v1.bin", data = embed "v1.bin"),
    (name = "games.bin", data = embed "games.bin"),
    (name = "games.gz.bin", data = embed "games.gz.bin"),
  ],
  compatibilityDate = "2026-11-01",
);
"""


def start_fixed_workerd(tmp: Path, build: Path) -> WorkerdProcess:
    """workerd with a Worker that returns the same documents from memory, and nothing else."""
    project = tmp / "fixed"
    code = project / "cloudflare"
    code.mkdir(parents=True)
    (code / "worker.js").write_text(FIXED_WORKER)
    (code / "workerd.capnp").write_text(FIXED_CAPNP)
    public = build / "public" / "api" / "v1"
    shutil.copy(public / "index.json", code / "v1.bin")
    shutil.copy(public / "games" / "index.json", code / "games.bin")
    shutil.copy(public / "games" / "index.json.gz", code / "games.gz.bin")
    return WorkerdProcess(project)


def same_answers(servers: dict[str, str]) -> None:
    """Every server answers every case 200, with the bytes the first one sends."""
    for path, encoding in CASES:
        bodies = {}
        for server, url in servers.items():
            headers = {"Accept-Encoding": encoding or ""}
            request = urllib.request.Request(url + path, headers=headers)
            with urllib.request.urlopen(request, timeout=10) as response:
                if response.status != 200:
                    raise SystemExit(f"{server} answers {path} with {response.status}")
                bodies[server] = response.read()
        if len(set(bodies.values())) != 1:
            sizes = {server: len(body) for server, body in bodies.items()}
            raise SystemExit(f"the servers send different bytes for {path} ({encoding}): {sizes}")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for tool in ("workerd", "nginx", "wrk"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is not installed")

    with tempfile.TemporaryDirectory(prefix="bench-edge-") as tmp:
        content = generate_catalog(Path(tmp) / "content", args.games)
        build, nginx_port = Path(tmp) / "dist", free_port()
        cmd = [sys.executable, "-m", "catalogctl", "build", str(content), "--out", str(build)]
        cmd += ["--target", "cloudflare", "--nginx-listen", f"127.0.0.1:{nginx_port}"]
        state_dir(build).mkdir()  # nginx's pid file, error log and temp files
        cmd += ["--nginx-state-dir", str(state_dir(build))]
        subprocess.run(cmd, check=True, capture_output=True)
        started: list[WorkerdProcess | NginxProcess | ServeProcess] = []
        try:
            edge = WorkerdProcess(build)
            started.append(edge)
            fixed = start_fixed_workerd(Path(tmp), build)
            started.append(fixed)
            nginx = NginxProcess(build, nginx_port, exe=shutil.which("nginx") or "/usr/sbin/nginx")
            started.append(nginx)
            log = Path(tmp) / "access.log"
            serve = ServeProcess(str(build), "--workers", "2", access_log=log)
            started.append(serve)
            servers = {
                "workerd, the Worker": edge.url,
                "workerd, fixed bytes": fixed.url,
                "nginx": nginx.url,
                "serve --workers 2": serve.url,
            }
            same_answers(servers)
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
            print(f"{'request':<24} {'server':<22} {'req/s':>9} {'p99 ms':>7} {'/nginx':>7}")
            for path, encoding in CASES:
                name = path + (f" ({encoding})" if encoding else "")
                nginx_rps = statistics.median(r for r, _ in results[(path, encoding, "nginx")])
                for server in servers:
                    runs = results[(path, encoding, server)]
                    rps = statistics.median(r for r, _ in runs)
                    p99 = statistics.median(p for _, p in runs)
                    print(
                        f"{name:<24} {server:<22} {rps:>9,.0f} {p99:>7.2f} {rps / nginx_rps:>6.2f}x"
                    )
        finally:
            for proc in reversed(started):
                proc.stop()


if __name__ == "__main__":
    main()
