"""control-character and invisible-character: what published text may hold, where each
finding points, and what it hides (nothing but the game's publication)."""

from __future__ import annotations

import json
import time
import unicodedata
from typing import Any

import pytest

from catalogctl.content.loader import load, load_catalog
from catalogctl.content.rules import characters
from catalogctl.content.rules.characters import char_name, text_problems
from catalogctl.errors import ContentInvalid
from catalogctl.findings import Finding
from tests.conftest import SITE_TOML, ContentFactory, game_yaml, one_thread

CONTROL, INVISIBLE = "control-character", "invisible-character"
LOWERED = SITE_TOML + '\n[rules]\ncontrol-character = "warning"\n'


def rules_of(findings: list[Finding]) -> list[tuple[str, str | None, int | None, int | None]]:
    return [(f.rule, f.field, f.line, f.column) for f in findings]


# --- the audit's page -------------------------------------------------------------------------


TOML_PAGE = """\
+++
name = "2048\\u001b[2J\\u0000 Reef\\u202e"
description = "Slide shells together."
platforms = ["iOS"]
genres = ["Puzzle"]
icon = "/icons/reef.png"
[stores]
ios = "https://apps.apple.com/app/reef/id1"
+++
"""


@pytest.mark.parametrize("form", ["yaml", "toml"])
def test_a_name_holding_controls_is_one_error_naming_each(
    make_content: ContentFactory, form: str
) -> None:
    page = game_yaml('"2048\\u001b[2J\\u0000 Reef\\u202e"') if form == "yaml" else TOML_PAGE
    root = make_content({"reef": page, "ok": game_yaml("Ok")})
    content = load(root)
    (f,) = [f for f in content.findings if f.file.endswith("reef.md")]
    column = 7 if form == "yaml" else 8
    assert (f.rule, f.field, f.line, f.column, f.severity) == (CONTROL, "name", 2, column, "error")
    assert f.message == (
        "'2048\\x1b[2J\\x00 Reef\\u202e' holds U+001B ESCAPE at character 5, a control "
        "character, which a terminal acts on instead of showing it; remove it (3 such "
        "characters in the text, among them U+0000 NULL and U+202E RIGHT-TO-LEFT OVERRIDE)"
    )
    # Not published: the page counts as failed, and build refuses the tree.
    assert (content.summary.failed, content.summary.published) == (1, 1)
    with pytest.raises(ContentInvalid):
        load_catalog(root)


def test_the_rule_lowered_to_a_warning_publishes_the_text_as_it_is(
    make_content: ContentFactory,
) -> None:
    root = make_content({"a": game_yaml('"A\\e[2J"')}, site=LOWERED)
    (f,) = load(root).findings
    assert (f.rule, f.severity) == (CONTROL, "warning")
    assert [g["name"] for g in load_catalog(root).games] == ["A\x1b[2J"]


def test_a_draft_holding_controls_has_a_warning(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml('"A\\a"', extra="draft: true\n"), "b": game_yaml("B")})
    assert [(f.rule, f.severity) for f in load(root).findings] == [(CONTROL, "warning")]


