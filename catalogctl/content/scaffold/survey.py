"""One bounded walk over a website's folders of pages, reading what tells a games section.

Each page under the generator's content folders is read: its front matter, and its body as
`validate` reads it with `[content] body_links` (`catalogctl.content.bodylinks`, with the hosts
of every store catalogctl knows). The walk is bounded in pages, folders and depth, follows no
symlink, and reports every file it could not read and every bound it reached.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.bodylinks import MAX_BODY_BYTES, BodyLink, PageBody, links
from catalogctl.content.categories import page_labels
from catalogctl.content.discovery import NOT_PAGES, split_page_name
from catalogctl.content.document import Problem
from catalogctl.content.files import read_head
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page
from catalogctl.content.scaffold.pages import has_store_link
from catalogctl.content.storehosts import HostTable, is_store_host, url_host
from catalogctl.paths import is_dir

MAX_SCAN_PAGES = 5000  # pages read to find the games folder
MAX_SCAN_DIRS = 20_000  # folders listed
MAX_SCAN_DEPTH = 8  # folders below the website's root
MAX_OTHER_HOSTS = 20  # hosts of a page's other links kept
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
# Category values that say a page is a game (or an app), not what kind.
GAME_WORDS = frozenset({"game", "games", "app", "apps", "videogame", "videogames"})
TITLE_KEYS = ("title", "name")
DESCRIPTION_KEYS = ("description", "summary", "excerpt", "tagline", "subtitle", "lead")
IMAGE_RE = re.compile(r"\.(?:png|jpe?g|webp|gif|svg|avif)(?:[?#].*)?$", re.IGNORECASE)


# Why a Markdown file is not a page: generators copy it as it is (Jekyll's static files).
NO_FRONT_MATTER = "no front matter: not a page"


class PageInfo(NamedTuple):
    """What the walk saw of one page."""

    folder: str  # the folder it belongs to (a leaf bundle's page: the folder above)
    file: str
    front_link: bool  # its front matter links a store
    body: tuple[BodyLink, ...]  # the first link of each known store in its body
    shape: bool  # a title, an image and a description key
    game_labels: tuple[str, ...]  # its categories, category or tags that say game, as written
    other_hosts: tuple[str, ...] = ()  # the hosts of its body's links to no known store
    section: bool = False  # a section's own page (`<game>/_index.md`) that links a store
    layout: str = ""  # its `layout` (Jekyll) or `type` (Hugo), lowercased
    labelled: bool = False  # it carries a label in `categories`, `category` or `tags`

    @property
    def game_category(self) -> bool:
        return bool(self.game_labels)


class Scan(NamedTuple):
    pages: list[PageInfo]
    unread: list[tuple[str, str]]  # file or folder, why it was not read
    bounds: list[str]  # each bound the walk reached
    legal: tuple[PageInfo, ...] = ()  # legal pages, taken out of `pages` (`notgames`)
    # Section pages below a top folder that link a store, each of the folder above (as a
    # bundle's page is): a game with pages of its own, perhaps (`notgames`).
    sections: tuple[PageInfo, ...] = ()
    # Every section page below a top folder that was read (`content/<app>/_index.md`): a
    # site whose each game is a section, with no store link anywhere, has only these.
    section_files: tuple[str, ...] = ()


def _looks_like_image(value: Any) -> bool:
    return isinstance(value, str) and len(value) < 2000 and IMAGE_RE.search(value) is not None


def _shape(data: dict[str, Any]) -> bool:
    def filled(key: str) -> bool:
        return isinstance(data.get(key), str) and bool(data[key].strip())

    title = any(filled(k) for k in TITLE_KEYS)
    description = any(filled(k) for k in DESCRIPTION_KEYS)
    image = any(_looks_like_image(v) for v in data.values())
    return title and description and image


def _game_labels(data: dict[str, Any]) -> tuple[str, ...]:
    """The labels of a page that say it is a game (or an app): `categories: game`."""
    return tuple(label for label in page_labels(data) if label.lower() in GAME_WORDS)


@lru_cache(maxsize=1)
def known_hosts() -> HostTable:
    return HostTable.of_known_stores()


class _Page(NamedTuple):
    data: dict[str, Any] | None  # its front matter; None: not read
    body: tuple[BodyLink, ...] = ()  # the first link of each known store in its body
    other_hosts: tuple[str, ...] = ()  # the hosts of its body's other links
    why: str | None = None  # why it was not read


def _read(path: str, shown: str) -> _Page:
    """A page's front matter and the links of its body."""
    try:
        raw, complete = read_head(path, HEAD_BYTES)
    except OSError as exc:
        return _Page(None, why=exc.strerror or str(exc))
    try:
        doc = parse_page(raw, shown, complete=complete)
    except Problem as exc:
        if exc.rule == "front-matter" and exc.message.startswith("no front matter"):
            return _Page(None, why=NO_FRONT_MATTER)
        return _Page(None, why=f"its front matter does not parse ({exc.message})")
    if doc.body_at < 0:
        return _Page(doc.data)
    table = known_hosts()
    found, _ = PageBody(path, raw, complete, doc.body_at).links(table, table.keys)
    text = raw[doc.body_at : doc.body_at + MAX_BODY_BYTES].decode("utf-8", "replace")
    return _Page(doc.data, tuple(found), _other_hosts(text))


