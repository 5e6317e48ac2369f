"""Every rule of the registry, each with its rule id, file, line and (where it matters) column."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from catalogctl.content.loader import load, load_catalog
from catalogctl.content.rules.registry import RULES
from catalogctl.errors import ContentInvalid
from catalogctl.findings import Finding
from tests.conftest import SITE_TOML, game_yaml


@dataclass(frozen=True)
class Case:
    rule: str
    games: dict[str, str]
    file: str  # the file the finding names (its end)
    line: int | None
    column: int | None = None
    site: str = SITE_TOML
    words: str = ""
    severity: str | None = None  # default: the rule's default


def g(name: str = "Game", **kw: str) -> str:
    return game_yaml(name, **kw)


OK = {"ok": g("Ok")}

CASES = [
    Case("site-missing", OK, "site.toml", None, site=""),
    Case(
        "games-folder",
        OK,
        "site.toml",
        20,
        9,
        site=SITE_TOML + '\n[content]\ngames = "../elsewhere"\n',
        words="inside the content tree",
    ),
    Case("encoding", {"a": "---\nname: Caf\udce9\n---\n"}, "a.md", 2, 10, words="UTF-8"),
    Case("front-matter", {"a": "# Just markdown\n"}, "a.md", 1, 1, words="no front matter"),
    Case("syntax", {"a": "---\nname: A\nplatforms: [iOS\ngenres: [x]\n---\n"}, "a.md", 4, None),
    Case("limit", {"a": "---\na: " + "[" * 100 + "]" * 100 + "\n---\n"}, "a.md", 2, 67),
    Case(
        "duplicate-key",
        {"a": g("A", extra="name: B\n")},
        "a.md",
        10,
        1,
        words="lines 2 and 10",
    ),
    Case(
        "unknown-key", {"a": g("A", extra="platfroms: [iOS]\n")}, "a.md", 10, 1, words="'platforms'"
    ),
    Case("misspelled-key", {"a": g("A", extra="darft: true\n")}, "a.md", 10, 1, words="'draft'"),
    Case(
        "unknown-setting",
        OK,
        "site.toml",
        12,
        1,
        site=SITE_TOML.replace("[stores.android]", "[store.android]"),
        words="did you mean 'stores'",
    ),
    Case("missing-field", {"a": g("A").replace("description: A game.\n", "")}, "a.md", 1, 1),
    Case("wrong-type", {"a": g("A", platforms="iOS")}, "a.md", 4, 12, words="list"),
    Case("empty-value", {"a": g("A", description='"  "')}, "a.md", 3, 14, words="blank"),
    Case("invalid-id", {"a": g("A", extra='slug: "a b"\n')}, "a.md", 10, 7),
    Case("id-style", {"Delta": g("Delta")}, "Delta.md", 1, 1, words="lowercase"),
    Case("invalid-date", {"a": g("A", extra="publishDate: soon\n")}, "a.md", 10, 14),
    Case("vocabulary", {"a": g("A", platforms="[ios]")}, "a.md", 4, 13, words="'iOS'"),
    Case("duplicate-value", {"a": g("A", genres="[Puzzle, Puzzle]")}, "a.md", 5, 18),
    Case(
        "duplicate-value",
        OK,
        "site.toml",
        6,
        21,
        site=SITE_TOML.replace('genres = ["Puzzle", ', 'genres = ["Puzzle", "puzzle", '),
        words="'puzzle' differs from 'Puzzle' only in case",
    ),
    Case(
        "control-character",
        {"a": g('"A\\e[2J\\u202e"')},
        "a.md",
        2,
        7,
        words="holds U+001B ESCAPE at character 2, a control character",
    ),
    Case(
        "control-character",
        OK,
        "site.toml",
        9,
        8,
        site=SITE_TOML.replace('name = "App Store"', 'name = "App Store\\u202e"'),
        words="holds U+202E RIGHT-TO-LEFT OVERRIDE at character 10, a bidirectional override",
    ),
    Case(
        "invisible-character",
        {"a": g("A", platforms='["i\\u200bOS", Android]')},
        "a.md",
        4,
        13,
        words="'i\\u200bOS' holds U+200B ZERO WIDTH SPACE",
    ),
    Case("invalid-url", {"a": g("A", icon="http://cdn.example/i.png")}, "a.md", 6, 7),
    Case(
        "unknown-store",
        {"a": g("A").replace("  ios:", "  iso:")},
        "a.md",
        8,
        8,
        words="did you mean 'ios'",
    ),
    Case(
        "store-url",
        {"a": g("A", ios="https://chromewebstore.google.com/detail/x/abc")},
        "a.md",
        8,
        8,
        words="apps.apple.com",
    ),
    Case(
        "store-host",
        {"a": g("A", extra="  itch: https://github.com/studio/a\n")},
        "a.md",
        10,
        9,
        site=SITE_TOML + '\n[stores.itch]\nname = "itch.io"\n',
        words="'github.com' to [stores.itch] hosts",
    ),
    Case("store-platform", {"a": g("A", android=None)}, "a.md", 4, 18, words="Google Play"),
    Case(
        "base-url",
        OK,
        "site.toml",
        1,
        12,
        site=SITE_TOML.replace('example.com"', 'example.com/"', 1),
    ),
    Case("game-url", OK, "site.toml", 4, 12, site=SITE_TOML.replace("games/{id}/", "games/")),
    Case("store-params", OK, "site.toml", 10, 17, site=SITE_TOML.replace('"123456"', '"12ab"')),
    Case(
        "spec-params",
        OK,
        "site.toml",
        10,
        10,
        site=SITE_TOML.replace(', mt = "8"', ""),
        words="'mt'",
    ),
    Case(
        "api-lifecycle",
        OK,
        "site.toml",
        16,
        1,
        site=SITE_TOML.replace('status = "supported"', 'status = "deprecated"'),
    ),
    Case(
        "api-lifecycle",
        OK,
        "site.toml",
        18,
        10,
        site=SITE_TOML.replace(
            'status = "supported"',
            'status = "deprecated"\nsunset = 9999-12-31T23:59:59-14:00\n'
            'deprecation = 9999-01-01\nmigration = "https://games.example.com/v2"',
        ),
        words="9999-12-31T23:59:59-14:00 is, in UTC, outside the years 1 to 9999",
    ),
    Case(
        "api-lifecycle",
        OK,
        "site.toml",
        18,
        10,
        site=SITE_TOML.replace(
            'status = "supported"',
            'status = "deprecated"\nsunset = 9999-12-31\n'
            'deprecation = 9999-12-01\nmigration = "https://games.example.com/v2"',
        ),
        words="30 days after deprecation, and the API contract (§9) gives clients at least "
        "90; set deprecation at least 90 days before it",
    ),
    Case(
        "migration-link",
        OK,
        "site.toml",
        16,
        1,
        site=SITE_TOML.replace(
            'status = "supported"', 'status = "deprecated"\ndeprecation = 2027-01-01'
        ),
    ),
    Case(
        "body-links",
        OK,
        "site.toml",
        19,
        1,
        site=SITE_TOML.replace(
            "[api.v1]",
            '[content]\nbody_links = true\n\n[stores.kong]\nname = "Kongregate"\n\n[api.v1]',
        ),
        words="does not know where the links of 'Kongregate' point",
    ),
    Case(
        "store-hosts",
        OK,
        "site.toml",
        18,
        24,
        site=SITE_TOML.replace(
            "[api.v1]",
            '[stores.steam]\nname = "Steam"\n'
            'hosts = ["ok.example", "https://store.steampowered.com/"]\n\n[api.v1]',
        ),
        words="write the host alone: 'store.steampowered.com'",
    ),
    Case(
        "field-mapping",
        OK,
        "site.toml",
        9,
        8,
        site=SITE_TOML.replace("[stores.ios]", '[fields]\nname = "a..b"\n\n[stores.ios]'),
    ),
    Case(
        "unused-mapping",
        OK,
        "site.toml",
        9,
        9,
        site=SITE_TOML.replace(
            "[stores.ios]",
            '[fields.stores]\nsteam = "steamUrl"\n\n[stores.steam]\nname = "Steam"\n\n[stores.ios]',
        ),
        words="no page has 'steamUrl' yet",
    ),
    Case(
        "unused-exclude",
        OK,
        "site.toml",
        20,
        21,
        site=SITE_TOML + '\n[content]\nexclude = ["ok.md", "privacy-polcy.md"]\n',
        words="'privacy-polcy.md' names no page of the games folder",
    ),
    Case(
        "unlinked-store",
        OK,
        "site.toml",
        8,
        1,
        site=SITE_TOML.replace("[stores.ios]", '[stores.steam]\nname = "Steam"\n\n[stores.ios]'),
        words="no page links 'Steam' yet",
    ),
    Case(
        "rule-config",
        OK,
        "site.toml",
        9,
        1,
        site=SITE_TOML.replace("[stores.ios]", '[rules]\nsyntax = "off"\n\n[stores.ios]'),
    ),
    Case(
        "duplicate-id",
        {"a": g("A"), "b": g("B", extra="slug: a\n")},
        "b.md",
        10,
        7,
        words="also used by",
    ),
    Case(
        "id-case",
        {"a": g("A"), "b": g("B", extra="slug: A\n")},
        "b.md",
        10,
        7,
        words="differs only in case from 'a'",
    ),
    Case("empty-catalog", {"a": g("A", extra="draft: true\n")}, "games", None),
]


def make(tmp_path: Path, case: Case) -> Path:
    root = tmp_path / "content"
    (root / "games").mkdir(parents=True)
    if case.site:
        (root / "site.toml").write_text(case.site, encoding="utf-8")
    for name, text in case.games.items():
        (root / "games" / f"{name}.md").write_bytes(text.encode("utf-8", "surrogateescape"))
    return root


def found(root: Path, rule: str) -> list[Finding]:
    return [f for f in load(root).findings if f.rule == rule]


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_rule_finding_names_file_line_and_column(tmp_path: Path, case: Case) -> None:
    root = make(tmp_path, case)
    mine = [f for f in found(root, case.rule) if f.file.endswith(case.file)]
    assert mine, [(f.rule, f.line, f.message) for f in load(root).findings]
    f = mine[0]
    assert f.file.endswith(case.file), f
    assert f.line == case.line, f
    if case.column is not None:
        assert f.column == case.column, f
    assert case.words in f.message, f.message
    assert f.severity == (case.severity or RULES[case.rule].severity)
    assert f.to_json()["rule"] == case.rule


HOSTILE_RULES = {  # tested with real files in test_content_hostile.py
    "not-a-file",
    "broken-symlink",
    "symlink-outside",
    "file-name",
    "unreadable-file",
    "parser-crash",
    "portable-name",  # in test_content_os.py: a name Windows cannot hold is made where it can be
}


def test_every_rule_of_the_registry_is_tested() -> None:
    assert {c.rule for c in CASES} | HOSTILE_RULES == set(RULES)


def test_a_mapping_of_the_wrong_type_is_one_finding_without_pydantics_words(
    tmp_path: Path,
) -> None:
    """`[fields] name = 5`: findings at the value, none naming a type of catalogctl's own
    models (`fields.name.dict[str,str]`), each once."""
    root = make(
        tmp_path, Case("wrong-type", OK, "site.toml", 1, site=SITE_TOML + "\n[fields]\nname = 5\n")
    )
    fields = [f.field for f in load(root).findings if f.file.endswith("site.toml")]
    assert fields and set(fields) == {"fields.name"}
    assert len([f for f in load(root).findings if f.rule == "wrong-type"]) == 1


def test_rules_settings_turn_a_rule_down_or_off(tmp_path: Path) -> None:
    case = Case("misspelled-key", {"a": g("A", extra="darft: true\n")}, "a.md", 11)
    root = make(tmp_path, case)
    site = root / "site.toml"
    site.write_text(SITE_TOML + '\n[rules]\nmisspelled-key = "warning"\n', encoding="utf-8")
    assert [f.severity for f in found(root, "misspelled-key")] == ["warning"]
    site.write_text(SITE_TOML + '\n[rules]\nmisspelled-key = "off"\n', encoding="utf-8")
    assert found(root, "misspelled-key") == []


def test_a_misspelled_draft_key_never_publishes_silently(tmp_path: Path) -> None:
    root = make(tmp_path, Case("misspelled-key", {"a": g("A", extra="darft: true\n")}, "a.md", 1))
    with pytest.raises(ContentInvalid):
        load_catalog(root)


def test_store_url_of_the_wrong_kind_is_published_without_attribution(tmp_path: Path) -> None:
    url = "https://chromewebstore.google.com/detail/x/abc"
    site = SITE_TOML + '\n[rules]\nstore-url = "warning"\n'
    root = make(tmp_path, Case("store-url", {"a": g("A", ios=url)}, "a.md", 1, site=site))
    (game,) = load_catalog(root).games
    assert game["stores"][0] == {"name": "App Store", "url": url}
    assert "pt=" in game["stores"][1]["url"] or "utm_source=" in game["stores"][1]["url"]


ITCH_AND_STEAM = (
    SITE_TOML
    + '\n[stores.itch]\nname = "itch.io"\n\n[stores.steam]\nname = "Steam"\n'
    + '\n[fields.stores]\nitch = "externalUrl"\nsteam = "externalUrl"\n'
)


def test_a_link_on_another_known_stores_host_is_an_error(tmp_path: Path) -> None:
    steam = "  itch: https://store.steampowered.com/app/1/A/\n"
    site = SITE_TOML + '\n[stores.itch]\nname = "itch.io"\n'
    root = make(tmp_path, Case("store-url", {"a": g("A", extra=steam)}, "a.md", 1, site=site))
    (f,) = found(root, "store-url")
    assert (f.line, f.column, f.field, f.severity) == (10, 9, "stores.itch", "error")
    assert "links Steam (store.steampowered.com), not 'itch.io'" in f.message
    assert "[stores.steam]" in f.message


def test_a_shared_key_and_the_stores_table_each_give_their_store(tmp_path: Path) -> None:
    """The table gives itch, the shared key a Steam link: no clash, both published; the
    same store in both is a clash."""
    page = g("A", extra="  itch: https://studio.itch.io/a\n").replace(
        "stores:", "externalUrl: https://store.steampowered.com/app/1/\nstores:"
    )
    root = make(tmp_path, Case("duplicate-key", {"a": page}, "a.md", 1, site=ITCH_AND_STEAM))
    assert found(root, "duplicate-key") == []
    (game,) = load_catalog(root).games
    assert [s["name"] for s in game["stores"]] == ["App Store", "Google Play", "itch.io", "Steam"]
    twice = page.replace("store.steampowered.com/app/1/", "studio.itch.io/other")
    root = make(
        tmp_path / "twice", Case("duplicate-key", {"a": twice}, "a.md", 1, site=ITCH_AND_STEAM)
    )
    (clash,) = found(root, "duplicate-key")
    assert "store 'itch' is given twice, in stores.itch and externalUrl" in clash.message


def test_a_stores_value_that_is_no_table_is_reported_beside_fields_stores(
    tmp_path: Path,
) -> None:
    page = (
        "---\nname: A\ndescription: A game.\nplatforms: [iOS]\ngenres: [Puzzle]\n"
        "icon: /a.png\nstores: [1, 2]\nexternalUrl: https://studio.itch.io/a\n---\n"
    )
    root = make(tmp_path, Case("wrong-type", {"a": page}, "a.md", 1, site=ITCH_AND_STEAM))
    (f,) = found(root, "wrong-type")
    assert f.field == "stores" and "not a list" in f.message


def test_a_bundles_id_with_spaces_is_not_told_to_rename_its_file(tmp_path: Path) -> None:
    root = tmp_path / "content"
    (root / "games" / "sp ace").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    (root / "games" / "sp ace" / "index.md").write_text(g("A"), encoding="utf-8")
    (f,) = found(root, "invalid-id")
    assert "set a slug such as 'sp-ace'" in f.message and "name the file" not in f.message


def test_an_id_with_spaces_is_told_both_fixes(tmp_path: Path) -> None:
    root = make(tmp_path, Case("invalid-id", {"GS Map Editor": g("A")}, "GS Map Editor.md", 1))
    (f,) = found(root, "invalid-id")
    assert "set a slug such as 'gs-map-editor'" in f.message
    assert "or name the file 'GS-Map-Editor' (and its extension)" in f.message


def test_a_link_of_another_store_of_the_site_names_that_store(tmp_path: Path) -> None:
    site = SITE_TOML + '\n[stores.itch]\nname = "itch.io"\n\n[stores.mysteam]\nname = "Steam"\n'
    links = "  itch: https://store.steampowered.com/app/1/\n  mysteam: https://x.itch.io/a\n"
    root = make(tmp_path, Case("store-url", {"a": g("A", extra=links)}, "a.md", 1, site=site))
    messages = " | ".join(f.message for f in found(root, "store-url"))
    assert "give the link under 'itch', the store of site.toml on x.itch.io" in messages
    assert "give the link under 'mysteam', the store of site.toml on store" in messages


def test_a_link_on_its_own_stores_other_host_is_store_host(tmp_path: Path) -> None:
    """hosts = ["studio.itch.io"] leaves other.itch.io out: a store-host warning, not a
    claim that the link is another store's."""
    link = "  itch: https://other.itch.io/a\n"
    site = SITE_TOML + '\n[stores.itch]\nname = "itch.io"\nhosts = ["studio.itch.io"]\n'
    root = make(tmp_path, Case("store-host", {"a": g("A", extra=link)}, "a.md", 1, site=site))
    assert [f.rule for f in load(root).findings] == ["store-host"]