# --- which characters -------------------------------------------------------------------------

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x7F, 0xA0)]
BIDI = list("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
HIDDEN = list(
    "\u200b\u2060\u2061\u2064\u206a\u206f\ufeff\ufff9\u115f\u1160\u3164\uffa0\u061c\u200e\u200f"
)


@pytest.mark.parametrize("ch", [*C0, *C1, *BIDI, "\u2028", "\u2029", "\ud800", "\udfff", "\ufffe"])
def test_controls_are_errors_in_one_line_text(ch: str) -> None:
    problems = text_problems(f"Moon{ch}Lander")
    assert list(problems) == [CONTROL], ch
    assert f"holds {char_name(ch)} at character 5" in problems[CONTROL]


@pytest.mark.parametrize("ch", [c for c in [*C0, *C1, *BIDI, "\u2028"] if c not in "\t\n"])
def test_a_description_keeps_only_its_line_breaks_and_tabs(ch: str) -> None:
    assert list(text_problems(f"One.{ch}Two.", lines=True)) == [CONTROL], repr(ch)


@pytest.mark.parametrize("ch", [*HIDDEN, "\U000e0041", "\u200c", "\u200d"])
def test_invisible_characters_are_warnings(ch: str) -> None:
    for text in (f"i{ch}OS", f"{ch}iOS", f"iOS{ch}", f"iOS {ch}"):
        problems = text_problems(text)
        assert list(problems) == [INVISIBLE], repr(text)
        assert f"holds {char_name(ch)}" in problems[INVISIBLE]


ALLOWED = {
    "emoji sequence": "Coder \U0001f469\u200d\U0001f4bb",
    "emoji with a variation selector": "Love \u2764\ufe0f\u200d\U0001f525",
    "Persian, with ZWNJ": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "Devanagari, with ZWJ": "\u0915\u094d\u200d\u0937",
    "a flag of tag characters": "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067"
    "\U000e007f Cup",
    "two flags of tag characters": "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067"
    "\U000e007f\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "Arabic, with an isolate": "\u0644\u0639\u0628\u0629 \u2066Moon Lander\u2069",
    "Hebrew, with nested isolates": "\u05de\u05e9\u05d7\u05e7 \u2067\u05d0 \u2068x\u2069\u2069"
    " \u2066y\u2069",
    "an embedding popped": "\u202bHello \u05e9\u05dc\u05d5\u05dd\u202c \u202aMoon\u202c",
    "an embedding in an isolate": "\u2067\u202aMoon\u202c\u2069",
    "a Malayalam chillu (old encoding)": "\u0d05\u0d35\u0d28\u0d4d\u200d \u0d35\u0d28\u0d4d"
    "\u0d28\u0d41",
    "a Malayalam chillu at the end": "\u0d05\u0d35\u0d28\u0d4d\u200d",
    "a Bengali khanda-ta (old encoding)": "\u0989\u09ce \u0989\u09a4\u09cd\u200d. x",
    "a ZWNJ after a Persian letter, before a space": "\u0645\u06cc\u200c \u062e",
    "no-break spaces": "Moon\u00a0Lander\u202fII\u2009\u3000",
    "a soft hyphen and combining accents": "Mond\u00adlande Cafe\u0301",
}


@pytest.mark.parametrize("text", list(ALLOWED.values()), ids=list(ALLOWED))
def test_what_text_of_other_scripts_and_emoji_holds_is_allowed(text: str) -> None:
    assert text_problems(text) == {}
    assert text_problems(text, lines=True) == {}


BIDI_BROKEN = {
    "an isolate left open": ("\u0644\u0639\u0628\u0629 \u2066Moon Lander", 6, "left open"),
    "a pop with none open": ("Moon\u2069 Lander", 5, "with none open"),
    "a pop before its isolate": ("\u2069Moon\u2066", 1, "with none open"),
    "an embedding left open": ("\u202bMoon \u2066x\u2069", 1, "left open"),
    "an isolate popped as an embedding": ("\u2066Moon\u202c", 1, "left open"),
    "an override, even popped": ("\u202eMoon\u202c", 1, "a bidirectional override"),
    "an override in an isolate": ("\u2066\u202dMoon\u202c\u2069", 2, "override"),
    "one isolate too many": ("\u2067a\u2066b\u2069", 1, "left open"),
}


@pytest.mark.parametrize("text,at,what", list(BIDI_BROKEN.values()), ids=list(BIDI_BROKEN))
def test_a_bidirectional_control_left_open_or_popped_alone_or_an_override_is_an_error(
    text: str, at: int, what: str
) -> None:
    for lines in (False, True):
        problems = text_problems(text, lines=lines)
        assert list(problems) == [CONTROL], repr(text)
        assert f"holds {char_name(text[at - 1])} at character {at}, " in problems[CONTROL]
        assert what in problems[CONTROL]


def test_a_right_to_left_page_with_isolates_validates_and_builds(
    make_content: ContentFactory,
) -> None:
    name = '"\u0644\u0639\u0628\u0629 \u2066Moon Lander\u2069"'
    root = make_content({"a": game_yaml(name, description='"\u202bHello\u202c."')})
    assert load(root).findings == []
    (game,) = load_catalog(root).games
    assert game["name"] == "\u0644\u0639\u0628\u0629 \u2066Moon Lander\u2069"


TAGS_HIDDEN = {
    "tags after a flag, no cancel tag": "\U0001f3f4\U000e0069\U000e0067\U000e006e",
    "hidden text after a flag": "\U0001f3f4\U000e0049\U000e0047\U000e004e\U000e007f x",
    "hidden text after a whole flag": "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e"
    "\U000e0067\U000e007f\U000e0068\U000e0069",
    "eight tags in a flag": "\U0001f3f4" + "\U000e0061" * 8 + "\U000e007f",
    "a lone cancel tag after a flag": "\U0001f3f4\U000e007f",
    "a space tag": "\U0001f3f4\U000e0020\U000e0061\U000e007f",
}


@pytest.mark.parametrize("text", list(TAGS_HIDDEN.values()), ids=list(TAGS_HIDDEN))
def test_tag_characters_outside_a_flags_tag_sequence_are_warnings(text: str) -> None:
    problems = text_problems(text)
    assert list(problems) == [INVISIBLE], repr(text)
    hidden = [c for c in text if "\U000e0000" <= c <= "\U000e007f"]
    if text.startswith("\U0001f3f4\U000e0067\U000e0062"):  # England's flag, then two
        hidden = hidden[-2:]
    assert (
        f"holds {char_name(hidden[0])} at character {text.index(hidden[0]) + 1},"
        in (problems[INVISIBLE])
    )
    if len(hidden) > 1:
        assert f"({len(hidden)} such characters in the text" in problems[INVISIBLE]


@pytest.mark.parametrize(
    "text",
    ["\u200d\u0d28", "\u0d28 \u200d \u0d28", "a\u200d\u0d28", "\U0001f600\u200d ", "\u0661\u200c!"],
)
def test_a_joiner_after_no_letter_or_mark_is_still_a_warning(text: str) -> None:
    assert list(text_problems(text)) == [INVISIBLE], repr(text)


def test_a_description_may_hold_line_breaks_and_tabs() -> None:
    assert text_problems("One.\nTwo.\r\nThree\tfour.\n", lines=True) == {}
    lone = text_problems("One.\rTwo.", lines=True)[CONTROL]
    assert "a carriage return without a line feed" in lone and "write a newline" in lone
    separator = text_problems("One.\u2028Two.", lines=True)[CONTROL]
    assert "U+2028 LINE SEPARATOR" in separator and "write a newline" in separator


def test_a_name_from_a_block_scalar_is_told_of_its_last_line_break(
    make_content: ContentFactory,
) -> None:
    root = make_content({"a": game_yaml("A").replace("name: A\n", "name: >\n  Moon Lander\n")})
    (f,) = load(root).findings
    assert (f.rule, f.field, f.line) == (CONTROL, "name", 2)
    assert "U+000A LINE FEED at character 12, a line break" in f.message
    assert "unless written >- or |-" in f.message
    page = game_yaml("A").replace("name: A\n", "name: >-\n  Moon\n  Lander\n")
    assert load(make_content({"a": page})).findings == []


def test_a_value_with_both_kinds_has_a_finding_of_each() -> None:
    assert list(text_problems("A\u200b\x1b")) == [INVISIBLE, CONTROL]


def test_a_long_description_is_quoted_around_the_character() -> None:
    message = text_problems("x" * 500 + "\x1b" + "y" * 500, lines=True)[CONTROL]
    assert message.startswith("'…" + "x" * 25 + "\\x1b" + "y" * 24 + "…' holds U+001B ESCAPE")
    assert "at character 501" in message


def test_each_control_is_named_by_its_unicode_alias() -> None:
    for code in [*range(0x20), *range(0x7F, 0xA0)]:
        name = char_name(chr(code)).split(" ", 1)[1]
        assert unicodedata.lookup(name) == chr(code), (hex(code), name)
    assert char_name("\u202e") == "U+202E RIGHT-TO-LEFT OVERRIDE"
    assert char_name("\ud800") == "U+D800"


# --- where -----------------------------------------------------------------------------------


def test_every_published_text_of_a_page_is_checked(make_content: ContentFactory) -> None:
    page = game_yaml(
        '"A\\u200b"',
        description='"Line one.\\nLine\\ttwo.\\e[2J"',
        platforms='["i\\u202eOS", Android]',
        genres='[Puzzle, "\\u2060Arcade"]',
    )
    mine = [f for f in load(make_content({"a": page})).findings if f.rule != "store-platform"]
    found = sorted(rules_of(mine), key=lambda f: f[2:])
    assert found == [
        (INVISIBLE, "name", 2, 7),
        (CONTROL, "description", 3, 14),
        (CONTROL, "platforms.0", 4, 13),
        ("vocabulary", "platforms.0", 4, 13),
        (INVISIBLE, "genres.1", 5, 18),
        ("vocabulary", "genres.1", 5, 18),
    ]


def test_a_key_fields_maps_is_reported_at_the_pages_own_key(make_content: ContentFactory) -> None:
    site = SITE_TOML.replace("[stores.ios]", '[fields]\nname = "title"\n\n[stores.ios]')
    page = game_yaml("A").replace("name: A\n", 'title: "A\\e[31m"\n')
    (f,) = load(make_content({"a": page}, site=site)).findings
    assert (f.rule, f.field, f.line, f.column) == (CONTROL, "title", 2, 8)


def test_a_json_page_is_checked_and_a_lone_surrogate_named(make_content: ContentFactory) -> None:
    page: dict[str, Any] = {
        "name": "A\u202e",
        "description": "One.\r\nTwo.",
        "platforms": ["iOS", "Android"],
        "genres": ["Puzzle"],
        "icon": "/a.png",
        "stores": {
            "ios": "https://apps.apple.com/app/a/id1",
            "android": "https://play.google.com/store/apps/details?id=com.example.a",
        },
    }
    root = make_content({"a": json.dumps(page), "b": json.dumps({**page, "name": "B\ud800"})})
    findings = load(root).findings
    assert [(f.rule, f.file[-4:], f.field) for f in findings] == [
        (CONTROL, "a.md", "name"),
        ("wrong-type", "b.md", "name"),
    ]
    assert "holds U+D800 at character 2, half of a UTF-16 surrogate pair" in findings[1].message


def test_a_blank_platform_is_an_empty_value(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml("A", platforms='[" ", iOS, Android]')})
    assert rules_of(load(root).findings) == [("empty-value", "platforms.0", 4, 13)]


