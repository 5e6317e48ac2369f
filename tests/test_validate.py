"""`catalogctl validate`: each broken file is named, with its field; exit 1, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import (
    SITE_TOML,
    ContentFactory,
    game_yaml,
    needs_bytes_file_names,
    needs_fifos,
    needs_symlinks,
)
from tests.processes import run_cli

# (case id, file name, file content, expected field or None, expected words in the message)
BROKEN: list[tuple[str, str, str | bytes, str | None, str]] = [
    ("not-utf8", "latin1", "---\nname: Caf\xe9\n---\n".encode("latin-1"), None, "UTF-8"),
    ("empty", "empty", "", None, "empty"),
    ("no-front-matter", "plain", "# Just markdown\n", None, "front matter"),
    ("unterminated", "open", "---\nname: Open\ndescription: x\n", None, "never closed"),
    ("broken-yaml", "yaml", "---\nname: [unclosed\n---\n", None, "invalid YAML"),
    ("broken-toml", "toml", '+++\nname = "x\n+++\n', None, "invalid TOML"),
    ("not-a-mapping", "list", "---\n- a\n- b\n---\n", None, "mapping"),
    ("missing-name", "noname", game_yaml("X").replace("name: X\n", ""), "name", "missing"),
    ("wrong-type", "wrongtype", game_yaml("X", platforms="iOS"), "platforms", "list"),
    ("empty-genres", "nogenres", game_yaml("X", genres="[]"), "genres", "list at least one item"),
    ("blank-description", "blank", game_yaml("X", description='"   "'), "description", "blank"),
    (
        "bad-store-url",
        "storeurl",
        game_yaml("X", ios="apps.apple.com/app/x"),
        "stores.ios",
        "absolute",
    ),
    (
        "unknown-store",
        "unknownstore",
        game_yaml("X").replace("  ios:", "  steam:"),
        "stores.steam",
        "unknown store",
    ),
    ("bad-icon", "icon", game_yaml("X", icon="icons/x.png"), "icon", "https"),
    (
        "vocabulary",
        "puzzel",
        game_yaml("X", genres="[Puzzel]"),
        "genres.0",
        "did you mean 'Puzzle'",
    ),
    (
        "no-stores",
        "nostores",
        game_yaml("X", ios=None, android=None).replace("stores:\n", "stores: {}\n"),
        "stores",
        "links no store: give a link in 'stores'",
    ),
    ("weight-type", "weight", game_yaml("X", extra="weight: heavy\n"), "weight", "whole number"),
    ("bad-slug", "slug", game_yaml("X", extra="slug: a/b\n"), "slug", "path segment"),
]


@pytest.mark.parametrize(
    ("name", "text", "field", "words"),
    [pytest.param(n, t, f, w, id=i) for i, n, t, f, w in BROKEN],
)
def test_validate_names_each_broken_file(
    make_content: ContentFactory, name: str, text: str | bytes, field: str | None, words: str
) -> None:
    root = make_content({"good": game_yaml("Good"), name: text})
    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    mine = [f for f in report["findings"] if f["file"].endswith(f"games/{name}.md")]
    assert mine, report["findings"]
    assert all(not f["file"].endswith("good.md") for f in report["findings"])
    errors = [f for f in mine if f["severity"] == "error"]
    assert any(words in f["message"] for f in errors), errors
    if field is not None:
        assert field in {f["field"] for f in errors}
        assert all(isinstance(f["line"], int) for f in errors)


def test_validate_reports_every_defect_at_once(make_content: ContentFactory) -> None:
    games: dict[str, str | bytes] = {name: text for _, name, text, _, _ in BROKEN}
    games["good"] = game_yaml("Good")
    root = make_content(games)
    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 1
    named = {Path(f["file"]).stem for f in json.loads(proc.stdout)["findings"]}
    assert named >= {name for _, name, _, _, _ in BROKEN}
    assert "good" not in named


def test_validate_table_names_file_line_and_field(make_content: ContentFactory) -> None:
    root = make_content({"puzzel": game_yaml("X", genres="[Puzzel]")})
    proc = run_cli("validate", root)
    assert proc.returncode == 1
    assert "puzzel.md" in proc.stdout
    assert "genres.0" in proc.stdout
    assert "1 error" in proc.stderr


def test_validate_yaml_error_line_is_the_file_line(make_content: ContentFactory) -> None:
    text = "---\nname: A\ndescription: ok\nplatforms: [iOS\ngenres: [Puzzle]\n---\n"
    root = make_content({"a": text})
    report = json.loads(run_cli("validate", root, "--format", "json").stdout)
    (finding,) = [f for f in report["findings"] if f["file"].endswith("a.md")]
    assert finding["line"] in (4, 5)


def test_validate_field_line_points_at_the_key(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml("A", icon="ftp://x/y.png")})
    report = json.loads(run_cli("validate", root, "--format", "json").stdout)
    (finding,) = [f for f in report["findings"] if f["field"] == "icon"]
    lines = (root / "games" / "a.md").read_text().splitlines()
    assert lines[finding["line"] - 1].startswith("icon:")


def test_validate_duplicate_ids_after_slug_override(make_content: ContentFactory) -> None:
    root = make_content({"one": game_yaml("One"), "two": game_yaml("Two", extra="slug: one\n")})
    report = json.loads(run_cli("validate", root, "--format", "json").stdout)
    dupes = [f for f in report["findings"] if "also used by" in f["message"]]
    assert {Path(f["file"]).name for f in dupes} == {"one.md", "two.md"}
    assert all(f["severity"] == "error" for f in dupes)


def test_validate_missing_site_toml(make_content: ContentFactory) -> None:
    root = make_content(site=None)
    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["file"].endswith("site.toml")


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            ('base_url = "https://games.example.com"', 'base_url = "https://games.example.com/"'),
            "base_url",
            "must not end",
        ),
        (
            ('base_url = "https://games.example.com"', 'base_url = "games.example.com"'),
            "base_url",
            "absolute",
        ),
        (
            ('game_url = "{base_url}/games/{id}/"', 'game_url = "{base_url}/games/"'),
            "game_url",
            "{id}",
        ),
        (('pt = "123456"', 'pt = "12ab"'), "stores.ios.params.pt", "digits only"),
        (
            ('status = "supported"', 'status = "deprecated"'),
            "api.v1.deprecation",
            "deprecation date",
        ),
        (('status = "supported"', 'status = "retired"'), "api.v1.status", "one of"),
        (
            (
                'status = "supported"',
                'status = "deprecated"\ndeprecation = 2027-03-01\nsunset = 2027-04-01\nmigration = "https://x.example/m"',
            ),
            "api.v1.sunset",
            "at least 90",
        ),
        (
            ('status = "supported"', 'status = "supported"\nsunset = 2027-04-01'),
            "api.v1.sunset",
            "without a deprecation date",
        ),
        (('title = "Example Games"', "title = 42"), "title", "must be text, not a number"),
    ],
)
def test_validate_site_rules(
    make_content: ContentFactory, change: tuple[str, str], field: str, words: str
) -> None:
    root = make_content(site=SITE_TOML.replace(*change))
    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 1, proc.stdout
    findings = json.loads(proc.stdout)["findings"]
    assert any(f["field"] == field and words in f["message"] for f in findings), findings
    assert all(f["file"].endswith("site.toml") for f in findings if f["severity"] == "error")


def test_validate_valid_lifecycle_passes(make_content: ContentFactory) -> None:
    site = SITE_TOML.replace(
        'status = "supported"',
        'status = "deprecated"\ndeprecation = 2027-03-01\nsunset = 2027-06-01\n'
        'migration = "https://games.example.com/api/migrate-v2"',
    )
    assert run_cli("validate", make_content(site=site)).returncode == 0


def test_validate_strict_fails_on_warnings(make_content: ContentFactory) -> None:
    # An iOS game without an iOS store link is a warning, not an error.
    root = make_content(
        {"a": game_yaml("A", platforms="[iOS, Android]", ios=None), "b": game_yaml("B")}
    )
    assert run_cli("validate", root).returncode == 0
    proc = run_cli("validate", root, "--strict", "--format", "json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["summary"]["warnings"] == 1


def test_validate_draft_problems_are_warnings(make_content: ContentFactory) -> None:
    root = make_content(
        {
            "good": game_yaml("Good"),
            "wip": game_yaml("WIP", genres="[Puzzel]", extra="draft: true\n"),
        }
    )
    report = json.loads(run_cli("validate", root, "--format", "json").stdout)
    assert report["ok"] is True
    assert [f["severity"] for f in report["findings"]] == ["warning"]


def test_validate_missing_directory_is_usage_error(tmp_path: Path) -> None:
    proc = run_cli("validate", tmp_path / "nope")
    assert proc.returncode == 2
    assert "not found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate_sample_content_is_clean(sample: Path) -> None:
    proc = run_cli("validate", sample, "--strict", "--format", "json")
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["summary"]["games"] >= 12


@pytest.mark.parametrize("command", ["validate", "build", "check-links"])
def test_no_content_and_no_default_folder_is_a_usage_error(tmp_path: Path, command: str) -> None:
    # A pre-commit hook run in the wrong folder must not pass on the bundled sample.
    proc = run_cli(command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "no ./content" in proc.stderr
    # The example names the command that was run.
    assert f"catalogctl {command} site/content" in " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr


def test_validate_uses_the_content_folder_by_default(tmp_path: Path, sample: Path) -> None:
    import shutil

    shutil.copytree(sample, tmp_path / "content")
    proc = run_cli("validate", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["games"] >= 12


def test_validate_generated_catalog(generated) -> None:  # type: ignore[no-untyped-def]
    proc = run_cli("validate", generated(400), "--format", "json")
    assert proc.returncode == 0, proc.stdout[:2000]
    assert json.loads(proc.stdout)["summary"]["games"] == 400


# Rules one tree cannot show beside the others: without site.toml, or without the games folder,
# no page is read; "no game is published" needs a tree without errors; a parser process that
# dies and a file the user running the tests cannot read are made in test_content_hostile.py.
APART = {"site-missing", "games-folder", "empty-catalog", "parser-crash", "unreadable-file"}

EVERY_KIND_SITE = """\
base_url = "https://games.example.com/"
title = "Example Games"
titel = "Example"
description = "Mobile games by Example Games."
game_url = "{base_url}/games/"
platforms = ["iOS", "Android"]
genres = ["Puzzle", "Arcade", "Strategy"]

