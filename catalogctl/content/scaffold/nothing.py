"""What init says when it found no game pages to go on, or could read none of the pages of
the games folder: the folders it saw, the files it could not read or took for no page, the
section pages that may each be a game's, a data file that lists the games, the bound the walk
stopped at."""

from __future__ import annotations

import itertools
import os
import posixpath
from collections import Counter
from pathlib import Path

from catalogctl.content.files import read_head
from catalogctl.content.scaffold.choose import Choice, few, name_weight
from catalogctl.content.scaffold.pages import PageKeys
from catalogctl.content.scaffold.survey import NO_FRONT_MATTER, Scan
from catalogctl.text import clean, path_text, plural

__all__ = ["none_read", "nothing_to_go_on"]


def none_read(games: str, keys: PageKeys) -> str:
    """Why no page of the games folder could be read: the files without front matter, and
    the front matter each other page failed on (as `validate` says it, with its line)."""
    plain = [f for f, why in keys.unread if "no front matter" in why]
    failed = [(f, why) for f, why in keys.unread if "no front matter" not in why]
    said = []
    if plain:
        have = "has" if len(plain) == 1 else "have"
        said.append(
            f"{plural(len(plain), 'Markdown file')} {have} no front matter ({few(plain)}), and "
            "catalogctl reads each game from the front matter of its page"
        )
    if failed:
        more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        why = "; ".join(f"{file}: {reason}" for file, reason in failed[:3])
        said.append(f"the front matter of {plural(len(failed), 'page')} is invalid ({why}{more})")
    reasons = ": " + "; ".join(said) if said else ""
    return (
        f"no page in {games} could be read{reasons}; correct the pages, or name the folder of "
        "the game pages with --games FOLDER"
    )


def _without_front_matter(found: Scan, folder: str = ".") -> str:
    """`; 18 Markdown files have no front matter (…)`, of `folder`, for a message saying
    that no page was found: the site keeps its games in files catalogctl does not read."""
    plain = [
        f
        for f, why in found.unread
        if why == NO_FRONT_MATTER and (folder == "." or f.startswith(folder.rstrip("/") + "/"))
    ]
    unread = [
        f
        for f, why in found.unread
        if why != NO_FRONT_MATTER and (folder == "." or f.startswith(folder.rstrip("/") + "/"))
    ]
    said = ""
    if plain:
        have = "has" if len(plain) == 1 else "have"
        said += (
            f"; {plural(len(plain), 'Markdown file')} {have} no front matter ({few(plain)}), "
            "and catalogctl reads each game from the front matter of its page"
        )
    if unread:
        said += (
            f"; {plural(len(unread), 'file')} could not be read ({few(unread)}; --games with "
            "their folder says why)"
        )
    return said


def _only_sections(found: Scan) -> str:
    """The folder whose subfolders each have a section page (`content/<app>/_index.md`),
    where there is no other page: each section may be a game."""
    folders = Counter(posixpath.dirname(posixpath.dirname(f)) or "." for f in found.section_files)
    if not folders:
        return ""
    folder, n = folders.most_common(1)[0]
    files = [f for f in found.section_files if posixpath.dirname(posixpath.dirname(f)) == folder]
    return (
        f"; {plural(n, 'section page')} of {folder} ({few(files)}), each in a folder of its "
        f"own, may each be a game's (`--games {folder}` reads them)"
    )


# Folders of generators' data files, and the names of one that lists games.
DATA_FOLDERS = ("_data", "data", "src/_data", "src/data")
DATA_NAMES = frozenset({"games", "apps", "projects", "portfolio", "catalog", "releases"})
DATA_SUFFIXES = (".yml", ".yaml", ".json", ".toml")