@pytest.mark.parametrize(
    ("key", "link"),
    [
        ("itch", "https://studio.itch.io/"),
        ("steam", "https://store.steampowered.com/developer/studio"),
        ("ios", "https://apps.apple.com/us/developer/studio/id123"),
    ],
)
def test_a_link_to_a_studios_page_on_a_store_is_store_host(
    tmp_path: Path, key: str, link: str
) -> None:
    """A studio's page on itch.io, its developer page on Steam or Google Play, is not the
    game's: a store-host warning at the link. (Google Play's developer page is a store-url
    error: a Google Play link names the app's package.)"""
    site = SITE_TOML + '\n[stores.itch]\nname = "itch.io"\n\n[stores.steam]\nname = "Steam"\n'
    page = g("A", ios=link) if key == "ios" else g("A", extra=f"  {key}: {link}\n")
    root = make(tmp_path, Case("store-host", {"a": page}, "a.md", 1, site=site))
    findings = [f for f in load(root).findings if f.rule in ("store-host", "store-url")]
    assert [(f.rule, f.severity, f.field) for f in findings] == [
        ("store-host", "warning", f"stores.{key}")
    ]
    assert "that is not a game's" in findings[0].message


def test_a_key_shared_by_stores_gives_each_link_to_the_store_of_its_host(tmp_path: Path) -> None:
    pages = {
        "a": g("A", extra="externalUrl: https://studio.itch.io/a\n"),
        "b": g("B", extra="externalUrl: https://store.steampowered.com/app/2/B/\n"),
        "c": g("C", extra="externalUrl: https://github.com/studio/c\n"),
    }
    root = make(tmp_path, Case("store-host", pages, "c.md", 1, site=ITCH_AND_STEAM))
    result = load(root)
    (f,) = [f for f in result.findings if f.rule in ("store-host", "store-url")]
    assert (f.rule, f.file.endswith("c.md"), f.line, f.field) == (
        "store-host",
        True,
        10,
        "externalUrl",
    )
    assert "store 'itch.io'" in f.message  # the first store reading the key
    stores = {g["id"]: [s["name"] for s in g["stores"]] for g in load_catalog(root).games}
    assert stores == {
        "a": ["App Store", "Google Play", "itch.io"],
        "b": ["App Store", "Google Play", "Steam"],
        "c": ["App Store", "Google Play", "itch.io"],
    }


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://apps.apple.com/app/x/id123", True),
        ("https://itunes.apple.com/us/app/x/id123?mt=8", True),
        ("https://apps.apple.com/app/x", False),
        ("http://apps.apple.com/app/x/id123", False),
        ("https://apps.apple.com.evil.example/app/x/id123", False),
    ],
)
def test_apple_store_urls(tmp_path: Path, url: str, ok: bool) -> None:
    root = make(tmp_path, Case("store-url", {"a": g("A", ios=url)}, "a.md", 1))
    rules = {f.rule for f in load(root).findings if f.severity == "error"}
    assert (not rules) is ok, rules


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://play.google.com/store/apps/details?id=com.example.game", True),
        ("https://play.google.com/store/apps/details?id=com.example.game&hl=fr", True),
        ("https://play.google.com/store/apps/details?id=game", False),
        ("https://play.google.com/store/apps/dev?id=123", False),
        ("https://play.google.com/store/apps/details?id=com.a&id=com.b", False),
    ],
)
def test_google_play_store_urls(tmp_path: Path, url: str, ok: bool) -> None:
    root = make(tmp_path, Case("store-url", {"a": g("A", android=url)}, "a.md", 1))
    rules = {f.rule for f in load(root).findings if f.severity == "error"}
    assert (not rules) is ok, rules


