"""The files a source reads, and a fingerprint of them: what `serve --watch` watches.

A content tree reads its site.toml and the pages the content layer's discovery finds under the
games folder that site.toml names (`[content] games`, in `[content] language`): bundles, nested
sections, translations and every page suffix, exactly as `validate` reads them. A build reads
its manifest.json (a new build replaces the folder, and with it the manifest).

Discovery runs again at every look, so a page added, removed or renamed, a folder of pages
created, or a games folder moved in site.toml changes the fingerprint as an edit does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.discovery import Discovery, discover
from catalogctl.content.document import Problem
from catalogctl.content.files import read_head
from catalogctl.content.frontmatter import decode
from catalogctl.content.limits import MAX_SITE_BYTES
from catalogctl.content.loader import GAMES_DIR, SITE_FILE
from catalogctl.content.tomldoc import read_toml
from catalogctl.paths import inside
from catalogctl.site.manifest import MANIFEST

# (file, size, modification time in ns, inode) of a file; (file, None, None, None): missing.
Stamp = tuple[str, int | None, int | None, int | None]


class ContentFiles(NamedTuple):
    """The files a content tree reads."""

    site: str  # site.toml
    games: str  # the games folder site.toml names
    pages: tuple[str, ...]  # every page file discovery finds there, in its order
    problems: tuple[tuple[str, str], ...]  # (rule, file) of what discovery could not read


def pages_settings(site_file: str) -> tuple[str, str]:
    """`[content] games` and `language` of a site.toml, or the defaults where it has none.

    Lenient: a site.toml that does not parse still gets watched, with the default folder.
    """
    games, language = GAMES_DIR, "en"
    try:
        raw, _ = read_head(site_file, MAX_SITE_BYTES)
        data: Any = read_toml(decode(raw.removeprefix(b"\xef\xbb\xbf")), SITE_FILE, 1, (1, 1)).data
    except (OSError, Problem, UnicodeError):
        return games, language
    content = data.get("content") if isinstance(data, dict) else None
    if isinstance(content, dict):
        if isinstance(content.get("games"), str) and content["games"]:
            games = content["games"]
        if isinstance(content.get("language"), str) and content["language"]:
            language = content["language"]
    return games, language


def content_files(root: Path) -> ContentFiles:
    """The files the content tree `root` reads, as the content layer finds them."""
    site_file = root / SITE_FILE
    games, language = pages_settings(str(site_file))
    games_dir = os.path.normpath(root / games)
    found = Discovery()
    if Path(games_dir).is_dir() and inside(games_dir, os.path.realpath(root)):
        found = discover(games_dir, games_dir, str(root), language)
    return ContentFiles(
        str(site_file),
        games_dir,
        tuple(page.path for page in found.pages),
        tuple((p.rule, p.file) for p in found.problems),
    )


def _stamp(file: str) -> Stamp:
    try:
        # os.stat: half the time of Path.stat, which counts at 10,000 pages every second.
        st = os.stat(file)  # noqa: PTH116
    except OSError:
        return (file, None, None, None)
    return (file, st.st_size, st.st_mtime_ns, st.st_ino)


def fingerprint(root: Path, *, is_build: bool) -> tuple[object, ...]:
    """What changes when a file the source reads changes (compare two for equality)."""
    if is_build:
        return (_stamp(str(root / MANIFEST)),)
    files = content_files(root)
    return (
        _stamp(files.site),
        files.games,
        tuple(_stamp(page) for page in files.pages),
        files.problems,
    )
