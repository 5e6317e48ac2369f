"""The keys the pages of the games folder use, the values they hold, and the store links of
their front matter.

The pages are read as `validate` reads them (the same discovery: bundles, translations,
sections; with a category, only the pages of that category), and every key path with a value
is counted, with a sample of its values. A front-matter value is a store link when it is on a
known store's host and is a game's page (`catalogctl.content.storehosts`), as `validate`
judges the links of page bodies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.categories import in_category
from catalogctl.content.discovery import discover
from catalogctl.content.document import Problem
from catalogctl.content.fields import parse_path
from catalogctl.content.files import read_head
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page
from catalogctl.content.storehosts import KnownStore, known_store_of_url, url_host
from catalogctl.text import clean

MAX_VALUES = 200  # values kept of one key path, for guessing what it holds
MAX_URL = 2000  # characters of a value looked at as a link
MAX_DEPTH = 6  # levels of front matter walked
MAX_ITEMS = 50  # items of a list walked


class FrontLink(NamedTuple):
    """A store link of a page's front matter."""

    where: tuple[Any, ...]  # its key path (an int for a list's item)
    store: KnownStore
    host: str
    item: dict[str, str] | None  # in a list of objects: the other strings of its item
    url: str = ""  # the link as the page writes it


class PageKeys(NamedTuple):
    """The pages of the games folder and the key paths they use."""

    pages: int  # pages read
    games: int  # pages whose front matter links a store
    paths: Counter[tuple[str, ...]]  # key path -> pages that have a value there
    types: dict[tuple[str, ...], set[str]]  # key path -> kinds of value ("str", "list", …)
    links: list[FrontLink]
    files: list[str]
    # key path -> its values, one per page (a sample), for guessing what the key holds
    values: dict[tuple[str, ...], list[Any]]
    outside: int  # pages left out: not of the category
    # Items of lists of objects, by (list path, key, its value lowercased, URL key): how many
    # items name themselves so (`links: [{label: Play, url: …}]`), store link or not.
    items: Counter[tuple[Any, ...]]
    # Label keys (`tags`, `categories`) by how many pages list their own id there
    # (`tags: [game, cat-hatch]` on cat-hatch.md): a page's own labels, not genres.
    own_labels: Counter[tuple[str, ...]] | None = None
    unread: tuple[tuple[str, str], ...] = ()  # pages whose front matter failed: (file, why)
    # key path -> pages whose value there is not empty (`excerpt:` with nothing is empty)
    filled: Counter[tuple[str, ...]] | None = None

    def filled_in(self, path: tuple[str, ...]) -> int:
        """The pages whose value at `path` is not empty."""
        return self.filled[path] if self.filled is not None else self.paths[path]


def front_store(value: Any) -> KnownStore | None:
    """The known store a front-matter value links (a game's page on its host), or None."""
    if not isinstance(value, str) or len(value) > MAX_URL:
        return None
    return known_store_of_url(value)


def has_store_link(data: Any, depth: int = 0) -> bool:
    """Whether a front matter value holds a store link anywhere."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(data, dict):
        return any(has_store_link(v, depth + 1) for v in data.values())
    if isinstance(data, list):
        return any(has_store_link(v, depth + 1) for v in data[:MAX_ITEMS])
    return front_store(data) is not None


def read_front_matter(path: str, shown: str) -> dict[str, Any] | None:
    """A page's front matter, or None when it cannot be read (validate will say why)."""
    return front_matter_or_why(path, shown)[0]


def front_matter_or_why(path: str, shown: str) -> tuple[dict[str, Any] | None, str | None]:
    """A page's front matter, or None and why it cannot be read (as validate says it, with
    its line)."""
    try:
        raw, complete = read_head(path, HEAD_BYTES)
        return parse_page(raw, shown, complete=complete).data, None
    except OSError as exc:
        return None, clean(exc.strerror or str(exc))
    except Problem as exc:
        where = f"line {exc.line}: " if exc.line else ""
        return None, f"{where}{clean(exc.message)}"


def read_keys(
    root: Path,
    games: str,
    language: str,
    category: str | None = None,
    exclude: Sequence[str] = (),
    sections: bool = False,
) -> PageKeys:
    """Every key path of the pages `validate` would read in `games`."""
    found = discover(str(root / games), games, str(root), language, exclude, sections)
    paths: Counter[tuple[str, ...]] = Counter()
    types: dict[tuple[str, ...], set[str]] = {}
    links: list[FrontLink] = []
    items: Counter[tuple[Any, ...]] = Counter()
    game_pages = outside = 0
    files: list[str] = []
    values: dict[tuple[str, ...], list[Any]] = {}
    own_labels: Counter[tuple[str, ...]] = Counter()
    unread: list[tuple[str, str]] = []
    filled: Counter[tuple[str, ...]] = Counter()
    for page in found.pages:
        data, why = front_matter_or_why(page.path, page.file)
        if data is None:
            if why is not None:
                unread.append((page.file, why))
            continue
        if category is not None and not in_category(data, category):
            outside += 1
            continue
        files.append(page.file)
        own_labels.update(_own_labels(data, page.id))
        game_pages += has_store_link(data)
        seen: set[tuple[str, ...]] = set()
        _walk(data, (), seen, types, links, None)
        _count_items(data, (), items, 0)
        paths.update(seen)
        for path in seen:
            value = _value_at(data, path)
            if not _empty(value):
                filled[path] += 1
            kept = values.setdefault(path, [])
            if len(kept) < MAX_VALUES:
                kept.append(value)
    return PageKeys(
        len(files),
        game_pages,
        paths,
        types,
        links,
        files,
        values,
        outside,
        items,
        own_labels,
        tuple(unread),
        filled,
    )


