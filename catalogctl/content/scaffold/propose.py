"""The site.toml `catalogctl init` proposes: each setting with a comment on what it rests on.

The catalog keys are mapped to the keys most of the pages use (the first of the usual names of
Hugo, Zola, Jekyll, Eleventy, Astro and Next.js sites that holds a value of the right kind),
and the stores to where the pages keep their store links: a table of links (`stores`,
`storeLinks`), one key per store (`params.appstore`, `googlePlay`) or a list of objects naming
their store (`links[platform=googleplay].url`). A key a page lacks stays unmapped: `validate`
then says which pages lack it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.scaffold import values
from catalogctl.content.scaffold.choose import Choice, choose, scan, store_hosts
from catalogctl.content.scaffold.generators import (
    Generator,
    astro_schema,
    detect,
    page_url,
    schema_store,
)
from catalogctl.content.scaffold.links import unknown_hosts
from catalogctl.content.scaffold.pages import PageKeys, read_keys
from catalogctl.errors import InputError
from catalogctl.text import path_text, plural

# The usual front-matter keys of each catalog key, in order of preference, with the kinds of
# value that fit it.
CANDIDATES: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "name": (("name", "title", "params.name", "extra.name"), frozenset({"str"})),
    "description": (
        (
            "description",
            "summary",
            "excerpt",
            "tagline",
            "subtitle",
            "lead",
            "params.description",
            "extra.description",
        ),
        frozenset({"str"}),
    ),
    "platforms": (
        ("platforms", "extra.platforms", "params.platforms", "taxonomies.platforms", "systems"),
        frozenset({"list[str]"}),
    ),
    "genres": (
        (
            "genres",
            "genre",
            "categories",
            "category",
            "taxonomies.genres",
            "extra.genres",
            "params.genres",
            "taxonomies.categories",
            "tags",
        ),
        frozenset({"list[str]", "str"}),
    ),
    "icon": (
        (
            "icon",
            "params.icon",
            "extra.icon",
            "app_icon",
            "appIcon",
            "image",
            "thumbnail",
            "cover",
            "coverImage",
            "heroImage",
            "logo",
            "params.image",
            "extra.image",
            "featured_image",
        ),
        frozenset({"str"}),
    ),
    "date": (
        ("date", "pubDate", "published_at", "extra.date"),
        frozenset({"date", "datetime", "str"}),
    ),
    "weight": (("weight", "params.weight", "extra.weight"), frozenset({"int"})),
    "draft": (("draft", "extra.draft", "params.draft"), frozenset({"bool"})),
}
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SELECT_VALUE = re.compile(r"[^.\[\]=\s][^.\[\]=]*")
# Parameters of contract §2.4 that are the same for every site (pt is the studio's own).
SPEC_PARAMS = {
    "apple": '{ ct = "service_api_game_catalog", mt = "8" }',
    "google-play": '{ utm_source = "service_api", utm_campaign = "game_catalog" }',
}


MAX_HOSTS = 20  # hosts listed for one store


class Store(NamedTuple):
    key: str
    name: str
    kind: str
    path: str | None  # its [fields.stores] entry; None: read from the table of links
    links: int  # links to it in the pages
    host: str  # the host of its first link
    body: bool = False  # read from the pages' bodies
    hosts: tuple[str, ...] = ()  # the hosts its links are on


class Proposal(NamedTuple):
    """What init proposes for a website, and the site.toml text that says it."""

    generator: Generator
    games: str
    keys: PageKeys
    fields: dict[str, tuple[str, int]]  # catalog key -> (front-matter path, pages with it)
    stores: list[Store]
    stores_table: str | None  # `stores = "storeLinks"`: the table of links, when not `stores`
    own_keys: list[str]
    text: str
    notes: list[str]  # what the user should check or add
    choice: Choice | None  # how the games folder was chosen (None: given with --games)
    guesses: dict[str, str]  # catalog key -> what its values look like, when mapped by them
    body_links: bool  # store links are read from the pages' bodies
    body_pages: int  # pages linking their stores in the body only


def propose(root: Path, games: str | None = None) -> Proposal:
    """The site.toml for the website at `root` (`games`: its games folder, when known)."""
    gen = detect(root)
    choice: Choice | None = None
    if games is None:
        choice = choose(root, gen)
        if choice.folder is None:
            raise InputError(_nothing_to_go_on(root, choice))
        games = choice.folder
        found = choice.scan
    elif not (root / games).is_dir():
        raise InputError(
            f"the games folder {games} does not exist in {path_text(root)}: give --games the "
            "folder of the game pages, relative to the website's root"
        )
    else:
        found = scan(root, (games,))
    keys = read_keys(root, games, gen.language or "en")
    if keys.pages == 0:
        raise InputError(f"no page in {games} could be read: run `catalogctl validate` after init")
    fields, guesses = _fields(keys)
    stores, table = _stores(keys)
    inside = [p for p in found.pages if p.folder == games or p.folder.startswith(games + "/")]
    body = sum(1 for p in inside if p.body_stores and not p.front_link)
    front = sum(p.front_link for p in inside)
    body_links = body > 0 and (body >= front / 2 or not stores)
    if body_links:
        stores = _body_stores(stores, store_hosts(games, found))
    own = _own_keys(keys, fields)
    text, notes = _text(
        root, gen, games, keys, fields, stores, table, own, guesses, choice, body_links, body
    )
    if choice is not None and (choice.scan.unread or choice.scan.bounds):
        unread = len(choice.scan.unread)
        if unread:
            named = ", ".join(f for f, _ in choice.scan.unread[:3])
            notes.append(
                f"{plural(unread, 'file')} could not be read while looking for the games folder "
                f"({named}{', …' if unread > 3 else ''})"
            )
        notes += choice.scan.bounds[:3]
    return Proposal(
        gen, games, keys, fields, stores, table, own, text, notes, choice, guesses, body_links, body
    )


def _nothing_to_go_on(root: Path, choice: Choice) -> str:
    seen = [c for c in choice.candidates if c.folder != "."][:5]
    if not seen:
        return (
            f"no pages found in {path_text(root)} to take for game pages: name the games "
            "folder with --games FOLDER"
        )
    shown = "; ".join(
        f"{c.folder} ({plural(c.pages, 'page')}{': ' + ', '.join(c.reasons) if c.reasons else ''})"
        for c in seen
    )
    return (
        f"no folder of {path_text(root)} looks like the games section (no store link, no games "
        f"or apps folder, no game category or collection); folders of pages seen: {shown}; "
        "name the games folder with --games FOLDER"
    )


def _body_stores(
    stores: list[Store], found: dict[str, tuple[tuple[str, str, str], list[str]]]
) -> list[Store]:
    """The stores linked in the pages' bodies, added to those of the front matter, each with
    the hosts its links are on."""
    by_kind = {s.kind: s for s in stores if s.kind != "other"}
    out = list(stores)
    for (kind, name, usual), hosts in found.values():
        same = (
            by_kind.get(kind)
            if kind != "other"
            else next((s for s in out if s.key == usual or s.name == name), None)
        )
        if same is not None:
            i = out.index(same)
            out[i] = same._replace(hosts=tuple(dict.fromkeys([*same.hosts, *hosts])))
            continue
        out.append(Store(usual, name, kind, None, 0, hosts[0] if hosts else "", True, tuple(hosts)))
    return out


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _fields(keys: PageKeys) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Each catalog key's most used candidate that holds a value of its kind; then, for a key
    no usual name gives, the key whose values look like it. The second mapping holds the
    evidence of each key mapped by its values."""
    out: dict[str, tuple[str, int]] = {}
    for key, (names, kinds) in CANDIDATES.items():
        best: tuple[int, str] | None = None
        for name in names:
            path = tuple(name.split("."))
            kinds_seen = keys.types.get(path, set())
            if not kinds_seen & kinds or kinds_seen - kinds - {"NoneType"}:
                continue
            if key == "genres" and values.labels_are_genres(keys.values.get(path, [])) is None:
                continue  # `tags: [games]` says what the page is, not its genre
            n = keys.paths[path]
            if best is None or n > best[0]:
                best = (n, name)
        if best is not None:
            out[key] = (best[1], best[0])
    guesses: dict[str, str] = {}
    by_values = {
        "platforms": values.platforms,
        "genres": values.genres,
        "icon": values.icon,
        "date": values.date,
    }
    for key, guess_of in by_values.items():
        if key in out:
            continue
        guess = guess_of(keys)
        if guess is not None:
            out[key] = (guess.path, guess.pages)
            guesses[key] = guess.evidence
    return out, guesses


