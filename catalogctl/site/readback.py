"""Read a build directory back (`serve`, `diff`, `check-links`): its manifest and the files it
names, each checked as a file catalogctl wrote.

A file is read only when it is a regular file inside the build: a FIFO is not waited on, a
device (/dev/zero) or a folder is not read, a file past MAX_BUILD_FILE is refused by its size,
and a path the manifest names outside the build, or a symlink that leads out of it
(`public/api/v1/index.json` -> /etc/passwd), is refused: catalogctl writes no symlinks, and
such a file would be served as the document. Anything else is an `InputError` naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pydantic import ValidationError

from catalogctl.contract.routes import Site
from catalogctl.errors import InputError
from catalogctl.paths import inside, is_file
from catalogctl.site.manifest import MANIFEST, read_manifest, site_from_manifest
from catalogctl.text import path_text

__all__ = ["MAX_BUILD_FILE", "read_build"]


def read_build(path: Path) -> Site:
    """Load a build directory's route table and files."""
    from catalogctl.content.limits import json_depth_problem

    manifest_path = path / MANIFEST
    if not is_file(manifest_path):
        raise InputError(f"not a catalogctl build (no {MANIFEST}): {path_text(path)}")
    try:
        raw = _build_file(path, MANIFEST)
        problem = json_depth_problem(raw)
        if problem is not None:
            raise InputError(f"the {MANIFEST} of the build in {path_text(path)} {problem}")
        data = read_manifest(raw)
        return site_from_manifest(data, lambda rel: _build_file(path, rel))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        said = f"{where}: {first['msg']}" if where else first["msg"]  # no member: not JSON
        raise InputError(
            f"the {MANIFEST} of the build in {path_text(path)} is not one catalogctl wrote "
            f"({said}); build it again"
        ) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the build in {path_text(path)}: {exc}") from exc


# A file of a build is read whole; past this size it is not a file catalogctl wrote.
MAX_BUILD_FILE = 1 << 30
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO is refused, not waited on
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _regular_file(path: Path, rel: str) -> bytes:
    """The bytes of a regular file: a FIFO, a device (/dev/zero) or a folder put in a build's
    place is refused (ValueError), never read from; so is a file larger than MAX_BUILD_FILE
    (by its size, unread; one that grows past it while read, once it has)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    too_large = ValueError(f"{rel} is larger than {MAX_BUILD_FILE >> 20} MiB")
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ValueError(f"{rel} is not a regular file")
    if info.st_size > MAX_BUILD_FILE:
        os.close(fd)
        raise too_large
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_BUILD_FILE + 1)
    if len(data) > MAX_BUILD_FILE:
        raise too_large
    return data


def _build_file(build: Path, rel: str) -> bytes:
    """A file the manifest names: a relative path inside the build, never one outside it."""
    if not rel or "\0" in rel:
        raise ValueError(f"the manifest names a file as {rel!r}")
    parts = Path(rel).parts
    if Path(rel).is_absolute() or ".." in parts:
        raise ValueError(f"the manifest names {rel!r}, which is outside the build")
    if not inside(build / rel, os.path.realpath(build)):
        # catalogctl writes no symlinks: one out of the build (to /etc/passwd) is not served
        raise ValueError(f"{rel} is a symlink to a file outside the build")
    return _regular_file(build / rel, rel)