def test_column_points_into_flow_mappings_and_multiline_values(tmp_path: Path) -> None:
    text = (
        "---\nname: A\ndescription: >\n  A long\n  description.\n"
        "platforms: [iOS, Android]\ngenres: [Puzzle]\nicon: /i.png\n"
        "stores: {ios: 'https://apps.apple.com/app/a/id1', android: ftp://x}\n---\n"
    )
    root = make(tmp_path, Case("invalid-url", {"a": text}, "a.md", 1))
    (f,) = found(root, "invalid-url")
    assert (f.line, f.column) == (9, 60)
    assert f.field == "stores.android"


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_toml_and_json_findings_have_positions(tmp_path: Path, fmt: str) -> None:
    if fmt == "toml":
        text = (
            '+++\nname = "A"\ndescription = "d"\nplatforms = ["iOS", "Andriod"]\n'
            'genres = ["Puzzle"]\nicon = "/i.png"\n[stores]\n'
            'ios = "https://apps.apple.com/app/a/id1"\n+++\n'
        )
        where = (4, 21)
    else:
        text = (
            '{"name": "A", "description": "d",\n "platforms": ["iOS", "Andriod"],\n'
            ' "genres": ["Puzzle"], "icon": "/i.png",\n'
            ' "stores": {"ios": "https://apps.apple.com/app/a/id1"}}\n'
        )
        where = (2, 23)
    root = make(tmp_path, Case("vocabulary", {"a": text}, "a.md", 1))
    (f,) = found(root, "vocabulary")
    assert (f.line, f.column) == where
    assert "did you mean 'Android'" in f.message


