"""Store links read from page bodies (`[content] body_links`): what is a link, what is not,
where findings point, front matter first, and a scan linear in the body on hostile input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from catalogctl.content import bodylinks
from catalogctl.content.bodylinks import MAX_BODY_BYTES, links
from catalogctl.content.loader import load
from catalogctl.findings import Finding
from tests.catalogs import SITE_TOML
from tests.conftest import ContentFactory, needs_pty, one_thread
from tests.processes import run_cli

BODY_SITE = SITE_TOML.replace(
    "[api.v1]",
    '[content]\nbody_links = true\n\n[stores.steam]\nname = "Steam"\n\n'
    '[stores.itch]\nname = "itch.io"\n\n[api.v1]',
)
FRONT = """\
---
name: Moon Lander
description: Land softly.
platforms: [iOS, Android]
genres: [Arcade]
icon: /icons/moon.png
{stores}---
"""
STEAM = "https://store.steampowered.com/app/620/"
PLAY = "https://play.google.com/store/apps/details?id=com.example.moon"
APPLE = "https://apps.apple.com/app/moon-lander/id1234567890"


def page(body: str, stores: str = "") -> str:
    return FRONT.format(stores=f"stores:\n{stores}" if stores else "") + body


def urls(text: str) -> list[str]:
    return [url for _, url in links(text)]


# --- what is a link --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Markdown: inline, with a title, reference definitions, autolinks, bare URLs
        (f"[Steam]({STEAM})", [STEAM]),
        (f'[Steam]({STEAM} "Buy it")', [STEAM]),
        (f"[Steam](<{STEAM}>)", [STEAM]),
        (f"[steam]: {STEAM}\n\n[Buy][steam]", [STEAM]),
        (f'   [steam]: <{STEAM}> "title"', [STEAM]),
        (f"<{STEAM}>", [STEAM]),
        (f"Get it at {STEAM}.", [STEAM]),
        (f"Get it ({STEAM}), now!", [STEAM]),
        (
            "See https://en.wikipedia.org/wiki/Lander_(spacecraft).",
            ["https://en.wikipedia.org/wiki/Lander_(spacecraft)"],
        ),
        (f"| Steam | {STEAM} |", [STEAM]),
        ("HTTPS://STORE.STEAMPOWERED.COM/app/620/", ["HTTPS://STORE.STEAMPOWERED.COM/app/620/"]),
        # HTML: any quoting, any attribute order, across lines
        (f'<a href="{STEAM}">Steam</a>', [STEAM]),
        (f"<a class='btn' href='{STEAM}' target=_blank>", [STEAM]),
        (f"<a href={STEAM}>Steam</a>", [STEAM]),
        (f'<a\n  class="btn"\n  href = "{STEAM}"\n>', [STEAM]),
        # shortcodes, includes, partials, components
        (f'{{{{< button href="{STEAM}" >}}}}', [STEAM]),
        (f'{{{{< store-badge "{STEAM}" >}}}}', [STEAM]),
        (f'{{{{% button url="{STEAM}" %}}}}', [STEAM]),
        (f'{{% include button.html url="{STEAM}" label="Steam" %}}', [STEAM]),
        (f'{{{{ partial "store" (dict "url" "{STEAM}") }}}}', [STEAM]),
        (f'<Button href="{STEAM}" />', [STEAM]),
        (f'<StoreButton store="steam" link={{"{STEAM}"}} />', [STEAM]),
        (f"<Button href={{`{STEAM}`}}>Steam</Button>", [STEAM]),
        # a badge inside a link: the badge is an image, the link is the link
        (
            "[![Get it on Google Play](https://play.google.com/intl/en_us/badges/static/"
            f"images/badges/en_badge_web_generic.png)]({PLAY})",
            [PLAY],
        ),
        (
            f'<a href="{PLAY}"><img alt="Google Play" src="https://play.google.com/badge"></a>',
            [PLAY],
        ),
        # not links: images, image attributes, image files
        (f"![Steam]({STEAM})", []),
        (f'<img src="{STEAM}">', []),
        ('<iframe src="https://store.steampowered.com/widget/620/"></iframe>', []),
        (f'{{{{< figure src="{STEAM}" >}}}}', []),
        ("https://store.steampowered.com/badge.PNG?v=2", []),
        (f'<img srcset="{STEAM}a.webp 1x, {STEAM}b.webp 2x">', []),
        # not links: code and comments
        (f"```\n{STEAM}\n```", []),
        (f"~~~~ html\n<a href='{STEAM}'>\n~~~\n~~~~\n", []),
        (f"  ```\n{STEAM}\n  ```\nafter https://x.example/", ["https://x.example/"]),
        (f"```\n{STEAM}\n", []),  # a fence never closed runs to the end, as CommonMark
        (f"`{STEAM}`", []),
        (f"`` a ` {STEAM} ``", []),
        (f"` {STEAM}", [STEAM]),  # a lone backtick is text
        (f"<code>{STEAM}</code> <CODE class=x>\n{STEAM}\n</code >", []),
        (f"<!-- {STEAM} -->", []),
        (f"<!--\n[Steam]({STEAM})\n-->after", []),
        (f"<!-- never closed {STEAM}", []),
        (f"{{{{/* {STEAM} */}}}}", []),
        (f"{{{{- /* {STEAM} */ -}}}}", []),
        (f'{{{{</* button href="{STEAM}" */>}}}}', []),
        (f'{{{{%/* button href="{STEAM}" */%}}}}', []),
        (f"{{/* {STEAM} */}}", []),
        (f"{{% comment %}}{STEAM}{{% endcomment %}}", []),
        (f"{{%- comment -%}}\n{STEAM}\n{{%- endcomment -%}}", []),
        (f"{{% highlight html %}}{STEAM}{{% endhighlight %}}", []),
        (f"{{{{< highlight html >}}}}{STEAM}{{{{< / highlight >}}}}", []),
    ],
)
def test_links_of_a_body(text: str, expected: list[str]) -> None:
    assert urls(text) == expected


def test_links_come_in_the_order_of_the_text() -> None:
    text = f"<!-- {APPLE} -->\n[a](https://a.example/)\n```\n{PLAY}\n```\n{STEAM}\n"
    assert urls(text) == ["https://a.example/", STEAM]


# --- reading a page -------------------------------------------------------------------------


def only(findings: list[Finding], rule: str | None = None) -> list[Finding]:
    return [f for f in findings if rule is None or f.rule == rule]


def test_stores_the_front_matter_lacks_are_read_from_the_body(
    make_content: ContentFactory,
) -> None:
    body = (
        "Land softly on twelve moons.\n\n"
        "<!-- https://store.steampowered.com/app/1/ -->\n"
        f"[![Get it on Google Play](https://play.google.com/intl/badge.png)]({PLAY}&amp;hl=en)\n"
        f'{{{{< button href="{STEAM}" >}}}}\n'
        "[Steam again](https://store.steampowered.com/app/2/)\n"
        f"<a href='https://apps.apple.com/app/other/id999'>also on the App Store</a>\n"
    )
    root = make_content({"moon": page(body, f"  ios: {APPLE}\n")}, site=BODY_SITE)
    content = load(root)
    assert content.errors == [], content.errors
    (game,) = content.published()
    assert [s["name"] for s in game["stores"]] == ["App Store", "Google Play", "Steam"]
    by_name = {s["name"]: s["url"] for s in game["stores"]}
    # front matter wins; attribution as for any store link; the entity decoded
    assert by_name["App Store"].startswith(APPLE + "?pt=123456")
    assert by_name["Google Play"] == (
        f"{PLAY}&hl=en&utm_source=service_api&utm_campaign=game_catalog"
    )
    assert by_name["Steam"] == STEAM
    (entry,) = content.entries
    assert [(b.store, b.url, b.line, b.column) for b in entry.body_links] == [
        ("android", f"{PLAY}&hl=en", 13, 68),
        ("steam", STEAM, 14, 18),
    ]


def test_without_body_links_the_body_is_not_read(make_content: ContentFactory) -> None:
    site = BODY_SITE.replace("body_links = true", "body_links = false")
    root = make_content({"moon": page(f"[Steam]({STEAM})\n", f"  ios: {APPLE}\n")}, site=site)
    content = load(root)
    (game,) = content.published()
    assert [s["name"] for s in game["stores"]] == ["App Store"]
    assert content.entries[0].body_links == ()


def test_a_page_with_every_store_in_its_body(make_content: ContentFactory) -> None:
    body = f"[App Store]({APPLE})\n[Google Play]({PLAY})\n"
    content = load(make_content({"moon": page(body)}, site=BODY_SITE))
    assert content.errors == []
    assert len(content.published()[0]["stores"]) == 2


def test_a_body_link_finding_points_at_the_link(make_content: ContentFactory) -> None:
    body = (
        "Intro.\n\n"
        + '<a class="b" href="https://play.google.com/store/apps/detail?id=1">Play</a>\n'
    )
    body += "Steam: http://store.steampowered.com/app/620/\n"
    root = make_content({"moon": page(body, f"  ios: {APPLE}\n")}, site=BODY_SITE)
    findings = load(root).findings
    (play,) = only(findings, "store-url")
    assert (play.line, play.column, play.field) == (12, 20, "stores.android")
    assert "/store/apps/details" in play.message
    (steam,) = only(findings, "invalid-url")
    assert (steam.line, steam.column, steam.field) == (13, 8, "stores.steam")


@pytest.mark.parametrize(
    "other",
    [
        "https://play.google.com/store/apps/dev?id=5700313618786177705",
        "https://play.google.com/store/apps/developer?id=Tidewater+Games",
        "https://play.google.com/store",
        "https://apps.apple.com/us/developer/tidewater-games/id1488123400",
        "https://itunes.apple.com/artist/tidewater-games/id1488123400",
        "https://store.steampowered.com/developer/tidewater",
        "https://store.steampowered.com/",
        "https://tidewater.itch.io/",
        "https://itch.io/profile/tidewater",
        "https://play.date/",
        "https://play.date/games/",
        "https://gamejolt.com/@tidewater",
    ],
)
def test_a_stores_pages_that_are_not_a_games_are_passed_over(
    make_content: ContentFactory, other: str
) -> None:
    """A studio's page, a developer's page or a store's front page linked before the game's
    own button ("more of our games") is not the game's link: the button after it is read."""
    own = {
        "play.google.com": PLAY,
        "apps.apple.com": APPLE,
        "itunes.apple.com": APPLE,
        "store.steampowered.com": STEAM,
        "tidewater.itch.io": "https://tidewater.itch.io/moon",
        "itch.io": "https://tidewater.itch.io/moon",
        "play.date": "https://play.date/games/moon-lander/",
        "gamejolt.com": "https://gamejolt.com/games/moon/123",
    }[other.split("/")[2]]
    site = BODY_SITE.replace(
        "[api.v1]",
        '[stores.playdate]\nname = "Playdate Catalog"\n\n'
        '[stores.gamejolt]\nname = "Game Jolt"\n\n[api.v1]',
    )
    body = f"All our games: [here]({other}).\n\n[Get it]({own})\n"
    front = "" if "apple.com" in other else f"  ios: {APPLE}\n"
    content = load(make_content({"moon": page(body, front)}, site=site))
    assert [b.url for b in content.entries[0].body_links] == [own]
    assert [b.line for b in content.entries[0].body_links] == [12 if front else 10]


