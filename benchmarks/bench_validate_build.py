"""Whole-process times of `catalogctl validate` and `catalogctl build`.

Run from the repository root with the project installed:

    python benchmarks/bench_validate_build.py [--games 10000] [--repeat 5]
    python benchmarks/bench_validate_build.py --parse-methods --games 1500 [--repeat 5]

It prints:
- start-up: `catalogctl validate` on the bundled sample against a bare
  `python -c 'import typer, rich, pydantic'`, the two run in turn (goal: within 1.4x);
- `validate` on one core (the process pinned to one CPU) of a generated catalog of --games
  games, valid, and with one bad value in every game (goal for 10,000: 1.5 s each), and of
  half as many bad games, to show the time grows linearly with the findings;
- `validate` on one core of the same catalog with `[content] body_links` and every Google Play
  link in the page's text, after twenty paragraphs with a link each (`--body-links`);
- `build` of the valid catalog on every core (goal for 10,000: 8 s).
Each figure is the median of --repeat runs; the bare import is the reference measured in the
same run, since the machine is shared and noisy. catalogctl's bytecode is compiled first, as a
wheel install leaves it.

With --parse-methods it prints instead, for `validate` of --games valid games on every core,
the wall time and the CPU time (of the command and its parse workers) with the pages parsed in
one process and in parallel on each of multiprocessing's start methods the machine has, the
runs interleaved: what decides where catalogctl parses in parallel (content/pool.py
`start_method`). A fork server's workers are not the command's children: their CPU is not
counted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = """\
base_url = "https://games.example.com"
title = "Benchmark Games"
description = "A generated catalog."
platforms = ["iOS", "Android"]
genres = ["Puzzle", "Arcade", "Strategy", "Adventure", "Racing", "Casual"]

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
"""
WORDS = [
    "tide",
    "harbour",
    "lantern",
    "storm",
    "reef",
    "island",
    "puzzle",
    "quest",
    "dragon",
    "pixel",
    "ocean",
    "sky",
    "city",
    "dream",
    "garden",
    "engine",
    "voyage",
    "island",
    "rhythm",
    "café",
    "ñandú",
    "über",
    "ωmega",
    "夢",
    "river",
    "forest",
    "shadow",
    "crystal",
]


def generate(
    root: Path, n: int, seed: int = 1, *, bad: bool = False, body_links: bool = False
) -> Path:
    """A realistic catalog: YAML and TOML, site-relative icons, ~130-byte descriptions.

    10,000 games give about 5 MB of games JSON. With `bad`, every game names a platform in the
    wrong case (`ios`), which is one error with a did-you-mean per game. With `body_links`,
    the Google Play link is a badge link at the end of about 2 KB of text with twenty links.
    """
    rng = random.Random(seed)
    (root / "games").mkdir(parents=True)
    site = SITE + ("\n[content]\nbody_links = true\n" if body_links else "")
    (root / "site.toml").write_text(site, encoding="utf-8")
    text_links = "".join(
        f"Paragraph {j} of the page, with [a link](https://example.com/{j}) and **bold** text.\n\n"
        for j in range(20)
    )
    genres = ["Puzzle", "Arcade", "Strategy", "Adventure", "Racing", "Casual"]
    for i in range(n):
        name = " ".join(rng.choice(WORDS).title() for _ in range(3)) + f" {i}"
        desc = " ".join(rng.choice(WORDS) for _ in range(18)).capitalize() + "."
        plats = rng.choice([["iOS"], ["Android"], ["iOS", "Android"]])
        shown = [p.lower() if bad and j == 0 else p for j, p in enumerate(plats)]
        gen = rng.sample(genres, 2)
        stores = {}
        if "iOS" in plats:
            stores["ios"] = f"https://apps.apple.com/app/game-{i}/id{1000000 + i}"
        if "Android" in plats:
            stores["android"] = f"https://play.google.com/store/apps/details?id=com.example.g{i}"
        icon = f"/icons/game-{i}.png"
        body = "Some page text.\n" * 5
        if body_links and "android" in stores:
            badge = "https://play.google.com/intl/en_us/badges/static/images/badges/en_badge.png"
            body = f"{text_links}[![Get it on Google Play]({badge})]({stores.pop('android')})\n"
        if i % 4 == 0:
            st = "".join(f'{k} = "{v}"\n' for k, v in stores.items())
            text = (
                f'+++\nname = "{name}"\ndescription = "{desc}"\n'
                f'platforms = {shown}\ngenres = {gen}\nicon = "{icon}"\nweight = {i % 50}\n\n'
                f"[stores]\n{st}+++\n{body}"
            ).replace("'", '"')
        else:
            st = "".join(f"  {k}: {v}\n" for k, v in stores.items())
            text = (
                f"---\nname: {name}\ndescription: {desc}\nplatforms: [{', '.join(shown)}]\n"
                f"genres: [{', '.join(gen)}]\nicon: {icon}\nstores:\n{st}date: 2024-01-01\n"
                f"---\n{body}"
            )
        (root / "games" / f"game-{i:05d}.md").write_text(text, encoding="utf-8")
    return root


def one_core() -> None:
    """Pin a child process to the first CPU this process may use."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def timed(
    argv: list[str], repeat: int, *, ok: tuple[int, ...] = (0,), pinned: bool = False
) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(
            argv, capture_output=True, check=False, preexec_fn=one_core if pinned else None
        )
        times.append(time.perf_counter() - start)
        if proc.returncode not in ok:
            sys.exit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr.decode()}")
    return statistics.median(times)


