"""Which folder holds the game pages: every folder of pages weighed on what it shows.

One bounded walk reads the head of each page under the generator's content folders (its front
matter, and the start of its body). Each folder of pages is then weighed on:

- store links: pages whose front matter links a store, pages whose body does (a "Get it on
  Google Play" button, a Markdown link to itch.io), and the share of all such pages it holds;
- its name: games, apps, showcase, released-games, portfolio, projects, …;
- the generator's own configuration: a Jekyll collection, an Astro collection (more when its
  schema has store URL keys), a Hugo or Zola section with `_index.md`, an Eleventy directory data
  file (more when it tags its pages `game`);
- a game category: pages whose `categories`, `category` or `tags` say game (Jekyll `_posts`);
- page shape: pages sharing a title, an image and a description key.

With no store link, no game name, no game category and no game collection anywhere, there is
nothing to go on: init names the folders it saw and asks for `--games`. Every file it could not
read, and every bound it reached, is reported.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.discovery import NOT_PAGES, read_head, split_page_name
from catalogctl.content.document import Problem
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page
from catalogctl.content.jsondoc import object_end
from catalogctl.content.scaffold.generators import Generator, declared_folders
from catalogctl.content.scaffold.links import body_links, has_store_link, store_of
from catalogctl.text import plural

MAX_SCAN_PAGES = 5000  # pages read to find the games folder
MAX_SCAN_DIRS = 20_000  # folders listed
MAX_SCAN_DEPTH = 8  # folders below the website's root
BODY_BYTES = 64 * 1024  # of a page's body, what is searched for store links
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
# Folder names of a games section, and their weight.
GAME_NAMES = {
    "games": 3.0,
    "_games": 3.0,
    "game": 3.0,
    "released-games": 3.0,
    "apps": 2.5,
    "_apps": 2.5,
    "app": 2.5,
    "showcase": 2.0,
    "_showcase": 2.0,
    "portfolio": 1.5,
    "_portfolio": 1.5,
    "projects": 1.5,
    "_projects": 1.5,
}
BLOG_NAMES = frozenset({"blog", "posts", "news", "devlog", "devlogs", "articles", "updates"})
# Category values that say a page is a game (or an app), not what kind.
GAME_WORDS = frozenset({"game", "games", "app", "apps", "videogame", "videogames"})
TITLE_KEYS = ("title", "name")
DESCRIPTION_KEYS = ("description", "summary", "excerpt", "tagline", "subtitle", "lead")
IMAGE_RE = re.compile(r"\.(?:png|jpe?g|webp|gif|svg|avif)(?:[?#].*)?$", re.IGNORECASE)
_CLOSE = {
    b"---": re.compile(rb"\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)"),
    b"+++": re.compile(rb"\r?\n\+\+\+[ \t]*(?:\r?\n|$)"),
}


class PageInfo(NamedTuple):
    """What the walk saw of one page."""

    folder: str  # the folder it belongs to (a leaf bundle's page: the folder above)
    file: str
    front_link: bool  # its front matter links a store
    body_stores: tuple[tuple[str, str, str, str], ...]  # stores its body links, first per key
    body_hosts: tuple[str, ...]  # the hosts of those links
    shape: bool  # a title, an image and a description key
    game_category: bool  # categories, category or tags say game


class Scan(NamedTuple):
    pages: list[PageInfo]
    unread: list[tuple[str, str]]  # file or folder, why it was not read
    bounds: list[str]  # each bound the walk reached


class Candidate(NamedTuple):
    folder: str
    pages: int
    score: float
    reasons: list[str]  # what speaks for it, as a sentence lists it
    game: bool  # something says games (a link, a name, a category, a game collection)


class Choice(NamedTuple):
    """The games folder init chose, and what it weighed."""

    folder: str | None  # None: nothing to go on
    candidates: list[Candidate]  # best first, each folder once
    sure: bool
    body_links: bool  # the chosen folder's pages link their stores in the body
    scan: Scan

    def chosen(self) -> Candidate | None:
        return next((c for c in self.candidates if c.folder == self.folder), None)


def _page_body(raw: bytes) -> str:
    """The text after a page's front matter (the start of it), or "" when there is none."""
    first_end = raw.find(b"\n")
    first = (raw if first_end < 0 else raw[:first_end]).rstrip()
    close = _CLOSE.get(first)
    if close is not None:
        m = close.search(raw, max(first_end, 0))
        body = raw[m.end() :] if m else b""
    elif first.startswith(b"{"):
        text = raw.decode("utf-8", "replace")
        try:
            return text[object_end(text) :][:BODY_BYTES]
        except Problem:
            return ""
    else:
        body = raw
    return body[:BODY_BYTES].decode("utf-8", "replace")


