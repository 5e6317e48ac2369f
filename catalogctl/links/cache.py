"""URLs found fine recently, in a file (like lychee's .lycheecache); failures are never stored."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from catalogctl.errors import InputError
from catalogctl.links.catalog import Link
from catalogctl.links.result import LinkResult
from catalogctl.paths import exists, is_dir
from catalogctl.text import path_text

_CACHE_KEY = "catalogctl-link-cache"
_LATEST = 1e11  # seconds since 1970 (the year 5138): a later time is no time a check ran


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
            doc = json.loads(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))  # a BOM too
        except OSError as exc:
            raise InputError(
                f"cannot read the link cache {path_text(path)}: {exc.strerror or exc}"
            ) from None
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or not isinstance(doc.get(_CACHE_KEY), dict):
            # Never overwrite a file that is not ours (a mistyped --cache content/site.toml).
            raise InputError(
                f"{path_text(path)} is not a catalogctl link cache; choose another --cache file"
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
        keep = {url: e for url, e in self.entries.items() if now - e["checked"] <= self.max_age}
        data = json.dumps({_CACHE_KEY: keep}, indent=0, sort_keys=True).encode()
        directory = self.path.parent
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=directory)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            Path(tmp).replace(self.path)
        except OSError as exc:
            raise InputError(
                f"cannot write the link cache {path_text(self.path)}: {exc.strerror or exc}"
            ) from None


__all__ = ["LinkCache"]