def _other_hosts(text: str) -> tuple[str, ...]:
    """The hosts of a body's links that are no known store's (a store of the site's own, a
    web portal), each once, in the order of the text."""
    hosts: dict[str, None] = {}
    for _, url in links(text):
        host = url_host(url)
        if host is not None and not is_store_host(host):
            hosts[host] = None
            if len(hosts) >= MAX_OTHER_HOSTS:
                break
    return tuple(hosts)


def scan(root: Path, search: tuple[str, ...]) -> Scan:
    """Every page under the generator's content folders, bounded in pages, folders and depth."""
    pages: list[PageInfo] = []
    sections: list[PageInfo] = []
    section_files: list[str] = []
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
        if not is_dir(start) or not start.is_relative_to(real_root):
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
                return Scan(
                    pages,
                    unread,
                    bounds,
                    sections=tuple(sections),
                    section_files=tuple(section_files),
                )
            dirs[:] = _subfolders(Path(folder), rel, dirs, unread, bounds)
            names = [n for n in sorted(files) if _is_page(n)]
            bundle = any(_index(n) for n in names)
            if bundle and start != Path(folder):
                # A leaf bundle's other pages are its resources, as validate reads it.
                names = [n for n in names if _index(n)]
            for name in names:
                shown = _join(rel, name)
                if len(pages) >= MAX_SCAN_PAGES:
                    bounds.append(f"more than {MAX_SCAN_PAGES:,} pages: the rest were not read")
                    return Scan(
                        pages,
                        unread,
                        bounds,
                        sections=tuple(sections),
                        section_files=tuple(section_files),
                    )
                path = Path(folder, name)
                if path.is_symlink():
                    unread.append((shown, "a symlink, not followed"))
                    continue
                read = _read(str(path), shown)
                if read.data is None:
                    unread.append((shown, read.why or "not read"))
                    continue
                page_dir = str(Path(rel).parent.as_posix()) if bundle and _index(name) else rel
                pages.append(_page_info(page_dir, shown, read))
            if "_index.md" in files and start != Path(folder) and not bundle:
                shown = _join(rel, "_index.md")
                read = _read(str(Path(folder, "_index.md")), shown)
                info = _page_info(str(Path(rel).parent.as_posix()), shown, read)
                if read.data is not None:
                    section_files.append(shown)
                if read.data is not None and (info.front_link or info.body):
                    sections.append(info._replace(section=True))
    return Scan(pages, unread, bounds, sections=tuple(sections), section_files=tuple(section_files))


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


def _page_info(folder: str, shown: str, read: _Page) -> PageInfo:
    data = read.data or {}
    return PageInfo(
        folder,
        shown,
        has_store_link(data),
        read.body,
        _shape(data),
        _game_labels(data),
        read.other_hosts,
        layout=_layout(data),
        labelled=bool(page_labels(data)),
    )


def _layout(data: dict[str, Any]) -> str:
    """The template a page asks for: Jekyll's `layout`, Hugo's `type` (lowercased)."""
    for key in ("layout", "type"):
        value = data.get(key)
        if isinstance(value, str) and len(value) <= 100:
            return value.strip().lower()
    return ""


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


__all__ = ["GAME_WORDS", "IMAGE_RE", "NO_FRONT_MATTER", "PageInfo", "Scan", "known_hosts", "scan"]
