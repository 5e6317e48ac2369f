"""`[fields]`: where each catalog key is read from in a page's front matter.

`name = "title"` reads the catalog's `name` from the page's `title`; dotted paths reach into
nested tables (`icon = "params.icon"`, Hugo's `[params]`; `"extra.icon"`, Zola's `[extra]`).
`[fields.stores]` maps each store key to its own front-matter key (`ios = "params.appstore"`);
`stores = "extra.stores"` moves the whole stores table. In a list of objects,
`list[key=value]` picks the first item whose `key` is `value`, compared without regard to
case (`android = "links[platform=googleplay].url"`). Unmapped keys keep their own names.

Each page tells which of site.toml's mappings it has (`Extracted.seen`) and which ran into a
list without a `[key=value]` to pick an item (`Extracted.listed`): a mapping no page has is
reported at its line of site.toml.
"""

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from catalogctl.content.document import Path
from catalogctl.content.settings import CATALOG_KEYS

MISSING: Any = object()
# A segment: a key, then optionally `[key=value]` (compiled when site.toml maps a key).
_SEGMENT = re.compile(r"([^.\s\[\]=]+)(?:\[([^.\s\[\]=]+)=([^\[\]]*[^\[\]\s])\])?")


class Select(NamedTuple):
    """`[key=value]`: the first item of a list that is a mapping whose `key` is `value`."""

    key: str
    value: str

    def __str__(self) -> str:
        return f"[{self.key}={self.value}]"


FieldPath = tuple["str | Select", ...]


def parse_path(text: str) -> FieldPath | None:
    """`"params.icon"` → ("params", "icon"); `"links[platform=ios].url"` → ("links",
    Select("platform", "ios"), "url"); None when it is not such a path."""
    if not text or text != text.strip():
        return None
    parts: list[str | Select] = []
    for piece in text.split("."):
        m = _SEGMENT.fullmatch(piece)
        if m is None:
            return None
        parts.append(m.group(1))
        if m.group(2) is not None:
            parts.append(Select(m.group(2), m.group(3)))
    return tuple(parts)


def show_path(path: FieldPath) -> str:
    """A path as site.toml writes it."""
    out = ""
    for part in path:
        out += str(part) if isinstance(part, Select) or not out else f".{part}"
    return out


class Found(NamedTuple):
    """What a path gives in one page: the value (or MISSING), where it is, and whether it
    ran into a list without a `[key=value]` (`listed`)."""

    value: Any
    where: Path
    listed: bool = False


def lookup(data: Any, path: FieldPath) -> Found:
    """The value at `path`, with the path of list indexes that leads to it."""
    where: list[str | int] = []
    for part in path:
        if isinstance(part, Select):
            if not isinstance(data, list):
                return Found(MISSING, tuple(where))
            wanted = part.value.casefold()
            for i, item in enumerate(data):
                if isinstance(item, dict) and str(item.get(part.key, "")).casefold() == wanted:
                    where.append(i)
                    data = item
                    break
            else:
                return Found(MISSING, tuple(where))
        elif isinstance(data, dict) and part in data:
            where.append(part)
            data = data[part]
        else:
            return Found(MISSING, tuple(where), isinstance(data, list))
    return Found(data, tuple(where))


def get_path(data: Any, path: FieldPath) -> Any:
    """The value at `path`, or MISSING."""
    for part in path:
        if type(part) is not str:
            return lookup(data, path).value
        if not isinstance(data, dict) or part not in data:
            return MISSING
        data = data[part]
    return data


class Mapped(NamedTuple):
    """One entry of site.toml's `[fields]`: where it is written, what it maps, its path."""

    loc: tuple[str, ...]  # ("fields", "name") or ("fields", "stores", "ios")
    target: str  # the catalog key ("name"), or "stores.ios"
    path: FieldPath


