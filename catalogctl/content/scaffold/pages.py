"""The folder of game pages, and the keys its pages use.

A game page is a page whose front matter holds a link to a store (an app store, Steam,
itch.io, …, recognised by its host). The games folder is the deepest folder holding at least
60% of the game pages found under the generator's content folders: a section of games or a
collection, not the whole site because one blog post links a store. Its pages are then read
as `validate` reads them (the same discovery: bundles, translations, sections), and every key
path with a value is counted.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from catalogctl.content.discovery import discover, read_head, split_page_name
from catalogctl.content.document import Problem
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page

MAX_SCAN_PAGES = 5000  # pages read to find the games folder
MAX_SCAN_DEPTH = 8
# Folders no generator publishes pages from.
SKIP_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        "public",
        "dist",
        "build",
        "out",
        "_site",
        "_drafts",
        "_includes",
        "_layouts",
        "_sass",
        "_data",
        "resources",
        "themes",
        "static",
        "assets",
        "layouts",
        "components",
    }
)

# Hosts of store links: the store's kind, its usual name, a key for it.
STORE_HOSTS: dict[str, tuple[str, str, str]] = {
    "apps.apple.com": ("apple", "App Store", "ios"),
    "itunes.apple.com": ("apple", "App Store", "ios"),
    "play.google.com": ("google-play", "Google Play", "android"),
    "store.steampowered.com": ("other", "Steam", "steam"),
    "itch.io": ("other", "itch.io", "itch"),
    "www.gog.com": ("other", "GOG", "gog"),
    "gog.com": ("other", "GOG", "gog"),
    "apps.microsoft.com": ("other", "Microsoft Store", "microsoft"),
    "galaxystore.samsung.com": ("other", "Galaxy Store", "galaxy"),
    "appgallery.huawei.com": ("other", "AppGallery", "appgallery"),
    "www.amazon.com": ("other", "Amazon Appstore", "amazon"),
    "www.nintendo.com": ("other", "Nintendo eShop", "nintendo"),
    "store.playstation.com": ("other", "PlayStation Store", "playstation"),
    "www.xbox.com": ("other", "Xbox", "xbox"),
}


def store_of(value: Any) -> tuple[str, str, str, str] | None:
    """(kind, name, key, host) of a store link, by its host; None for anything else."""
    if not isinstance(value, str) or not value.startswith("https://") or len(value) > 2000:
        return None
    try:
        host = (urlsplit(value).hostname or "").lower()
    except ValueError:
        return None
    known = STORE_HOSTS.get("itch.io" if host.endswith(".itch.io") else host)
    return None if known is None else (*known, host)


def _has_store_link(data: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if isinstance(data, dict):
        return any(_has_store_link(v, depth + 1) for v in data.values())
    if isinstance(data, list):
        return any(_has_store_link(v, depth + 1) for v in data[:50])
    return store_of(data) is not None


def read_front_matter(path: str, shown: str) -> dict[str, Any] | None:
    """A page's front matter, or None when it cannot be read (validate will say why)."""
    try:
        raw, complete = read_head(path, HEAD_BYTES)
        return parse_page(raw, shown, complete=complete).data
    except (OSError, Problem):
        return None


def find_games(root: Path, search: tuple[str, ...]) -> tuple[str | None, int]:
    """The games folder (relative to `root`) and how many game pages the search saw."""
    game_dirs: list[str] = []
    scanned = 0
    for top in dict.fromkeys(search):
        start = (root / top).resolve()
        if not start.is_dir() or not start.is_relative_to(root.resolve()):
            continue
        for folder, dirs, files in os.walk(start):
            rel = os.path.relpath(folder, root)
            depth = 0 if rel == "." else rel.count(os.sep) + 1
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".") and d not in SKIP_DIRS and depth < MAX_SCAN_DEPTH
            )
            bundle = any(_index(f) for f in files)
            for name in sorted(files):
                split = split_page_name(name)
                if split is None or split[1] is not None or split[0] == "_index":
                    continue
                scanned += 1
                if scanned > MAX_SCAN_PAGES:
                    break
                data = read_front_matter(str(Path(folder, name)), name)
                if data is not None and _has_store_link(data):
                    # A leaf bundle's page stands for its folder, in the folder above.
                    page_dir = Path(rel).parent if bundle and _index(name) else Path(rel)
                    game_dirs.append(page_dir.as_posix())
        if game_dirs:
            break  # the generator's first content folder with games wins
    if not game_dirs:
        return None, 0
    return _deepest_majority(game_dirs), len(game_dirs)


