"""`[fields]`: where each catalog key is read from in a page's front matter.

`name = "title"` reads the catalog's `name` from the page's `title`; dotted paths reach into
nested tables (`icon = "params.icon"`, Hugo's `[params]`; `"extra.icon"`, Zola's `[extra]`).
`[fields.stores]` maps each store key to its own front-matter key (`ios = "params.appstore"`);
`stores = "extra.stores"` moves the whole stores table. Unmapped keys keep their own names.
"""

import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from catalogctl.content.document import Path
from catalogctl.content.settings import CATALOG_KEYS

_SEGMENT = r"[^.\s]+"  # compiled when site.toml maps a key
MISSING: Any = object()


def parse_path(text: str) -> tuple[str, ...] | None:
    """`"params.icon"` → ("params", "icon"); None when it is not a dotted key path."""
    parts = tuple(text.split("."))
    if not text or not all(re.fullmatch(_SEGMENT, p) for p in parts):
        return None
    return parts


class FieldMap(NamedTuple):
    """Catalog key → front-matter path; per-store paths."""

    paths: Mapping[str, tuple[str, ...]]
    stores: tuple[str, ...]
    store_paths: Mapping[str, tuple[str, ...]]
    # Top-level front-matter key -> the catalog key read from it, when each catalog key but
    # `stores` is read from a top-level key of its own (else None): a page is then read in one
    # pass over its keys.
    top: Mapping[str, str] | None = None

    @classmethod
    def from_settings(cls, fields: Mapping[str, Any]) -> "FieldMap":
        """The map of valid entries; invalid ones are reported by the site rules."""
        paths: dict[str, tuple[str, ...]] = {k: (k,) for k in CATALOG_KEYS if k != "stores"}
        stores: tuple[str, ...] = ("stores",)
        store_paths: dict[str, tuple[str, ...]] = {}
        for key, value in fields.items():
            if key == "stores" and isinstance(value, dict):
                for store, text in value.items():
                    parsed = parse_path(text) if isinstance(text, str) else None
                    if parsed is not None:
                        store_paths[store] = parsed
            elif key in CATALOG_KEYS and isinstance(value, str):
                parsed = parse_path(value)
                if parsed is None:
                    continue
                if key == "stores":
                    stores = parsed
                else:
                    paths[key] = parsed
        top = {path[0]: key for key, path in paths.items() if len(path) == 1}
        return cls(paths, stores, store_paths, top if len(top) == len(paths) else None)

    def source(self, loc: tuple[Any, ...]) -> Path:
        """The front-matter path of a catalog location (`("platforms", 1)`, `("stores", "ios")`)."""
        if not loc:
            return ()
        head, rest = loc[0], loc[1:]
        if head == "stores":
            if rest and rest[0] in self.store_paths:
                return (*self.store_paths[rest[0]], *rest[1:])
            return (*self.stores, *rest)
        return (*self.paths.get(head, (head,)), *rest)

    def used(self) -> Iterator[tuple[str, ...]]:
        """Every front-matter path the catalog reads."""
        yield from self.paths.values()
        yield self.stores
        yield from self.store_paths.values()


DEFAULT_FIELDS = FieldMap.from_settings({})


def get_path(data: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict) or part not in data:
            return MISSING
        data = data[part]
    return data


def extract(
    data: dict[str, Any], fmap: FieldMap
) -> tuple[dict[str, Any], list[tuple[str, Path, Path]]]:
    """The catalog keys of a page, and the store keys given in two places (key, path, path)."""
    top = fmap.top
    if top is not None:
        out = {top[k]: v for k, v in data.items() if k in top}
    else:
        out = {}
        for key, path in fmap.paths.items():
            value = data.get(path[0], MISSING) if len(path) == 1 else get_path(data, path)
            if value is not MISSING:
                out[key] = value
    clashes: list[tuple[str, Path, Path]] = []
    stores = get_path(data, fmap.stores)
    if fmap.store_paths:
        merged: dict[Any, Any] = dict(stores) if isinstance(stores, dict) else {}
        for key, path in fmap.store_paths.items():
            value = get_path(data, path)
            if value is MISSING:
                continue
            if key in merged:
                clashes.append((key, (*fmap.stores, key), path))
            merged[key] = value
        if merged or stores is not MISSING:
            out["stores"] = merged if (merged or isinstance(stores, dict)) else stores
    elif stores is not MISSING:
        out["stores"] = stores
    return out, clashes
