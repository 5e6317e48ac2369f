"""Writing the proposed site.toml and checking the site with it."""

from __future__ import annotations

import os
import posixpath
import tempfile
from pathlib import Path, PurePath
from typing import NamedTuple

from catalogctl.content.loader import SITE_FILE, Content, load
from catalogctl.content.scaffold.propose import Proposal, propose
from catalogctl.errors import InputError
from catalogctl.paths import exists, file_mode, is_dir, is_symlink, move
from catalogctl.text import path_text


class InitResult(NamedTuple):
    """What `catalogctl init` did: the site.toml it wrote, what it rests on, what validate
    then says of the site."""

    path: Path
    proposal: Proposal
    content: Content
    site_file: str  # the site.toml written, as findings name it

    def lacking(self) -> dict[str, list[str]]:
        """Key → the pages without it (the keys the pages truly lack; site.toml's own
        missing settings are not the pages')."""
        out: dict[str, list[str]] = {}
        for f in self.content.findings:
            if f.rule == "missing-field" and f.field and f.file != self.site_file:
                out.setdefault(f.field, []).append(f.file)
        return out


def init_site(
    root: Path, *, games: str | None = None, force: bool = False, display: str | None = None
) -> InitResult:
    """Propose a site.toml for the website at `root`, write it, and validate the site."""
    if not is_dir(root):
        raise InputError(f"not a folder: {path_text(root)}")
    path = root / SITE_FILE
    if (exists(path) or is_symlink(path)) and not force:
        raise InputError(
            f"{path_text(path)} exists; it is left as it is (--force replaces it; "
            "`catalogctl validate` checks it)"
        )
    if games is not None:
        # As site.toml writes it on every system: `content\games` typed on Windows is
        # `content/games` (elsewhere `\` is a letter of a name, and stays).
        games = PurePath(games).as_posix().removeprefix("./").rstrip("/") or "."
    proposal = propose(root, games, path_text(display) if display is not None else ".")
    _write(path, proposal.text)
    content = load(root, display=display, uncapped=True)  # `lacking` names every page
    shown = path_text(display if display is not None else root)
    return InitResult(path, proposal, content, posixpath.join(shown, SITE_FILE))


def _write(path: Path, text: str) -> None:
    """The file in one step: written beside it, then moved over it."""
    fd, tmp = tempfile.mkstemp(prefix=".site.toml.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:  # LF on Windows too
            f.write(text)
        Path(tmp).chmod(file_mode(path))  # 0644, or the mode of the site.toml it replaces
        move(Path(tmp), path, replace=True)  # waits while Windows says it is open elsewhere
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
