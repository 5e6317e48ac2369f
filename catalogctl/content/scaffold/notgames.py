"""The pages of a games folder that are not games, and the `[content] exclude` patterns that
name them: legal pages (a privacy policy, terms of use: app stores ask each app for one, and
studios keep them beside the game or in a `legal` folder), a game's own sub-pages (a
Jekyll collection keeping `_games/<game>/mechanics/*.md` beside `_games/<game>/<game>.md`),
and translations named as Jekyll sites name them by hand (`shark-hunt-fr.md` beside
`shark-hunt.md`, or `fr/shark-hunt.md`; Hugo's and Zola's `shark-hunt.fr.md` validate
itself reads as a translation).

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
# A page's name with a language after `-` or `_` (`shark-hunt-fr.md`, `intro_pt-br.md`).
_TRANSLATED = re.compile(
    r"(?P<base>.+?)(?P<sep>[-_])(?P<lang>[a-z]{2}(?:[-_][a-z]{2})?)(?P<ext>\.(?:md|markdown|mdx))",
    re.IGNORECASE,
)
_LANGUAGE_FOLDER = re.compile(r"[a-z]{2}(?:[-_][a-z]{2})?", re.IGNORECASE)


class NotGames(NamedTuple):
    """Pages init leaves out of the games, and the patterns that leave them out."""

    legal: list[PageInfo]
    pages: list[PageInfo]  # of the games folder: a game's sub-pages, translations
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
    if _legal(_name(name)):
        return name
    return next((p for p in reversed(parts[:-1]) if _legal(_name(p))), None)


def _legal(name: str) -> bool:
    """A legal page's name, alone or after a game's (`cat-hatch-privacy-policy`)."""
    return name in LEGAL_NAMES or any(name.endswith("-" + legal) for legal in _AFTER_A_NAME)


# The legal names that end a longer name only as a legal page's (`fortune-cookies` is a game).
_AFTER_A_NAME = tuple(
    sorted(n for n in LEGAL_NAMES if "-" in n or n in ("privacy", "privacypolicy", "eula"))
)


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
    left = [p for found in subs.values() for p in found]
    left_files = {p.file for p in left}
    for pattern, found in translations([p for p in pages if p.file not in left_files]).items():
        patterns.append((pattern, f"translations: {_files([p.file for p in found])}"))
        left += found
    return NotGames(list(legal), left, patterns)


def translations(pages: list[PageInfo]) -> dict[str, list[PageInfo]]:
    """Translations named by hand, by the pattern that names them: pages whose name adds a
    language to another page's of the same folder (`shark-hunt-fr.md` beside
    `shark-hunt.md`), or pages in a folder named as a language whose names are those of
    pages outside it (`fr/shark-hunt.md`). A pattern is taken where two or more pages carry
    it and every one of them has its original (a game named `sky-io.md` keeps its page)."""
    files = {p.file for p in pages}
    by_suffix: dict[tuple[str, str], list[tuple[PageInfo, bool]]] = {}
    for page in pages:
        folder, _, name = page.file.rpartition("/")
        m = _TRANSLATED.fullmatch(name)
        if m is None:
            continue
        original = f"{folder}/{m['base']}{m['ext']}" if folder else f"{m['base']}{m['ext']}"
        suffix = f"{m['sep']}{m['lang'].lower()}{m['ext'].lower()}"
        by_suffix.setdefault((suffix, m["ext"]), []).append((page, original in files))
    found: dict[str, list[PageInfo]] = {}
    for (suffix, _), these in by_suffix.items():
        if len(these) >= 2 and all(has for _, has in these):
            found[f"*{suffix}"] = [p for p, _ in these]
    names: dict[str, set[str]] = {}  # folder -> the names of its pages
    in_folder: dict[str, list[PageInfo]] = {}
    for page in pages:
        folder, _, name = page.file.rpartition("/")
        names.setdefault(folder, set()).add(name)
        in_folder.setdefault(folder, []).append(page)
    for folder, inside in names.items():
        parent, _, last = folder.rpartition("/")
        if not _LANGUAGE_FOLDER.fullmatch(last) or len(inside) < 2:
            continue
        originals = names.get(parent, set())
        if 2 * len(inside & originals) > len(inside):
            found[f"{last}/"] = in_folder[folder]
    return found


def _files(files: list[str]) -> str:
    shown = ", ".join(files[:2])
    return f"{shown}, and {len(files) - 2} more" if len(files) > 2 else shown


__all__ = [
    "LEGAL_NAMES",
    "NotGames",
    "legal_name",
    "not_games",
    "sub_pages",
    "translations",
    "without_legal",
]
