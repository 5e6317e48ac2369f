"""Catalog keys guessed from what the pages' values look like, not from the keys' names.

- a list of known platform names (iOS, Android, Windows, Switch, …) is `platforms`; a list of
  portals or stores (itch.io, Newgrounds, Steam) is not;
- a list of short labels (or one label) in `category`, `categories` or `tags` is `genres`,
  unless its labels only say that the page is a game;
- a key holding an image's path or URL (`cover_image`, `featured_image`, `mainImage`) is `icon`;
- the one key holding dates (`sortDate`) is `date`.

Each guess carries its evidence, as site.toml's comment shows it: "values: iOS, Android in 9 of
9 pages".
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from typing import Any, NamedTuple

from catalogctl.content.fields import parse_path
from catalogctl.content.scaffold.pages import PageKeys
from catalogctl.content.scaffold.survey import GAME_WORDS, IMAGE_RE
from catalogctl.content.settings import CATALOG_KEYS

PLATFORMS = frozenset(
    {
        "ios",
        "ipados",
        "iphone",
        "ipad",
        "android",
        "macos",
        "mac",
        "osx",
        "os x",
        "windows",
        "win",
        "pc",
        "linux",
        "web",
        "browser",
        "html5",
        "webgl",
        "switch",
        "nintendo switch",
        "nintendo switch 2",
        "3ds",
        "nintendo 3ds",
        "wii u",
        "playstation",
        "playstation 4",
        "playstation 5",
        "ps4",
        "ps5",
        "ps vita",
        "xbox",
        "xbox one",
        "xbox series x|s",
        "xbox series x",
        "steam deck",
        "playdate",
        "tvos",
        "apple tv",
        "watchos",
        "apple watch",
        "visionos",
        "vr",
        "quest",
        "meta quest",
        "oculus",
        "steamvr",
        "mobile",
        "desktop",
        "chromeos",
        "fire tv",
        "pico-8",
        "game boy",
        "gba",
        "nes",
        "snes",
        "dos",
    }
)
# Where games are sold or played: a list of these is not the platforms a game runs on.
PORTALS = frozenset(
    {
        "steam",
        "itch.io",
        "itch",
        "newgrounds",
        "google play",
        "app store",
        "gog",
        "epic",
        "epic games store",
        "game jolt",
        "gamejolt",
        "kongregate",
        "crazygames",
        "poki",
        "humble",
        "microsoft store",
        "playstation store",
        "eshop",
    }
)
LABEL_KEYS = ("category", "categories", "tags", "genre", "genres")
ICON_WORDS = ("icon", "logo", "thumbnail", "thumb", "cover", "image", "featured", "hero", "img")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")
MAX_LABEL = 32  # characters of a genre label


class Guess(NamedTuple):
    path: str  # the front-matter key, dotted
    pages: int  # pages with a value there
    evidence: str  # what the values look like, as the comment says it


def strings_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value[:50] if isinstance(v, str)]
    return []


def _shown(values: Counter[str]) -> str:
    top = [v for v, _ in values.most_common(3)]
    more = ", …" if len(values) > 3 else ""
    return ", ".join(top) + more


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _string_paths(keys: PageKeys, *, lists: bool) -> list[tuple[tuple[str, ...], list[Any]]]:
    kinds = {"list[str]"} if lists else {"str"}
    return [
        (path, values)
        for path, values in keys.values.items()
        if len(path) <= 3
        and keys.types.get(path, set()) - {"NoneType"} <= kinds | {"str"}
        and keys.types.get(path, set()) & kinds
    ]


def platforms(keys: PageKeys) -> Guess | None:
    """The key whose values are lists of known platform names."""
    best: Guess | None = None
    for path, values in _string_paths(keys, lists=True) + _string_paths(keys, lists=False):
        names = Counter(s.strip() for v in values for s in strings_of(v) if s.strip())
        total = sum(names.values())
        known = sum(n for s, n in names.items() if s.lower() in PLATFORMS)
        portals = sum(n for s, n in names.items() if s.lower() in PORTALS)
        if total == 0 or known < 0.8 * total or portals > 0.2 * total:
            continue
        n = keys.paths[path]
        if best is None or n > best.pages:
            evidence = (
                f"values: {_shown(names)} in {n} of {keys.pages} pages{one_value_note(keys, path)}"
            )
            best = Guess(_dotted(path), n, evidence)
    return best


def one_value_note(keys: PageKeys, path: tuple[str, ...], example: str = "iOS") -> str:
    """The comment's warning for a key holding one name, where validate asks for a list."""
    if "list[str]" in keys.types.get(path, set()):
        return ""
    return f' (one a page: validate asks for a list, ["{example}"])'


def labels_are_genres(values: list[Any]) -> Counter[str] | None:
    """The labels of a category key, when they are short labels and not only "game"."""
    labels = Counter(s.strip() for v in values for s in strings_of(v) if s.strip())
    if not labels or any(len(s) > MAX_LABEL or len(s.split()) > 4 for s in labels):
        return None
    # Most pages must hold a label that says more than "game" (`categories: game` on the
    # games, `categories: blog` on a devlog is not a genre).
    present = [v for v in values if strings_of(v)]
    telling = [
        v for v in present if any(s.strip().lower() not in GAME_WORDS for s in strings_of(v))
    ]
    if len(telling) < max(1, len(present) / 2) or all(s.lower() in GAME_WORDS for s in labels):
        return None
    return labels


