"""URLs found fine recently, in a file (like lychee's .lycheecache); failures are never stored."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from catalogctl.content.files import read_head
from catalogctl.content.limits import MAX_DEPTH, json_too_deep
from catalogctl.errors import InputError
from catalogctl.links.catalog import Link
from catalogctl.links.result import LinkResult
from catalogctl.paths import exists, file_mode, is_dir, move
from catalogctl.text import path_text

_CACHE_KEY = "catalogctl-link-cache"
_LATEST = 1e11  # seconds since 1970 (the year 5138): a later time is no time a check ran
# The largest cache read or written: an entry is its URL and about 80 bytes, so 100,000 games
# of four links each make 60 MB; a larger file is not one catalogctl wrote.
MAX_CACHE_BYTES = 256 << 20


def _well_formed(entry: object) -> bool:
    """An entry as `record` writes it: a time of check and the roles the link was checked
    for (a cache edited by hand, or by another program, may hold anything: such an entry is
    dropped, and the link checked again)."""
    if not isinstance(entry, dict):
        return False
    checked, kinds = entry.get("checked"), entry.get("kinds", [])
    return (
        isinstance(checked, int | float)
        and not isinstance(checked, bool)
        and 0 <= checked <= _LATEST
        and isinstance(kinds, list)
        and all(isinstance(kind, str) for kind in kinds)
    )


class LinkCache:
    """The link cache file: URL → when it was found fine, its status and the roles judged."""

    def __init__(self, path: Path, max_age: float, entries: dict[str, dict[str, Any]]) -> None:
        self.path = path
        self.max_age = max_age
        self.entries = entries

    @classmethod
    def open(cls, path: Path, max_age: float) -> LinkCache:
        if not exists(path):
            if not is_dir(path.parent):  # found out now, not after every link is checked
                raise InputError(
                    f"cannot write the link cache {path_text(path)}: no directory "
                    f"{path_text(path.parent)}"
                )
            return cls(path, max_age, {})
        try:
            # A regular file only, read without blocking (a FIFO) and no further than the
            # limit (/dev/zero); a symlink is followed to the file it names.
            real = os.path.realpath(path)
            if Path(real).stat().st_size > MAX_CACHE_BYTES:  # known too large: not read at all
                raw, complete = b"", False
            else:
                raw, complete = read_head(real, MAX_CACHE_BYTES)
        except OSError as exc:
            raise InputError(
                f"cannot read the link cache {path_text(path)}: {exc.strerror or exc}; "
                "choose another --cache file"
            ) from None
        raw = raw.removeprefix(b"\xef\xbb\xbf")  # a BOM too
        why = None
        if not complete:
            why = f"it is larger than {MAX_CACHE_BYTES >> 20} MiB, the limit"
        elif json_too_deep(raw):  # checked before the parser (RecursionError)
            why = f"it nests arrays and objects deeper than {MAX_DEPTH} levels"
        doc = None
        if why is None:
            with contextlib.suppress(ValueError):  # not JSON (nor UTF-8): not ours either
                doc = json.loads(raw)
        if not isinstance(doc, dict) or not isinstance(doc.get(_CACHE_KEY), dict):
            # Never overwrite a file that is not ours (a mistyped --cache content/site.toml).
            said = f": {why}" if why else ""
            raise InputError(
                f"{path_text(path)} is not a catalogctl link cache{said}; choose another "
                "--cache file"
            )
        entries = {k: v for k, v in doc[_CACHE_KEY].items() if _well_formed(v)}
        return cls(path, max_age, entries)

    def fresh(self, link: Link, now: float) -> dict[str, Any] | None:
        entry = self.entries.get(link.url)
        if entry is None:
            return None
        checked = entry["checked"]
        if now - checked > self.max_age or now < checked:
            return None
        # An entry judged for fewer roles (a store link now also used as an icon) is stale.
        if not link.kinds <= set(entry.get("kinds", ())):
            return None
        return entry

    def record(self, result: LinkResult, now: float) -> None:
        url = result.link.url
        if result.source == "network" and result.state == "ok":
            self.entries[url] = {
                "checked": round(now, 3),
                "status": result.status,
                "kinds": sorted(result.link.kinds),
            }
        elif result.state in ("broken", "warning"):
            self.entries.pop(url, None)

    def save(self, now: float) -> None:
        """Write the cache anew: a file of its own, renamed over the --cache name when complete
        (a run stopped half-way leaves the old cache whole; a symlink given as --cache is
        replaced by the file, its target never written)."""
        keep = {url: e for url, e in self.entries.items() if now - e["checked"] <= self.max_age}
        data = _encoded(keep)
        if len(data) > MAX_CACHE_BYTES:  # never a cache the next run would refuse
            newest = sorted(keep.items(), key=lambda item: item[1]["checked"], reverse=True)
            data = _encoded(dict(newest[: len(newest) * MAX_CACHE_BYTES // len(data) // 2]))
        directory = self.path.parent
        tmp: Path | None = None
        try:
            fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=directory)
            tmp = Path(name)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())  # a crash after the rename leaves this, not an empty file
            tmp.chmod(file_mode(self.path))
            move(tmp, self.path, replace=True)  # waits while Windows says it is open elsewhere
        except OSError as exc:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    tmp.unlink()
            raise InputError(
                f"cannot write the link cache {path_text(self.path)}: {exc.strerror or exc}"
            ) from None


def _encoded(entries: dict[str, dict[str, Any]]) -> bytes:
    return json.dumps({_CACHE_KEY: entries}, indent=0, sort_keys=True).encode()


__all__ = ["LinkCache"]