def _looks_like_image(value: Any) -> bool:
    return isinstance(value, str) and len(value) < 2000 and IMAGE_RE.search(value) is not None


def _shape(data: dict[str, Any]) -> bool:
    def filled(key: str) -> bool:
        return isinstance(data.get(key), str) and bool(data[key].strip())

    title = any(filled(k) for k in TITLE_KEYS)
    description = any(filled(k) for k in DESCRIPTION_KEYS)
    image = any(_looks_like_image(v) for v in data.values())
    return title and description and image


def _game_category(data: dict[str, Any]) -> bool:
    for key in ("categories", "category", "tags"):
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and v.strip().lower() in GAME_WORDS for v in values[:50]):
            return True
    return False


def _read(path: str, shown: str) -> tuple[dict[str, Any] | None, str, str | None]:
    """(front matter, body, why it was not read)."""
    try:
        raw, complete = read_head(path, HEAD_BYTES)
    except OSError as exc:
        return None, "", exc.strerror or str(exc)
    try:
        data = parse_page(raw, shown, complete=complete).data
    except Problem as exc:
        return None, "", f"its front matter does not parse ({exc.message})"
    return data, _page_body(raw), None


def scan(root: Path, search: tuple[str, ...]) -> Scan:
    """Every page under the generator's content folders, bounded in pages, folders and depth."""
    pages: list[PageInfo] = []
    unread: list[tuple[str, str]] = []
    bounds: list[str] = []
    real_root = root.resolve()
    seen_dirs: set[str] = set()
    listed = 0

    def onerror(exc: OSError) -> None:
        where = os.path.relpath(exc.filename, root) if exc.filename else "?"
        unread.append((Path(where).as_posix(), exc.strerror or str(exc)))

    for top in dict.fromkeys(search):
        start = (root / top).resolve()
        if not start.is_dir() or not start.is_relative_to(real_root):
            continue
        for folder, dirs, files in os.walk(start, onerror=onerror):
            rel = Path(os.path.relpath(folder, real_root)).as_posix()
            if rel in seen_dirs:
                dirs[:] = []
                continue
            seen_dirs.add(rel)
            listed += 1
            if listed > MAX_SCAN_DIRS:
                bounds.append(f"more than {MAX_SCAN_DIRS:,} folders: the rest were not listed")
                return Scan(pages, unread, bounds)
            dirs[:] = _subfolders(Path(folder), rel, dirs, unread, bounds)
            names = [n for n in sorted(files) if _is_page(n)]
            bundle = any(_index(n) for n in names)
            for name in names:
                shown = _join(rel, name)
                if len(pages) >= MAX_SCAN_PAGES:
                    bounds.append(f"more than {MAX_SCAN_PAGES:,} pages: the rest were not read")
                    return Scan(pages, unread, bounds)
                path = Path(folder, name)
                if path.is_symlink():
                    unread.append((shown, "a symlink, not followed"))
                    continue
                data, body, why = _read(str(path), shown)
                if data is None:
                    unread.append((shown, why or "not read"))
                    continue
                page_dir = str(Path(rel).parent.as_posix()) if bundle and _index(name) else rel
                pages.append(_page_info(page_dir, shown, data, body))
    return Scan(pages, unread, bounds)


def _subfolders(
    folder: Path, rel: str, dirs: list[str], unread: list[tuple[str, str]], bounds: list[str]
) -> list[str]:
    """The subfolders the walk goes on into: not hidden, not a generator's own, not a symlink
    (reported), not deeper than the bound (reported)."""
    depth = 0 if rel == "." else rel.count("/") + 1
    kept = []
    for d in sorted(dirs):
        if d.startswith(".") or d in SKIP_DIRS:
            continue
        if (folder / d).is_symlink():
            unread.append((_join(rel, d), "a symlink to a folder, not followed"))
        elif depth >= MAX_SCAN_DEPTH:
            bounds.append(f"{_join(rel, d)}: deeper than {MAX_SCAN_DEPTH} folders, not read")
        else:
            kept.append(d)
    return kept


def _page_info(folder: str, shown: str, data: dict[str, Any], body: str) -> PageInfo:
    found = body_links(body)
    stores: dict[str, tuple[str, str, str, str]] = {}
    for _, store, _ in found:
        stores.setdefault(store[2], store)
    hosts = tuple(dict.fromkeys(store[3] for _, store, _ in found))
    return PageInfo(
        folder,
        shown,
        has_store_link(data),
        tuple(stores.values()),
        hosts,
        _shape(data),
        _game_category(data),
    )


def _join(rel: str, name: str) -> str:
    return name if rel == "." else f"{rel}/{name}"


def _is_page(name: str) -> bool:
    split = split_page_name(name)
    if split is None or split[1] is not None:
        return False
    stem = split[0]
    return not stem.startswith((".", "_")) and stem.lower() not in NOT_PAGES


