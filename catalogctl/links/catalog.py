"""What links a catalog has: each distinct URL once, the places that use it, and where those
places are in a content tree."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catalogctl.sources.net import NetworkPolicy

# (game, field) -> (file, line) of each link of a content tree's published games.
Located = dict[tuple[str, str], tuple[str, int | None]]


@dataclass(frozen=True, slots=True)
class LinkRef:
    """Where a URL appears: a game's id and the field (`url`, `icon`, `stores.<name>`)."""

    game: str
    field: str

    @property
    def kind(self) -> str:
        return "store" if self.field.startswith("stores.") else self.field


@dataclass(slots=True)
class Link:
    """One distinct URL and every place the catalog uses it."""

    url: str
    refs: list[LinkRef] = field(default_factory=list)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(r.kind for r in self.refs)

    @property
    def games(self) -> list[str]:
        return list(dict.fromkeys(r.game for r in self.refs))

    @property
    def fields(self) -> list[str]:
        return list(dict.fromkeys(r.field for r in self.refs))


def collect_links(games: Iterable[Mapping[str, Any]]) -> list[Link]:
    """Every URL of the published games, once each, in catalog order of first use."""
    links: dict[str, Link] = {}

    def add(url: Any, game: str, name: str) -> None:
        if isinstance(url, str):
            links.setdefault(url, Link(url)).refs.append(LinkRef(game, name))

    for game in games:
        gid = str(game.get("id", "?"))
        add(game.get("url"), gid, "url")
        add(game.get("icon"), gid, "icon")
        for store in game.get("stores") or []:
            if isinstance(store, Mapping):
                add(store.get("url"), gid, f"stores.{store.get('name', '?')}")
    return list(links.values())


def load_links(
    spec: str | Path,
    *,
    timeout: float | None = None,
    max_body: int | None = None,
    policy: NetworkPolicy | None = None,
) -> list[Link]:
    """Links of any catalog source: a content tree, a build, a games JSON file or a base URL.

    A base URL is read with `catalogctl.sources` limits: `max_body` bytes per document,
    `timeout` seconds in all, the network `policy` (None: the default one).
    """
    from catalogctl.sources.core import DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, load_source

    return collect_links(
        load_source(
            spec,
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
            max_body=DEFAULT_MAX_BODY if max_body is None else max_body,
            policy=policy,
        ).games
    )


def content_locations(root: Path, display: str) -> Located:
    """(game, field) → (file, line) of each link of a content tree's published games."""
    from catalogctl.content.loader import load

    content = load(root, display=display, locate=True)
    out: Located = {}
    for e in content.entries:
        if e.state != "published":
            continue
        for name, line in e.lines.items():
            out[(e.id, name)] = (e.file, line)
    return out


def url_problem(url: str) -> str | None:
    """Why a URL cannot be requested as it stands, or None (http and https are requested)."""
    from catalogctl.urls import url_problem as problem

    scheme = url.partition(":")[0].lower() if ":" in url else ""
    if scheme.isalnum() and scheme not in ("http", "https"):
        return f"unsupported scheme {scheme}:"
    reason = problem(url, schemes=("http", "https"))
    return None if reason is None else f"the URL {reason}"


__all__ = [
    "Link",
    "LinkRef",
    "Located",
    "collect_links",
    "content_locations",
    "load_links",
    "url_problem",
]