[fields]
weight = "params.weight"
date = "links.date"

[rules]
syntax = "off"

[content]
body_links = true
exclude = ["privacy-polcy.md"]

[stores.kong]
name = "Kongregate"

[stores.itch]
name = "itch.io"

[stores.ios]
name = "App Store"
params = { pt = "12ab", ct = "service_api_game_catalog" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
hosts = ["play.google.com", "play.google.com/store"]

[api.v1]
status = "deprecated"
"""


@needs_fifos
@needs_symlinks
@needs_bytes_file_names
def test_validate_names_every_kind_of_finding_in_one_run(tmp_path: Path) -> None:
    import os

    from catalogctl.content.rules.registry import RULES

    root = tmp_path / "site"
    games = root / "games"
    games.mkdir(parents=True)
    (root / "site.toml").write_text(EVERY_KIND_SITE, encoding="utf-8")
    # A page missing its name still has its store link, vocabulary and id checked.
    broken = game_yaml(
        "X",
        genres="[Puzzel]",
        android="https://web.archive.org/web/2024/https://play.google.com/store/apps",
        extra="slug: good\n",
    ).replace("name: X\n", "")
    pages: dict[str, str | bytes] = {
        "good": game_yaml("Good", extra="links: [https://example.com/]\n"),
        "broken": broken,
        "wide": game_yaml("Wide").encode("utf-16"),
        "plain": "# Just Markdown\n",
        "syntax": "---\nname: [A\n---\n",
        "deep": "---\na: " + "[" * 100 + "]" * 100 + "\n---\n",
        "twice": game_yaml("Twice", extra="name: Again\n"),
        "typos": game_yaml("Typos", extra="platfroms: [iOS]\ndarft: true\n"),
        "type": game_yaml("Type", platforms="iOS"),
        "blank": game_yaml("Blank", description='"  "'),
        "slug": game_yaml("Slug", extra='slug: "a b"\n'),
        "Upper": game_yaml("Upper"),
        "lower": game_yaml("Lower", extra="slug: upper\n"),  # equal to "Upper" but for case
        "date": game_yaml("Date", extra="publishDate: soon\n"),
        "again": game_yaml("Again", genres="[Puzzle, Puzzle]"),
        "icon": game_yaml("Icon", icon="http://cdn.example/i.png"),
        "steam": game_yaml("Steam").replace("  ios:", "  steam:"),
        "ios-only": game_yaml("Ios only", android=None),
        "github": game_yaml("Github", extra="  itch: https://github.com/studio/github\n"),
        "aux": game_yaml("Aux", extra="slug: aux-game\n"),  # a device's name on Windows
        "control": game_yaml('"Control\\e[2J"'),
        "invisible": game_yaml("Invisible", description='"A game.\\u200b"'),
    }
    for name, text in pages.items():
        path = games / f"{name}.md"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    os.mkfifo(games / "fifo.md")
    (games / "dangling.md").symlink_to(games / "nowhere.md")
    (tmp_path / "outside.md").write_text(game_yaml("Outside"), encoding="utf-8")
    (games / "outside.md").symlink_to(tmp_path / "outside.md")
    fd = os.open(os.fsencode(games) + b"/latin\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, game_yaml("Latin").encode())
    os.close(fd)

    proc = run_cli("validate", root, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert {f["rule"] for f in findings} == set(RULES) - APART
    on_broken = {f["rule"] for f in findings if f["file"].endswith("broken.md")}
    assert on_broken == {"missing-field", "store-url", "vocabulary", "duplicate-id"}
    (missing,) = [f for f in findings if f["rule"] == "missing-field"]
    assert missing["field"] == "name"