def test_store_platform_is_checked_on_body_links(make_content: ContentFactory) -> None:
    text = page(f"[Play]({PLAY})\n", f"  ios: {APPLE}\n").replace("[iOS, Android]", "[iOS]")
    findings = load(make_content({"moon": text}, site=BODY_SITE)).findings
    (f,) = only(findings, "store-platform")
    assert (f.line, f.field) == (10, "stores.android")


@pytest.mark.parametrize("fmt", ["toml", "json", "mdx", "bom-crlf"])
def test_body_links_in_every_kind_of_page(make_content: ContentFactory, fmt: str) -> None:
    keys = (
        'name = "Moon"\ndescription = "D."\nplatforms = ["Android"]\ngenres = ["Arcade"]\n'
        'icon = "/i.png"\n'
    )
    name = "moon"
    if fmt == "toml":
        text = f"+++\n{keys}+++\n\n[Play]({PLAY})\n"
        line, column = 9, 8
    elif fmt == "json":
        text = (
            '{"name": "Moon", "description": "D.", "platforms": ["Android"], '
            f'"genres": ["Arcade"], "icon": "/i.png"}} [Play]({PLAY})\n'
        )
        line, column = 1, 112
    elif fmt == "mdx":
        text = page(f'import B from "../b"\n\n<B href="{PLAY}" />\n').replace(
            "[iOS, Android]", "[Android]"
        )
        line, column = 10, 10
    else:
        text = "\ufeff" + page(f"x\n[Play]({PLAY})\n").replace("[iOS, Android]", "[Android]")
        text = text.replace("\n", "\r\n")
        line, column = 9, 8
    root = make_content({name: "x"}, site=BODY_SITE)
    suffix = ".mdx" if fmt == "mdx" else ".md"
    (root / "games" / "moon.md").unlink()
    (root / "games" / f"moon{suffix}").write_bytes(text.encode())
    content = load(root)
    assert content.errors == []
    (link,) = content.entries[0].body_links
    assert (link.store, link.url, link.line, link.column) == ("android", PLAY, line, column)