def startup(exe: str, repeat: int) -> tuple[float, float]:
    """Medians of the bare import and of `validate` on the sample, run in turn."""
    bare: list[float] = []
    sample: list[float] = []
    for _ in range(repeat):
        for argv, into in (
            ([sys.executable, "-c", "import typer, rich, pydantic"], bare),
            ([exe, "validate", str(ROOT / "content")], sample),
        ):
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            into.append(time.perf_counter() - start)
    return statistics.median(bare), statistics.median(sample)


# `catalogctl ARGS` with the parse pool's start method chosen by the first argument ("serial":
# in one process).
_WITH_METHOD = (
    "import runpy, sys\n"
    "from catalogctl.content import pool\n"
    "method = sys.argv.pop(1)\n"
    "pool.start_method = lambda: None if method == 'serial' else method\n"
    "sys.argv[0] = 'catalogctl'\n"
    "runpy.run_module('catalogctl', run_name='__main__', alter_sys=True)\n"
)


def parse_methods(n: int, repeat: int) -> None:
    """`validate` of `n` games with each way of parsing, interleaved: medians of wall and CPU."""
    methods = ["serial", *multiprocessing.get_all_start_methods()]
    walls: dict[str, list[float]] = {m: [] for m in methods}
    cpus: dict[str, list[float]] = {m: [] for m in methods}
    with tempfile.TemporaryDirectory() as tmp:
        content = generate(Path(tmp) / "content", n)
        for _ in range(repeat):
            for method in methods:
                argv = [sys.executable, "-c", _WITH_METHOD, method, "validate", str(content)]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(argv, capture_output=True, check=True)
                walls[method].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[method].append(
                    after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                )
    serial = statistics.median(walls["serial"])
    print(f"validate of {n:,} games on {len(os.sched_getaffinity(0))} CPUs, {repeat} runs each")
    for method in methods:
        wall, cpu = statistics.median(walls[method]), statistics.median(cpus[method])
        print(f"{method:<12} wall {wall:6.2f} s ({wall / serial:.2f}x serial)  CPU {cpu:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parse-methods", action="store_true")
    parser.add_argument(
        "--body-links", action="store_true", help="also validate store links read from bodies"
    )
    args = parser.parse_args()
    exe = shutil.which("catalogctl") or sys.exit("catalogctl is not installed")
    n = args.games
    if args.parse_methods:
        parse_methods(n, args.repeat)
        return
    # Bytecode compiled as a wheel install leaves it, so that no run pays for compiling an
    # edited module (with PYTHONDONTWRITEBYTECODE set, an editable install would every time).
    import catalogctl

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(catalogctl.__file__).parent)],
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
    )

    bare, sample = startup(exe, args.repeat * 4)
    print(f"{'bare import typer, rich, pydantic':<48} {bare * 1000:8.0f} ms")
    print(
        f"{'catalogctl validate (sample)':<48} {sample * 1000:8.0f} ms  "
        f"{sample / bare:.2f}x bare import (goal <= 1.4x)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        content = generate(Path(tmp) / "content", n)
        size = sum(p.stat().st_size for p in content.rglob("*.md"))
        print(f"generated {n:,} games ({size / 1e6:.1f} MB of content)")
        val = timed([exe, "validate", str(content)], args.repeat, pinned=True)
        print(f"{f'validate, one core ({n:,} valid games)':<48} {val:8.2f} s  (goal <= 1.5 s)")
        bad = generate(Path(tmp) / "bad", n, bad=True)
        half = generate(Path(tmp) / "half", n // 2, bad=True)
        fmt = ["--format", "json"]
        val_bad = timed([exe, "validate", str(bad), *fmt], args.repeat, ok=(1,), pinned=True)
        val_half = timed([exe, "validate", str(half), *fmt], args.repeat, ok=(1,), pinned=True)
        print(
            f"{f'validate, one core ({n:,} games, one error each)':<48} {val_bad:8.2f} s  "
            "(goal <= 1.5 s)"
        )
        print(
            f"{f'validate, one core ({n // 2:,} games, one error each)':<48} {val_half:8.2f} s  "
            f"(twice the findings: {val_bad / val_half:.2f}x the time)"
        )
        if args.body_links:
            linked = generate(Path(tmp) / "body-links", n, body_links=True)
            val_body = timed([exe, "validate", str(linked)], args.repeat, pinned=True)
            print(
                f"{f'validate, one core ({n:,} games, links in bodies)':<48} {val_body:8.2f} s  "
                f"({val_body / val:.2f}x the valid catalog)"
            )
        out = Path(tmp) / "dist"
        build = timed([exe, "build", str(content), "--out", str(out)], max(1, args.repeat // 2))
        games_json = out / "public" / "api" / "v1" / "games" / "index.json"
        print(
            f"{f'build, every core ({n:,} games)':<48} {build:8.2f} s  (goal <= 8 s; games JSON "
            f"{games_json.stat().st_size / 1e6:.1f} MB, brotli 9 and gzip 9)"
        )


if __name__ == "__main__":
    main()