def _stores(keys: PageKeys) -> tuple[list[Store], str | None]:
    """The stores the pages link to, where each is read from, and the table of links the
    pages keep (None: `stores`, or none)."""
    tables: Counter[tuple[Any, ...]] = Counter()
    for where, _, item in keys.links:
        if item is None and len(where) > 1 and _only_links(keys, where[:-1]):
            tables[where[:-1]] += 1
    table = tables.most_common(1)[0][0] if tables else None
    found: dict[str, tuple[str, str, str | None]] = {}  # key -> name, kind, path
    links: Counter[str] = Counter()
    hosts: dict[str, str] = {}
    for where, (kind, name, usual, host), item in keys.links:
        key: str | None = None
        path: str | None = None
        if item is not None:
            entry = _list_entry(where, usual, item)
            if entry is not None:
                key, path = entry
        elif table is not None and where[:-1] == table:
            key = str(where[-1])
        elif all(isinstance(p, str) for p in where):
            key, path = _store_key(str(where[-1]), usual), _dotted(where)
        if key is not None:
            found.setdefault(key, (name, kind, path))
            links[key] += 1
            hosts.setdefault(key, host)
    names = Counter(name for name, _, _ in found.values())
    stores = [
        Store(key, _name(key, name, kind, names[name]), kind, path, links[key], hosts[key])
        for key, (name, kind, path) in found.items()
    ]
    # Two stores under one name cannot be told apart by a client: the key tells them apart.
    again = Counter(s.name for s in stores)
    stores = [s._replace(name=f"{s.name} ({s.key})") if again[s.name] > 1 else s for s in stores]
    order = {"apple": 0, "google-play": 1}
    stores.sort(key=lambda s: order.get(s.kind, 2))
    return stores, (None if table in (None, ("stores",)) else _dotted(table or ()))


