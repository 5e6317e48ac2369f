"""What `serve` answers from: a content tree (rendered in memory) or a build directory.

Loading and rendering are the content and site layers' work; `serve` and its reloads call
`SiteInput.load()` and never render themselves, and `--watch` compares `fingerprint()`s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from catalogctl.contract.routes import DEFAULT_CACHE_CONTROL, Site
from catalogctl.errors import InputError
from catalogctl.sources.locate import SERVED_KINDS, Located, locate


@dataclass(frozen=True, slots=True)
class SiteInput:
    """A content tree (rendered in memory) or a build directory (read from its manifest)."""

    path: Path
    display: str
    is_build: bool
    base_url: str | None = None
    cache_control: str | None = None

    @classmethod
    def open(
        cls,
        source: Located | Path,
        *,
        base_url: str | None = None,
        cache_control: str | None = None,
    ) -> SiteInput:
        """`source` as `locate` found it, or a path to locate; raises `InputError`."""
        found = source if isinstance(source, Located) else locate(source, accept=SERVED_KINDS)
        if found.kind not in SERVED_KINDS:
            raise InputError(
                f"{found.label} is not a content tree (site.toml) nor a build (manifest.json)"
            )
        is_build = found.kind == "build"
        if is_build and base_url is not None:
            raise InputError(
                f"--base-url applies to a content tree; {found.label} is a build rendered for "
                "its own base URL (rebuild it with `catalogctl build --base-url`)"
            )
        return cls(found.path, found.label, is_build, base_url, cache_control)

    def load(self) -> Site:
        """Validate and render (content) or read (build); raises `CatalogError`."""
        if not self.is_build:
            from catalogctl.content.loader import load_catalog
            from catalogctl.site.render import render

            catalog = load_catalog(self.path, display=self.display, base_url=self.base_url)
            return render(catalog, cache_control=self.cache_control or DEFAULT_CACHE_CONTROL)
        from catalogctl.site.readback import read_build

        site = read_build(self.path)
        if self.cache_control is None:
            return site
        resources = {
            path: dataclasses.replace(
                res,
                headers=tuple(
                    (k, self.cache_control if k.lower() == "cache-control" else v)
                    for k, v in res.headers
                ),
            )
            for path, res in site.resources.items()
        }
        return dataclasses.replace(site, resources=resources)

    def fingerprint(self) -> tuple[object, ...]:
        """What changes when a file a reload would read changes (for --watch)."""
        from catalogctl.sources.watch import fingerprint

        return fingerprint(self.path, is_build=self.is_build)
