"""What `serve` answers from: a content tree (rendered in memory) or a build directory.

Loading and rendering are the content and site layers' work; `serve` and its reloads call
`SiteInput.load()` and never render themselves.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalogctl.content.loader import GAMES_DIR, SITE_FILE, load_catalog
from catalogctl.contract.routes import API_GAMES, DEFAULT_CACHE_CONTROL, Site
from catalogctl.errors import CatalogError, InputError
from catalogctl.site.build import read_build
from catalogctl.site.manifest import MANIFEST
from catalogctl.site.render import render

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


def count_games(site: Site) -> int:
    games = site.resources.get(API_GAMES)
    if games is None:
        return 0
    try:
        return len(json.loads(games.identity.body)["games"])
    except (ValueError, KeyError, TypeError):
        return 0


# --- where the catalog comes from -------------------------------------------------------------


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
        path: Path,
        *,
        display: str | None = None,
        base_url: str | None = None,
        cache_control: str | None = None,
    ) -> SiteInput:
        if not path.exists():
            raise InputError(f"no such content tree or build directory: {path}")
        if not path.is_dir():
            raise InputError(f"not a directory (expected a content tree or a build): {path}")
        is_build = (path / MANIFEST).is_file()
        if is_build and base_url is not None:
            raise InputError(
                f"--base-url applies to a content tree; {path} is a build rendered for its own "
                "base URL (rebuild it with `catalogctl build --base-url`)"
            )
        if not is_build and not (path / SITE_FILE).is_file() and not (path / GAMES_DIR).is_dir():
            raise InputError(
                f"{path} is neither a content tree (site.toml, games/) nor a build ({MANIFEST})"
            )
        return cls(path, display or str(path), is_build, base_url, cache_control)

    def load(self) -> Site:
        """Validate and render (content) or read (build); raises `CatalogError`."""
        if not self.is_build:
            catalog = load_catalog(self.path, display=self.display, base_url=self.base_url)
            return render(catalog, cache_control=self.cache_control or DEFAULT_CACHE_CONTROL)
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

    def fingerprint(self) -> tuple[tuple[str, int, int], ...]:
        """Names, sizes and mtimes of the files a reload would read (for --watch)."""
        if self.is_build:
            files = [self.path / MANIFEST]
        else:
            games = self.path / GAMES_DIR
            files = [self.path / SITE_FILE, *(sorted(games.iterdir()) if games.is_dir() else [])]
        out = []
        for f in files:
            with contextlib.suppress(OSError):
                st = f.stat()
                out.append((f.name, st.st_size, st.st_mtime_ns))
        return tuple(out)


# --- loading in a fresh interpreter (serve's reloads) ---------------------------------------
# A running server handles signals through handlers and a wake-up fd, and its supervisor may
# hold signals. Loading a big content tree forks worker pools, and a forked child would inherit
# all of that: its pool's SIGTERM could reach the server as its own, or be held forever. A
# reload therefore loads and renders in a spawned process (a clean exec, default signal
# handling) and sends the finished `Site` back. This module imports no HTTP server.


def describe(exc: CatalogError) -> str:
    """The message of an error, with its error findings (for a log line)."""
    findings = getattr(exc, "findings", None)
    if not findings:
        return exc.message
    parts = [
        f"{f.file}{f':{f.line}' if f.line else ''}: {f.field + ': ' if f.field else ''}{f.message}"
        for f in findings
        if f.severity == "error"
    ]
    return exc.message + "; " + "; ".join(parts[:20]) + ("; …" if len(parts) > 20 else "")


def _load_into(source: SiteInput, out: Connection) -> None:
    # Exceptions with extra constructor arguments do not survive pickling: send text back.
    try:
        result: tuple[str, object] = ("ok", source.load())
    except CatalogError as exc:
        result = ("error", describe(exc))
    except Exception as exc:  # noqa: BLE001 - reported to the server's log, not raised
        result = ("error", f"{type(exc).__name__}: {exc}")
    out.send(result)
    out.close()


class IsolatedLoad:
    """`source.load()` in a spawned interpreter, started now; `fileno()` becomes readable
    when it is done, so a server can wait for it in its event or select loop (answering,
    reaping and handling signals meanwhile) and kill it once `deadline` has passed."""

    def __init__(self, source: SiteInput, timeout: float) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._recv, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_load_into, args=(source, send), daemon=True)
        self._process.start()
        send.close()
        self.deadline = time.monotonic() + timeout

    def fileno(self) -> int:
        return self._recv.fileno()

    def result(self) -> Site:
        """The loaded site; raises `CatalogError` with the reason it could not be loaded."""
        try:
            status, value = self._recv.recv()
        except (EOFError, OSError):
            self.kill()
            raise CatalogError(
                f"the loading process died (exit status {self._process.exitcode}) "
                "before it finished"
            ) from None
        finally:
            self._recv.close()
        self._process.join(5)
        if status != "ok" or not isinstance(value, Site):
            raise CatalogError(str(value))
        return value

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()
        self._process.join(5)
        self._recv.close()