SITE_TEXT = SITE_TOML.replace(
    'title = "Example Games"', 'title = "Example\\u001b]0;x\\u0007 Games"'
).replace(
    'description = "Mobile games by Example Games."',
    'description = """Mobile games\nby\tExample Games.\\u2028"""',
)


def test_site_tomls_published_text_is_checked(make_content: ContentFactory) -> None:
    site = SITE_TEXT.replace('name = "App Store"', 'name = "App\\u00a0Store\\ufeff"')
    found = load(make_content({"a": game_yaml("A")}, site=site)).findings
    assert rules_of(found) == [
        (CONTROL, "title", 2, 9),
        (CONTROL, "description", 3, 15),
        (INVISIBLE, "stores.ios.name", 10, 8),
    ]
    assert "U+2028 LINE SEPARATOR at character 31" in found[1].message


def test_the_vocabularies_of_site_toml_are_names_given_once(make_content: ContentFactory) -> None:
    site = SITE_TOML.replace(
        'platforms = ["iOS", "Android"]',
        'platforms = ["iOS", "iOS", "", " ", "i\\u200bOS", "ios", "Android"]',
    )
    found = load(make_content({"a": game_yaml("A")}, site=site)).findings
    assert [(f.rule, f.field, f.severity) for f in found] == [
        ("duplicate-value", "platforms.1", "warning"),
        ("empty-value", "platforms.2", "error"),
        ("empty-value", "platforms.3", "error"),
        (INVISIBLE, "platforms.4", "warning"),
        ("duplicate-value", "platforms.5", "warning"),
    ]
    assert found[0].message == "'iOS' is listed twice; remove one"
    assert found[4].message.startswith("'ios' differs from 'iOS' only in case")