def test_toml_duplicate_key_names_both_lines(tmp_path: Path) -> None:
    text = '+++\nname = "A"\ndescription = "d"\nname = "B"\n+++\n'
    root = make(tmp_path, Case("duplicate-key", {"a": text}, "a.md", 1))
    (f,) = found(root, "duplicate-key")
    assert (f.line, f.column) == (4, 1)
    assert "lines 2 and 4" in f.message


def test_order_is_hugo_order(tmp_path: Path) -> None:
    games = {
        "a": g("Alpha"),
        "b": g("Beta", extra="date: 2024-01-01\n"),
        "c": g("Gamma", extra="date: 2024-06-01\n"),
        "w0": g("Zero", extra="weight: 0\n"),
        "w2": g("Two", extra="weight: 2\n"),
        "w1": g("One", extra="weight: 1\ndate: 2020-01-01\n"),
        "d": g("Alpha"),  # same name as a, no date: by id
    }
    root = make(tmp_path, Case("x", games, "", None))
    assert [x["id"] for x in load_catalog(root).games] == ["w1", "w2", "c", "b", "a", "d", "w0"]


def test_read_summary_counts_every_kind_of_page(tmp_path: Path) -> None:
    games = {
        "a": g("A"),
        "d": g("D", extra="draft: true\n"),
        "s": g("S", extra="publishDate: 2999-01-01\n"),
        "e": g("E", extra="expiryDate: 2001-01-01T00:00:00Z\n"),
        "a.fr": g("A fr"),
        "_index": "---\ntitle: Games\n---\n",
    }
    root = make(tmp_path, Case("x", games, "", None))
    (root / "games" / "notes.txt").write_text("x")
    summary = load_catalog(root).summary
    assert summary.to_json() | {} == {
        "pages": 4,
        "published": 1,
        "drafts": 1,
        "scheduled": 1,
        "expired": 1,
        "failed": 0,
        "unchecked": 0,
        "outside_category": 0,
        "translations": 1,
        "sections": 1,
        "resources": 0,
        "excluded": 0,
        "ignored": 1,
        "ignored_by_extension": {".txt": 1},
    }
    assert "1 draft" in summary.describe() and "1 translation" in summary.describe()


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        # TOML 1.1 only: an inline table over two lines, a trailing comma, \e, a time without
        # seconds. Hugo (go-toml) and Zola read TOML 1.0 and refuse each of them.
        ('name = "A"\nstores = { ios = "https://apps.apple.com/app/id1",\n}\n', 3),
        ('name = "A"\nstores = { ios = "https://apps.apple.com/app/id1", }\n', 3),
        ('name = "A\\e"\n', 2),
        ('name = "A"\nstart = 10:30\n', 3),
    ],
)
def test_toml_front_matter_is_toml_1_0(tmp_path: Path, toml: str, line: int) -> None:
    root = make(tmp_path, Case("syntax", {"a": f"+++\n{toml}+++\n"}, "a.md", line))
    (f,) = found(root, "syntax")
    assert f.line == line, f