def _games_data(root: Path) -> str:
    """A data file that lists the games (Jekyll's `_data/games.yml`), said: catalogctl reads
    a game from its own page, and such a site has none."""
    found = []
    for folder in DATA_FOLDERS:
        try:
            with os.scandir(root / folder) as entries:
                names = sorted(e.name for e in itertools.islice(entries, MAX_DATA_FILES))
        except OSError:
            continue
        found += [
            f"{folder}/{name}"
            for name in names
            if name.lower().endswith(DATA_SUFFIXES) and name.rsplit(".", 1)[0].lower() in DATA_NAMES
        ]
    if not found:
        return ""
    return (
        f"; the site lists its games in a data file ({few([clean(f) for f in found])}), and "
        "catalogctl reads each game from the front matter of a page of its own: give each game "
        "a page (docs/content/format.md)"
    )


MAX_DATA_FILES = 1_000  # names of one data folder looked at
MAX_HTML_FILES = 200  # files of a games folder looked at for HTML pages
_HTML_PARENTS = (".", "content", "src", "src/content", "src/pages", "pages")


def _html_pages(root: Path) -> str:
    """HTML pages with front matter in a folder named as a games section (Jekyll's
    `games/gravv/index.html`), said: catalogctl reads Markdown pages only."""
    found: list[str] = []
    for parent in _HTML_PARENTS:
        try:
            with os.scandir(root / parent) as entries:
                folders = [e.name for e in itertools.islice(entries, MAX_DATA_FILES) if e.is_dir()]
        except OSError:
            continue
        for name in sorted(folders):
            if name_weight(name.lower()):
                found += _html_in(root, posixpath.normpath(posixpath.join(parent, name)))
    if not found:
        return ""
    are = "is an HTML page" if len(found) == 1 else "are HTML pages"
    return (
        f"; {few([clean(f) for f in found])} {are} with front matter, which catalogctl does "
        "not read: a game's page is Markdown (.md, .markdown, .mdx)"
    )


def _html_in(root: Path, folder: str) -> list[str]:
    """The HTML files of `folder` and of its subfolders' `index.html` that open with front
    matter (`---`)."""
    out = []
    try:
        with os.scandir(root / folder) as entries:
            listed = list(itertools.islice(entries, MAX_HTML_FILES))
    except OSError:
        return []
    for entry in sorted(listed, key=lambda e: e.name):
        name = f"{entry.name}/index.html" if entry.is_dir() else entry.name
        if name.lower().endswith(".html") and name.lower() != "index.html":
            try:  # a regular file only: a FIFO or a device named *.html is never waited on
                opens, _ = read_head(os.fspath(root / folder / name), 5)
            except OSError:
                continue
            if opens.startswith(b"---"):
                out.append(f"{folder}/{name}")
    return out


def nothing_to_go_on(root: Path, choice: Choice) -> str:
    seen = [c for c in choice.candidates if c.folder != "."][:5]
    legal = [p.file for p in choice.scan.legal]
    left_out = f" ({plural(len(legal), 'legal page')} left out: {few(legal)})" if legal else ""
    bounds = choice.scan.bounds
    reached = f"; the walk stopped at a bound: {bounds[0]}" if bounds else ""
    if not seen:
        return (
            f"no pages found in {path_text(root)} to take for game pages{left_out}"
            f"{_without_front_matter(choice.scan)}{_only_sections(choice.scan)}"
            f"{_html_pages(root)}{_games_data(root)}{reached}: name the games folder with "
            "--games FOLDER"
        )
    shown = "; ".join(
        f"{c.folder} ({plural(c.pages, 'page')}{': ' + ', '.join(c.reasons) if c.reasons else ''})"
        for c in seen
    )
    linked = any(p.front_link or p.body for p in choice.scan.pages)
    links = "a store link only in a few of a blog's posts" if linked else "no store link"
    return (
        f"no folder of {path_text(root)} looks like the games section ({links}, no games or "
        f"apps folder, no game category or collection); folders of pages seen: {shown}"
        f"{left_out}{_html_pages(root)}{_games_data(root)}{reached}; name the games folder "
        "with --games FOLDER"
    )