# --- how --------------------------------------------------------------------------------------


@one_thread
def test_the_parallel_parse_gives_the_same_findings(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch, pool_calls: list[str]
) -> None:
    from catalogctl.content import loader

    games = {
        f"g{i:02d}": game_yaml(
            f'"Game {i}\\e[{i}m"' if i % 3 == 0 else f"Game {i}",
            description='"A game.\\u200b"' if i % 4 == 0 else "A game.",
        )
        for i in range(24)
    }
    root = make_content(games)
    serial = load(root)
    assert {f.rule for f in serial.findings} == {CONTROL, INVISIBLE}
    monkeypatch.setattr(loader, "PARALLEL_THRESHOLD", 10)
    parallel = load(root)
    assert pool_calls == ["fork"]
    assert parallel.findings == serial.findings
    assert parallel.summary == serial.summary


HOSTILE = {
    "joiners beside ASCII": "a\u200d" * 200_000,
    "joiners between letters": "\u0645\u200c" * 200_000,
    "only joiners": "\u200d" * 400_000,
    "tags": "\U000e0041" * 400_000,
    "tags after flags": "\U0001f3f4\U000e0061" * 200_000,
    "isolates open": "\u2066" * 400_000,
    "isolates closed": "\u2066\u2069" * 200_000,
    "pops": "\u202c" * 400_000,
    "chillus": "\u0d28\u0d4d\u200d " * 100_000,
    "escapes": "\x1b[2J" * 100_000,
    "clean": "Moon Lander " * 40_000,
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_value_is_checked_in_time_linear_in_its_length(text: str) -> None:
    """400,000 characters in about a second each way, alone on a core (a pattern that
    backtracked would take hours: the bound, far above, is for a loaded machine); a long
    value is quoted around its first character only."""
    for lines in (False, True):
        start = time.perf_counter()
        problems = text_problems(text, lines=lines)
        assert time.perf_counter() - start < 60
        assert all(len(m) < 1000 for m in problems.values())


def test_the_common_value_costs_one_search(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[str] = []

    class Once:
        def __init__(self, pattern: Any) -> None:
            self.pattern = pattern

        def search(self, text: str) -> Any:
            searched.append(text)
            return self.pattern.search(text)

        def finditer(self, *args: Any) -> Any:
            raise AssertionError("a clean value is searched once")

    monkeypatch.setattr(characters, "_ONE_LINE", Once(characters._ONE_LINE))
    assert text_problems("Moon Lander \U0001f680") == {}
    assert searched == ["Moon Lander \U0001f680"]


def test_the_explanation_says_what_the_games_json_holds(make_content: ContentFactory) -> None:
    """The games JSON escapes the C0 controls alone (JSON must); the explanation says so, and
    not that it escapes the rest."""
    from catalogctl.content.rules.explain import EXPLANATIONS
    from catalogctl.contract.model import to_json

    root = make_content({"a": game_yaml('"A\\e\\x9b\\u202e"')}, site=LOWERED)
    published = to_json({"games": load_catalog(root).games})
    assert b"\\u001b" in published
    assert "\x9b\u202e".encode() in published
    for rule in (CONTROL, INVISIBLE):
        why = EXPLANATIONS[rule].why
        assert "escape such" not in why
    assert "escapes only the C0 controls" in EXPLANATIONS[CONTROL].why
    assert "C1 controls, the bidirectional controls" in EXPLANATIONS[CONTROL].why
    assert "JSON documents escape" not in (characters.__doc__ or "")


def test_the_reference_examples_write_the_characters_as_escapes() -> None:
    from catalogctl.content.rules.examples import EXAMPLES

    for rule in (CONTROL, INVISIBLE):
        (page,) = EXAMPLES[rule].files
        assert "\\u" in page.text and page.text.isascii()  # escapes, as an author writes them
