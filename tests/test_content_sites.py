"""Real site layouts (Hugo bundles, Zola [extra], Jekyll posts, a studio's games folder):
each fixture publishes exactly the catalog in its expected.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalogctl.content.loader import load, load_catalog
from tests.test_validate import run

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
NAMES = sorted(p.name for p in SITES.iterdir() if (p / "site.toml").is_file())


def test_every_layout_has_a_fixture() -> None:
    assert NAMES == ["games-collection", "hugo-bundles", "jekyll-posts", "zola-extra"]


@pytest.mark.parametrize("name", NAMES)
def test_site_publishes_exactly_its_expected_catalog(name: str) -> None:
    expected = json.loads((SITES / name / "expected.json").read_text(encoding="utf-8"))
    catalog = load_catalog(SITES / name)
    assert catalog.games == expected["games"]
    assert catalog.summary.to_json() == expected["read"]


@pytest.mark.parametrize("name", NAMES)
def test_site_validates_strictly_and_says_what_it_read(name: str) -> None:
    proc = run("validate", SITES / name, "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "read " in proc.stderr and " published" in proc.stderr


def test_hugo_layout_counts_what_it_skips() -> None:
    summary = load(SITES / "hugo-bundles").summary
    assert (summary.translations, summary.sections, summary.resources) == (3, 3, 2)
    assert (summary.drafts, summary.scheduled, summary.expired) == (1, 1, 1)


def test_hugo_layout_in_french_reads_the_french_pages(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(SITES / "hugo-bundles", root)
    site = root / "site.toml"
    site.write_text(
        site.read_text(encoding="utf-8").replace('language = "en"', 'language = "fr"'),
        encoding="utf-8",
    )
    games = {g["id"]: g for g in load_catalog(root).games}
    # Translated pages in French; untagged pages count as French too (Hugo's default language).
    assert games["tidal-drift"]["name"] == "Dérive des marées"
    assert games["storm-chaser"]["name"] == "Chasseur d'orages"
    assert games["harbour-master"]["name"] == "Capitaine de port"
    assert set(games) == {
        "tidal-drift",
        "storm-chaser",
        "harbour-master",
        "kelp-garden",
        "gull-patrol",
    }


def test_page_bundle_and_single_page_with_the_same_id_clash(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(SITES / "hugo-bundles", root)
    games = root / "content" / "games"
    shutil.copy(games / "mobile" / "gull-patrol.md", games / "tidal-drift.md")
    content = load(root)
    dupes = [f for f in content.findings if f.rule == "duplicate-id"]
    assert {Path(f.file).name for f in dupes} == {"index.md", "tidal-drift.md"}
    assert all("also used by" in f.message for f in dupes)


def test_jekyll_dated_names_give_the_id_and_the_date() -> None:
    games = load_catalog(SITES / "jekyll-posts").games
    # tally has no permalink: its id comes from the file name without the date.
    assert [g["id"] for g in games] == ["tally", "meeru", "deep"]
