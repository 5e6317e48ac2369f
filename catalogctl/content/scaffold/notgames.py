"""The pages of a games folder that are not games, and the `[content] exclude` patterns that
name them: legal pages (a privacy policy, terms of use: app stores ask each app for one, and
studios keep them beside the game or in a `legal` folder), and a game's own sub-pages (a
Jekyll collection keeping `_games/<game>/mechanics/*.md` beside `_games/<game>/<game>.md`).

A page that links a store is never taken for either: it may be a game, whatever its name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from typing import NamedTuple

from catalogctl.content.scaffold.survey import PageInfo, Scan

# File or folder names (lowercased, `_` as `-`) of legal pages.
LEGAL_NAMES = frozenset(
    {
        "privacy",
        "privacy-policy",
        "privacypolicy",
        "privacy-notice",
        "terms",
        "terms-of-service",
        "terms-of-use",
        "terms-and-conditions",
        "tos",
        "eula",
        "legal",
        "imprint",
        "impressum",
        "cookies",
        "cookie-policy",
        "disclaimer",
        "gdpr",
        "data-deletion",
        "delete-account",
        "account-deletion",
        "data-safety",
    }
)
_SUFFIX = re.compile(r"\.(?:md|markdown|mdx)$", re.IGNORECASE)


class NotGames(NamedTuple):
    """Pages init leaves out of the games, and the patterns that leave them out."""

    legal: list[PageInfo]
    sub_pages: list[PageInfo]
    patterns: list[tuple[str, str]]  # (pattern, why), in the order site.toml lists them


def _name(text: str) -> str:
    return _SUFFIX.sub("", text).lower().replace("_", "-")


def legal_name(page: PageInfo) -> str | None:
    """The file or folder name that makes a page a legal page (as written), or None."""
    if page.front_link or page.body:
        return None
    parts = page.file.split("/")
    name = parts[-1]
    if _name(name) == "index" and len(parts) > 1:  # a bundle: its folder names it
        name = parts[-2]
    if _name(name) in LEGAL_NAMES:
        return name
    return next((p for p in reversed(parts[:-1]) if _name(p) in LEGAL_NAMES), None)


def without_legal(found: Scan, sections: Collection[str] = ()) -> Scan:
    """The scan with its legal pages taken out of its pages (into its `legal`), and the
    section pages that are games added: a `<game>/_index.md` that links a store, whose folder
    holds no pages but legal ones (Hugo's branch bundle of a game and its privacy policy), and
    is not named as a section of games is (`sections`: games, apps, …; its page lists them)."""
    legal = tuple(p for p in found.pages if legal_name(p) is not None)
    pages = [p for p in found.pages if legal_name(p) is None]
    games = [
        s
        for s in found.sections
        if s.file.split("/")[-2].lower() not in sections and _holds_only(s, pages)
    ]
    if not legal and not games:
        return found
    return found._replace(pages=pages + games, legal=legal)


def _holds_only(section: PageInfo, pages: list[PageInfo]) -> bool:
    """Whether the folder of a section page holds no page (legal pages aside)."""
    folder = section.file.rsplit("/", 1)[0]
    return not any(p.folder == folder or p.folder.startswith(folder + "/") for p in pages)


def sub_pages(pages: list[PageInfo], games: str) -> dict[str, list[PageInfo]]:
    """A game's own sub-pages, by the name of the folder they are in below the game's: pages
    that link no store, in a folder below one that holds a single page (the game's)."""
    direct = Counter(p.folder for p in pages)
    prefix = "" if games == "." else games + "/"
    found: dict[str, list[PageInfo]] = {}
    for page in pages:
        if page.front_link or page.body or not page.folder.startswith(prefix):
            continue
        parts = page.folder[len(prefix) :].split("/")
        for end in range(1, len(parts)):
            if direct[prefix + "/".join(parts[:end])] == 1:
                found.setdefault(parts[end], []).append(page)
                break
    return found


def not_games(pages: list[PageInfo], legal: Sequence[PageInfo], games: str) -> NotGames:
    """What of a games folder's pages (`pages`, and the `legal` pages taken out of them) is
    not a game, and the patterns that say so."""
    patterns: list[tuple[str, str]] = []
    by_name: dict[str, list[str]] = {}
    for page in legal:
        by_name.setdefault(legal_name(page) or "", []).append(page.file)
    for name, files in by_name.items():
        patterns.append((name, f"legal: {_files(files)}"))
    subs = sub_pages(pages, games)
    for folder, found in subs.items():
        patterns.append((f"*/{folder}/*", f"a game's own pages: {_files([p.file for p in found])}"))
    return NotGames(list(legal), [p for found in subs.values() for p in found], patterns)


def _files(files: list[str]) -> str:
    shown = ", ".join(files[:2])
    return f"{shown}, and {len(files) - 2} more" if len(files) > 2 else shown


__all__ = ["LEGAL_NAMES", "NotGames", "legal_name", "not_games", "sub_pages", "without_legal"]