@pytest.mark.parametrize(
    ("encoding", "words"),
    [
        ("utf-16", "UTF-16 (little-endian), with a byte-order mark"),
        ("utf-16-be", "UTF-16 (big-endian);"),
        ("utf-16-le", "UTF-16 (little-endian);"),
        ("utf-32", "UTF-32 (little-endian), with a byte-order mark"),
        ("utf-32-be", "UTF-32 (big-endian);"),
    ],
)
def test_a_wide_encoding_is_named(tmp_path: Path, encoding: str, words: str) -> None:
    root = make(tmp_path, Case("encoding", OK, "", None))
    (root / "games" / "wide.md").write_bytes(g("Wide").encode(encoding))
    (f,) = found(root, "encoding")
    assert f.file.endswith("wide.md") and (f.line, f.column) == (1, 1)
    assert words in f.message and "save it as UTF-8" in f.message


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    root = make(tmp_path, Case("x", OK, "", None))
    (root / "games" / "bom.md").write_bytes(g("Bom").encode("utf-8-sig"))
    (root / "site.toml").write_bytes(SITE_TOML.encode("utf-8-sig"))
    assert sorted(x["id"] for x in load_catalog(root).games) == ["bom", "ok"]


def test_a_wide_site_toml_is_named(tmp_path: Path) -> None:
    root = make(tmp_path, Case("x", OK, "", None))
    (root / "site.toml").write_bytes(SITE_TOML.encode("utf-16"))
    (f,) = found(root, "encoding")
    assert f.file.endswith("site.toml") and "UTF-16" in f.message


