"""`[content] exclude` and `[content] sections`: the pages of a games folder that are not
games (a privacy policy, a game's own sub-pages) are counted, not read; a game kept in its
section's own page (`brick/_index.md`, a Hugo branch bundle) is read as the game."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from catalogctl.content.discovery import excluder
from catalogctl.content.loader import load
from tests.catalogs import SITE_TOML
from tests.conftest import game_yaml, needs_fifos, needs_symlinks
from tests.processes import run_cli

LEGAL = "---\ntitle: Privacy policy\n---\nWe collect nothing.\n"


def site(*content: str) -> str:
    return SITE_TOML.replace("[api.v1]", "[content]\n" + "\n".join(content) + "\n\n[api.v1]")


def tree(tmp_path: Path, files: dict[str, str], settings: str) -> Path:
    root = tmp_path / "site"
    for name, text in files.items():
        path = root / "games" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "site.toml").write_text(settings, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("pattern", "path", "excluded"),
    [
        ("privacy*", "privacy-policy.md", True),
        ("privacy*", "brick/privacy.md", True),  # a name pattern, at any depth
        ("privacy*", "privacy/index.md", True),  # a bundle: its folder's name
        ("privacy*", "Privacy.md", False),  # compared with case
        ("privacy*", "brick.md", False),
        ("legal", "legal/terms.md", True),
        ("legal", "legal.md", False),
        ("*/mechanics/*", "mokosh/mechanics/doors.md", True),
        ("*/mechanics/*", "a/b/mechanics/doors.md", True),  # `*` matches `/` in a path
        ("*/mechanics/*", "mechanics/doors.md", False),
        ("/legal/*", "legal/terms.md", True),  # a leading `/` is the games folder
        ("legal/*", "old/legal/terms.md", False),
        ("[ab].md", "a.md", True),
        ("?.md", "ab.md", False),
        # As .gitignore reads them: a trailing `/` for folders only, a leading one anchors.
        ("legal/", "legal/terms.md", True),
        ("legal/", "old/legal/terms.md", True),
        ("legal/", "legal.md", False),
        ("/legal", "legal/terms.md", True),
        ("/legal", "old/legal/terms.md", False),
        ("*/", "sub/a.md", True),
        ("*/", "a.md", False),
        ("/", "a.md", False),
    ],
)
def test_exclude_patterns(pattern: str, path: str, excluded: bool) -> None:
    check = excluder([pattern])
    assert check is not None and check(path) is excluded


def test_excluded_pages_are_counted_not_read(tmp_path: Path) -> None:
    files = {
        "brick.md": game_yaml("Brick"),
        "privacy-policy.md": LEGAL,
        "legal/terms.md": "not even front matter",
        "mokosh/mokosh.md": game_yaml("Mokosh"),
        "mokosh/mechanics/doors.md": "---\ntitle: Doors\n---\n",
        "mokosh/mechanics/menus.md": "---\n: broken [\n---\n",
    }
    root = tree(tmp_path, files, site('exclude = ["privacy*", "legal", "*/mechanics/*"]'))
    content = load(root)
    assert content.findings == []
    assert [g["id"] for g in content.published()] == ["brick", "mokosh"]
    assert content.summary.excluded == 4 and content.summary.pages == 2
    assert "read 2 pages: 2 published; skipped 4 excluded pages" in content.summary.describe()
    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["summary"]["read"]["excluded"] == 4
    # Without the setting, each of them is a page with its findings.
    (root / "site.toml").write_text(site(), encoding="utf-8")
    assert {Path(f.file).name for f in load(root).findings} >= {
        "privacy-policy.md",
        "terms.md",
        "doors.md",
        "menus.md",
    }


def test_a_pattern_naming_no_page_is_unused_exclude(tmp_path: Path) -> None:
    """A misspelled pattern is a warning at it; a pattern naming a page another pattern
    names too (`privacy*` in `legal/`) is used, whichever comes first."""
    files = {
        "brick.md": game_yaml("Brick"),
        "legal/privacy.md": LEGAL,
        "mokosh/mechanics/doors.md": "---\ntitle: Doors\n---\n",
        "mokosh/mokosh.md": game_yaml("Mokosh"),
    }
    patterns = '["legal/", "privacy*", "privacy-polcy.md", "*/mechanics/*", "/mokosh/mech*"]'
    root = tree(tmp_path, files, site(f"exclude = {patterns}"))
    found = [f for f in load(root).findings if f.rule == "unused-exclude"]
    assert [(f.field, f.severity) for f in found] == [("content.exclude.2", "warning")]
    assert found[0].message.startswith("'privacy-polcy.md' names no page of the games folder")


@needs_symlinks
@needs_fifos
def test_an_excluded_page_is_not_looked_at(tmp_path: Path) -> None:
    """A dangling symlink, a symlink out of the tree and a FIFO that exclude names are
    counted, not reported: they are not read."""
    root = tree(tmp_path, {"a.md": game_yaml("A")}, site('exclude = ["privacy*", "legal/"]'))
    games = root / "games"
    (games / "privacy.md").symlink_to(tmp_path / "nowhere.md")
    (games / "legal").mkdir()
    (tmp_path / "terms.md").write_text(LEGAL, encoding="utf-8")
    (games / "legal" / "terms.md").symlink_to(tmp_path / "terms.md")
    os.mkfifo(games / "privacy-fifo.md")
    content = load(root)
    assert content.findings == []
    assert (content.summary.pages, content.summary.excluded) == (1, 3)


def test_an_exclude_pattern_over_the_limit_is_a_finding(tmp_path: Path) -> None:
    """The one finding: no `empty-catalog` beside it, since the pages were not looked for."""
    root = tree(tmp_path, {"a.md": game_yaml("A")}, site(f'exclude = ["{"x" * 201}"]'))
    (f,) = load(root).findings
    assert f.rule == "limit" and f.field == "content.exclude.0" and f.file.endswith("site.toml")


def test_an_exclude_that_leaves_no_page_says_so(tmp_path: Path) -> None:
    root = tree(tmp_path, {"a.md": game_yaml("A")}, site('exclude = ["*"]'))
    (f,) = load(root).findings
    assert f.rule == "empty-catalog"
    assert "[content] exclude leaves out every page (1); narrow its patterns" in f.message


BRANCH = {
    "_index.md": "---\ntitle: Games\n---\n",
    "brick/_index.md": game_yaml("Brick"),
    "brick/_index.fr.md": game_yaml("Brique"),
    "brick/privacy-policy.md": LEGAL,
    "tiles/index.md": game_yaml("Tiles"),
}


def test_sections_read_a_games_own_section_page(tmp_path: Path) -> None:
    root = tree(tmp_path, BRANCH, site("sections = true", 'exclude = ["privacy*"]'))
    content = load(root)
    assert content.findings == []
    assert [(g["id"], g["name"]) for g in content.published()] == [
        ("brick", "Brick"),
        ("tiles", "Tiles"),
    ]
    read = content.summary
    assert (read.pages, read.sections, read.translations, read.excluded) == (2, 1, 1, 1)


def test_without_sections_a_section_page_is_skipped(tmp_path: Path) -> None:
    root = tree(tmp_path, BRANCH, site('exclude = ["privacy*"]'))
    content = load(root)
    assert [g["id"] for g in content.published()] == ["tiles"]
    assert content.summary.sections == 3  # its translation too
