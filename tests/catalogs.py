"""Content trees for tests and benchmarks: site.toml, and generated catalogs (no pytest here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SITE_TOML = """\
base_url = "https://games.example.com"
title = "Example Games"
description = "Mobile games by Example Games."
game_url = "{base_url}/games/{id}/"
platforms = ["iOS", "Android"]
genres = ["Puzzle", "Arcade", "Strategy"]

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }

[api.v1]
status = "supported"
"""


def generate_catalog(root: Path, n: int, *, seed: int = 0) -> Path:
    """A generated content tree of `n` games: YAML and TOML, non-ASCII, relative icons."""
    import random

    rng = random.Random(seed)
    (root / "games").mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    words = ["Sky", "Ćity", "Rêve", "Ocean", "Ninja", "Pixel", "Dragon", "Ωmega", "Quest", "夢"]
    for i in range(n):
        name = f"{rng.choice(words)} {rng.choice(words)} {i}"
        platforms = rng.choice([["iOS"], ["Android"], ["iOS", "Android"]])
        stores: dict[str, Any] = {}
        if "iOS" in platforms:
            stores["ios"] = f"https://apps.apple.com/app/g{i}/id{100000 + i}"
        if "Android" in platforms:
            stores["android"] = f"https://play.google.com/store/apps/details?id=com.example.g{i}"
        icon = f"/icons/g{i}.png" if i % 2 else f"https://cdn.example.com/icons/g{i}.png"
        desc = f'Déscription «{i}» of a game with "quotes" and a colon: fine.'
        path = root / "games" / f"game-{i:05d}.md"
        if i % 3 == 0:
            store_lines = "".join(f'{k} = "{v}"\n' for k, v in stores.items())
            path.write_text(
                f'+++\nname = "{name}"\ndescription = """{desc}"""\n'
                f'platforms = {platforms!r}\ngenres = ["Puzzle"]\nicon = "{icon}"\n'
                f"weight = {i % 7}\n\n[stores]\n{store_lines}+++\nBody {i}.\n".replace("'", '"'),
                encoding="utf-8",
            )
        else:
            store_lines = "".join(f"  {k}: {v}\n" for k, v in stores.items())
            path.write_text(
                f"---\nname: \"{name}\"\ndescription: '{desc}'\n"
                f"platforms: [{', '.join(platforms)}]\ngenres: [Arcade, Strategy]\n"
                f"icon: {icon}\nstores:\n{store_lines}---\nBody {i}.\n",
                encoding="utf-8",
            )
    return root


def add_slow_pages(root: Path, count: int, *, notes: int = 30_000) -> Path:
    """`count` valid game pages in `root`'s games folder whose front matter also holds `notes`
    keys of the site's own (about 0.5 MB, a fifth of a second each to parse): a load that
    parses them keeps its parse workers running long enough to be seen from outside."""
    body = "".join(f"  n{i}: note {i}\n" for i in range(notes))
    for i in range(count):
        (root / "games" / f"slow-{i:02d}.md").write_text(
            f"---\nname: Slow {i}\ndescription: A game with many notes.\nplatforms: [iOS]\n"
            f"genres: [Puzzle]\nicon: /icons/slow-{i}.png\n"
            f"stores:\n  ios: https://apps.apple.com/app/slow/id{900000 + i}\n"
            f"notes:\n{body}---\nBody.\n",
            encoding="utf-8",
        )
    return root
