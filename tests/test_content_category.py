"""`[content] category`: in a folder that mixes games and other pages (Jekyll `_posts` of
games and blog posts), only the pages of the category are games; the others are counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogctl.content.categories import in_category, page_labels
from catalogctl.content.loader import load
from tests.catalogs import SITE_TOML
from tests.conftest import ContentFactory, game_yaml, one_thread
from tests.processes import run_cli

CATEGORY_SITE = SITE_TOML.replace("[api.v1]", '[content]\ncategory = "game"\n\n[api.v1]')
BLOG = "---\ntitle: Devlog 3\ncategories: blog\ntags: [devlog, godot]\n---\nWe are working on it.\n"


@pytest.mark.parametrize(
    ("front", "holds"),
    [
        ({"categories": "game"}, True),
        ({"categories": "Game"}, True),
        ({"categories": "game puzzle"}, True),  # Jekyll: a string of words
        ({"categories": "puzzle  GAME"}, True),
        ({"categories": ["Puzzle", "game"]}, True),
        ({"category": "game"}, True),
        ({"tags": ["GAME"]}, True),
        ({"tags": "game"}, True),
        ({"categories": "games"}, False),
        ({"categories": "gameplay"}, False),
        ({"categories": ["game jam"]}, False),  # a list's item is one label
        ({"categories": None}, False),
        ({"categories": 7}, False),
        ({"categories": [{"game": 1}]}, False),
        ({"title": "game"}, False),
        ({}, False),
    ],
)
def test_a_page_is_of_the_category_when_a_label_says_so(
    front: dict[str, object], holds: bool
) -> None:
    assert in_category(front, "game") is holds
    assert in_category(front, " Game ") is holds


def test_page_labels_are_read_bounded() -> None:
    assert len(page_labels({"tags": ["x"] * 10_000})) == 200
    assert page_labels({"categories": "a b", "category": "c", "tags": ["d", "", 1]}) == [
        "a b",
        "a",
        "b",
        "c",
        "d",
    ]


def mixed(make_content: ContentFactory, site: str = CATEGORY_SITE) -> Path:
    """Games with a game category in one of each way of writing it, a draft game, a blog post
    and a page with no category at all."""
    return make_content(
        {
            "2024-01-01-moon": game_yaml("Moon", extra="categories: game\n"),
            "2024-02-01-sun": game_yaml("Sun", extra="categories: Game puzzle\n"),
            "2024-03-01-mars": game_yaml("Mars", extra="tags: [Puzzle, GAME]\n"),
            "2024-04-01-venus": game_yaml("Venus", extra="category: game\ndraft: true\n"),
            "2024-05-01-devlog": BLOG,
            "2024-06-01-about": "---\ntitle: About us\n---\nWe make games.\n",
        },
        site=site,
    )


def test_pages_outside_the_category_are_counted_not_checked(
    make_content: ContentFactory,
) -> None:
    content = load(mixed(make_content))
    assert content.findings == []
    assert [g["id"] for g in content.published()] == ["mars", "sun", "moon"]
    summary = content.summary
    assert (summary.pages, summary.published, summary.drafts, summary.outside) == (6, 3, 1, 2)
    assert summary.to_json()["outside_category"] == 2
    assert summary.describe() == (
        "read 6 pages: 3 published, 1 draft, 2 outside the category 'game'"
    )


def test_without_the_setting_every_page_is_a_game(make_content: ContentFactory) -> None:
    """A site that does not set it reads as before: the blog post is a game with errors."""
    content = load(mixed(make_content, SITE_TOML))
    failing = {Path(f.file).name for f in content.errors}
    assert failing == {"2024-05-01-devlog.md", "2024-06-01-about.md"}
    assert content.summary.outside == 0 and content.summary.failed == 2
    assert "outside" not in content.summary.describe()


def test_validate_says_what_it_read_outside_the_category(make_content: ContentFactory) -> None:
    root = mixed(make_content)
    proc = run_cli("validate", root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 published, 1 draft, 2 outside the category 'game'" in proc.stderr
    report = json.loads(run_cli("validate", root, "--format", "json").stdout)
    assert report["summary"]["read"]["outside_category"] == 2
    assert report["findings"] == []


@one_thread
def test_the_parallel_parse_keeps_the_same_pages(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch, pool_calls: list[str]
) -> None:
    from catalogctl.content import loader

    root = mixed(make_content)
    serial = load(root)
    monkeypatch.setattr(loader, "PARALLEL_THRESHOLD", 2)
    parallel = load(root)
    assert pool_calls == ["fork"]
    assert parallel.summary == serial.summary
    assert parallel.published() == serial.published()


def test_no_page_of_the_category_names_the_categories_the_pages_hold(
    make_content: ContentFactory,
) -> None:
    site = CATEGORY_SITE.replace('category = "game"', 'category = "games"')
    content = load(mixed(make_content, site))
    (empty,) = content.errors
    assert empty.rule == "empty-catalog"
    assert "6 outside the category 'games'" in empty.message
    assert "no page holds the category 'games'" in empty.message
    assert "game (4), puzzle (2), blog (1)" in empty.message
    # No mapping or store is reported unused for it: no page was a game.
    assert [f.rule for f in content.findings] == ["empty-catalog"]


def test_stores_no_game_links_are_still_reported(make_content: ContentFactory) -> None:
    """The pages outside the category do not stop the check of stores no page links."""
    site = CATEGORY_SITE.replace(
        "[api.v1]", '[stores.steam]\nname = "Steam"\nkind = "other"\n\n[api.v1]'
    )
    content = load(mixed(make_content, site))
    assert [(f.rule, f.field) for f in content.findings] == [("unlinked-store", "stores.steam")]
    # Every page was read: the blog post is not a page that could not be.
    assert content.findings[0].message.startswith("no page links 'Steam' yet")


@pytest.mark.parametrize("bad", ['""', "7", '["game"]'])
def test_a_bad_category_reads_no_page(make_content: ContentFactory, bad: str) -> None:
    site = CATEGORY_SITE.replace('category = "game"', f"category = {bad}")
    content = load(mixed(make_content, site))
    (f,) = [f for f in content.findings if f.file.endswith("site.toml")]
    assert f.field == "content.category" and f.severity == "error"
    assert content.summary.pages == 0
