"""What is at a path a user or a content file gives: a yes or a no, never an exception.

`pathlib`'s `is_file`, `is_dir`, `exists` and `is_symlink` answer False where nothing is, but
raise where the system cannot even look: a name longer than the file system takes
(ENAMETOOLONG, an icon path of 5,000 letters, a mistyped `--output`), no permission to search
a folder on the way (EACCES). Such a path holds nothing that can be used, so these answer
False too, and the caller's own message ("not a folder", "cannot write …") says what to do;
`os.path`'s functions behave the same, on every Python this project supports.

`inside` says whether a path, its symlinks resolved, lies in a folder. `file_mode` gives a
file written in one step (beside its name, then moved over it) the permissions a file written
in place would have.

`move` renames as `os.rename`/`os.replace` do, but waits out what Windows does to a name
that another program holds open (see there).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

# How long a move waits for a file, or a folder's file, that another program holds open.
BUSY_SECONDS = 10.0
# Windows' errors for a name held open elsewhere: ERROR_ACCESS_DENIED (5: the folder of an
# open file, a file replaced while open) and ERROR_SHARING_VIOLATION (32: the file itself).
_BUSY = frozenset({5, 32})


def is_file(path: Path | str) -> bool:
    """A regular file (or a symlink to one) is at `path`."""
    try:
        return Path(path).is_file()
    except OSError:
        return False


def is_dir(path: Path | str) -> bool:
    """A folder (or a symlink to one) is at `path`."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def exists(path: Path | str) -> bool:
    """Something is at `path` (a dangling symlink is not something)."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def is_symlink(path: Path | str) -> bool:
    """`path` is a symbolic link (dangling or not)."""
    try:
        return Path(path).is_symlink()
    except OSError:
        return False


def inside(path: Path | str, root_real: str) -> bool:
    """Whether `path`, its symlinks resolved, is `root_real` (a real path) or inside it."""
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def file_mode(replacing: Path) -> int:
    """The permissions of a file written beside `replacing` and moved over it (`tempfile`
    makes it 0600): those of the regular file it replaces, else what `open()` would give a new
    file under the process's umask (0644 under the usual 022)."""
    try:
        info = os.lstat(replacing)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode)
    mask = os.umask(0o022)  # read by setting it: the only way on every system
    os.umask(mask)
    return 0o666 & ~mask


def move(
    src: Path,
    dst: Path,
    *,
    replace: bool = False,
    on_busy: Callable[[Path], object] | None = None,
) -> None:
    """`os.rename(src, dst)` (`os.replace` with `replace`), tried again while Windows refuses
    it because a program holds a file open there: a server reading a build, an editor, a
    virus scanner looking at a file just written. Such a hold lasts moments, so the move is
    tried for up to `BUSY_SECONDS` (`on_busy` is told once, with `src`, when it first waits);
    past them, or for any other error, the error is raised."""
    deadline: float | None = None
    pause = 0.01
    while True:
        try:
            if replace:
                src.replace(dst)
            else:
                src.rename(dst)
        except PermissionError as exc:
            if getattr(exc, "winerror", None) not in _BUSY:
                raise
            now = time.monotonic()
            if deadline is None:
                deadline = now + BUSY_SECONDS
                if on_busy is not None:
                    on_busy(src)
            if now >= deadline:
                raise
            time.sleep(min(pause, deadline - now))
            pause = min(pause * 2, 0.25)
        else:
            return