def genres(keys: PageKeys) -> Guess | None:
    """The category key holding short labels: `category: Puzzle`, `categories: [Puzzle]`."""
    best: Guess | None = None
    for path, values in _string_paths(keys, lists=True) + _string_paths(keys, lists=False):
        if path[-1].lower() not in LABEL_KEYS:
            continue
        labels = labels_are_genres(values)
        if labels is None:
            continue
        n = keys.paths[path]
        if best is None or n > best.pages:
            single = one_value_note(keys, path, "Puzzle")
            evidence = f"values: {_shown(labels)} in {n} of {keys.pages} pages{single}"
            best = Guess(_dotted(path), n, evidence)
    return best


def _icon_rank(path: tuple[str, ...]) -> int:
    name = path[-1].lower()
    return next((i for i, w in enumerate(ICON_WORDS) if w in name), len(ICON_WORDS))


def icon(keys: PageKeys) -> Guess | None:
    """The key holding an image's path or URL in most pages."""
    found: list[tuple[int, int, Guess]] = []
    for path, values in _string_paths(keys, lists=False):
        strings = [v for v in values if isinstance(v, str) and v.strip()]
        images = [v for v in strings if len(v) < 2000 and IMAGE_RE.search(v)]
        if not strings or len(images) < 0.5 * len(strings):
            continue
        n = len(images)
        example = images[0] if len(images[0]) <= 60 else images[0][:57] + "…"
        evidence = f"image paths or URLs in {n} of {keys.pages} pages ({example})"
        found.append((n, -_icon_rank(path), Guess(_dotted(path), keys.paths[path], evidence)))
    if found:
        return max(found, key=lambda f: (f[0], f[1]))[2]
    return _listed_icon(keys)


# A value of an item's key that a [fields] selector can name (`[alt=Game Logo]`).
_SELECTOR_VALUE = re.compile(r"[^.\[\]=\s][^.\[\]=]{0,60}")


def _listed_icon(keys: PageKeys) -> Guess | None:
    """An image in a list of images (`images: [{url: /a.png, alt: Game Logo}]`), picked by
    a key of its item whose value the pages share (`images[alt=Game Logo].url`), in most
    pages that have the list, two at least; an icon's words in the value first."""
    best: tuple[int, int, Guess] | None = None
    for path, values in keys.values.items():
        lists = [v for v in values if isinstance(v, list)]
        # A list of images by its name (`images`, `logos`), on two pages or more: a team's
        # photos (`team: [{nickname: …, img: …}]`) are no game's icon.
        if len(path) != 1 or len(lists) < 2 or _icon_rank(path) == len(ICON_WORDS):
            continue
        pages: Counter[tuple[str, str, str]] = Counter()  # (namer, its value, URL key)
        example: dict[tuple[str, str, str], str] = {}
        for items in lists:
            seen: set[tuple[str, str, str]] = set()
            for item in items[:50]:
                if not isinstance(item, dict):
                    continue
                texts = {k: v for k, v in item.items() if isinstance(k, str) and isinstance(v, str)}
                for url_key, url in texts.items():
                    if len(url) >= 2000 or not IMAGE_RE.search(url):
                        continue
                    for namer, value in texts.items():
                        if namer != url_key and _SELECTOR_VALUE.fullmatch(value.strip()):
                            seen.add((namer, value.strip(), url_key))
                            example.setdefault((namer, value.strip(), url_key), url)
            pages.update(seen)
        for (namer, value, url_key), n in pages.items():
            selector = f"{path[0]}[{namer}={value}].{url_key}"
            if n < 2 or 2 * n < len(lists) or parse_path(selector) is None:
                continue
            rank = -next((i for i, w in enumerate(ICON_WORDS) if w in value.lower()), 99)
            shown = example[(namer, value, url_key)][:57]
            evidence = f"image paths or URLs in {n} of {keys.pages} pages ({shown})"
            guess = Guess(selector, n, evidence)
            if best is None or (n, rank) > (best[0], best[1]):
                best = (n, rank, guess)
    return best[2] if best is not None else None


def _is_date(value: Any) -> bool:
    if isinstance(value, dt.date):
        return True
    return isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()) is not None


def date(keys: PageKeys) -> Guess | None:
    """The one key (other than the catalog's own date keys) whose values are dates."""
    dated: list[Guess] = []
    for path, values in keys.values.items():
        if len(path) > 2 or path[-1] in CATALOG_KEYS:
            continue
        present = [v for v in values if v is not None and v != ""]
        if not present or sum(_is_date(v) for v in present) < 0.8 * len(present):
            continue
        shown = str(present[0])[:25]
        evidence = f"dates in {len(present)} of {keys.pages} pages ({shown}, …)"
        dated.append(Guess(_dotted(path), keys.paths[path], evidence))
    return dated[0] if len(dated) == 1 else None


__all__ = [
    "Guess",
    "date",
    "genres",
    "icon",
    "labels_are_genres",
    "one_value_note",
    "platforms",
    "strings_of",
]