class FieldMap(NamedTuple):
    """Catalog key → front-matter path; per-store paths."""

    paths: Mapping[str, FieldPath]
    stores: FieldPath
    store_paths: Mapping[str, FieldPath]
    # Top-level front-matter key -> the catalog key read from it, when each catalog key but
    # `stores` is read from a top-level key of its own (else None): a page is then read in one
    # pass over its keys.
    top: Mapping[str, str] | None = None
    mapped: tuple[Mapped, ...] = ()  # the entries of [fields], to tell which pages have them
    # Catalog keys whose [fields] entry (or one of whose [fields.stores] entries) is not
    # valid: unknown in every page, so their checks are left out (site.toml says why).
    broken: frozenset[str] = frozenset()
    # Store key -> every store key read from the same front-matter key (`externalUrl` for
    # itch and steam), in order: a page's link there is one store's, the one of its host.
    shared: Mapping[str, tuple[str, ...]] = {}

    @classmethod
    def from_settings(cls, fields: Mapping[str, Any]) -> "FieldMap":
        """The map of valid entries; invalid ones are reported by the site rules."""
        paths: dict[str, FieldPath] = {k: (k,) for k in CATALOG_KEYS if k != "stores"}
        stores: FieldPath = ("stores",)
        store_paths: dict[str, FieldPath] = {}
        mapped: list[Mapped] = []
        broken: set[str] = set()
        for key, value in fields.items():
            if key == "stores" and isinstance(value, dict):
                for store, text in value.items():
                    parsed = parse_path(text) if isinstance(text, str) else None
                    if parsed is None:
                        broken.add("stores")
                        continue
                    store_paths[store] = parsed
                    mapped.append(Mapped(("fields", key, store), f"stores.{store}", parsed))
            elif key in CATALOG_KEYS:
                parsed = parse_path(value) if isinstance(value, str) else None
                if parsed is None:
                    broken.add(key)
                    continue
                mapped.append(Mapped(("fields", key), key, parsed))
                if key == "stores":
                    stores = parsed
                else:
                    paths[key] = parsed
        top: dict[str, str] = {
            path[0]: key for key, path in paths.items() if len(path) == 1 and type(path[0]) is str
        }
        whole = len(top) == len(paths)
        by_path: dict[FieldPath, tuple[str, ...]] = {}
        for store, path in store_paths.items():
            by_path[path] = (*by_path.get(path, ()), store)
        shared = {k: keys for keys in by_path.values() if len(keys) > 1 for k in keys}
        return cls(
            paths,
            stores,
            store_paths,
            top if whole else None,
            tuple(mapped),
            frozenset(broken),
            shared,
        )

    def source(self, loc: tuple[Any, ...], where: Mapping[str, Path] | None = None) -> Path:
        """The front-matter path of a catalog location (`("platforms", 1)`, `("stores",
        "ios")`); `where`: the page's own paths of values found through lists."""
        if not loc:
            return ()
        head, rest = loc[0], loc[1:]
        if head == "stores":
            if rest and rest[0] in self.store_paths:
                found = where.get(f"stores.{rest[0]}") if where else None
                return (*(found or _plain(self.store_paths[rest[0]])), *rest[1:])
            found = where.get("stores") if where else None
            return (*(found or _plain(self.stores)), *rest)
        found = where.get(head) if where else None
        return (*(found or _plain(self.paths.get(head, (head,)))), *rest)

    def used(self) -> Iterator[tuple[tuple[str, ...], str]]:
        """Every front-matter path of plain keys the catalog reads, with its catalog key
        (paths through a list stop at the list)."""
        for key, path in self.paths.items():
            yield _plain(path), key
        yield _plain(self.stores), "stores"
        for store, path in self.store_paths.items():
            yield _plain(path), f"stores.{store}"


def _plain(path: FieldPath) -> tuple[str, ...]:
    """The keys of a path up to its first `[key=value]`."""
    out: list[str] = []
    for part in path:
        if isinstance(part, Select):
            break
        out.append(part)
    return tuple(out)


DEFAULT_FIELDS = FieldMap.from_settings({})