def test_mdx_pages_are_read_like_markdown(tmp_path: Path) -> None:
    page = g("Mdx").replace("Body.\n", 'import Trailer from "./Trailer";\n\n<Trailer />\n')
    root = make(tmp_path, Case("x", {"ok": g("Ok")}, "", None))
    (root / "games" / "mdx-game.mdx").write_text(page, encoding="utf-8")
    assert sorted(x["id"] for x in load_catalog(root).games) == ["mdx-game", "ok"]


def test_each_page_is_counted_once_and_drafts_with_problems_are_drafts(tmp_path: Path) -> None:
    games = {
        "a": g("A"),
        "d1": g("D1", extra="draft: true\n"),
        "d2": g("D2", genres="[Puzzel]", extra="draft: true\n").replace("name: D2\n", ""),
        "bad": g("Bad", icon="ftp://x"),
        "sched": g("S", extra="publishDate: 2999-01-01\n"),
        "gone": g("E", extra="expiryDate: 2001-01-01\n"),
    }
    root = make(tmp_path, Case("x", games, "", None))
    content = load(root)
    s = content.summary
    assert (s.pages, s.published, s.drafts, s.scheduled, s.expired, s.failed) == (6, 1, 2, 1, 1, 1)
    assert s.pages == s.published + s.drafts + s.scheduled + s.expired + s.failed + s.unchecked
    assert [f.severity for f in content.findings if f.file.endswith("d2.md")] == ["warning"] * 2
    assert len(content.errors) == 1  # the icon of bad.md
    assert "2 drafts" in s.describe() and "1 with errors" in s.describe()


def test_pages_without_readable_settings_are_counted_not_checked(tmp_path: Path) -> None:
    root = make(tmp_path, Case("x", {"a": g("A"), "b": "# no front matter\n"}, "", None))
    (root / "site.toml").write_text("base_url = [\n", encoding="utf-8")
    s = load(root).summary
    assert (s.pages, s.unchecked, s.failed) == (2, 1, 1)
    assert "1 not checked" in s.describe()


LATEST = "9999-12-31T23:59:59-14:00"  # 10000-01-01 13:59:59 UTC: past a datetime's years
EARLIEST = "0001-01-01T00:00:00+14:00"  # 0000-12-31 10:00:00 UTC: before them


def _page(kind: str, name: str, key: str | None, value: str) -> str:
    """A valid page in YAML, TOML or JSON front matter, with `key` set to the date `value`."""
    stores = {"ios": "https://apps.apple.com/app/game/id1"}
    if kind == "yaml":
        return g(name, extra=f"{key}: {value}\n" if key else "")
    if kind == "toml":
        line = f"{key} = {value}\n" if key else ""
        return (
            f'+++\nname = "{name}"\ndescription = "D."\nplatforms = ["iOS", "Android"]\n'
            f'genres = ["Puzzle"]\nicon = "/i.png"\n{line}[stores]\nios = "{stores["ios"]}"\n'
            'android = "https://play.google.com/store/apps/details?id=com.example.game"\n+++\n'
        )
    import json

    data = {
        "name": name,
        "description": "D.",
        "platforms": ["iOS", "Android"],
        "genres": ["Puzzle"],
        "icon": "/i.png",
        "stores": {
            **stores,
            "android": "https://play.google.com/store/apps/details?id=com.example.game",
        },
    }
    if key:
        data[key] = value
    return json.dumps(data) + "\n"