def _only_links(keys: PageKeys, parent: tuple[Any, ...]) -> bool:
    """Whether every key of the table `parent` holds a store link in some page."""
    if not all(isinstance(p, str) for p in parent):
        return False
    children = [p for p in keys.types if len(p) == len(parent) + 1 and p[:-1] == parent]
    linked = {where for where, _, item in keys.links if item is None}
    return bool(children) and all(
        keys.types[c] <= {"str", "NoneType"} and c in linked for c in children
    )


def _store_key(own: str, usual: str) -> str:
    key = re.sub(r"[^a-z0-9_-]", "", own.lower())
    key = re.sub(r"[_-]?(?:url|link|href)$", "", key)  # googlePlayUrl: the store is googleplay
    return key or usual


# The keys that usually name an item of a list of links.
_NAMERS = ("platform", "store", "name", "type", "site", "label", "title", "id")


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
            path = f"{_dotted(tuple(list_path))}[{namer}={value}].{url_key}"
            return _store_key(value, usual), path
    return None


def _name(key: str, name: str, kind: str, same: int) -> str:
    """The store's published name; a second App Store link keyed `mac` is the Mac App Store."""
    if same > 1 and kind == "apple" and "mac" in key.lower():
        return "Mac App Store"
    return name


def _own_keys(keys: PageKeys, fields: dict[str, tuple[str, int]]) -> list[str]:
    """Keys half the pages use that `validate` would take for a misspelled catalog key (a
    Jekyll site's `platform`): the site's own, listed so they are not reported."""
    from catalogctl.content.fields import FieldMap
    from catalogctl.content.rules.keys import KeyChecker

    fmap = FieldMap.from_settings({k: path for k, (path, _) in fields.items()})
    checker = KeyChecker(fmap.used())
    names, suggest = checker.levels[()]
    return sorted(
        path[0]
        for path, n in keys.paths.items()
        if len(path) == 1
        and path[0] not in names
        and n >= max(2, keys.pages // 2)
        and suggest(path[0]) is not None
    )


def toml_str(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else toml_str(key)


def _games_lines(
    games: str, keys: PageKeys, choice: Choice | None, body: int
) -> tuple[list[str], list[str]]:
    """`[content] games` with what it rests on, and the folders weighed when init is unsure."""
    n = keys.pages
    linked = keys.games + body
    if choice is None:
        why = "given with --games"
    else:
        chosen = choice.chosen()
        why = "; ".join(chosen.reasons) if chosen is not None and chosen.reasons else ""
        why = why or f"{linked} of {plural(n, 'page')} link a store"
    lines = [f"games = {toml_str(games)}  # {why}"]
    notes: list[str] = []
    if choice is not None and not choice.sure:
        others = [c for c in choice.candidates if c.folder != games][:3]
        if others:
            lines.append("# Not sure: also weighed " + "; ".join(_weighed(c) for c in others))
            notes.append(
                f"the games folder is a guess: {games} ({why}) over "
                + "; ".join(_weighed(c) for c in others)
                + ": check [content] games"
            )
    return lines, notes


def _weighed(c: Any) -> str:
    reasons = ", ".join(c.reasons) if c.reasons else "nothing says games"
    return f"{c.folder} ({plural(c.pages, 'page')}: {reasons})"


def _text(
    root: Path,
    gen: Generator,
    games: str,
    keys: PageKeys,
    fields: dict[str, tuple[str, int]],
    stores: list[Store],
    table: str | None,
    own: list[str],
    guesses: dict[str, str],
    choice: Choice | None,
    body_links: bool,
    body: int,
) -> tuple[str, list[str]]:
    notes: list[str] = []
    n = keys.pages
    site_name = gen.title or root.resolve().name
    lines = [
        f"# site.toml of the game catalog, proposed by `catalogctl init` for {gen.site}.",
        "# Each setting says what it rests on; check the guesses, then run `catalogctl validate`.",
    ]
    if gen.base_url:
        lines.append(f"base_url = {toml_str(gen.base_url.rstrip('/'))}  # from {gen.config}")
    else:
        lines.append('base_url = "https://example.com"  # guess: no address found; set yours')
        notes.append("set base_url to the website's address (none was found in its settings)")
    from_config = f"  # from {gen.config}" if gen.title else "  # guess: the folder's name"
    lines.append(f"title = {toml_str(site_name)}{from_config}")
    if gen.description:
        lines.append(f"description = {toml_str(gen.description)}  # from {gen.config}")
    else:
        lines.append(f"description = {toml_str(f'Games by {site_name}.')}  # guess: one line")
    url, why = page_url(gen, root, games)
    lines.append(f"game_url = {toml_str('{base_url}' + url)}  # guess: {why}")
    games_lines, games_notes = _games_lines(games, keys, choice, body)
    lines += ["", "[content]", *games_lines]
    notes += games_notes
    if gen.language and gen.language != "en":
        lines.append(f"language = {toml_str(gen.language)}  # from {gen.config}")
    if own:
        lines.append(
            f"own_keys = [{', '.join(toml_str(k) for k in own)}]  # the site's own keys "
            "that look like catalog keys"
        )
    if body_links:
        lines.append(
            f"body_links = true  # {body} of {plural(n, 'page')} link their stores in the page "
            "text, not in front matter"
        )
    mapped = {k: v for k, v in fields.items() if v[0] != k}
    lines += ["", "[fields]  # the front-matter key of each catalog key, where it is not its own"]
    for key, (path, count) in mapped.items():
        why = f"guess: {guesses[key]}" if key in guesses else f"in {count} of {plural(n, 'page')}"
        lines.append(f"{key} = {toml_str(path)}  # {why}")
    if table is not None:
        lines.append(f"stores = {toml_str(table)}  # the pages' table of store links")
    for key in ("name", "description", "platforms", "genres", "icon"):
        if key not in fields:
            notes.append(f"no key for {key!r} found in the pages: add it, or map yours in [fields]")
    lines += _store_lines(root, keys, stores, body_links, notes)
    return "\n".join(lines) + "\n", notes


def _unused_schema_stores(root: Path, keys: PageKeys, stores: list[Store]) -> list[str]:
    """The store keys of an Astro collection's schema that no page has yet, as comments: a
    mapping no page has is refused, so they wait for the first page that links the store."""
    schema = astro_schema(root)
    if schema is None:
        return []
    config, names = schema
    used = {s.path for s in stores}
    waiting = [k for k in names if (k,) not in keys.paths and k not in used]
    if not waiting:
        return []
    lines = ["", f"# {config}'s schema has store keys no page has yet; when a page links one:"]
    for name in waiting:
        store = schema_store(name)
        key = store[2] if store is not None else name
        lines.append(f"# {toml_key(key)} = {toml_str(name)}  (and a [stores.{key}] table)")
    return lines


def _store_lines(
    root: Path, keys: PageKeys, stores: list[Store], body_links: bool, notes: list[str]
) -> list[str]:
    """`[fields.stores]` and a `[stores.<key>]` table per store."""
    n = keys.pages
    lines: list[str] = []
    per_store = [s for s in stores if s.path is not None]
    if per_store:
        lines += ["", "[fields.stores]  # where each store's link is"]
        for s in per_store:
            lines.append(
                f"{toml_key(s.key)} = {toml_str(s.path or '')}  # {s.host} links in "
                f"{s.links} of {plural(n, 'page')}"
            )
    lines += _unused_schema_stores(root, keys, stores)
    if not stores:
        notes.append("no store link found: add [stores.<key>] tables and the pages' links")
    for s in stores:
        lines += [
            "",
            f"[stores.{toml_key(s.key)}]",
            f"name = {toml_str(s.name)}  # guess: the usual name of {s.host}",
        ]
        links = plural(s.links, "link") if not s.body else "links in the page text"
        lines.append(f"kind = {toml_str(s.kind)}  # by the host of its {links}")
        hosts = unknown_hosts(s.hosts) if body_links else []
        if hosts:
            shown = ", ".join(toml_str(h) for h in hosts[:MAX_HOSTS])
            lines.append(
                f"hosts = [{shown}]  # where its links in the page text point "
                "(a store catalogctl does not know)"
            )
        if s.kind in SPEC_PARAMS:
            lines.append(f"params = {SPEC_PARAMS[s.kind]}")
        if s.kind == "apple":
            lines.append(
                '# pt = "…": your App Store provider token (API contract §2.4): add it to params'
            )
            notes.append(f"add your App Store provider token (pt) to [stores.{s.key}] params")
    return lines