def _empty(value: Any) -> bool:
    """Nothing given: `excerpt:` (null), blank text, an empty list or mapping."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, (list, dict)) and not value


def _own_labels(data: dict[str, Any], page_id: str) -> list[tuple[str, ...]]:
    """The keys of a page (of its top level) whose list of labels holds the page's own id."""
    own = page_id.lower().replace("_", "-")
    out: list[tuple[str, ...]] = []
    for key, value in data.items():
        if isinstance(value, list) and any(
            isinstance(v, str) and v.strip().lower().replace("_", "-") == own
            for v in value[:MAX_VALUES]
        ):
            out.append((key,))
    return out


# The page a site copies for a new game: a template beside the pages, or Hugo's archetype of
# the section (or its default one).
TEMPLATE_NAMES = ("_template", "_TEMPLATE", "_Template", "template", "TEMPLATE")


def template_keys(root: Path, games: str) -> tuple[PageKeys, str] | None:
    """The keys and store links of the games' template (`_TEMPLATE.md` in the games folder,
    or `archetypes/<section>.md`, `archetypes/default.md`), and its file; None without one.
    A site whose games link no store yet names its stores there."""
    section = games.rstrip("/").rsplit("/", 1)[-1]
    candidates = [
        f"{games}/{name}{ext}" for name in TEMPLATE_NAMES for ext in (".md", ".mdx", ".markdown")
    ] + [f"archetypes/{section}.md", f"archetypes/{section}/index.md", "archetypes/default.md"]
    for shown in candidates:
        path = root / shown
        if not path.is_file():
            continue
        data = read_front_matter(str(path), shown)
        if data is None:
            continue
        seen: set[tuple[str, ...]] = set()
        types: dict[tuple[str, ...], set[str]] = {}
        links: list[FrontLink] = []
        items: Counter[tuple[Any, ...]] = Counter()
        _walk(data, (), seen, types, links, None)
        _count_items(data, (), items, 0)
        if not links:
            continue
        values = {p: [_value_at(data, p)] for p in seen}
        keys = PageKeys(1, 1, Counter(seen), types, links, [shown], values, 0, items)
        return keys, shown
    return None


def _value_at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _walk(
    value: Any,
    path: tuple[Any, ...],
    seen: set[tuple[str, ...]],
    types: dict[tuple[str, ...], set[str]],
    links: list[FrontLink],
    item: dict[str, Any] | None,  # the list item `value` is a value of
) -> None:
    if len(path) > MAX_DEPTH:
        return
    if path and all(isinstance(p, str) for p in path):
        seen.add(path)
        types.setdefault(path, set()).add(_kind(value))
    if isinstance(value, dict):
        for k, v in value.items():
            if _nameable(k):
                _walk(v, (*path, k), seen, types, links, None)
    elif isinstance(value, list):
        for i, member in enumerate(value[:MAX_ITEMS]):
            inside = member if isinstance(member, dict) else None
            if inside is not None:
                for k, v in member.items():
                    if _nameable(k):
                        _walk(v, (*path, i, k), seen, types, links, inside)
            else:
                _walk(member, (*path, i), seen, types, links, None)
    else:
        store = front_store(value)
        if store is not None:
            strings = None
            if item is not None:
                strings = {
                    k: v for k, v in item.items() if isinstance(k, str) and isinstance(v, str)
                }
            links.append(FrontLink(path, store, url_host(value) or "", strings, value))


MAX_ITEM_KEYS = 20  # keys of a list's item looked at for what names it


def _count_items(
    value: Any, path: tuple[str, ...], items: Counter[tuple[Any, ...]], depth: int
) -> None:
    """Count each item of a list of objects under each name it gives itself: (list path,
    key, value, URL key) for every text key and every other key holding text or nothing."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                _count_items(v, (*path, k), items, depth + 1)
    elif isinstance(value, list) and path:
        for member in value[:MAX_ITEMS]:
            if not isinstance(member, dict) or len(member) > MAX_ITEM_KEYS:
                continue
            texts = {k: v for k, v in member.items() if isinstance(k, str) and isinstance(v, str)}
            for url_key, url in member.items():
                if isinstance(url_key, str) and (url is None or isinstance(url, str)):
                    for key, text in texts.items():
                        if key != url_key:
                            items[(path, key, text.strip().lower(), url_key)] += 1


def _nameable(key: object) -> bool:
    """A key a [fields] path names as one key: one the path grammar reads otherwise
    (`"app.store"` as app → store, a space, `[x=y]`) is never proposed."""
    return isinstance(key, str) and parse_path(key) == (key,)


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


__all__ = [
    "TEMPLATE_NAMES",
    "FrontLink",
    "PageKeys",
    "front_store",
    "has_store_link",
    "read_front_matter",
    "read_keys",
    "template_keys",
]
