"""The stores a site's pages link, and where each store's link is kept: a table of links
(`stores`, `storeLinks`), one key per store (`params.appstore`, `googlePlay`), a list of
objects naming their store (`links[platform=googleplay].url`), or the page text."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

from catalogctl.content.fields import parse_path
from catalogctl.content.scaffold.pages import PageKeys
from catalogctl.content.storehosts import KnownStore
from catalogctl.text import plural

STORE_ORDER = {"apple": 0, "google-play": 1}  # then the others, as the pages link them
MAX_STORES = 50  # stores init writes (a studio sells in a handful; validate allows 500)
_SELECT_VALUE = re.compile(r"[^.\[\]=\s][^.\[\]=]*")
_SELECTOR = re.compile(r"\[([^=\]]+)=([^\]]*)\]")
# The keys that usually name an item of a list of links.
_NAMERS = ("platform", "store", "name", "type", "site", "label", "title", "id")


class Store(NamedTuple):
    key: str
    name: str
    kind: str
    path: str | None  # its [fields.stores] entry; None: read from the table of links
    links: int  # links to it in the pages
    host: str  # the host of its first link
    body: bool = False  # read from the pages' bodies
    hosts: tuple[str, ...] = ()  # the hosts its links in the page text are on
    pt: str | None = None  # an apple store's provider token, the one its links all carry
    template: str | None = None  # named only by this template of a new game (`_TEMPLATE.md`)


def dotted(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path)


def front_stores(keys: PageKeys) -> tuple[list[Store], str | None, list[str]]:
    """The stores the pages' front matter links, where each is read from, the table of
    links the pages keep (None: `stores`, or none), and a note for each list entry left out
    because most of its links are no store's."""
    tables: Counter[tuple[Any, ...]] = Counter()
    for link in keys.links:
        where = link.where
        if link.item is None and len(where) > 1 and _only_links(keys, where[:-1]):
            tables[where[:-1]] += 1
    table = tables.most_common(1)[0][0] if tables else None
    # A key that holds links of two or more stores (`externalUrl`: itch.io, Steam) is read
    # by a store of each: validate gives each link to the store of its host.
    stores_of: dict[tuple[Any, ...], set[str]] = {}
    for link in keys.links:
        if link.item is None:
            stores_of.setdefault(link.where, set()).add(link.store.key)
    found: dict[str, tuple[KnownStore, str | None]] = {}  # key -> store, path
    # List entries left out: path -> (items linking a store, items).
    mostly_not: dict[str, tuple[int, int]] = {}
    # Keys of their own left out (`direct_link`: a web build, a repository, once itch.io):
    # path -> (pages whose value there links a store, pages with a value there). A page
    # that leaves the key empty (`steam_page:` on a game not on Steam yet) links nothing
    # else: it does not count.
    keys_not: dict[str, tuple[int, int]] = {}
    linking = Counter(link.where for link in keys.links if link.item is None)
    links: Counter[str] = Counter()
    hosts: dict[str, Counter[str]] = {}
    for link in keys.links:
        where, usual = link.where, link.store.key
        key: str | None = None
        path: str | None = None
        if link.item is not None:
            entry = _list_entry(where, usual, link.item)
            picked = _picked(keys, where, entry[1]) if entry is not None else (0, 0)
            if entry is not None and 2 * picked[0] >= picked[1]:
                key, path = entry
            elif entry is not None:
                mostly_not[entry[1]] = picked
        elif table is not None and where[:-1] == table:
            key = str(where[-1])
        elif all(isinstance(p, str) for p in where):
            if 2 * linking[where] < keys.filled_in(where):
                keys_not[dotted(where)] = (linking[where], keys.filled_in(where))
                continue
            shared = len(stores_of[where]) > 1
            key, path = (usual if shared else store_key(str(where[-1]), usual)), dotted(where)
        if key is not None:
            found.setdefault(key, (link.store, path))
            links[key] += 1
            hosts.setdefault(key, Counter())[link.host] += 1
    names = Counter(store.name for store, _ in found.values())
    stores = [
        Store(
            key,
            _name(key, store, names[store.name]),
            store.kind,
            path,
            links[key],
            _hosts_shown(hosts[key]),
        )
        for key, (store, path) in found.items()
    ]
    # Two stores under one name cannot be told apart by a client: the key tells them apart.
    again = Counter(s.name for s in stores)
    stores = [s._replace(name=f"{s.name} ({s.key})") if again[s.name] > 1 else s for s in stores]
    stores.sort(key=lambda s: STORE_ORDER.get(s.kind, len(STORE_ORDER)))
    notes = []
    if len(stores) > MAX_STORES:
        notes.append(
            f"the pages link {len(stores)} stores: the {MAX_STORES} most linked are written, "
            "add the others by hand"
        )
        kept = set(sorted(stores, key=lambda s: -s.links)[:MAX_STORES])
        stores = [s for s in stores if s in kept]
    notes += [
        f"{path} links a store in {linked} of its {items} items, and elsewhere in the others: "
        "not mapped; map it in [fields.stores] if its links are a store's"
        for path, (linked, items) in mostly_not.items()
    ]
    notes += [
        f"{path} links a store in {linked} of the {pages} pages that give it a value, and "
        "elsewhere in the others: not mapped; map it in [fields.stores] if its links are a store's"
        for path, (linked, pages) in keys_not.items()
    ]
    return stores, (None if table in (None, ("stores",)) else dotted(table or ())), notes


