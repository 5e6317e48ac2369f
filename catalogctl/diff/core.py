"""What a release changes, and whether it breaks clients: `catalogctl diff`.

`compare()` takes two loaded sources (see `sources.py`) and returns a `DiffResult`: games
added, removed, changed (field by field) and reordered, the release warnings that matter to
this API's clients, and the contract check (contract §9) of the two OpenAPI documents. Nothing
here prints: `catalogctl.output.diff` renders a result in every report format.

Why one module: the game changes and the release warnings read the same pairs of games through
the same store-URL helpers (`plain_store_url`, `attribution_params`, `store_platform`), and
fill the one `DiffResult`; the OpenAPI contract check, which shares nothing with them, is
`diff.contract`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from catalogctl.diff.contract import ContractChange, contract_changes

if TYPE_CHECKING:
    from catalogctl.sources.core import CatalogSnapshot

Game = dict[str, Any]  # a published game, validated against `model.Game` (see sources.py)


class FailOn(StrEnum):
    """What fails the gate (`diff --fail-on`): any difference, warnings, or breaking changes."""

    breaking = "breaking"
    warning = "warning"
    any = "any"


SET_FIELDS = ("platforms", "genres")
# Query parameters that identify API referrals in a store's reports (contract §2.4), and the
# usual campaign parameters of the same kind.
ATTRIBUTION_KEYS = frozenset({"pt", "ct", "mt", "at", "referrer"})
_PLATFORM_NAMES = {"ios": "iOS", "android": "Android"}
_STORE_HINTS = (
    ("ios", ("app store", "apple", "itunes")),
    ("android", ("google play", "play store")),
)
_STORE_HOSTS = {
    "apps.apple.com": "ios",
    "itunes.apple.com": "ios",
    "play.google.com": "android",
}


# --- the result ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameRef:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Changed:
    id: str
    name: str
    # field → {"before", "after"} (+ "added"/"removed" for sets, "changed" for stores)
    fields: dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Moved:
    id: str
    name: str
    before: int  # 1-based catalog position
    after: int


@dataclass(frozen=True, slots=True)
class ReleaseWarning:
    kind: Literal["attribution", "platform-store"]
    id: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CatalogBreak:
    """A catalog change that breaks clients keyed on what they stored (ids, store apps)."""

    kind: Literal["game-removed", "id-rename", "store-app-changed"]  # the rule ids
    id: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"games.{self.id}"


@dataclass(slots=True)
class DiffResult:
    old: str
    new: str
    old_games: int
    new_games: int
    added: list[GameRef] = field(default_factory=list)
    removed: list[GameRef] = field(default_factory=list)
    changed: list[Changed] = field(default_factory=list)
    reordered: list[Moved] = field(default_factory=list)
    warnings: list[ReleaseWarning] = field(default_factory=list)
    breaks: list[CatalogBreak] = field(default_factory=list)  # breaking catalog changes
    contract: list[ContractChange] = field(default_factory=list)
    contract_checked: bool = False
    contract_one_sided: bool = False  # only one side has an OpenAPI document: not checked

    @property
    def breaking(self) -> list[ContractChange]:
        """The breaking contract changes (contract §9: they need a new major version)."""
        return [c for c in self.contract if c.breaking]

    @property
    def is_breaking(self) -> bool:
        return bool(self.breaks) or any(c.breaking for c in self.contract)

    @property
    def compatible(self) -> list[ContractChange]:
        return [c for c in self.contract if not c.breaking]

    @property
    def catalog_changed(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.reordered)

    def failed(self, fail_on: FailOn = FailOn.any) -> bool:
        """Whether the gate fails: differences (any), warnings or breaking changes."""
        if self.is_breaking:
            return True
        if fail_on == "breaking":
            return False
        if self.warnings:
            return True
        return fail_on == "any" and self.catalog_changed


# --- comparing catalogs ------------------------------------------------------------------------


def _by_id(games: list[Game]) -> dict[str, Game]:
    # Ids are unique (sources.py checks), so the dict keeps catalog order.
    return dict(zip(map(itemgetter("id"), games), games, strict=True))


def _positions(ids: Iterable[str]) -> dict[str, int]:
    """1-based catalog position of each id."""
    return dict(zip(ids, itertools.count(1)))


def compare(old: CatalogSnapshot, new: CatalogSnapshot) -> DiffResult:
    """Everything the public would see change between `old` and `new`."""
    # Whole-catalog passes use C-level builtins: a diff of two 100,000-game catalogs should
    # cost little more than reading them.
    old_by_id, new_by_id = _by_id(old.games), _by_id(new.games)
    result = DiffResult(old.label, new.label, len(old_by_id), len(new_by_id))
    fresh, gone = new_by_id.keys() - old_by_id.keys(), old_by_id.keys() - new_by_id.keys()
    added = [g for gid, g in new_by_id.items() if gid in fresh] if fresh else []
    removed = [g for gid, g in old_by_id.items() if gid in gone] if gone else []
    result.added = [GameRef(g["id"], g["name"]) for g in added]
    result.removed = [GameRef(g["id"], g["name"]) for g in removed]
    store_platforms = {**old.store_platforms, **new.store_platforms}
    # An added game compares equal to itself, so only games in both sides can differ.
    for gid in [gid for gid, g in new_by_id.items() if old_by_id.get(gid, g) != g]:
        before, game = old_by_id[gid], new_by_id[gid]
        result.changed.append(Changed(gid, game["name"], game_changes(before, game)))
        result.warnings.extend(_store_warnings(before, game, store_platforms))
        result.breaks.extend(store_app_changes(before, game))
    kept_old = [gid for gid in old_by_id if gid not in gone] if gone else list(old_by_id)
    kept_new = [gid for gid in new_by_id if gid not in fresh] if fresh else list(new_by_id)
    moved = reordered(kept_old, kept_new)
    if moved:
        old_pos, new_pos = _positions(old_by_id), _positions(new_by_id)
        result.reordered = [
            Moved(gid, new_by_id[gid]["name"], old_pos[gid], new_pos[gid]) for gid in moved
        ]
    renames = renamed_ids(removed, added)
    renamed = {r.details["old_id"] for r in renames}
    result.breaks[:0] = [
        *(_removed(g) for g in removed if g["id"] not in renamed),
        *renames,
    ]
    if old.openapi is not None and new.openapi is not None:
        result.contract = contract_changes(old.openapi, new.openapi)
        result.contract_checked = True
    else:
        result.contract_one_sided = old.openapi is not None or new.openapi is not None
    return result


def _store_urls(stores: Iterable[dict[str, str]]) -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = {}
    for s in stores:
        by_name.setdefault(s["name"], []).append(s["url"])
    return by_name


def _one(urls: list[str]) -> str | list[str]:
    return urls[0] if len(urls) == 1 else urls


def game_changes(before: Game, after: Game) -> dict[str, dict[str, Any]]:
    """Field → change, in the published field order; empty when the games are equal."""
    out: dict[str, dict[str, Any]] = {}
    for name in (*after, *(k for k in before if k not in after)):
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        if name in SET_FIELDS:
            a, b = a or [], b or []
            out[name] = {
                "before": a,
                "after": b,
                "added": [v for v in b if v not in a],
                "removed": [v for v in a if v not in b],
            }
        elif name == "stores":
            a, b = a or [], b or []
            old_urls, new_urls = _store_urls(a), _store_urls(b)
            out[name] = {
                "before": a,
                "after": b,
                "added": [n for n in new_urls if n not in old_urls],
                "removed": [n for n in old_urls if n not in new_urls],
                "changed": [
                    {"name": n, "before": _one(old_urls[n]), "after": _one(urls)}
                    for n, urls in new_urls.items()
                    if n in old_urls and old_urls[n] != urls
                ],
            }
        else:
            out[name] = {"before": a, "after": b}
    return out


def reordered(old_ids: Sequence[str], new_ids: Sequence[str]) -> list[str]:
    """Ids of the games whose order relative to the other kept games changed, in new order.

    `old_ids` and `new_ids` hold the same ids. The games on a longest common subsequence of
    both orders stayed put; every other game moved, so a single game moved to the top is one
    move, not a shift of every game. Runs of games that kept their neighbours are handled as
    blocks: a few moves in a large catalog make a few blocks.
    """
    if old_ids == new_ids:
        return []
    seq = list(map(dict(zip(old_ids, itertools.count())).__getitem__, new_ids))
    # Block k covers seq[starts[k]:starts[k + 1]], a run of consecutive old indices.
    starts = [0, *(i for i, (a, b) in enumerate(itertools.pairwise(seq), 1) if b != a + 1)]
    bounds = [*starts, len(seq)]
    if len(starts) > _MAX_BLOCKS:
        keep = _longest_increasing(seq)
        return [gid for gid, kept in zip(new_ids, keep, strict=True) if not kept]
    # Heaviest increasing chain of blocks (their old-index ranges never overlap).
    firsts = [seq[b] for b in starts]
    sizes = [bounds[k + 1] - bounds[k] for k in range(len(starts))]
    best, prev = sizes[:], [-1] * len(starts)
    for k in range(len(starts)):
        for j in range(k):
            if firsts[j] < firsts[k] and best[j] + sizes[k] > best[k]:
                best[k], prev[k] = best[j] + sizes[k], j
    on_chain = set()
    k = max(range(len(starts)), key=best.__getitem__)
    while k >= 0:
        on_chain.add(k)
        k = prev[k]
    return [
        gid
        for k in range(len(starts))
        if k not in on_chain
        for gid in new_ids[bounds[k] : bounds[k + 1]]
    ]


_MAX_BLOCKS = 2000  # above this many blocks, the O(n log n) element-wise method is faster


def _longest_increasing(seq: Sequence[int]) -> bytearray:
    """Marks (1) the elements of one longest increasing subsequence of `seq`."""
    tails: list[int] = []  # tails[k]: position in seq ending the best run of length k+1
    tail_values: list[int] = []
    prev = [-1] * len(seq)
    for i, value in enumerate(seq):
        k = bisect.bisect_left(tail_values, value)
        prev[i] = tails[k - 1] if k else -1
        if k == len(tails):
            tails.append(i)
            tail_values.append(value)
        else:
            tails[k], tail_values[k] = i, value
    keep = bytearray(len(seq))
    i = tails[-1] if tails else -1
    while i >= 0:
        keep[i] = 1
        i = prev[i]
    return keep


# --- release warnings ---------------------------------------------------------------------------


def plain_store_url(url: str) -> str:
    """A store URL without its attribution parameters: the address of the app itself."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    query = "&".join(
        f"{k}={v}" for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_attr(k)
    )
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path, query, ""))


