"""site.toml as every command reads it, and the games folder it names as the disk spells it.

`read_site` is the one reading of ROOT/site.toml (validate, build, serve, schema): a symlink
out of the tree is not read, a FIFO or device is refused, no more than MAX_SITE_BYTES is read,
and a problem is raised as the finding validate reports.
"""

import itertools
import os
import posixpath
from pathlib import Path

from catalogctl.content.discovery import unreadable
from catalogctl.content.document import Document, Problem
from catalogctl.content.files import read_head
from catalogctl.content.frontmatter import check_wide, decode
from catalogctl.content.limits import MAX_DIR_DEPTH, MAX_PAGES, MAX_SITE_BYTES, too_many_values
from catalogctl.content.tomldoc import read_toml
from catalogctl.paths import inside

__all__ = ["SITE_FILE", "games_as_on_disk", "read_site"]

SITE_FILE = "site.toml"


def _site_document(raw: bytes, complete: bool, file: str) -> Document:
    if not complete:
        raise Problem(
            "limit",
            f"site.toml is larger than {MAX_SITE_BYTES // 1024:,} KiB, the limit; it holds "
            "settings only",
            1,
            1,
        )
    check_wide(raw)
    try:
        return read_toml(decode(raw.removeprefix(b"\xef\xbb\xbf")), file, 1, (1, 1))
    except Problem as p:
        if p.message == too_many_values():  # said of a page's front matter
            raise Problem(p.rule, too_many_values(site=True), p.line, p.column) from None
        raise


def read_site(root: Path, shown: str) -> Document:
    """ROOT/site.toml as every command reads it (`shown`: ROOT as messages name it).

    Raises a `Problem` of the rule validate reports: `site-missing`, `symlink-outside` (a
    symlink out of the tree is not read), `unreadable-file` (a FIFO or device is not waited
    on), `limit` (larger than MAX_SITE_BYTES, unread past it; nested too deep...), `encoding`
    or a TOML syntax rule.
    """
    path = os.path.join(root, SITE_FILE)
    if not os.path.lexists(path):
        raise Problem(
            "site-missing",
            "site.toml is missing from the content tree; name the folder that holds it, or "
            "write one with `catalogctl init`",
        )
    if os.path.islink(path) and not inside(path, os.path.realpath(root)):
        raise Problem(
            "symlink-outside",
            "site.toml is a symlink out of the content tree, so it is not read; copy the file "
            "into the tree instead",
        )
    try:
        raw, complete = read_head(os.path.realpath(path), MAX_SITE_BYTES)
    except OSError as exc:
        raise Problem("unreadable-file", unreadable(exc, what="site.toml")) from None
    return _site_document(raw, complete, posixpath.join(shown, SITE_FILE))


def games_as_on_disk(root: Path, games: str) -> str | None:
    """The games folder as its folders' names are written on disk, where that differs from
    `games` only in case (`Games` for `games`); None where it does not, or there is none."""
    parts = [p for p in games.split("/") if p not in ("", ".")]
    folder, spelled = str(root), []
    for part in parts[:MAX_DIR_DEPTH]:
        try:
            with os.scandir(folder) as entries:
                names = [e.name for e in itertools.islice(entries, MAX_PAGES)]
        except OSError:
            return None
        if part in names or part == "..":
            spelled.append(part)
        else:
            twins = [n for n in names if n.casefold() == part.casefold()]
            if len(twins) != 1:
                return None
            spelled.append(twins[0])
        folder = os.path.join(folder, spelled[-1])
    written = "/".join(spelled)
    return written if written != "/".join(parts) else None