def test_a_store_given_in_front_matter_is_not_read_from_the_body(
    make_content: ContentFactory,
) -> None:
    body = "[bad](https://store.steampowered.com/app/x y)\n"
    stores = f"  ios: {APPLE}\n  steam: {STEAM}\n"
    content = load(make_content({"moon": page(body, stores)}, site=BODY_SITE))
    assert content.errors == [] and content.entries[0].body_links == ()


def test_a_body_past_the_limit_is_read_to_the_limit(make_content: ContentFactory) -> None:
    filler = ("Land softly on twelve moons. " * 30 + "\n") * (MAX_BODY_BYTES // 800)
    early = page(f"[Play]({PLAY})\n" + filler, f"  ios: {APPLE}\n")
    late = page(filler + f"[Steam]({STEAM})\n", f"  ios: {APPLE}\n  android: {PLAY}\n")
    root = make_content({"early": early, "late": late}, site=BODY_SITE)
    content = load(root)
    assert content.errors == []
    early_entry, late_entry = sorted(content.entries, key=lambda e: e.id)
    assert [b.store for b in early_entry.body_links] == ["android"]
    assert late_entry.body_links == ()
    # Neither page links steam or itch.io in its first MiB: the rest was not read.
    for f in only(content.findings, "body-links"):
        assert f.severity == "warning" and f.field == "stores"
        assert "no link of steam, itch was found before this line" in f.message
        assert f.line == MAX_BODY_BYTES // 871 + 11


def test_two_stores_sharing_a_host_are_named(make_content: ContentFactory) -> None:
    site = BODY_SITE.replace(
        "[api.v1]", '[stores.mac]\nname = "Mac App Store"\nkind = "apple"\n\n[api.v1]'
    )
    findings = load(make_content(site=site)).findings
    shared = [f for f in only(findings, "body-links") if "shares the host" in f.message]
    assert [f.field for f in shared] == ["stores.mac", "stores.mac"]
    assert "apps.apple.com with store 'ios'" in shared[0].message


def test_hosts_of_a_store_catalogctl_does_not_know(make_content: ContentFactory) -> None:
    site = BODY_SITE.replace(
        "[api.v1]",
        '[stores.kong]\nname = "Kongregate"\nhosts = ["www.kongregate.com"]\n\n'
        '[stores.web]\nname = "Web"\nhosts = []\n\n[api.v1]',
    )
    body = "[Play in the browser](https://www.kongregate.com/games/studio/moon)\n"
    content = load(make_content({"moon": page(body, f"  ios: {APPLE}\n")}, site=site))
    assert only(content.findings, "body-links") == []
    assert [b.store for b in content.entries[0].body_links] == ["kong"]


# --- linear on hostile bodies ----------------------------------------------------------------


class Counting:
    """A compiled pattern that counts the characters each call of it may look at."""

    def __init__(self, pattern: re.Pattern[str], work: list[int]) -> None:
        self.pattern, self.work = pattern, work

    def _count(self, text: str, pos: int, endpos: int | None, m: Any) -> Any:
        end = len(text) if endpos is None else endpos
        self.work[0] += 1 + ((m.end() if m is not None else end) - pos)
        return m

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        m = self.pattern.search(text, pos, len(text) if endpos is None else endpos)
        return self._count(text, pos, endpos, m)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        m = self.pattern.match(text, pos, len(text) if endpos is None else endpos)
        self.work[0] += 1 + (m.end() - pos if m is not None else 0)  # anchored at pos
        return m

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        self.work[0] += 1 + ((len(text) if endpos is None else endpos) - pos)
        return self.pattern.finditer(text, pos, len(text) if endpos is None else endpos)

    def sub(self, repl: Any, text: str) -> str:
        self.work[0] += 1 + len(text)
        return self.pattern.sub(repl, text)


# Bodies that would make a careless scan quadratic. The store looked for is on x.example,
# whose links here are all images or code (so the whole body is read); steam's are links of a
# store not looked for.
HOSTILE = {
    "backticks": lambda n: "`" * n + " " + "``x" * n,
    "runs of every length": lambda n: " ".join("`" * (i % 300 + 1) for i in range(n // 150)),
    "runs of distinct lengths": lambda n: " ".join("`" * i for i in range(1, int((2 * n) ** 0.5))),
    "fences never closed": lambda n: "```\n~~~~\n" * (n // 8),
    "comments never closed": lambda n: "<!-- {{/* {/* {% comment %} <code> " * (n // 36),
    "brackets": lambda n: "![" * (n // 4) + "](" * (n // 4),
    "badges": lambda n: "[![b](https://x.example/b.png)](" * (n // 33),
    "images on one line": lambda n: "![x](https://x.example/a) " * (n // 26),
    "images on lines": lambda n: "![x](https://x.example/a)\n" * (n // 26),
    "image after brackets": lambda n: ("[" * 60 + "![x](https://x.example/a)\n") * (n // 86),
    "attributes": lambda n: ('src="https://x.example/a" ' + "a=" * 40) * (n // 106),
    "template literals": lambda n: "{`https://x.example/a.png`} " * (n // 28),
    "urls": lambda n: "https://store.steampowered.com/x)" * (n // 33),
    "url of parens": lambda n: "https://x.example/a.png" + ")" * n,
    "url of dots": lambda n: "https://x.example/a.png" + "." * n,
    "one long line": lambda n: "x" * n + " ![](https://x.example/)",
    "newlines": lambda n: "\n" * n,
    "entities": lambda n: "https://store.steampowered.com/?" + "&amp;" * (n // 5),
}


def work_of(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    from catalogctl.content.bodylinks import store_links
    from catalogctl.content.settings import StoreSettings
    from catalogctl.content.storehosts import HostTable

    work = [0]
    with monkeypatch.context() as patch:
        for name, value in vars(bodylinks).items():
            if isinstance(value, re.Pattern):
                patch.setattr(bodylinks, name, Counting(value, work))
        patch.setattr(
            bodylinks, "_ENDS", {k: Counting(p, work) for k, p in bodylinks._ENDS.items()}
        )
        last_newline = bodylinks._last_newline

        def counted(text: str, start: int, end: int) -> int:
            work[0] += 1 + end - start
            return last_newline(text, start, end)

        patch.setattr(bodylinks, "_last_newline", counted)
        table = HostTable.of_site(
            {
                "steam": StoreSettings(name="Steam"),
                "x": StoreSettings(name="X", hosts=["x.example"]),
            }
        )
        assert store_links(text, 0, table, ["x"]) == {}  # so the whole body was read
    return work[0]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_the_scan_is_linear_on_hostile_bodies(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The characters the scan's patterns look at grow with the body, not with its square."""
    small, large = 20_000, 200_000
    text_small, text_large = HOSTILE[kind](small), HOSTILE[kind](large)
    work_small = work_of(text_small, monkeypatch)
    work_large = work_of(text_large, monkeypatch)
    assert len(text_large) >= 5 * len(text_small)
    assert work_large <= 8 * len(text_large), (work_large, len(text_large))
    # Per character, the large body costs no more than the small one (within noise).
    per_small, per_large = work_small / len(text_small), work_large / len(text_large)
    assert per_large <= 1.5 * per_small + 0.1, (per_small, per_large)


# --- what validate says ---------------------------------------------------------------------


def report_tree(make_content: ContentFactory) -> Path:
    body = f"Land softly.\n\n[Get it on Google Play]({PLAY})\n"
    games = {
        "moon": page(body + f'<a href="{STEAM}">Steam</a>\n', f"  ios: {APPLE}\n"),
        "sun": page(
            "[Steam](https://store.steampowered.com/app/2/)\n", f"  ios: {APPLE}\n"
        ).replace("[iOS, Android]", "[iOS]"),
        "mars": page(
            "Play it on [itch.io](https://studio.itch.io/mars).\n",
            f"  ios: {APPLE}\n  android: {PLAY}\n",
        ),
    }
    return make_content(games, site=BODY_SITE)


def test_validate_json_lists_the_links_read_from_bodies(make_content: ContentFactory) -> None:
    from tests.test_output import check_envelope

    proc = run_cli("validate", report_tree(make_content), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert [
        (Path(b["file"]).name, b["line"], b["column"], b["store"], b["name"], b["url"])
        for b in doc["body_links"]
    ] == [
        ("mars.md", 11, 22, "itch", "itch.io", "https://studio.itch.io/mars"),
        ("moon.md", 12, 25, "android", "Google Play", PLAY),
        ("moon.md", 13, 10, "steam", "Steam", STEAM),
        ("sun.md", 10, 9, "steam", "Steam", "https://store.steampowered.com/app/2/"),
    ]


def test_validate_json_without_body_links_is_as_before(make_content: ContentFactory) -> None:
    root = report_tree(make_content)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    doc = json.loads(run_cli("validate", root, "--format", "json").stdout)
    assert "body_links" not in doc


@needs_pty
def test_validate_table_names_each_link_read_from_a_body(make_content: ContentFactory) -> None:
    root = report_tree(make_content)
    piped = run_cli("validate", root)
    assert piped.returncode == 0
    lines = [line.replace(str(root) + "/", "") for line in piped.stdout.splitlines()]
    assert lines == [
        "games/mars.md:11:22: read from the body · stores.itch (itch.io): "
        "https://studio.itch.io/mars",
        f"games/moon.md:12:25: read from the body · stores.android (Google Play): {PLAY}",
        f"games/moon.md:13:10: read from the body · stores.steam (Steam): {STEAM}",
        "games/sun.md:10:9: read from the body · stores.steam (Steam): "
        "https://store.steampowered.com/app/2/",
    ]
    assert "4 store links from the bodies of 3 pages" in piped.stderr
    wide = run_cli("validate", root, terminal=120).stdout
    assert "Store links read from page bodies" in wide
    assert "android (Google Play)" in wide and "store.steampowered.com/app/2/" in wide
    narrow = run_cli("validate", root, terminal=80).stdout
    assert "games/sun.md:10:9\n  stores.steam (Steam)\n    https://store" in narrow.replace(
        "\r\n", "\n"
    ).replace(str(root) + "/", "")


# --- pages of real sites ----------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "body-links"
REAL_SITES = {
    "hugo-shortcodes": [
        # The page links another game's Steam page in its text before its own buttons: validate
        # reads it as the game's (and says so); the page gives its own in front matter to fix it.
        (
            "OnionMan/index.md",
            20,
            191,
            "steam",
            "https://store.steampowered.com/app/609320/FAR_Lone_Sails/",
        ),
        ("OnionMan/index.md", 44, 18, "itch", "https://paulluneau.itch.io/onionman"),
        (
            "UncannycalGirls/index.md",
            35,
            18,
            "itch",
            "https://cybertoasty.itch.io/uncannycal-girls",
        ),
    ],
    "jekyll-anchors": [
        (
            "2022-10-11-fruits-match.md",
            17,
            10,
            "android",
            "https://play.google.com/store/apps/details?id=com.sublevelgames.fruitmatch",
        ),
        ("2022-10-11-fruits-match.md", 19, 10, "toss", "https://minion.toss.im/xuE7Kkyg"),
        (
            "2022-10-11-fruits-match.md",
            26,
            10,
            "itch",
            "https://sublevelgames.itch.io/fruits-match",
        ),
        (
            "2023-09-11-paint-cow.md",
            17,
            10,
            "android",
            "https://play.google.com/store/apps/details?id=com.sublevelgames.paintcow",
        ),
        ("2023-09-11-paint-cow.md", 19, 10, "toss", "https://minion.toss.im/t3K7duMD"),
        (
            "2023-09-11-paint-cow.md",
            23,
            10,
            "microsoft",
            "https://www.microsoft.com/en-us/p/paintcow/9mxn73v3wqmj?activetab=pivot:overviewtab",
        ),
    ],
    "jekyll-markdown": [
        (
            "2024-09-16-haunted-heir.md",
            19,
            13,
            "itch",
            "https://remarkablegames.itch.io/haunted-heir",
        ),
        ("2024-09-16-haunted-heir.md", 20, 21, "web", "https://remarkablegames.org/haunted-heir"),
        ("2025-09-30-knitbone.md", 23, 13, "itch", "https://remarkablegames.itch.io/knitbone"),
        (
            "2025-09-30-knitbone.md",
            25,
            16,
            "newgrounds",
            "https://www.newgrounds.com/portal/view/1003853",
        ),
        ("2025-09-30-knitbone.md", 26, 21, "web", "https://remarkablegames.org/knitbone"),
    ],
    "hugo-bare-urls": [
        ("circle-dodger.md", 9, 1, "web", "https://veprogames.github.io/circle-dodger"),
        ("infinite-layers.md", 9, 1, "web", "https://veprogames.github.io/inflayers"),
    ],
    "jekyll-include": [
        (
            "2024-03-24-we-got-the-second-place-at-the-upsi-jam-2024.md",
            19,
            152,
            "itch",
            "https://kennethrioja.itch.io/astralchamber",
        ),
    ],
}


@pytest.mark.parametrize("site", sorted(REAL_SITES))
def test_body_links_of_real_sites(site: str) -> None:
    proc = run_cli("validate", FIXTURES / site, "--format", "json")
    assert proc.returncode == 1, proc.stderr  # the pages lack keys the catalog needs
    doc = json.loads(proc.stdout)
    found = [
        (_tail(b["file"]), b["line"], b["column"], b["store"], b["url"]) for b in doc["body_links"]
    ]
    assert found == REAL_SITES[site]
    # Every link read passes the store rules: no finding is about a store.
    assert [f for f in doc["findings"] if (f["field"] or "").startswith("stores")] == [
        f for f in doc["findings"] if f["rule"] == "unlinked-store"
    ]


def _tail(file: str) -> str:
    """A page's name, with its bundle folder for an index.md."""
    path = Path(file)
    return f"{path.parent.name}/{path.name}" if path.name == "index.md" else path.name


def test_the_validate_page_shows_what_validate_prints_on_the_example(tmp_path: Path) -> None:
    """docs/commands/validate.md's console block is what `validate` prints on the example the
    docs' commands run on (tests/test_docs.py copies it as `body-links/`)."""
    page = (Path(__file__).parent.parent / "docs" / "commands" / "validate.md").read_text()
    block = page.split("$ catalogctl validate body-links\n", 1)[1].split("```", 1)[0]
    shutil.copytree(FIXTURES / "example", tmp_path / "body-links")
    proc = run_cli("validate", "body-links", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shown = block.splitlines()
    assert proc.stdout.splitlines() == shown[:-1]
    assert proc.stderr.strip().endswith(shown[-1].removeprefix("✓ "))
    doc = json.loads(run_cli("validate", "body-links", "--format", "json", cwd=tmp_path).stdout)
    first = page.split("```json\n", 1)[1].split("```", 1)[0]
    assert doc["body_links"][0] == json.loads(first)


@one_thread
def test_the_parallel_parse_reads_the_same_body_links(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch, pool_calls: list[str]
) -> None:
    """Above the parallel-parse threshold the pages are read in forked workers: the same links,
    lines and findings as one process."""
    from catalogctl.content import loader

    games = {
        f"g{i:02d}": page(
            f"Text.\n\n[Play]({PLAY}{i})\n<a href='https://store.steampowered.com/app/{i}/'>Steam</a>\n",
            f"  ios: {APPLE}\n",
        )
        for i in range(30)
    }
    root = make_content(games, site=BODY_SITE)
    serial = load(root)
    monkeypatch.setattr(loader, "PARALLEL_THRESHOLD", 10)
    parallel = load(root)
    assert pool_calls == ["fork"]
    assert [e.body_links for e in parallel.entries] == [e.body_links for e in serial.entries]
    assert len(serial.entries[0].body_links) == 2
    assert parallel.findings == serial.findings
    assert parallel.published() == serial.published()
