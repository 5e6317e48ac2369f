"""Shared fixtures: the sample content, a factory for small content trees, system programs."""

from __future__ import annotations

import importlib.util
import os
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "content"

# CI sets this to 1: a test that needs a missing system program fails instead of skipping.
REQUIRE_SYSTEM_TESTS = "CATALOGCTL_REQUIRE_SYSTEM_TESTS"


def pytest_report_header() -> str:
    """Which catalogctl the tests run: this checkout, or (CI) the installed wheel."""
    import catalogctl

    return f"catalogctl {catalogctl.__version__} from {Path(catalogctl.__file__).parent}"


def require_program(name: str, *, package: str) -> str:
    """The path of system program `name` on PATH, or skip the calling test saying what to install.

    With CATALOGCTL_REQUIRE_SYSTEM_TESTS=1 (as CI runs) a missing program fails the test, so a
    green CI run never hides a skipped suite. Call it in a test or fixture:
    `nginx = require_program("nginx", package="nginx")`.
    """
    found = shutil.which(name)
    if found is not None:
        return found
    message = f"{name} is not on PATH: install the Debian package {package}"
    message += f" (apt-get install {package})"
    for folder in ("/usr/sbin", "/sbin", "/usr/local/sbin"):
        if Path(folder, name).is_file():
            message = f"{name} is not on PATH, but {folder}/{name} exists: add {folder} to PATH"
            break
    if os.environ.get(REQUIRE_SYSTEM_TESTS, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_SYSTEM_TESTS} is set)", pytrace=False)
    pytest.skip(message)


def require_module(name: str, *, pip: str) -> None:
    """Skip the calling test (or fail, as `require_program`) when Python module `name` is
    missing, naming the PyPI package to install."""
    if importlib.util.find_spec(name) is not None:
        return
    message = f"the Python package {pip} is not installed (pip install {pip})"
    if os.environ.get(REQUIRE_SYSTEM_TESTS, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_SYSTEM_TESTS} is set)", pytrace=False)
    pytest.skip(message)


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


def game_yaml(
    name: str = "Game",
    *,
    description: str = "A game.",
    platforms: str = "[iOS, Android]",
    genres: str = "[Puzzle]",
    icon: str = "/icons/game.png",
    ios: str | None = "https://apps.apple.com/app/game/id1",
    android: str | None = "https://play.google.com/store/apps/details?id=com.example.game",
    extra: str = "",
) -> str:
    stores = ""
    if ios:
        stores += f"  ios: {ios}\n"
    if android:
        stores += f"  android: {android}\n"
    return (
        f"---\nname: {name}\ndescription: {description}\nplatforms: {platforms}\n"
        f"genres: {genres}\nicon: {icon}\nstores:\n{stores}{extra}---\nBody.\n"
    )


class ContentFactory:
    """Writes a content tree under tmp_path: `make(games={"id": text}, site=...)`."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.count = 0

    def __call__(
        self,
        games: dict[str, str | bytes] | None = None,
        *,
        site: str | None = SITE_TOML,
        name: str | None = None,
    ) -> Path:
        self.count += 1
        root = self.base / (name or f"content{self.count}")
        (root / "games").mkdir(parents=True)
        if site is not None:
            (root / "site.toml").write_text(site, encoding="utf-8")
        if games is None:
            games = {"alpha": game_yaml("Alpha"), "beta": game_yaml("Beta")}
        for game_id, text in games.items():
            path = root / "games" / f"{game_id}.md"
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(textwrap.dedent(text), encoding="utf-8")
        return root


@pytest.fixture
def make_content(tmp_path: Path) -> ContentFactory:
    return ContentFactory(tmp_path)


@pytest.fixture
def sample() -> Path:
    return SAMPLE


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


@pytest.fixture
def generated(tmp_path: Path) -> Callable[[int], Path]:
    def make(n: int) -> Path:
        return generate_catalog(tmp_path / f"generated-{n}", n)

    return make
