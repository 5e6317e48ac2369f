"""`catalogctl init`: on each real layout, the site.toml it writes validates, or names only what
the pages truly lack; it never replaces a site.toml without --force."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.processes import run_cli

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
# Each fixture's generator, and the games folder its own site.toml names.
LAYOUTS = {
    "astro-collections": "astro",
    "astro-released-games": "astro",
    "eleventy-games": "eleventy",
    "eleventy-games-json": "eleventy",
    "games-collection": "unknown",
    "hugo-apps-section": "hugo",
    "hugo-bundles": "hugo",
    "hugo-games-buttons": "hugo",
    "hugo-games-itch": "hugo",
    "jekyll-collection": "jekyll",
    "jekyll-posts": "jekyll",
    "nextjs-mdx": "nextjs",
    "zola-extra": "zola",
}


def bare_site(name: str, tmp_path: Path) -> Path:
    """A fixture as its website has it: without site.toml (and the test's expectations)."""
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    (root / "site.toml").unlink()
    (root / "expected.json").unlink()
    return root


def init_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    proc = run_cli("init", *args, "--format", "json")
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_every_layout_is_tried() -> None:
    assert sorted(LAYOUTS) == sorted(p.name for p in SITES.iterdir() if p.is_dir())


def page_errors(findings: list[dict[str, Any]]) -> set[tuple[str, str, int | None]]:
    """The errors found in the pages (rule, file name, line): what the pages truly lack or get
    wrong, whoever wrote the site.toml."""
    return {
        (f["rule"], Path(f["file"]).name, f["line"])
        for f in findings
        if f["severity"] == "error" and not f["file"].endswith("site.toml")
    }


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_init_writes_a_site_toml_that_validates(tmp_path: Path, name: str) -> None:
    """From the site's root, with no argument: init writes a site.toml with which validate
    finds in the pages exactly what it finds with the site.toml the site's owner wrote."""
    root = bare_site(name, tmp_path)
    proc = run_cli("init", "--format", "json", cwd=root)
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    expected = json.loads((SITES / name / "expected.json").read_text("utf-8"))
    owner_errors = page_errors(expected["findings"])
    assert proc.returncode == (1 if owner_errors else 0), report
    summary = report["summary"]
    assert summary["generator"] == LAYOUTS[name]
    # What the pages lack with init's site.toml is what they lack with the fixture's own.
    truly = {
        (f["field"], Path(f["file"]).name)
        for f in expected["findings"]
        if f["rule"] == "missing-field"
    }
    lacking = {(k, Path(f).name) for k, files in summary["lacking"].items() for f in files}
    assert lacking == truly
    # Where the design puts it: the site's root, naming the games folder the site uses.
    written = root / "site.toml"
    assert (root / summary["site_toml"]).resolve() == written.resolve()
    mine = tomllib.loads((SITES / name / "site.toml").read_text("utf-8"))
    theirs = tomllib.loads(written.read_text("utf-8"))
    assert theirs["content"]["games"] == mine.get("content", {}).get("games", "games")
    # validate, run as a user runs it next, agrees: nothing wrong with the site.toml itself,
    # and in the pages the errors the owner's site.toml gives.
    proc = run_cli("validate", "--format", "json", cwd=root)
    checked = json.loads(proc.stdout)
    assert proc.returncode == (1 if owner_errors else 0), proc.stdout
    site_errors = [
        f
        for f in checked["findings"]
        if f["severity"] == "error" and f["file"].endswith("site.toml")
    ]
    assert site_errors == []
    assert page_errors(checked["findings"]) == owner_errors
    assert checked["summary"]["games"] == len(expected["games"])
    from catalogctl.content.loader import load

    published = load(root).published()
    keys = ("id", "name", "description", "platforms", "genres")
    assert [{k: g[k] for k in keys} for g in published] == [
        {k: g[k] for k in keys} for g in expected["games"]
    ]
    # Each store link the fixture publishes is published (its attribution aside).
    links = {s["url"].split("?")[0] for g in published for s in g["stores"]}
    assert {s["url"].split("?")[0] for g in expected["games"] for s in g["stores"]} <= links


def test_init_comments_each_guess(tmp_path: Path) -> None:
    root = bare_site("hugo-bundles", tmp_path)
    proc = run_cli("init", root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "site.toml").read_text("utf-8")
    settings = [
        line
        for line in text.splitlines()
        if "=" in line and not line.startswith(("#", "[", "params"))
    ]
    assert settings and all("  # " in line for line in settings if "stores" not in line)
    assert 'base_url = "https://games.tidewater.example"  # from config.toml' in text
    assert 'games = "content/games"' in text
    assert 'icon = "params.icon"' in text and 'appstore = "params.appstore"' in text
    assert "Wrote " in proc.stdout and "a Hugo site" in proc.stdout
    assert "provider token" in proc.stdout  # what the user adds by hand


def test_init_maps_store_links_from_a_list_and_from_a_table(tmp_path: Path) -> None:
    astro = bare_site("astro-collections", tmp_path)
    assert init_json(astro)[0] == 0
    text = (astro / "site.toml").read_text("utf-8")
    assert 'googleplay = "links[platform=googleplay].url"' in text
    assert 'date = "pubDate"' in text
    nextjs = bare_site("nextjs-mdx", tmp_path)
    assert init_json(nextjs)[0] == 0
    site = tomllib.loads((nextjs / "site.toml").read_text("utf-8"))
    assert site["fields"]["stores"] == "storeLinks"
    assert {k: s["kind"] for k, s in site["stores"].items()} == {
        "appStore": "apple",
        "googlePlay": "google-play",
    }


def test_init_lists_the_sites_own_near_miss_keys(tmp_path: Path) -> None:
    root = bare_site("jekyll-collection", tmp_path)
    code, report = init_json(root)
    assert code == 0
    assert not [f for f in report["findings"] if f["rule"] == "unknown-key"]
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"]["own_keys"] == ["platform"]


def test_init_names_only_what_the_pages_truly_lack(tmp_path: Path) -> None:
    root = bare_site("eleventy-games", tmp_path)
    games = root / "src" / "games"
    for page in ("moth-lamp.md", "night-tram.md"):
        path = games / page
        text = path.read_text("utf-8")
        path.write_text(
            "".join(line for line in text.splitlines(True) if not line.startswith("genres:")),
            encoding="utf-8",
        )
    code, report = init_json(root)
    assert code == 1
    lacking = report["summary"]["lacking"]
    assert {k: sorted(Path(f).name for f in v) for k, v in lacking.items()} == {
        "genres": ["moth-lamp.md", "night-tram.md"]
    }
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert {f["rule"] for f in errors} == {"missing-field"}
    proc = run_cli("init", root, "--force")
    assert "genres: 2 of 3 pages" in proc.stdout


def test_init_never_replaces_a_site_toml_without_force(tmp_path: Path) -> None:
    root = bare_site("zola-extra", tmp_path)
    (root / "site.toml").write_text("# mine\n", encoding="utf-8")
    proc = run_cli("init", root)
    assert proc.returncode == 2
    assert "--force" in proc.stderr
    assert (root / "site.toml").read_text("utf-8") == "# mine\n"
    assert run_cli("init", root, "--force").returncode == 0
    assert "# mine" not in (root / "site.toml").read_text("utf-8")


@pytest.mark.parametrize("where", ["content", "above"])
def test_init_leaves_a_site_that_has_a_site_toml_elsewhere_alone(
    tmp_path: Path, where: str
) -> None:
    """A site.toml in ./content, or in a folder above, is the site's already: a new one would
    take its place for every command run from here."""
    root = bare_site("zola-extra", tmp_path)
    mine = root / "content" / "site.toml" if where == "content" else tmp_path / "site.toml"
    mine.write_text("# mine\n", encoding="utf-8")
    proc = run_cli("init", root)
    assert proc.returncode == 2, proc.stdout
    assert str(mine.name) in proc.stderr and "--force" in proc.stderr
    assert not (root / "site.toml").exists()
    assert mine.read_text("utf-8") == "# mine\n"


def test_init_without_game_pages_asks_for_the_folder(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "about.md").write_text("---\ntitle: About\n---\n", encoding="utf-8")
    proc = run_cli("init", tmp_path)
    assert proc.returncode == 2
    assert "--games" in proc.stderr
    assert not (tmp_path / "site.toml").exists()


def test_init_takes_the_games_folder_it_is_given(tmp_path: Path) -> None:
    root = bare_site("games-collection", tmp_path)
    code, report = init_json(root, "--games", "content/games")
    assert code == 0
    assert report["summary"]["games"] == "content/games"
    missing = run_cli("init", root, "--force", "--games", "content/nothing")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_init_runs_in_the_current_folder(tmp_path: Path) -> None:
    root = bare_site("hugo-bundles", tmp_path)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "site.toml").is_file()


def test_init_is_in_the_shell_completions() -> None:
    for shell in ("bash", "zsh", "fish"):
        proc = run_cli("completion", shell)
        assert proc.returncode == 0
        assert "init" in proc.stdout.split() or "'init'" in proc.stdout or "init:" in proc.stdout