class Extracted(NamedTuple):
    """The catalog keys of one page, and what site.toml's mappings found in it."""

    values: dict[str, Any]
    clashes: list[tuple[str, Path, Path]]  # a store given in two places: (key, path, path)
    where: dict[str, Path]  # the page's path of a value found through a list
    seen: int = 0  # bit i: the page has mapping i of `FieldMap.mapped`
    listed: int = 0  # bit i: mapping i ran into a list without a `[key=value]`


def extract(
    data: dict[str, Any],
    fmap: FieldMap,
    owner: Callable[[tuple[str, ...], Any], str] | None = None,
) -> Extracted:
    """The catalog keys of a page. `owner(keys, value)`: which of the stores that share a
    front-matter key a value of it belongs to (by its host); without it, the first."""
    top = fmap.top
    where: dict[str, Path] = {}
    if top is not None:
        out = {top[k]: v for k, v in data.items() if k in top}
    else:
        out = {}
        for key, path in fmap.paths.items():
            value = _get(data, path, key, where)
            if value is not MISSING:
                out[key] = value
    clashes: list[tuple[str, Path, Path]] = []
    stores = _get(data, fmap.stores, "stores", where)
    if fmap.store_paths:
        merged = _store_links(data, fmap, stores, where, clashes, owner)
        if stores is not MISSING and not isinstance(stores, dict):
            out["stores"] = stores  # not a table: reported as such, whatever else maps stores
        elif merged or stores is not MISSING:
            out["stores"] = merged
    elif stores is not MISSING:
        out["stores"] = stores
    if isinstance(out.get("stores"), dict):
        out["stores"] = _linked(out["stores"])
    if not fmap.mapped:
        return Extracted(out, clashes, where)
    seen = listed = 0
    for i, entry in enumerate(fmap.mapped):
        found = lookup(data, entry.path)
        if found.value is not MISSING:
            seen |= 1 << i
        elif found.listed:
            listed |= 1 << i
    return Extracted(out, clashes, where, seen, listed)


def _linked(stores: dict[Any, Any]) -> dict[Any, Any]:
    """The stores a page links: a store key left empty (`steam:`, `steam: ""`), as a page
    template leaves the stores a game is not in yet, gives no link (the site's generator
    shows no button for it either)."""
    return {key: value for key, value in stores.items() if _given(value)}


def _given(value: Any) -> bool:
    """Whether a store's value is a link to check: not left empty (`steam:`, `steam: ""`)."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def _store_links(
    data: dict[str, Any],
    fmap: FieldMap,
    stores: Any,
    where: dict[str, Path],
    clashes: list[tuple[str, Path, Path]],
    owner: Callable[[tuple[str, ...], Any], str] | None,
) -> dict[Any, Any]:
    """The stores table with each `[fields.stores]` link added; a store given twice is a
    clash. A value of a key several stores share is the one store's that `owner` names."""
    # A store left empty gives no link: it neither clashes with nor hides another's.
    merged: dict[Any, Any] = _linked(stores) if isinstance(stores, dict) else {}
    done: set[str] = set()
    for name, path in fmap.store_paths.items():
        if name in done:
            continue
        value = _get(data, path, f"stores.{name}", where)
        if value is MISSING or not _given(value):
            continue
        key = name
        group = fmap.shared.get(name)
        if group is not None:  # one value, for the store of its host
            done.update(group)
            key = owner(group, value) if owner is not None else group[0]
            if key != name and f"stores.{name}" in where:
                where[f"stores.{key}"] = where.pop(f"stores.{name}")
        if key in merged:
            own = where.get(f"stores.{key}", _plain(path))
            clashes.append((key, (*_plain(fmap.stores), key), own))
        merged[key] = value
    return merged


def _get(data: dict[str, Any], path: FieldPath, name: str, where: dict[str, Path]) -> Any:
    """The value at `path`; a value found through a list records its page path in `where`."""
    if len(path) == 1 and type(path[0]) is str:
        return data.get(path[0], MISSING)
    if all(type(p) is str for p in path):
        return get_path(data, path)
    found = lookup(data, path)
    if found.value is not MISSING:
        where[name] = found.where
    return found.value
