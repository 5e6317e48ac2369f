"""One example per rule: a small content tree that gives the rule's finding.

Each example names the files that differ from a valid base tree (`BASE_SITE` as `site.toml`,
`BASE_PAGE` as `games/moon-lander.md`); the rules reference shows them and the finding
`catalogctl validate` gives on them, and a test runs every example through `catalogctl validate`
and checks that it gives its rule, so the examples cannot drift from the checks.

May import: nothing of catalogctl.
"""

from collections.abc import Mapping
from typing import Literal, NamedTuple

Kind = Literal["text", "latin-1", "fifo", "symlink", "absent"]


class File(NamedTuple):
    """A file of an example tree, by its path in the content tree."""

    path: str
    text: str = ""  # the text; for a symlink, its target; for a FIFO or an absent file, unused
    kind: Kind = "text"  # latin-1: the text written in Latin-1, not UTF-8
    show: bool = True  # False: the reference shows the note, not the text (it is not the point)


class Example(NamedTuple):
    files: tuple[File, ...]
    note: str = ""  # a sentence before the files, when they alone do not tell the story


BASE_SITE = """\
base_url = "https://games.example.com"
title = "Example Games"
description = "Mobile games by Example Games."

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
"""

PAGE_PATH = "games/moon-lander.md"
BASE_PAGE = """\
---
name: Moon Lander
description: Land softly on twelve moons.
platforms: [iOS, Android]
genres: [Arcade]
icon: /icons/moon-lander.png
stores:
  ios: https://apps.apple.com/app/moon-lander/id1234567890
  android: https://play.google.com/store/apps/details?id=com.example.moonlander
---
The page text of the website.
"""


def _page(old: str = "", new: str = "", *, add: str = "", path: str = PAGE_PATH) -> File:
    """The base page with `old` replaced by `new`, and `add` before its closing `---`."""
    text = BASE_PAGE.replace(old, new, 1) if old else BASE_PAGE
    if add:
        text = text.replace("---\nThe page", f"{add}---\nThe page", 1)
    return File(path, text)


def _site(old: str = "", new: str = "", *, add: str = "") -> File:
    """The base site.toml with `old` replaced by `new`, and `add` at its end."""
    text = BASE_SITE.replace(old, new, 1) if old else BASE_SITE
    return File("site.toml", text + (f"\n{add}" if add else ""))


def _ex(*files: File, note: str = "") -> Example:
    return Example(files, note)


_DEEP = 70  # levels of nesting: over the limit of 64

# Rules whose finding no small tree gives to every user: the test suite provokes them instead
# (tests/test_content_hostile.py), and the reference says how they arise.
NO_EXAMPLE: Mapping[str, str] = {
    "unreadable-file": "A page the operating system refuses to read, e.g. after "
    "`chmod 000 content/games/moon-lander.md` (as a user other than root, who reads every "
    "file): `the file cannot be read (Permission denied); let catalogctl read it (chmod "
    "a+r), or move it out of the content tree`. A FIFO in the place of site.toml: `site.toml "
    "cannot be read (not a regular file); replace it with a regular file`.",
    "parser-crash": "A page whose parser process is killed (out of memory) or runs for longer "
    "than 60 seconds: `the parser process ended with signal SIGKILL while reading this file`.",
}

