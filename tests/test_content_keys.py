"""The site's own keys: allowed in pages, near misses reported by what a typo would publish;
site.toml's unknown keys are errors with a did-you-mean at any depth, at the key's own line."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogctl.content.loader import load, load_catalog
from catalogctl.findings import Finding
from tests.conftest import SITE_TOML, game_yaml


def tree(tmp_path: Path, pages: dict[str, str], site: str = SITE_TOML) -> Path:
    root = tmp_path / "site"
    (root / "games").mkdir(parents=True)
    (root / "site.toml").write_text(site, encoding="utf-8")
    for name, text in pages.items():
        (root / "games" / f"{name}.md").write_text(text, encoding="utf-8")
    return root


def rules(root: Path) -> list[tuple[str, str, str | None]]:
    return [(f.rule, f.severity, f.field) for f in load(root).findings]


def test_unknown_page_keys_are_the_websites(tmp_path: Path) -> None:
    page = game_yaml("A", extra="layout: game\nauthor: Lantern Forge\nfeatured: true\n")
    root = tree(tmp_path, {"a": page})
    assert rules(root) == []
    assert [g["id"] for g in load_catalog(root).games] == ["a"]


@pytest.mark.parametrize(
    ("extra", "rule", "severity", "field"),
    [
        ("platform: [itch.io]\n", "unknown-key", "warning", "platform"),
        ("genre: [Puzzle]\n", "unknown-key", "warning", "genre"),
        ("iocn: /x.png\n", "unknown-key", "warning", "iocn"),
        ("darft: true\n", "misspelled-key", "error", "darft"),
        ("publishdate: 2999-01-01\n", "misspelled-key", "error", "publishdate"),
        ("expirydate: 2001-01-01\n", "misspelled-key", "error", "expirydate"),
        ("sulg: other\n", "misspelled-key", "error", "sulg"),
        ("dat: 2024-01-01\n", "misspelled-key", "error", "dat"),
    ],
)
def test_near_misses_by_what_a_typo_would_publish(
    tmp_path: Path, extra: str, rule: str, severity: str, field: str
) -> None:
    root = tree(tmp_path, {"a": game_yaml("A", extra=extra)})
    assert rules(root) == [(rule, severity, field)]


def test_a_case_only_difference_says_how_to_map_it(tmp_path: Path) -> None:
    root = tree(tmp_path, {"a": game_yaml("A", extra="publishdate: 2999-01-01\n")})
    (f,) = load(root).findings
    assert "case-sensitive" in f.message
    assert '[fields] publishDate = "publishdate"' in f.message


def test_a_jekyll_sites_platform_key_on_every_page_does_not_block_publishing(
    tmp_path: Path,
) -> None:
    pages = {
        f"g{i}": game_yaml(f"Game {i}", extra="platform: [itch.io, Newgrounds]\n")
        for i in range(57)
    }
    root = tree(tmp_path, pages)
    findings = load(root).findings
    assert len(findings) == 57
    assert {(f.rule, f.severity) for f in findings} == {("unknown-key", "warning")}
    assert len(load_catalog(root).games) == 57
    site = root / "site.toml"
    site.write_text(SITE_TOML + '\n[content]\nown_keys = ["platform"]\n', encoding="utf-8")
    assert load(root).findings == []


def test_own_keys_take_dotted_nested_keys(tmp_path: Path) -> None:
    site = SITE_TOML + '\n[fields]\nicon = "params.icon"\n'
    page = game_yaml("A").replace("icon: /icons/game.png\n", "params:\n  icon: /i.png\n  iocn: x\n")
    root = tree(tmp_path, {"a": page}, site)
    assert rules(root) == [("unknown-key", "warning", "params.iocn")]
    site += '\n[content]\nown_keys = ["params.iocn"]\n'
    (root / "site.toml").write_text(site, encoding="utf-8")
    assert rules(root) == []


def test_a_mapped_key_is_the_one_checked(tmp_path: Path) -> None:
    # With name = "title", `titel` is the near miss; the page's own `name` key is its own.
    site = SITE_TOML + '\n[fields]\nname = "title"\n'
    page = game_yaml("A").replace("name: A\n", "title: A\ntitel: B\nnames: [x]\n")
    root = tree(tmp_path, {"a": page}, site)
    assert rules(root) == [("unknown-key", "warning", "titel")]


def site_findings(tmp_path: Path, site: str) -> list[Finding]:
    root = tree(tmp_path, {"a": game_yaml("A")}, site)
    return [f for f in load(root).findings if f.file.endswith("site.toml")]


@pytest.mark.parametrize(
    ("change", "field", "line", "words"),
    [
        (("[stores.android]", "[store.android]"), "store", 12, "did you mean 'stores'"),
        (("[api.v1]", "[api.v2]"), "api.v2", 16, "did you mean 'v1'"),
        (
            ('name = "App Store"', 'name = "App Store"\nkidn = "apple"'),
            "stores.ios.kidn",
            10,
            "did you mean 'kind'",
        ),
        (
            ('title = "Example Games"', 'title = "Example Games"\ntitel = "x"'),
            "titel",
            3,
            "did you mean 'title'",
        ),
        (
            ("[api.v1]", '[content]\ngmaes = "games"\n\n[api.v1]'),
            "content.gmaes",
            17,
            "did you mean 'games'",
        ),
        (
            ('status = "supported"', 'status = "supported"\nsunst = 2030-01-01'),
            "api.v1.sunst",
            18,
            "did you mean 'sunset'",
        ),
        (("[api.v1]", '[params]\ntwitter = "@x"\n\n[api.v1]'), "params", 16, "site.toml takes:"),
    ],
)
def test_site_toml_unknown_keys_are_errors_at_their_line(
    tmp_path: Path, change: tuple[str, str], field: str, line: int, words: str
) -> None:
    findings = site_findings(tmp_path, SITE_TOML.replace(*change))
    (f,) = [f for f in findings if f.rule == "unknown-setting"]
    assert (f.field, f.line, f.severity) == (field, line, "error")
    assert words in f.message


def test_a_misspelled_table_header_in_toml_front_matter_is_at_its_line(tmp_path: Path) -> None:
    site = SITE_TOML + '\n[fields]\nicon = "params.icon"\n'
    page = (
        '+++\nname = "A"\ndescription = "d"\nplatforms = ["iOS"]\ngenres = ["Puzzle"]\n'
        '[stores]\nios = "https://apps.apple.com/app/a/id1"\n\n[parms]\nicon = "/i.png"\n+++\n'
    )
    root = tree(tmp_path, {"a": page}, site)
    found = {f.rule: f for f in load(root).findings}
    assert (found["unknown-key"].line, found["unknown-key"].field) == (9, "parms")
    assert "did you mean 'params'" in found["unknown-key"].message


def test_a_broken_site_value_hides_only_the_checks_that_need_it(tmp_path: Path) -> None:
    site = SITE_TOML.replace('name = "App Store"', "name = 42").replace(
        'title = "Example Games"', "title = 3"
    )
    pages = {
        "a": game_yaml("A", genres="[Puzzel]"),
        "b": game_yaml("B", android="https://web.archive.org/x"),
    }
    root = tree(tmp_path, pages, site)
    got = {(f.rule, f.field, Path(f.file).name) for f in load(root).findings}
    assert got == {
        ("wrong-type", "stores.ios.name", "site.toml"),
        ("wrong-type", "title", "site.toml"),
        # The pages are checked against what validated: the vocabulary, the Google Play store.
        ("vocabulary", "genres.0", "a.md"),
        ("store-url", "stores.android", "b.md"),
    }