def _index(name: str) -> bool:
    split = split_page_name(name)
    return split is not None and split[0] == "index"


def _deepest_majority(dirs: list[str]) -> str:
    """The deepest folder holding at least 60% of the pages in `dirs`."""
    counts: Counter[str] = Counter()
    for d in dirs:
        parts = Path(d).parts
        for end in range(len(parts) + 1):
            counts["/".join(parts[:end]) or "."] += 1
    need = 0.6 * len(dirs)
    return max(
        (d for d, n in counts.items() if n >= need),
        key=lambda d: (0 if d == "." else d.count("/") + 1, counts[d]),
    )


Link = tuple[tuple[Any, ...], tuple[str, str, str, str], dict[str, str] | None]


class PageKeys(NamedTuple):
    """The pages of the games folder and the key paths they use."""

    pages: int  # pages read
    games: int  # pages with a store link
    paths: Counter[tuple[str, ...]]  # key path -> pages that have a value there
    types: dict[tuple[str, ...], set[str]]  # key path -> kinds of value ("str", "list", …)
    # Each store link: where it is, its store (kind, name, usual key, host) and, for a link in a
    # list of objects, the other strings of its item (`platform: googleplay`).
    links: list[Link]
    files: list[str]


def read_keys(root: Path, games: str, language: str) -> PageKeys:
    """Every key path of the pages `validate` would read in `games`."""
    found = discover(str(root / games), games, str(root), language)
    paths: Counter[tuple[str, ...]] = Counter()
    types: dict[tuple[str, ...], set[str]] = {}
    links: list[Link] = []
    game_pages = 0
    files: list[str] = []
    for page in found.pages:
        data = read_front_matter(page.path, page.file)
        if data is None:
            continue
        files.append(page.file)
        game_pages += _has_store_link(data)
        seen: set[tuple[str, ...]] = set()
        _walk(data, (), seen, types, links, None)
        paths.update(seen)
    return PageKeys(len(files), game_pages, paths, types, links, files)


def _walk(
    value: Any,
    path: tuple[Any, ...],
    seen: set[tuple[str, ...]],
    types: dict[tuple[str, ...], set[str]],
    links: list[Link],
    item: dict[str, Any] | None,  # the list item `value` is a value of
) -> None:
    if len(path) > 6:
        return
    if path and all(isinstance(p, str) for p in path):
        seen.add(path)
        types.setdefault(path, set()).add(_kind(value))
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                _walk(v, (*path, k), seen, types, links, None)
    elif isinstance(value, list):
        for i, member in enumerate(value[:50]):
            inside = member if isinstance(member, dict) else None
            if inside is not None:
                for k, v in member.items():
                    if isinstance(k, str):
                        _walk(v, (*path, i, k), seen, types, links, inside)
            else:
                _walk(member, (*path, i), seen, types, links, None)
    else:
        store = store_of(value)
        if store is not None:
            strings = None
            if item is not None:
                strings = {
                    k: v for k, v in item.items() if isinstance(k, str) and isinstance(v, str)
                }
            links.append((path, store, strings))


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list[str]" if value and all(isinstance(v, str) for v in value) else "list"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


__all__ = ["PageKeys", "find_games", "read_keys", "store_of"]