@pytest.mark.parametrize("kind", ["yaml", "toml", "json"])
def test_dates_at_the_ends_of_the_calendar_compare_without_leaving_it(
    tmp_path: Path, kind: str
) -> None:
    """Dates whose UTC time is outside the years a datetime holds are compared as they are:
    as `date` they order, as `publishDate` and `expiryDate` they schedule and expire."""
    games = {
        "latest": _page(kind, "Latest", "date", LATEST),
        "utc": _page(kind, "Utc", "date", "9999-12-31T23:59:59Z"),
        "earliest": _page(kind, "Earliest", "date", EARLIEST),
        "later": _page(kind, "Later", "publishDate", LATEST),
        "long-ago": _page(kind, "Long Ago", "publishDate", EARLIEST),
        "gone": _page(kind, "Gone", "expiryDate", EARLIEST),
        "lasting": _page(kind, "Lasting", "expiryDate", LATEST),
    }
    root = make(tmp_path, Case("x", games, "", None))
    content = load(root)
    assert content.errors == []
    # Newest first: 9999-12-31T23:59:59-14:00 is 14 hours after 9999-12-31T23:59:59Z.
    published = [x["id"] for x in content.published()]
    assert published[:3] == ["latest", "utc", "earliest"]  # dated games first
    states = {e.id: e.state for e in content.entries}
    assert states == {
        "latest": "published",
        "utc": "published",
        "earliest": "published",
        "later": "scheduled",
        "long-ago": "published",
        "gone": "expired",
        "lasting": "published",
    }


def test_sunset_with_an_offset_is_sent_in_gmt() -> None:
    """An HTTP date is in GMT: a sunset written with an offset is converted, not refused."""
    import datetime as dt

    from catalogctl.contract.publication import Lifecycle
    from catalogctl.contract.routes import lifecycle_headers

    two = dt.timezone(dt.timedelta(hours=2))
    sunset = dt.datetime(2027, 6, 1, 1, 30, tzinfo=two)
    headers = dict(lifecycle_headers(Lifecycle("deprecated", dt.date(2027, 1, 1), sunset, None)))
    assert headers["Sunset"] == "Mon, 31 May 2027 23:30:00 GMT"
    assert headers["Deprecation"] == "@1798761600"


@pytest.mark.parametrize(
    ("platforms", "words"),
    [("[Android]", "has an Apple link ('ios')"), ("[iOS]", "has a Google Play link ('android')")],
)
def test_a_store_link_without_its_platform_is_named_in_plain_words(
    tmp_path: Path, platforms: str, words: str
) -> None:
    root = make(tmp_path, Case("x", {"a": g("A", platforms=platforms)}, "", None))
    (f,) = [f for f in load(root).findings if f.rule == "store-platform"]
    assert f.message.startswith(words)


@pytest.mark.parametrize(
    ("games", "site", "field"),
    [
        ({"a": g("A", description='""')}, SITE_TOML, "description"),
        (OK, SITE_TOML.replace('title = "Example Games"', 'title = ""'), "title"),
    ],
)
def test_an_empty_string_is_a_blank_value_in_words(
    tmp_path: Path, games: dict[str, str], site: str, field: str
) -> None:
    root = make(tmp_path, Case("x", games, "", None, site=site))
    (f,) = [f for f in load(root).findings if f.field == field]
    assert (f.rule, f.message) == ("empty-value", "is blank; give it a value")


@pytest.mark.parametrize("empty", ["", '""', "' '", "~"])
def test_a_store_key_left_empty_gives_no_link(tmp_path: Path, empty: str) -> None:
    """A page template leaves the stores a game is not in yet empty (`ios:`): the game lists
    the stores it links, with no finding; a store no page links is the site's warning."""
    page = g("A", platforms="[Android]", ios=empty or " ")
    root = make(tmp_path, Case("x", {"a": page}, "", None))
    assert [f.rule for f in load(root).findings] == ["unlinked-store"]
    (game,) = load_catalog(root).games
    assert [store["name"] for store in game["stores"]] == ["Google Play"]


@pytest.mark.parametrize(
    ("table", "mapped"),
    [
        ("  android: https://play.google.com/store/apps/details?id=a.b\n", "''"),
        ("  android: ''\n", "https://play.google.com/store/apps/details?id=a.b"),
    ],
)
def test_an_empty_store_key_neither_hides_nor_clashes_with_the_same_stores_link(
    tmp_path: Path, table: str, mapped: str
) -> None:
    """A store given in the stores table and left empty under the key [fields.stores] maps
    (or the other way round) is given once: the link is listed, with no duplicate-key."""
    site = SITE_TOML + '\n[fields.stores]\nandroid = "params.play"\n'
    page = g("A", platforms="[Android]", ios=None, android=None).replace(
        "stores:\n", f"stores:\n{table}params:\n  play: {mapped}\n"
    )
    root = make(tmp_path, Case("x", {"a": page}, "", None, site=site))
    assert [f.rule for f in load(root).findings if f.file.endswith("a.md")] == []
    (game,) = load_catalog(root).games
    assert [store["name"] for store in game["stores"]] == ["Google Play"]