def _is_attr(key: str) -> bool:
    return key in ATTRIBUTION_KEYS or key.startswith("utm_")


def attribution_params(url: str) -> dict[str, str]:
    try:
        query = urlsplit(url).query
    except ValueError:
        return {}
    return {k: v for k, v in parse_qsl(query, keep_blank_values=True) if _is_attr(k)}


def _name_key(name: str) -> str:
    return " ".join(name.casefold().split())


def _removed(game: Game) -> CatalogBreak:
    return CatalogBreak(
        "game-removed",
        game["id"],
        "removed from the catalog: clients that keep its id will not find it again",
    )


def renamed_ids(removed: Sequence[Game], added: Sequence[Game]) -> list[CatalogBreak]:
    """A removed and an added game with the same name or store URL: probably a renamed id.

    Breaking: clients key on the id (contract §2.3 calls it stable), so to them one game vanishes
    and another appears.
    """
    if not removed or not added:
        return []
    # Each index keeps its games in catalog order; a game matched once is taken out of every
    # index, so the whole pass stays linear however many games share a name or a URL.
    by_name: dict[str, dict[str, Game]] = {}
    by_url: dict[str, dict[str, Game]] = {}
    by_both: dict[tuple[str, str], dict[str, Game]] = {}
    keys: dict[str, tuple[str, set[str]]] = {}
    for g in removed:
        name = _name_key(g["name"])
        urls = {plain_store_url(s["url"]) for s in g["stores"]}
        keys[g["id"]] = (name, urls)
        by_name.setdefault(name, {})[g["id"]] = g
        for u in urls:
            by_url.setdefault(u, {})[g["id"]] = g
            by_both.setdefault((name, u), {})[g["id"]] = g

    def take(game: Game) -> None:
        name, urls = keys[game["id"]]
        by_name[name].pop(game["id"], None)
        for u in urls:
            by_url[u].pop(game["id"], None)
            by_both[name, u].pop(game["id"], None)

    def first(index: dict[Any, dict[str, Game]], key_list: Iterable[Any]) -> Game | None:
        found = [next(iter(index[k].values())) for k in key_list if index.get(k)]
        return min(found, key=lambda o: order[o["id"]]) if found else None

    order = {g["id"]: i for i, g in enumerate(removed)}
    out: list[CatalogBreak] = []
    for g in added:
        name = _name_key(g["name"])
        wanted = sorted({plain_store_url(s["url"]) for s in g["stores"]})
        match = first(by_both, [(name, u) for u in wanted])
        why = "name and store URL"
        if match is None:
            match, why = first(by_name, [name]), "name"
        if match is None:
            match, why = first(by_url, wanted), "store URL"
        if match is None:
            continue
        take(match)
        out.append(
            CatalogBreak(
                "id-rename",
                g["id"],
                f"{match['id']!r} was removed and {g['id']!r} added with the same {why}: "
                "probably a renamed id; clients key on the id and will see one game vanish "
                "and another appear (keep the old slug, or announce the change)",
                {"old_id": match["id"], "matched_on": why},
            )
        )
    return out