def with_body_stores(
    stores: list[Store], found: dict[str, tuple[KnownStore, list[str]]]
) -> list[Store]:
    """The stores linked in the pages' text, added to those of the front matter (a store of
    both is one store, read from both), each with the hosts its links in the text are on."""
    by_kind = {s.kind: s for s in stores if s.kind != "other"}
    out = list(stores)
    for known, hosts in found.values():
        same = (
            by_kind.get(known.kind)
            if known.kind != "other"
            else next((s for s in out if s.key == known.key or s.name == known.name), None)
        )
        if same is not None:
            i = out.index(same)
            out[i] = same._replace(hosts=tuple(dict.fromkeys([*same.hosts, *hosts])))
            continue
        first = hosts[0] if hosts else ""
        out.append(Store(known.key, known.name, known.kind, None, 0, first, True, tuple(hosts)))
    return out


def provider_token(urls: list[str]) -> str | None:
    """The App Store provider token (`pt=`) the links carry, when they carry one and all the
    same (a studio's own links, from App Store Connect's campaign links): digits only."""
    tokens: set[str] = set()
    for url in urls:
        query = url.partition("?")[2].partition("#")[0]
        for part in query.split("&"):
            name, _, value = part.partition("=")
            if name == "pt" and value.isascii() and value.isdigit() and len(value) <= 20:
                tokens.add(value)
    return tokens.pop() if len(tokens) == 1 else None


def _hosts_shown(hosts: Counter[str]) -> str:
    """The host of a store's links, or the most linked and how many others."""
    (first, _), *others = hosts.most_common()
    return first if not others else f"{first} and {plural(len(others), 'other host')}"


def _only_links(keys: PageKeys, parent: tuple[Any, ...]) -> bool:
    """Whether every key of the table `parent` holds a store link in some page."""
    if not all(isinstance(p, str) for p in parent):
        return False
    children = [p for p in keys.types if len(p) == len(parent) + 1 and p[:-1] == parent]
    linked = {link.where for link in keys.links if link.item is None}
    return bool(children) and all(
        keys.types[c] <= {"str", "NoneType"} and c in linked for c in children
    )


# Words that name a link, not its store (`app_link`, `download_url`, `buy`): the store's usual
# key (`appstore`) is the key the API publishes then.
_NO_STORE_NAMES = frozenset(
    {
        "app",
        "apps",
        "game",
        "games",
        "store",
        "link",
        "links",
        "url",
        "download",
        "downloads",
        "buy",
        "get",
        "button",
        "external",
        "website",
        "web_page",
        "page",
        "main",
        "primary",
        "cta",
        "direct",
        "purchase",
        "shop",
        "release",
    }
)


def store_key(own: str, usual: str) -> str:
    key = re.sub(r"[^a-z0-9_-]", "", own.lower())
    if key.strip("_-") in _NO_STORE_NAMES:  # `web_page`, `store_link`
        return usual
    # googlePlayUrl, steam_page: the store is googleplay, steam
    key = re.sub(r"[_-]?(?:url|link|href|page)$", "", key)
    return usual if key.strip("_-") in _NO_STORE_NAMES else (key or usual)


def _list_entry(where: tuple[Any, ...], usual: str, item: dict[str, str]) -> tuple[str, str] | None:
    """(store key, `links[platform=googleplay].url`) for a link in a list of objects."""
    if len(where) < 3 or not isinstance(where[-2], int) or not isinstance(where[-1], str):
        return None
    list_path = [p for p in where[:-2] if isinstance(p, str)]
    if len(list_path) != len(where) - 2:
        return None  # a list inside a list: not a path [fields] can name
    url_key = where[-1]
    namers = [k for k in _NAMERS if k in item and k != url_key] + sorted(
        k for k in item if k not in _NAMERS and k != url_key
    )
    for namer in namers:
        value = item[namer].strip()
        if _SELECT_VALUE.fullmatch(value) and not value.startswith("http"):
            path = f"{dotted(tuple(list_path))}[{namer}={value}].{url_key}"
            if parse_path(path) is not None:  # a key `[fields]` can name (`pl.at` is not)
                return store_key(value, usual), path
    return None


def _picked(keys: PageKeys, where: tuple[Any, ...], path: str) -> tuple[int, int]:
    """How many of the items a list entry picks (`links[label=Project].url`) link a store,
    and how many it picks: a label whose links are mostly a project's source or a web page
    is no store's."""
    m = _SELECTOR.search(path)
    if m is None:  # pragma: no cover - _list_entry wrote it
        return 1, 1
    name, value = m.group(1), m.group(2).strip().lower()
    items = keys.items[(tuple(where[:-2]), name, value, where[-1])]
    links = sum(
        1
        for link in keys.links
        if link.item is not None
        and link.where[:-2] == where[:-2]
        and link.where[-1] == where[-1]
        and (link.item.get(name) or "").strip().lower() == value
    )
    return links, max(items, links)


def _name(key: str, store: KnownStore, same: int) -> str:
    """The store's published name; a second App Store link keyed `mac` is the Mac App Store."""
    if same > 1 and store.kind == "apple" and "mac" in key.lower():
        return "Mac App Store"
    return store.name


__all__ = [
    "STORE_ORDER",
    "Store",
    "dotted",
    "front_stores",
    "provider_token",
    "store_key",
    "with_body_stores",
]