def test_a_stores_table_of_empty_links_is_told_where_a_link_goes(tmp_path: Path) -> None:
    page = g("A", ios="''", android=" ")
    root = make(tmp_path, Case("x", {"a": page}, "", None))
    (f,) = [f for f in load(root).findings if f.file.endswith("a.md")]
    assert (f.rule, f.field) == ("empty-value", "stores")
    assert f.message == "links no store: give a link in 'stores' (a key left empty gives no link)"


def test_a_page_whose_store_keys_are_all_empty_is_told_which_keys_give_a_link(
    tmp_path: Path,
) -> None:
    site = SITE_TOML + '\n[fields.stores]\nios = "appstore"\nandroid = "params.play"\n'
    page = g("A", ios=None, android=None).replace("stores:\n", "appstore: ''\nparams:\n  play:\n")
    ok = g("B", ios=None, android=None).replace(
        "stores:\n", "appstore: https://apps.apple.com/app/b/id2\n"
    )
    root = make(tmp_path, Case("x", {"a": page, "b": ok}, "", None, site=site))
    (f,) = [f for f in load(root).findings if f.file.endswith("a.md")]
    assert (f.rule, f.field) == ("missing-field", "stores")
    assert f.message == (
        "links no store: give a link in 'appstore', 'params.play' or 'stores' (a key left "
        "empty gives no link)"
    )
    # docs/content/format.md shows this finding
    page = (Path(__file__).parent.parent / "docs" / "content" / "format.md").read_text()
    assert f"games/a.md:1:1: error missing-field · stores: {f.message}\n" in page


def test_a_missing_mapped_key_names_the_catalog_key_it_stands_for(tmp_path: Path) -> None:
    site = SITE_TOML + '\n[fields]\nicon = "mainImage"\n'
    page = g("A").replace("icon: /icons/game.png\n", "")
    root = make(tmp_path, Case("x", {"a": page}, "", None, site=site))
    (f,) = found(root, "missing-field")
    assert f.field == "mainImage"
    assert f.message == (
        "the required key 'mainImage' (the catalog's 'icon', as [fields] maps it) is missing; "
        "add it"
    )


@pytest.mark.parametrize("icon", ["cover.png", "./cover.png", "images/cover.png"])
def test_a_page_bundles_icon_is_published_at_the_pages_address(tmp_path: Path, icon: str) -> None:
    """A page bundle's `cover.png` (Hugo, Zola), named relative to its page and in the
    bundle, is served beside the page: the catalog gives that address, with no finding."""
    root = tmp_path / "content"
    bundle = root / "games" / "a"
    (bundle / "images").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    (bundle / "index.md").write_text(g("A", icon=icon), encoding="utf-8")
    (bundle / icon).write_bytes(b"\x89PNG")
    assert not load(root).findings
    (game,) = load_catalog(root).games
    assert game["icon"] == "https://games.example.com/games/a/" + icon.removeprefix("./")


@pytest.mark.parametrize(
    ("layout", "suggested"),
    [
        (
            "leaf page, file beside",
            "'/games/a/cover.png', the file beside the page as game_url places it",
        ),
        ("bundle, no such file", "'/cover.png' if the file is at that path of the site"),
        ("bundle, file outside it", "'/../cover.png' if the file is at that path of the site"),
    ],
)
def test_an_icon_relative_to_its_page_is_told_its_site_path(
    tmp_path: Path, layout: str, suggested: str
) -> None:
    """An icon relative to a page that is not a bundle's own file is a finding: it names the
    site path of the file beside the page, else the path from the root."""
    root = tmp_path / "content"
    games = root / "games"
    (games / "a").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    icon = "../cover.png" if "outside" in layout else "cover.png"
    page = games / "a.md" if layout.startswith("leaf") else games / "a" / "index.md"
    page.write_text(g("A", icon=icon), encoding="utf-8")
    if "file" in layout and "no such" not in layout:
        (page.parent / "cover.png").write_bytes(b"\x89PNG")
    (f,) = found(root, "invalid-url")
    assert f.field == "icon" and f.line == 6
    assert f.message == (
        f"is a path relative to the page ({icon!r}), which the catalog cannot serve; write it "
        f"as a path on the site, {suggested}, or as an https:// URL"
    )


@pytest.mark.parametrize("icon", ["n" * 5000, "a/" * 2100 + "cover.png"])
def test_an_icon_path_too_long_to_look_up_is_a_finding(tmp_path: Path, icon: str) -> None:
    """The file beside the page is looked for, and a name longer than the file system takes
    (ENAMETOOLONG) or a path longer than the system's limit is no file there: the finding
    still comes, never an exception."""
    root = tmp_path / "content"
    bundle = root / "games" / "a"
    bundle.mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    (bundle / "index.md").write_text(g("A", icon=icon), encoding="utf-8")
    (f,) = found(root, "invalid-url")
    assert f.field == "icon" and f.line == 6
    assert f.message.startswith("is a path relative to the page")
