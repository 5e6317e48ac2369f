"""What is at a path a user or a content file gives: a yes or a no, never an exception.

`pathlib`'s `is_file`, `is_dir`, `exists` and `is_symlink` answer False where nothing is, but
raise where the system cannot even look: a name longer than the file system takes
(ENAMETOOLONG, an icon path of 5,000 letters, a mistyped `--output`), no permission to search
a folder on the way (EACCES). Such a path holds nothing that can be used, so these answer
False too, and the caller's own message ("not a folder", "cannot write …") says what to do;
`os.path`'s functions behave the same, on every Python this project supports.
"""

from __future__ import annotations

from pathlib import Path


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