def _index(name: str) -> bool:
    split = split_page_name(name)
    return split is not None and split[0] == "index"


def _inside(page_folder: str, folder: str) -> bool:
    return folder in (".", page_folder) or page_folder.startswith(folder + "/")


def choose(root: Path, gen: Generator) -> Choice:
    """The games folder of the website at `root`, and every folder weighed."""
    found = scan(root, gen.search)
    declared = declared_folders(root, gen)
    folders: set[str] = set()
    for page in found.pages:
        parts = page.folder.split("/") if page.folder != "." else []
        folders.update("/".join(parts[:end]) or "." for end in range(len(parts) + 1))
    linked_total = sum(1 for p in found.pages if p.front_link or p.body_stores)
    weighed: list[tuple[float, int, Candidate, frozenset[str]]] = []
    for folder in folders:
        inside = [p for p in found.pages if _inside(p.folder, folder)]
        candidate = _weigh(folder, inside, linked_total, declared.get(folder))
        depth = 0 if folder == "." else folder.count("/") + 1
        weighed.append(
            (round(candidate.score, 6), depth, candidate, frozenset(p.file for p in inside))
        )
    weighed.sort(key=lambda w: (-w[0], -w[1], w[2].folder))
    # A folder holding the same pages as a better one is the same choice: listed once.
    candidates: list[Candidate] = []
    sets: list[frozenset[str]] = []
    for _, _, candidate, files in weighed:
        if files not in sets:
            candidates.append(candidate)
            sets.append(files)
    best = candidates[0] if candidates else None
    if best is None or not best.game:
        return Choice(None, candidates, False, False, found)
    second = candidates[1] if len(candidates) > 1 else None
    sure = (second is None or second.score < 0.75 * best.score) and any(
        r.endswith("link a store") or "in their text" in r for r in best.reasons
    )
    inside = [p for p in found.pages if _inside(p.folder, best.folder)]
    front = sum(p.front_link for p in inside)
    body = sum(1 for p in inside if p.body_stores and not p.front_link)
    return Choice(best.folder, candidates, sure, body > 0 and body >= front / 2, found)


def _weigh(
    folder: str, pages: list[PageInfo], linked_total: int, declared: tuple[str, bool] | None
) -> Candidate:
    n = len(pages)
    front = sum(p.front_link for p in pages)
    body = sum(1 for p in pages if p.body_stores and not p.front_link)
    linked = sum(1 for p in pages if p.front_link or p.body_stores)
    category = sum(p.game_category for p in pages)
    shape = sum(p.shape for p in pages)
    name = folder.rsplit("/", 1)[-1].lower()
    score = 0.0
    reasons: list[str] = []
    game = False
    if front:
        score += 3 * front / n
        reasons.append(f"{front} of {plural(n, 'page')} link a store")
    if body:
        score += 2.5 * body / n
        hosts = Counter(h for p in pages for h in p.body_hosts)
        shown = ", ".join(h for h, _ in hosts.most_common(3))
        reasons.append(f"{body} of {plural(n, 'page')} link a store in their text ({shown})")
    if linked:
        score += 3 * linked / linked_total
        game = True
    if name in GAME_NAMES:
        score += GAME_NAMES[name]
        reasons.append(f"its name, {name}")
        game = True
    elif name in BLOG_NAMES:
        score -= 1.5
        reasons.append(f"its name, {name}, is a blog's")
    if declared is not None:
        why, gamelike = declared
        score += 2.0 if gamelike else 1.0
        reasons.append(why)
        game = game or gamelike
    if category:
        score += 2 * category / n
        reasons.append(f"{category} of {plural(n, 'page')} have a game category")
        game = True
    if shape and n > 1:
        score += shape / n
        reasons.append(f"{shape} of {plural(n, 'page')} share a title, an image and a description")
    return Candidate(folder, n, score, reasons, game)


def store_hosts(folder: str, found: Scan) -> dict[str, tuple[tuple[str, str, str], list[str]]]:
    """Per store key linked in the bodies of the pages of `folder`: (kind, name, usual key) and
    the hosts its links are on, most used first."""
    hosts: dict[str, Counter[str]] = {}
    stores: dict[str, tuple[str, str, str]] = {}
    for page in found.pages:
        if not _inside(page.folder, folder):
            continue
        for kind, name, key, _ in page.body_stores:
            stores.setdefault(key, (kind, name, key))
        for host in page.body_hosts:
            store = store_of(f"https://{host}/x")
            if store is not None:
                hosts.setdefault(store[2], Counter())[host] += 1
    return {
        key: (stores[key], [h for h, _ in hosts.get(key, Counter()).most_common()])
        for key in stores
    }


__all__ = ["Choice", "choose", "scan", "store_hosts"]
