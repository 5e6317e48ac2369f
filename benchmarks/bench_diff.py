"""Benchmark `catalogctl diff` on two catalogs of 100,000 games that differ in 1% of games.

Run from the repository root:

    .venv/bin/python benchmarks/bench_diff.py            # 100,000 games, 3 runs
    .venv/bin/python benchmarks/bench_diff.py --games 20000 --runs 5

Writes two games JSON files (SPEC §2.2, pretty-printed as `build` writes them) to a
temporary directory: 0.4% of the games changed (name, description, platforms, stores), 0.3%
removed, 0.3% added and a few moved. It then times whole `catalogctl diff OLD NEW --format
json` processes (start-up, loading and validating both sides, comparing, printing) and
checks that the reported sets are exactly the ones generated. Goal: under 3 s.

For scale, the same run times a reference process that only parses both files with the
standard library (`json.load`, no validation, no comparison) and `catalogctl --version`
(start-up alone); figures are quoted as ratios to the first.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_SECONDS = 3.0


def game(i: int, rng: random.Random) -> dict[str, Any]:
    words = ["Sky", "Ćity", "Rêve", "Ocean", "Ninja", "Pixel", "Dragon", "Ωmega", "Quest", "夢"]
    gid = f"game-{i:06d}"
    platforms = rng.choice([["iOS"], ["Android"], ["iOS", "Android"]])
    stores = []
    if "iOS" in platforms:
        stores.append(
            {
                "name": "App Store",
                "url": f"https://apps.apple.com/app/g{i}/id{100000 + i}"
                "?pt=123456&ct=service_api_game_catalog&mt=8",
            }
        )
    if "Android" in platforms:
        stores.append(
            {
                "name": "Google Play",
                "url": f"https://play.google.com/store/apps/details?id=com.example.g{i}"
                "&utm_source=service_api&utm_campaign=game_catalog",
            }
        )
    return {
        "id": gid,
        "name": f"{rng.choice(words)} {rng.choice(words)} {i}",
        "description": f"Déscription «{i}» of a game with some words about how it plays.",
        "url": f"https://games.example.com/games/{gid}/",
        "platforms": platforms,
        "genres": rng.sample(["Puzzle", "Arcade", "Strategy", "Casual"], 2),
        "icon": f"https://games.example.com/icons/{gid}.png",
        "stores": stores,
    }


def make_pair(n: int, out: Path) -> dict[str, set[str]]:
    """Write old.json and new.json; return the ids that differ, by kind."""
    rng = random.Random(42)
    old = [game(i, rng) for i in range(n)]
    new = [dict(g) for g in old]
    picked = rng.sample(range(n), n // 100)
    n_changed, n_removed = len(picked) * 4 // 10, len(picked) * 3 // 10
    changed, removed = picked[:n_changed], set(picked[n_changed : n_changed + n_removed])
    for i in changed:
        g = new[i]
        g["name"] += " Deluxe"
        g["description"] = g["description"].replace("some words", "new words")
        g["genres"] = ["Word"]
        g["stores"] = [dict(s, url=s["url"].replace("mt=8", "mt=9")) for s in g["stores"]]
    expected = {
        "changed": {old[i]["id"] for i in changed},
        "removed": {old[i]["id"] for i in removed},
    }
    new = [g for i, g in enumerate(new) if i not in removed]
    added = [game(n + k, rng) for k in range(len(picked) - n_changed - n_removed)]
    for k, g in enumerate(added):
        new.insert(rng.randrange(len(new)), g)
        if k < 5:  # move a few games too
            new.insert(rng.randrange(len(new)), new.pop(rng.randrange(len(new))))
    expected["added"] = {g["id"] for g in added}
    for name, data in (("old.json", old), ("new.json", new)):
        doc = {"schemaVersion": 1, "games": data}
        text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
        (out / name).write_text(text, encoding="utf-8")
    return expected


def timed(cmd: list[str], runs: int) -> tuple[float, subprocess.CompletedProcess[str]]:
    times, proc = [], None
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
    assert proc is not None
    return statistics.median(times), proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        out = Path(tmp)
        expected = make_pair(args.games, out)
        old, new = out / "old.json", out / "new.json"
        size = (old.stat().st_size + new.stat().st_size) / 1e6
        print(f"{args.games:,} games per side, {size:.0f} MB of JSON in all; {args.runs} runs")

        py = sys.executable
        reference = f"import json; json.load(open({str(old)!r})); json.load(open({str(new)!r}))"
        ref_s, _ = timed([py, "-c", reference], args.runs)
        start_s, _ = timed([py, "-m", "catalogctl", "--version"], args.runs)
        cmd = [py, "-m", "catalogctl", "diff", str(old), str(new), "--format", "json"]
        diff_s, proc = timed(cmd, args.runs)

        if proc.returncode != 1:
            sys.exit(f"diff exited {proc.returncode}: {proc.stderr}")
        by_kind: dict[str, set[str]] = {}
        for item in json.loads(proc.stdout)["changes"]:  # the JSON envelope's items
            by_kind.setdefault(item["kind"], set()).add(item.get("id", item.get("where")))
        got = {k: by_kind.get(k, set()) for k in ("changed", "removed", "added")}
        if got != expected:
            sys.exit("diff reported the wrong sets of games")
        counts = ", ".join(f"{len(v):,} {k}" for k, v in got.items())
        print(f"reported exactly: {counts}, {len(by_kind.get('reordered', ())):,} reordered")
        print()
        print(f"{'process':<44}{'median s':>10}{'× reference':>14}")
        for label, secs in (
            ("reference: json.load of both files", ref_s),
            ("catalogctl --version (start-up)", start_s),
            ("catalogctl diff OLD NEW --format json", diff_s),
        ):
            print(f"{label:<44}{secs:>10.2f}{secs / ref_s:>14.2f}")
        verdict = "meets" if diff_s < GOAL_SECONDS else "misses"
        print(f"\ndiff {verdict} the {GOAL_SECONDS:g} s goal ({diff_s:.2f} s)")


if __name__ == "__main__":
    main()
