"""The keys the pages of the games folder use, and the values they hold.

The pages are read as `validate` reads them (the same discovery: bundles, translations,
sections), and every key path with a value is counted, with a sample of its values.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.discovery import discover, read_head
from catalogctl.content.document import Problem
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page
from catalogctl.content.scaffold.links import has_store_link, store_of

MAX_VALUES = 200  # values kept of one key path, for guessing what it holds

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
    # key path -> its values, one per page (a sample), for guessing what the key holds
    values: dict[tuple[str, ...], list[Any]]


def read_front_matter(path: str, shown: str) -> dict[str, Any] | None:
    """A page's front matter, or None when it cannot be read (validate will say why)."""
    try:
        raw, complete = read_head(path, HEAD_BYTES)
        return parse_page(raw, shown, complete=complete).data
    except (OSError, Problem):
        return None


def read_keys(root: Path, games: str, language: str) -> PageKeys:
    """Every key path of the pages `validate` would read in `games`."""
    found = discover(str(root / games), games, str(root), language)
    paths: Counter[tuple[str, ...]] = Counter()
    types: dict[tuple[str, ...], set[str]] = {}
    links: list[Link] = []
    game_pages = 0
    files: list[str] = []
    values: dict[tuple[str, ...], list[Any]] = {}
    for page in found.pages:
        data = read_front_matter(page.path, page.file)
        if data is None:
            continue
        files.append(page.file)
        game_pages += has_store_link(data)
        seen: set[tuple[str, ...]] = set()
        _walk(data, (), seen, types, links, None)
        paths.update(seen)
        for path in seen:
            kept = values.setdefault(path, [])
            if len(kept) < MAX_VALUES:
                kept.append(_value_at(data, path))
    return PageKeys(len(files), game_pages, paths, types, links, files, values)


def _value_at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


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


__all__ = ["PageKeys", "read_front_matter", "read_keys"]