_APPLE_APP_ID = re.compile(r"/id(\d+)(?:/|$)")


def store_app(url: str) -> str:
    """Which app a store URL opens: Apple's numeric id, Google Play's package, else the URL.

    The slug in an App Store path (`/app/<slug>/id123`) and the attribution parameters do not
    change the app, so they are left out.
    """
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return url
    if _STORE_HOSTS.get(host) == "ios":
        match = _APPLE_APP_ID.search(parts.path)
        if match:
            return f"apple:id{match.group(1)}"
    elif _STORE_HOSTS.get(host) == "android":
        package = dict(parse_qsl(parts.query)).get("id")
        if package:
            return f"google-play:{package}"
    return plain_store_url(url)


def store_app_changes(before: Game, after: Game) -> Iterator[CatalogBreak]:
    """A store entry that now opens another app: clients that matched the app lose it."""
    old_urls, new_urls = _store_urls(before["stores"]), _store_urls(after["stores"])
    for name, urls in old_urls.items():
        for a, b in zip(urls, new_urls.get(name, []), strict=False):
            old_app, new_app = store_app(a), store_app(b)
            if old_app != new_app:
                yield CatalogBreak(
                    "store-app-changed",
                    after["id"],
                    f"{name} link now opens another app ({old_app} → {new_app}): clients "
                    "that match the app by its store link lose it",
                    {"store": name, "before": a, "after": b},
                )


