"""Real site layouts (Hugo bundles and translations, Zola [extra], Jekyll collections and
posts, games among blog posts, Eleventy, Astro content collections, Next.js with Markdown and
MDX, a studio's games folder): each fixture publishes exactly the catalog in its expected.json
and reports exactly its findings, in one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from catalogctl.content.loader import load, load_catalog
from tests.processes import run_cli

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
NAMES = sorted(p.name for p in SITES.iterdir() if (p / "site.toml").is_file())


def expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SITES / name / "expected.json").read_text("utf-8"))
    return data


def finding_rows(findings: list[Any]) -> list[dict[str, Any]]:
    rows = [
        {
            "rule": f.rule,
            "severity": f.severity,
            "file": f.file,
            "line": f.line,
            "column": f.column,
            "field": f.field,
            "message": f.message,
        }
        for f in findings
    ]
    return sorted(rows, key=lambda r: (r["file"], r["line"] or 0, r["column"] or 0, r["rule"]))


def copy_site(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    return root


def test_every_layout_has_a_fixture() -> None:
    assert NAMES == [
        "astro-collections",
        "astro-itch-profile",
        "astro-projects-by-category",
        "astro-released-games",
        "astro-route-folder",
        "eleventy-games",
        "eleventy-games-json",
        "eleventy-pages-repository",
        "games-collection",
        "hugo-apps-one-value-keys",
        "hugo-apps-section",
        "hugo-blowfish-external",
        "hugo-branch-bundle",
        "hugo-bundle-logo",
        "hugo-bundles",
        "hugo-games-buttons",
        "hugo-games-itch",
        "hugo-games-sections",
        "hugo-language-folder-itch-profiles",
        "hugo-self-hosted-downloads",
        "hugo-toml-bundles-itch-embeds",
        "hugo-translated-html-buttons",
        "hugo-unreleased-game",
        "jekyll-appstore-body",
        "jekyll-collection",
        "jekyll-collection-empty-store-keys",
        "jekyll-collection-notes",
        "jekyll-games-bundles",
        "jekyll-pages-folder-cname",
        "jekyll-pages-games-series",
        "jekyll-posts",
        "jekyll-posts-category",
        "jekyll-posts-words",
        "jekyll-translated-by-hand",
        "nextjs-mdx",
        "nextjs-template-store-table",
        "zola-bundles-translated",
        "zola-extra",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_site_publishes_its_catalog_and_reports_its_findings(name: str) -> None:
    want = expected(name)
    content = load(SITES / name, display=".")  # one run: catalog, findings and counts
    assert content.published() == want["games"]
    assert finding_rows(content.findings) == want["findings"]
    assert content.summary.to_json() == want["read"]


@pytest.mark.parametrize("name", NAMES)
def test_site_validates_and_says_what_it_read(name: str) -> None:
    want = expected(name)
    proc = run_cli("validate", SITES / name, "--format", "json")
    report = json.loads(proc.stdout)
    errors = [f for f in want["findings"] if f["severity"] == "error"]
    assert proc.returncode == (1 if errors else 0), proc.stdout + proc.stderr
    assert report["summary"]["read"] == want["read"]
    assert report["summary"]["games"] == len(want["games"])
    strict = run_cli("validate", SITES / name, "--strict")
    assert strict.returncode == (1 if want["findings"] else 0), strict.stdout + strict.stderr
    assert "read " in strict.stderr and " published" in strict.stderr


def test_hugo_layout_counts_what_it_skips() -> None:
    summary = load(SITES / "hugo-bundles").summary
    assert (summary.translations, summary.sections, summary.resources) == (3, 3, 2)
    assert (summary.drafts, summary.scheduled, summary.expired) == (1, 1, 1)


def test_hugo_layout_in_french_reads_the_french_pages(tmp_path: Path) -> None:
    root = copy_site("hugo-bundles", tmp_path)
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
    root = copy_site("hugo-bundles", tmp_path)
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


def test_jekyll_sites_own_platform_key_warns_and_still_publishes(tmp_path: Path) -> None:
    root = copy_site("jekyll-collection", tmp_path)
    site = root / "site.toml"
    site.write_text(
        site.read_text("utf-8").replace('own_keys = ["platform"]\n', ""), encoding="utf-8"
    )
    content = load(root)
    warned = [f for f in content.findings if f.rule == "unknown-key"]
    assert sorted(Path(f.file).name for f in warned) == ["cinder-post.md", "tidewalker.md"]
    assert all(f.severity == "warning" and "'platforms'" in f.message for f in warned)
    assert all("own_keys" in f.message for f in warned)
    assert [g["id"] for g in load_catalog(root).games] == ["tidewalker", "cinder-post"]
    assert run_cli("validate", root).returncode == 0
    assert run_cli("validate", root, "--strict").returncode == 1


def test_jekyll_published_false_is_a_draft() -> None:
    content = load(SITES / "jekyll-collection")
    (draft,) = [e for e in content.entries if e.state == "draft"]
    assert draft.id == "hollow-bell"


def test_a_store_link_picked_from_a_list_is_checked_at_its_line(tmp_path: Path) -> None:
    root = copy_site("astro-collections", tmp_path)
    page = root / "src" / "content" / "games" / "starling.md"
    text = page.read_text("utf-8")
    page.write_text(
        text.replace(
            "https://play.google.com/store/apps/details?id=example.orbitgarden.starling",
            "https://web.archive.org/web/2024/https://play.google.com/store/apps/details",
        ),
        encoding="utf-8",
    )
    (f,) = [f for f in load(root).findings if f.rule == "store-url"]
    assert f.file.endswith("starling.md")
    assert f.field == "links.1.url"
    assert page.read_text("utf-8").splitlines()[f.line - 1].strip().startswith("url:")
    assert "play.google.com" in f.message


@pytest.mark.parametrize(
    ("mapping", "rule", "words"),
    [
        ('android = "links.url"', "field-mapping", "runs through a list"),
        ('android = "links[platform=gogleplay].url"', "unused-mapping", "no page has"),
        ('android = "storeLinks.googlePlay"', "unused-mapping", "no page has"),
    ],
)
def test_a_store_mapping_no_page_has_is_reported_at_its_line(
    tmp_path: Path, mapping: str, rule: str, words: str
) -> None:
    """A store no page links yet is a warning (the build goes on); a path through a list
    without an item picked is an error."""
    root = copy_site("astro-collections", tmp_path)
    site = root / "site.toml"
    text = site.read_text("utf-8").replace('android = "links[platform=googleplay].url"', mapping)
    site.write_text(text, encoding="utf-8")
    (f,) = [f for f in load(root).findings if f.rule in ("field-mapping", "unused-mapping")]
    assert f.rule == rule
    assert f.file.endswith("site.toml")
    assert f.severity == ("error" if rule == "field-mapping" else "warning")
    assert text.splitlines()[f.line - 1] == mapping
    assert f.field == "fields.stores.android"
    assert words in f.message


@pytest.mark.parametrize(
    ("mapping", "rule"),
    [
        ('description = "summary"', "field-mapping"),  # required: every page needs it
        ('weight = "order"', "unused-mapping"),  # optional: pages may set it later
        ('slug = "params.slug"', "unused-mapping"),
    ],
)
def test_a_key_mapping_no_page_has_is_an_error_only_for_a_required_key(
    tmp_path: Path, mapping: str, rule: str
) -> None:
    root = copy_site("astro-collections", tmp_path)
    site = root / "site.toml"
    text = site.read_text("utf-8").replace("[fields.stores]", f"{mapping}\n\n[fields.stores]")
    assert text != site.read_text("utf-8")
    site.write_text(text, encoding="utf-8")
    found = [f for f in load(root).findings if f.rule in ("field-mapping", "unused-mapping")]
    assert [(f.rule, f.field, text.splitlines()[(f.line or 0) - 1]) for f in found] == [
        (rule, f"fields.{mapping.split(maxsplit=1)[0]}", mapping)
    ]
    assert found[0].severity == ("error" if rule == "field-mapping" else "warning")


def test_stores_keyed_by_the_sites_own_names_are_checked_by_kind(tmp_path: Path) -> None:
    # The Next.js site keys its stores appstore and googleplay: no false "no 'android' store
    # link", and SPEC's attribution parameters are checked on the Google Play store.
    root = copy_site("nextjs-mdx", tmp_path)
    site = root / "site.toml"
    site.write_text(
        site.read_text("utf-8").replace(', utm_campaign = "game_catalog"', ""), encoding="utf-8"
    )
    findings = load(root).findings
    (params,) = [f for f in findings if f.rule == "spec-params"]
    assert params.field == "stores.googleplay.params" and "utm_campaign" in params.message
    platform = [f for f in findings if f.rule == "store-platform"]
    assert [Path(f.file).name for f in platform] == ["quiet-orbit.md"]