EXAMPLES: dict[str, Example] = {
    "site-missing": _ex(
        File("site.toml", kind="absent"),
        note="A content tree with its pages but no `site.toml`.",
    ),
    "games-folder": _ex(_site(add='[content]\ngames = "../pages"\n')),
    "not-a-file": _ex(
        File(PAGE_PATH, kind="fifo"),
        note="`mkfifo content/games/moon-lander.md`: a FIFO where the page should be.",
    ),
    "broken-symlink": _ex(
        _page(),
        File("games/sun-lander.md", "sun-lander-draft.md", kind="symlink"),
        note="`ln -s sun-lander-draft.md content/games/sun-lander.md`, a file that does not exist.",
    ),
    "symlink-outside": _ex(
        File("games/sun-lander.md", "../../notes/sun-lander.md", kind="symlink"),
        note="`ln -s ../../notes/sun-lander.md content/games/sun-lander.md`: a page kept "
        "beside the content tree, not in it.",
    ),
    "file-name": _ex(
        File("games/caf\udce9.md", BASE_PAGE.replace("Moon Lander", "Café"), show=False),
        note="A page named `caf\\xe9.md`: é written as the Latin-1 byte 0xE9.",
    ),
    "portable-name": _ex(
        File("games/aux.md", BASE_PAGE.replace("Moon Lander", "Aux"), show=False),
        note="A page named `aux.md`: AUX is a device on Windows.",
    ),
    "encoding": _ex(
        File(PAGE_PATH, BASE_PAGE.replace("Moon Lander", "Café Lander"), kind="latin-1"),
        note="The page saved in Latin-1: é is the byte 0xE9.",
    ),
    "front-matter": _ex(File(PAGE_PATH, "# Moon Lander\n\nLand softly on twelve moons.\n")),
    "syntax": _ex(_page("platforms: [iOS, Android]", "platforms: [iOS, Android")),
    "limit": _ex(_page(add="levels: " + "[" * _DEEP + "]" * _DEEP + "\n")),
    "duplicate-key": _ex(_page(add="name: Moon Lander 2\n")),
    "unknown-key": _ex(_page(add="platfroms: [iOS]\n")),
    "misspelled-key": _ex(_page(add="darft: true\n")),
    "unknown-setting": _ex(_site("[stores.android]", "[store.android]")),
    "missing-field": _ex(_page("description: Land softly on twelve moons.\n", "")),
    "wrong-type": _ex(_page("platforms: [iOS, Android]", "platforms: iOS, Android")),
    "empty-value": _ex(_page("Land softly on twelve moons.", '"  "')),
    "invalid-id": _ex(_page(add='slug: "moon lander"\n')),
    "id-style": _ex(_page(path="games/Moon-Lander.md")),
    "invalid-date": _ex(_page(add="publishDate: next spring\n")),
    "vocabulary": _ex(
        _site(
            'description = "Mobile games by Example Games."',
            'description = "Mobile games by Example Games."\n'
            'genres = ["Arcade", "Puzzle", "Racing"]',
        ),
        _page("genres: [Arcade]", "genres: [Arcde]"),
    ),
    "duplicate-value": _ex(_page("genres: [Arcade]", "genres: [Arcade, Arcade]")),
    "control-character": _ex(_page("name: Moon Lander", 'name: "Moon Lander\\e[2J\\u202e"')),
    "invisible-character": _ex(_page("genres: [Arcade]", 'genres: ["Arc\\u200bade"]')),
    "invalid-url": _ex(_page("/icons/moon-lander.png", "http://cdn.example.com/moon-lander.png")),
    "unknown-store": _ex(_page("  ios:", "  iso:")),
    "store-url": _ex(
        _page(
            "https://apps.apple.com/app/moon-lander/id1234567890",
            "https://chromewebstore.google.com/detail/moon-lander/abcdefgh",
        )
    ),
    "store-host": _ex(
        _site(add='[stores.itch]\nname = "itch.io"\n'),
        _page(
            "  android: https://play.google.com/store/apps/details?id=com.example.moonlander\n",
            "  android: https://play.google.com/store/apps/details?id=com.example.moonlander\n"
            "  itch: https://github.com/example/moon-lander\n",
        ),
    ),
    "store-platform": _ex(
        _page("  android: https://play.google.com/store/apps/details?id=com.example.moonlander\n")
    ),
    "body-links": _ex(
        _site(add='[content]\nbody_links = true\n\n[stores.web]\nname = "Play online"\n'),
    ),
    "base-url": _ex(_site('"https://games.example.com"', '"https://games.example.com/"')),
    "game-url": _ex(
        _site(
            'description = "Mobile games by Example Games."',
            'description = "Mobile games by Example Games."\ngame_url = "{base_url}/games/"',
        )
    ),
    "store-params": _ex(_site('pt = "123456"', 'pt = "pt-123456"')),
    "spec-params": _ex(_site(', mt = "8"', "")),
    "store-hosts": _ex(
        _site(add='[stores.steam]\nname = "Steam"\nhosts = ["https://store.steampowered.com/"]\n')
    ),
    "api-lifecycle": _ex(_site(add='[api.v1]\nstatus = "deprecated"\n')),
    "migration-link": _ex(
        _site(add='[api.v1]\nstatus = "deprecated"\ndeprecation = 2027-03-01\n'),
    ),
    "field-mapping": _ex(_site(add='[fields]\nicon = "params..icon"\n')),
    "unused-mapping": _ex(_site(add='[fields.stores]\nios = "appStoreUrl"\n')),
    "unused-exclude": _ex(
        _site(add='[content]\nexclude = ["privacy-polcy.md"]\n'),
        File("games/privacy-policy.md", BASE_PAGE.replace("Moon Lander", "Privacy")),
        note="The pattern misspells the page it is meant to leave out.",
    ),
    "unlinked-store": _ex(_site(add='[stores.steam]\nname = "Steam"\n')),
    "rule-config": _ex(_site(add='[rules]\nsyntax = "off"\n')),
    "duplicate-id": _ex(
        _page(),
        _page(
            "name: Moon Lander",
            "name: Moon Lander Deluxe",
            add="slug: moon-lander\n",
            path="games/moon-lander-deluxe.md",
        ),
    ),
    "id-case": _ex(
        _page(),
        _page(
            "name: Moon Lander",
            "name: Moon Lander Deluxe",
            add="slug: Moon-Lander\n",
            path="games/moon-lander-deluxe.md",
        ),
    ),
    "empty-catalog": _ex(_page(add="draft: true\n")),
}