def store_platform(name: str, url: str, known: dict[str, str]) -> str | None:
    """The platform ("ios", "android") a store serves, from the source, its name or its host."""
    if name in known:
        return known[name]
    folded = name.casefold()
    for platform, hints in _STORE_HINTS:
        if any(h in folded for h in hints):
            return platform
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return None
    return _STORE_HOSTS.get(host)


def _store_warnings(before: Game, after: Game, known: dict[str, str]) -> Iterator[ReleaseWarning]:
    old_urls, new_urls = _store_urls(before["stores"]), _store_urls(after["stores"])
    for name, urls in old_urls.items():
        now = new_urls.get(name)
        if now is None:
            continue
        for a, b in zip(urls, now, strict=False):
            pa, pb = attribution_params(a), attribution_params(b)
            if pa == pb or not pa:
                continue
            changes = {
                k: {"before": pa.get(k), "after": pb.get(k)}
                for k in (*pa, *(k for k in pb if k not in pa))
                if pa.get(k) != pb.get(k)
            }
            dropped = [k for k in pa if k not in pb]
            what = "dropped" if dropped and len(dropped) == len(changes) else "changed"
            yield ReleaseWarning(
                "attribution",
                after["id"],
                f"{name} link: attribution parameter{'s' * (len(changes) != 1)} "
                f"{', '.join(changes)} {what}; API referrals will be miscounted in the "
                "store's reports",
                {"store": name, "params": changes},
            )
    new_platforms = {p.casefold() for p in after["platforms"]}
    new_served = {store_platform(n, u[0], known) for n, u in new_urls.items()}
    for name, urls in old_urls.items():
        if name in new_urls:
            continue
        platform = store_platform(name, urls[0], known)
        if platform is None or platform in new_served or platform not in new_platforms:
            continue
        label = _PLATFORM_NAMES.get(platform, platform)
        yield ReleaseWarning(
            "platform-store",
            after["id"],
            f"still lists platform {label} but lost its {name} link; clients looking for "
            f"the {name} entry will find it absent",
            {"platform": label, "store": name},
        )
