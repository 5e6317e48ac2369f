"""Write a rendered site to a build directory, atomically.

The build is written beside the target directory and swapped into place in one step, so a
build that fails for any reason (invalid content, a full disk) leaves the previous build
exactly as it was, and a server reading the directory never sees half a build.

What is at the top of a previous build and is not the build's own stays through a rebuild:
`node_modules/` and `package-lock.json` of an `npm install`, wrangler's `.wrangler/` and
`.dev.vars`, a `CNAME`, a `.git`. The build's own names (`OWNED`) are those a build of any
target writes: a rebuild replaces them, so what a build with another target left goes. The
kept entries are moved (renamed) into the new build before the swap, and back if it fails.

An `--out` that is a symlink to a directory is followed: the directory it points to is
replaced, the link stays. The staging directory is named `.<out>.catalogctl-staging-<pid>.*`
beside the target; a build removes the ones whose process is gone, so a build killed with
SIGKILL leaves nothing that outlives the next build (on POSIX; Windows cannot tell a process
exists the same way, and keeps them). On Windows, each move of the swap waits a few seconds
for a file another program holds open there (`paths.move`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from catalogctl.contract.routes import Site, etag_mtime
from catalogctl.errors import CatalogError, InputError
from catalogctl.paths import exists, inside, is_dir, is_symlink, move
from catalogctl.site.cloudflare import CLOUDFLARE_DIR, PACKAGE_JSON, WRANGLER_TOML
from catalogctl.site.manifest import (
    MANIFEST,
    PUBLIC,
    manifest,
    site_files,
)
from catalogctl.site.nginx import NGINX_DIR
from catalogctl.text import path_text

# Extra files of a build (web-server configs), relative path → bytes.
ExtraFiles = Iterable[tuple[str, bytes]]
OnBusy = Callable[[Path], object] | None  # told what a move waits for (`paths.move`)


# The top-level names a build of any target writes: a rebuild replaces them (and removes them
# when it no longer writes them); every other entry of a previous build's top level is kept.
OWNED = frozenset(
    {PUBLIC, MANIFEST, "errors", NGINX_DIR, CLOUDFLARE_DIR, WRANGLER_TOML, PACKAGE_JSON}
)


@dataclass(frozen=True, slots=True)
class BuildResult:
    out: Path
    files: int
    bytes: int
    routes: int
    kept: tuple[str, ...] = ()  # entries of the previous build's top level that are not its own
    # Directories an interrupted build left beside `out` holding entries not the build's own
    # that could not go back into `out` (the same name is there): left for the user to sort.
    stranded: tuple[Path, ...] = ()


def _is_build(path: Path) -> bool:
    return (path / MANIFEST).is_file()


def _write(root: Path, rel: str, data: bytes) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd = -100
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(rc == 0)


STAGING = "catalogctl-staging"
OLD = "catalogctl-old"


def _leftover_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(name)}\.(?:{STAGING}|{OLD})-([0-9]+)(?:\..*)?\Z", re.S)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if hasattr(signal, "CTRL_C_EVENT"):
        # Windows: os.kill(pid, 0) does not ask whether the process exists, it sends Ctrl+C
        # (CTRL_C_EVENT is 0). A leftover is kept there, as if its build still ran.
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except (OverflowError, OSError):
        return False
    return True


def remove_leftovers(out: Path) -> tuple[list[Path], list[Path]]:
    """Remove staging and old directories of `out` left by builds whose process is gone
    (killed, the machine stopped). One may hold entries a build keeps (`.git`, `CNAME`: moved
    into the staging directory just before the swap): those go back into `out` first; one
    whose entries cannot (`out` has the same name, or is gone) is left where it is. Returns
    (the directories removed, those left)."""
    pattern = _leftover_pattern(out.name)
    removed: list[Path] = []
    left: list[Path] = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return [], []
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        path = Path(entry.path)
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            continue  # never ours: we only make directories
        if not _give_back(path, out):
            left.append(path)
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed, left


def _give_back(leftover: Path, out: Path) -> bool:
    """Move the entries of `leftover` that are not a build's own into `out`; whether none is
    left in it (an old directory of a swap holds only the previous build's own)."""
    try:
        theirs = [entry.name for entry in leftover.iterdir() if entry.name not in OWNED]
    except OSError:
        return False
    if theirs and not is_dir(out):
        return False
    for name in theirs:
        if os.path.lexists(out / name):
            return False
    try:
        _move(theirs, leftover, out)
    except OSError:
        return False
    return True


def _target(out: Path) -> Path:
    """The directory a build replaces: `out`, or where `out` points when it is a symlink."""
    if not is_symlink(out):
        return out
    target = Path(os.path.realpath(out))
    if not exists(target):
        raise InputError(
            f"--out {path_text(out)} is a symlink to {path_text(target)}, which does not exist; "
            "create the directory or remove the link"
        )
    if not is_dir(target):
        raise InputError(
            f"--out {path_text(out)} is a symlink to {path_text(target)}, which is not a directory"
        )
    return target


def _not_owned(out: Path) -> list[str]:
    """The entries at the top of a previous build that no build writes (sorted)."""
    try:
        return sorted(p.name for p in out.iterdir() if p.name not in OWNED)
    except OSError:
        return []


def _move(names: Iterable[str], src: Path, dst: Path, on_busy: OnBusy = None) -> None:
    for name in names:
        move(src / name, dst / name, on_busy=on_busy)


def _swap_into_place(staging: Path, out: Path, keep: list[str], on_busy: OnBusy) -> None:
    """Put `staging` where `out` is, moving `out`'s entries named in `keep` into it first
    (and back to `out` when the swap does not happen)."""
    if not exists(out):
        move(staging, out, on_busy=on_busy)
        return
    try:
        _move(keep, out, staging, on_busy)
        previous = _replace(staging, out, on_busy)
    except BaseException:
        # Every kept entry now in the staging directory goes back, whatever point the
        # failure or the interrupt (Ctrl+C, SIGTERM) came at: between a rename and any
        # record of it too.
        moved = [name for name in keep if os.path.lexists(staging / name)]
        try:
            _move(moved, staging, out, on_busy)
        except OSError as exc:  # never lost: left where they are, and said so
            raise _Stranded(
                f"build failed, and {', '.join(moved)} could not be moved back into "
                f"{path_text(out)}: they are in {path_text(staging)}; move them back ({exc})"
            ) from exc
        raise
    shutil.rmtree(previous, ignore_errors=True)  # the build is in place whatever this does


class _Stranded(CatalogError):
    """Entries kept from the previous build that are still in the staging directory."""


def _replace(staging: Path, out: Path, on_busy: OnBusy) -> Path:
    """Swap `staging` into `out`'s place; where the previous build now is."""
    if _exchange(staging, out):
        return staging  # now holds the previous build
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.{OLD}-{os.getpid()}.", dir=out.parent))
    old.rmdir()  # only its (unique) name is needed: rename() cannot replace a directory
    move(out, old, on_busy=on_busy)
    try:
        move(staging, out, on_busy=on_busy)
    except OSError:
        move(old, out, on_busy=on_busy)
        raise
    return old


def _overlap(out: Path, content: Path, games: Path) -> str | None:
    """Why `out` cannot be built into, whatever `--force` says: replacing it would delete
    the site the build reads (the content folder, or a folder holding it), or put the build
    among the pages (the games folder, or a folder in it). None where it can."""
    real = os.path.realpath(out)
    for folder, what in ((content, "the content folder"), (games, "the games folder")):
        if inside(folder, real):
            same = os.path.realpath(folder) == real
            return f"{'is' if same else 'holds'} {what}, {path_text(folder)}"
    if inside(out, os.path.realpath(games)):
        return f"is inside the games folder, {path_text(games)}"
    return None


def write_site(
    site: Site,
    out: Path,
    *,
    extra: ExtraFiles = (),
    force: bool = False,
    on_busy: OnBusy = None,
    reads: tuple[Path, Path] | None = None,
) -> BuildResult:
    """Write `site` (and `extra` files) to `out` atomically (through a symlink `out`),
    keeping what the top of a previous build holds that is not the build's own. `reads`: the
    content folder and the games folder the site was read from, which `out` must keep clear of
    (`_overlap`), `--force` or not."""
    why = _overlap(out, *reads) if reads is not None else None
    if why is not None:
        raise InputError(
            f"--out {path_text(out)} {why}: a build there would replace or mix with the site it "
            "is built from, so nothing was written (even with --force); choose a folder outside "
            "it, e.g. --out dist beside the content folder"
        )
    out = _target(out.absolute())
    _, stranded = remove_leftovers(out)  # before deciding what to keep: they may give some back
    keep: list[str] = []
    if exists(out):
        if not is_dir(out):
            raise InputError(f"--out exists and is not a directory: {path_text(out)}")
        previous = _is_build(out)
        if not force and any(out.iterdir()) and not previous:
            raise InputError(
                f"{path_text(out)} is not empty and holds no catalogctl build; refusing to "
                "replace it (use --force to replace it anyway)"
            )
        keep = _not_owned(out) if previous else []
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        prefix = f".{out.name}.{STAGING}-{os.getpid()}."
        staging = Path(tempfile.mkdtemp(prefix=prefix, dir=out.parent))
    except OSError as exc:
        raise CatalogError(
            f"cannot create the build directory beside {path_text(out)}: {exc}"
        ) from exc
    with _terminated_as_exit():
        try:
            count = size = 0
            files = [*site_files(site), *extra]
            files.append((MANIFEST, (json.dumps(manifest(site), indent=2) + "\n").encode()))
            for rel, data in files:
                _write(staging, rel, data)
                if rel.startswith(f"{PUBLIC}/"):
                    # nginx computes the ETag the manifest holds from it (contract/routes.py)
                    mtime = etag_mtime(data)
                    os.utime(staging / rel, (mtime, mtime))
                count, size = count + 1, size + len(data)
            staging.chmod(0o755)
            _swap_into_place(staging, out, keep, on_busy)
        except _Stranded:
            raise  # the staging directory holds the kept entries: not removed
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise CatalogError(f"build failed, {path_text(out)} left as it was: {exc}") from exc
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return BuildResult(out, count, size, len(site.resources), tuple(keep), tuple(stranded))


@contextlib.contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `kill`) ends the build as Ctrl+C does: through the clean-up
    above, `out` as it was, then exit 143; where a program embedding the build set a handler
    of its own, or off the main thread, nothing changes."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    sigterm = getattr(signal, "SIGTERM", None)
    main = threading.current_thread() is threading.main_thread()
    if sigterm is None or not main or signal.getsignal(sigterm) is not signal.SIG_DFL:
        yield
        return
    signal.signal(sigterm, stop)
    try:
        yield
    finally:
        signal.signal(sigterm, signal.SIG_DFL)
