"""What a release changes, and whether it breaks clients: `catalogctl diff`.

`compare()` takes two loaded sources (see `sources.py`) and returns a `DiffResult`: games
added, removed, changed (field by field) and reordered, the release warnings that matter to
this API's clients, and the SPEC §9 contract check of the two OpenAPI documents. Nothing
here prints; `diff_report` renders a result as tables or Markdown, `to_json` as JSON.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

if TYPE_CHECKING:
    from catalogctl.sources.core import CatalogSnapshot

FailOn = Literal["breaking", "warning", "any"]
Game = dict[str, Any]  # a published game, validated against `model.Game` (see sources.py)
FAIL_ON: tuple[FailOn, ...] = ("breaking", "warning", "any")

SET_FIELDS = ("platforms", "genres")
# Query parameters that identify API referrals in a store's reports (SPEC §2.4), and the
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

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, **self.details, "message": self.message}


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

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "kind": self.kind,
            "id": self.id,
            **self.details,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class ContractChange:
    breaking: bool
    where: str  # e.g. "paths./api/v1/games.get" or "schemas.Game.properties.icon"
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message}


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

    @property
    def breaking(self) -> list[ContractChange]:
        """The breaking contract changes (SPEC §9: they need a new major version)."""
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

    def failed(self, fail_on: FailOn = "any") -> bool:
        """Whether the gate fails: differences (any), warnings or breaking changes."""
        if self.is_breaking:
            return True
        if fail_on == "breaking":
            return False
        if self.warnings:
            return True
        return fail_on == "any" and self.catalog_changed

    def to_json(self) -> dict[str, Any]:
        return {
            "added": [{"id": g.id} for g in self.added],
            "removed": [{"id": g.id} for g in self.removed],
            "changed": [{"id": c.id, "fields": c.fields} for c in self.changed],
            "reordered": [
                {"id": m.id, "before": m.before, "after": m.after} for m in self.reordered
            ],
            "warnings": [w.to_json() for w in self.warnings],
            "breaking": [b.to_json() for b in self.breaks] + [c.to_json() for c in self.breaking],
        }


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

    Breaking: clients key on the id (SPEC §2.3 calls it stable), so to them one game vanishes
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


# --- contract check (SPEC §9) ------------------------------------------------------------------
#
# The rules are oasdiff's (github.com/oasdiff/oasdiff, checker/rules.go; the check ids are
# quoted beside each rule). A change is breaking when oasdiff's `breaking` command reports it,
# that is at level ERR or WARN. What a schema may change depends on who reads it: a response
# is read by the client, so it may gain fields (required or not: clients ignore unknown
# fields, SPEC §9) but not lose one or widen its values; a request is written by the client,
# so it may not demand more.

MAX_SCHEMA_DEPTH = 64  # nested inline schemas compared at most this deep
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_REF_PREFIX = "#/components/schemas/"
Direction = Literal["request", "response"]
# Lower bounds: raising one narrows what is valid, lowering (or removing) one widens it.
_LOWER_BOUNDS = ("minItems", "minLength", "minimum", "minProperties")
_UPPER_BOUNDS = ("maxItems", "maxLength", "maximum", "maxProperties")


class _Contract:
    """Compares two OpenAPI documents; each change is breaking or compatible."""

    def __init__(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.old, self.new = old, new
        self.old_schemas = _dict(_dict(old.get("components")).get("schemas"))
        self.new_schemas = _dict(_dict(new.get("components")).get("schemas"))
        self.changes: list[ContractChange] = []
        self._seen: set[tuple[str, str, Direction]] = set()
        self._depth = 0
        self._types: dict[int, str] = {}  # id(schema) → type_of, computed once

    def breaking(self, where: str, message: str) -> None:
        self.changes.append(ContractChange(True, where, message))

    def compatible(self, where: str, message: str) -> None:
        self.changes.append(ContractChange(False, where, message))

    def run(self) -> list[ContractChange]:
        old_paths, new_paths = _dict(self.old.get("paths")), _dict(self.new.get("paths"))
        for path, item in old_paths.items():
            if path not in new_paths:
                # api-path-removed-without-deprecation (ERR)
                self.breaking(f"paths.{path}", "endpoint removed")
            else:
                self.path_item(path, _dict(item), _dict(new_paths[path]))
        for path in new_paths:
            if path not in old_paths:
                self.compatible(f"paths.{path}", "new endpoint")  # endpoint-added (INFO)
        # Component schemas are compared as the paths use them (the wire contract): each pair
        # once per direction, reported under its name.
        return self.changes

    # -- paths ---------------------------------------------------------------------------------

    def path_item(self, path: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for method in HTTP_METHODS:
            where = f"paths.{path}.{method}"
            if method in old and method not in new:
                # api-removed-without-deprecation (ERR)
                self.breaking(where, f"method {method.upper()} removed")
            elif method in new and method not in old:
                self.compatible(where, f"new method {method.upper()}")  # endpoint-added
            elif method in old:
                self.operation(where, old, new, _dict(old[method]), _dict(new[method]))

    def operation(
        self,
        where: str,
        old_item: dict[str, Any],
        new_item: dict[str, Any],
        old: dict[str, Any],
        new: dict[str, Any],
    ) -> None:
        if new.get("deprecated") and not old.get("deprecated"):
            self.compatible(where, "deprecated")  # endpoint-deprecated (INFO)
        self.parameters(where, _params(old_item, old), _params(new_item, new))
        self.request_body(f"{where}.requestBody", old, new)
        old_sec = old.get("security", self.old.get("security")) or []
        new_sec = new.get("security", self.new.get("security")) or []
        if new_sec and not old_sec:
            # api-security-removed / api-global-security-removed (ERR): the anonymous
            # alternative, `[]`, is gone
            self.breaking(f"{where}.security", "now requires authentication")
        old_resp, new_resp = _dict(old.get("responses")), _dict(new.get("responses"))
        for status, resp in old_resp.items():
            at = f"{where}.responses.{status}"
            if status not in new_resp:
                # response-success-status-removed (ERR); response-non-success-status-removed
                # is INFO in oasdiff, but SPEC §7 fixes the error answers of this API too
                self.breaking(at, f"response {status} removed")
            else:
                self.response(at, _dict(resp), _dict(new_resp[status]))
        for status in new_resp:
            if status not in old_resp:
                self.compatible(f"{where}.responses.{status}", f"new response {status}")

    def request_body(self, where: str, old_op: dict[str, Any], new_op: dict[str, Any]) -> None:
        old, new = _dict(old_op.get("requestBody")), _dict(new_op.get("requestBody"))
        if new.get("required") and not old.get("required"):
            # added-required-request-body, request-body-became-required (ERR)
            self.breaking(where, "request body is now required")
        old_content, new_content = _dict(old.get("content")), _dict(new.get("content"))
        for ctype, media in old_content.items():
            if ctype not in new_content:
                self.breaking(f"{where}.content", f"no longer accepts {ctype}")
            else:
                self.schema(
                    f"{where}.content.{ctype}",
                    _dict(_dict(media).get("schema")),
                    _dict(_dict(new_content[ctype]).get("schema")),
                    "request",
                )

    def parameters(
        self,
        where: str,
        old: dict[tuple[str, str], dict[str, Any]],
        new: dict[tuple[str, str], dict[str, Any]],
    ) -> None:
        for key, p in new.items():
            at = f"{where}.parameters.{key[1]}"
            q = old.get(key)
            if q is None:
                if p.get("required"):
                    # new-required-request-parameter (ERR)
                    self.breaking(at, f"new required {key[0]} parameter {key[1]!r}")
                else:
                    # new-optional-request-parameter (INFO)
                    self.compatible(at, f"new optional {key[0]} parameter {key[1]!r}")
                continue
            if p.get("required") and not q.get("required"):
                # request-parameter-became-required (ERR)
                self.breaking(at, f"{key[0]} parameter {key[1]!r} is now required")
            self.schema(at, _dict(q.get("schema")), _dict(p.get("schema")), "request")
        for key in old:
            if key not in new:
                # request-parameter-removed (WARN)
                self.breaking(
                    f"{where}.parameters.{key[1]}", f"{key[0]} parameter {key[1]!r} removed"
                )

    def response(self, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        old_content, new_content = _dict(old.get("content")), _dict(new.get("content"))
        for ctype, media in old_content.items():
            if ctype not in new_content:
                # response-media-type-removed (ERR)
                self.breaking(f"{where}.content", f"no longer returns {ctype}")
            else:
                self.schema(
                    f"{where}.content.{ctype}",
                    _dict(_dict(media).get("schema")),
                    _dict(_dict(new_content[ctype]).get("schema")),
                    "response",
                )
        for ctype in new_content:
            if ctype not in old_content and old_content:
                # response-media-type-added (INFO)
                self.compatible(f"{where}.content", f"also returns {ctype}")
        old_headers, new_headers = _dict(old.get("headers")), _dict(new.get("headers"))
        for name in old_headers:
            if name not in new_headers:
                # required-response-header-removed (ERR), optional-response-header-removed
                # (WARN)
                self.breaking(f"{where}.headers.{name}", f"response header {name} removed")
        for name in new_headers:
            if name not in old_headers:
                self.compatible(f"{where}.headers.{name}", f"new response header {name}")

    # -- schemas -------------------------------------------------------------------------------

    def schema(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        if self._depth >= MAX_SCHEMA_DEPTH:  # deeper inline schemas are not compared
            return
        self._depth += 1
        try:
            self._schema(where, old, new, direction)
        finally:
            self._depth -= 1

    def _schema(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        old_ref, new_ref = _ref_name(old), _ref_name(new)
        if old_ref is not None or new_ref is not None:
            pair = (old_ref or where, new_ref or where, direction)
            if pair in self._seen:
                return
            self._seen.add(pair)
            if old_ref is not None and new_ref is not None:
                where = f"schemas.{new_ref}"
            old = self.resolve(old, self.old_schemas)
            new = self.resolve(new, self.new_schemas)
        old_t, new_t = self.type_of(old, self.old_schemas), self.type_of(new, self.new_schemas)
        if old_t != new_t:
            # response-property-type-changed, request-property-type-changed (ERR)
            self.breaking(where, f"type changed from {old_t} to {new_t}")
            return
        if old.get("format") != new.get("format"):
            # response-property-format-changed, request-property-format-changed (ERR)
            self.breaking(
                where, f"format changed from {old.get('format')!r} to {new.get('format')!r}"
            )
        self.values(where, old, new, direction)
        self.bounds(where, old, new, direction)
        self.properties(where, old, new, direction)
        if "items" in old and "items" in new:
            self.schema(f"{where}[]", _dict(old["items"]), _dict(new["items"]), direction)
        for key in ("anyOf", "oneOf", "allOf"):
            old_list, new_list = old.get(key), new.get(key)
            if isinstance(old_list, list) and isinstance(new_list, list):
                for i, (a, b) in enumerate(zip(old_list, new_list, strict=False)):
                    self.schema(f"{where}.{key}[{i}]", _dict(a), _dict(b), direction)

    def values(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        """`enum` and `const` (a one-value enum): the set of values a reader must accept."""
        old_values, new_values = _allowed(old), _allowed(new)
        if old_values is None and new_values is None:
            return
        if old_values is None or new_values is None:
            # An unconstrained value became constrained (or the other way round).
            widened = new_values is None
            if widened == (direction == "response"):
                self.breaking(where, "allowed values changed")
            else:
                self.compatible(where, "allowed values changed")
            return
        old_keys, new_keys = (
            {_value_key(v) for v in old_values},
            {_value_key(v) for v in new_values},
        )
        added = [v for v in new_values if _value_key(v) not in old_keys]
        removed = [v for v in old_values if _value_key(v) not in new_keys]
        if direction == "response":
            # response-property-enum-value-added (WARN): a client may not handle the new
            # value; response-property-enum-value-removed (INFO)
            if added:
                self.breaking(where, f"new allowed value{'s' * (len(added) > 1)} {added}")
            if removed:
                self.compatible(where, f"no longer returns {removed}")
        else:
            # request-property-enum-value-removed (ERR); request-property-enum-value-added
            # (INFO)
            if removed:
                self.breaking(where, f"no longer accepts {removed}")
            if added:
                self.compatible(where, f"also accepts {added}")

    def bounds(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        """minItems, maxLength, …: a response may not widen them, a request may not narrow.

        response-property-min-items-decreased, response-property-max-length-increased,
        request-property-min-items-increased, request-property-max-length-decreased, … (ERR);
        the opposite moves are INFO.
        """
        for key in (*_LOWER_BOUNDS, *_UPPER_BOUNDS):
            a, b = old.get(key), new.get(key)
            if a == b or not all(isinstance(v, int | float | None) for v in (a, b)):
                continue
            message = f"{key} changed from {a} to {b}"
            if _widens(key, a, b) == (direction == "response"):
                self.breaking(where, message)
            else:
                self.compatible(where, message)

    def properties(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        old_props, new_props = _dict(old.get("properties")), _dict(new.get("properties"))
        old_req, new_req = _names(old.get("required")), _names(new.get("required"))
        gone = [p for p in old_props if p not in new_props]
        fresh = [p for p in new_props if p not in old_props]
        for p in gone:
            # response-required-property-removed (ERR), response-optional-property-removed
            # (WARN), request-property-removed (WARN)
            hint = f" (renamed to {fresh[0]!r}?)" if len(gone) == len(fresh) == 1 else ""
            self.breaking(f"{where}.{p}", f"field {p!r} removed{hint}")
        for p in fresh:
            required = p in new_req
            kind = "required" if required else "optional"
            if direction == "request" and required:
                # new-required-request-property (ERR)
                self.breaking(f"{where}.{p}", f"new required field {p!r}")
            else:
                # response-required-property-added, response-optional-property-added,
                # new-optional-request-property (INFO): clients ignore unknown fields
                self.compatible(f"{where}.{p}", f"new {kind} field {p!r}")
        for p, schema in old_props.items():
            if p not in new_props:
                continue
            if (p in old_req) != (p in new_req):
                now_required = p in new_req
                state = "required" if now_required else "optional"
                # response-property-became-optional (ERR), response-property-became-required
                # (INFO); request-property-became-required (ERR),
                # request-property-became-optional (INFO)
                if now_required == (direction == "request"):
                    self.breaking(f"{where}.{p}", f"field {p!r} is now {state}")
                else:
                    self.compatible(f"{where}.{p}", f"field {p!r} is now {state}")
            self.schema(f"{where}.{p}", _dict(schema), _dict(new_props[p]), direction)

    @staticmethod
    def resolve(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
        ref = _ref_name(schema)
        return schema if ref is None else _dict(schemas.get(ref))

    def type_of(self, schema: dict[str, Any], schemas: dict[str, Any], depth: int = 0) -> str:
        """A short signature of what a schema accepts: its JSON types and referenced schemas."""
        if depth > 8:
            return "…"
        schema = self.resolve(schema, schemas)
        known = self._types.get(id(schema))
        if known is not None:  # shared schemas are typed once: linear in the document
            return known
        self._types[id(schema)] = "…"  # a cycle back to this schema
        self._types[id(schema)] = self._type_of(schema, schemas, depth)
        return self._types[id(schema)]

    def _type_of(self, schema: dict[str, Any], schemas: dict[str, Any], depth: int) -> str:
        kinds: set[str] = set()
        t = schema.get("type")
        if isinstance(t, str):
            kinds.add(t)
        elif isinstance(t, list):
            kinds.update(str(x) for x in t)
        for key in ("anyOf", "oneOf"):
            for sub in schema.get(key, []) if isinstance(schema.get(key), list) else []:
                kinds.add(self.type_of(_dict(sub), schemas, depth + 1))
        if not kinds and ("properties" in schema):
            kinds.add("object")
        return "|".join(sorted(kinds)) or "any"


def _widens(key: str, old: float | None, new: float | None) -> bool:
    """Whether moving bound `key` from `old` to `new` lets more values through."""
    if old is None or new is None:
        return new is None  # a bound dropped widens, a bound added narrows
    return new < old if key in _LOWER_BOUNDS else new > old


def _allowed(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return list(values) if isinstance(values, list) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _names(value: Any) -> set[str]:
    return {v for v in _list(value) if isinstance(v, str)}


def _value_key(value: Any) -> str:
    """A hashable stand-in for a JSON value (enum members may be objects or lists)."""
    return json.dumps(value, sort_keys=True, default=str)


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        return ref.removeprefix(_REF_PREFIX)
    return None


def _params(item: dict[str, Any], op: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Effective parameters of an operation: the path item's, overridden by the operation's."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for p in [*_list(item.get("parameters")), *_list(op.get("parameters"))]:
        if isinstance(p, dict) and "name" in p:
            out[(str(p.get("in", "query")), str(p["name"]))] = p
    return out


def contract_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    """SPEC §9 check of two OpenAPI documents: breaking changes need a new major version."""
    return _Contract(old, new).run()
