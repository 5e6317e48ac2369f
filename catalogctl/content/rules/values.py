"""The rules of a page's values that need site.toml: the icon, the vocabularies, store links.

Each check runs on the values that validated, against the settings that validated: a missing
icon leaves the store links checked, a broken `[stores.ios]` leaves the Google Play links
checked.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from catalogctl.content.bodylinks import MAX_BODY_BYTES, BodyLink, PageBody
from catalogctl.content.fields import FieldMap
from catalogctl.content.limits import MAX_SITE_NAME
from catalogctl.content.rules.keys import KeyChecker
from catalogctl.content.rules.registry import Findings, Severities
from catalogctl.content.rules.stores import (
    KIND_NAMES,
    KIND_PLATFORMS,
    PLATFORM_KINDS,
    kind_problem,
    store_kind,
    with_params,
)
from catalogctl.content.rules.suggest import Suggester
from catalogctl.content.settings import CATALOG_KEYS, SiteSettings, validator
from catalogctl.content.storehosts import (
    HostTable,
    host_matches,
    known_store_of_host,
    store_hosts,
    url_host,
)
from catalogctl.paths import is_file
from catalogctl.urls import MAX_URL_LENGTH, shown, url_problem

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator, ValidationError

    from catalogctl.content.settings import GamePage

# A site path of RFC 3986 path characters only: no '%', '[', ']', '?' or '#' to check.
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9\-._~/!$&()*+,;=:@]*")

# Reports a finding at the value of a catalog location: add(rule, ("stores", "ios"), message).
Add = Callable[[str, tuple[Any, ...], str], None]


class PageContext:
    """What every page is checked against (made once, shared by the parser processes).

    `site` holds the settings that validated (`broken`: the names of those that did not);
    `fields` is None when site.toml could not be read at all: the pages are then parsed, not
    checked.
    """

    __slots__ = (
        "base",
        "base_passes",
        "body_hosts",
        "broken",
        "broken_stores",
        "category",
        "fields",
        "game",
        "game_url",
        "hosts",
        "icon_prefix",
        "invalid",
        "keys",
        "kinds",
        "locate",
        "now",
        "offered",
        "severities",
        "shared",
        "site",
        "store_names",
        "stores",
        "stores_known",
        "vocab",
    )

    def __init__(
        self,
        site: SiteSettings | None,
        fields: FieldMap | None,
        severities: Severities,
        now: dt.datetime,
        locate: bool = False,  # record each published link's line (check-links reports them)
        broken: frozenset[str] = frozenset(),
    ) -> None:
        from pydantic_core import ValidationError

        self.site = site
        self.fields = fields
        self.severities = severities
        self.now = now
        self.locate = locate
        self.broken = broken
        ok = site is not None and url_problem(site.base_url, loopback_http=True) is None
        # For checking site paths (a bad base_url is reported once, by the site rules).
        self.base = site.base_url.rstrip("/") if ok and site else "https://example.com"
        self.base_passes = url_problem(self.base, loopback_http=True) is None
        self.icon_prefix = site.base_url if site is not None else ""  # a site path's prefix
        # game_url with the base URL in place, "{id}" still to fill.
        self.game_url = site.game_url.replace("{base_url}", site.base_url) if site else ""
        self.game: SchemaValidator = validator("game")
        self.invalid: type[ValidationError] = ValidationError
        own = site.content.own_keys if site is not None else ()
        used = fields.used() if fields is not None else (((k,), k) for k in CATALOG_KEYS)
        self.keys = KeyChecker(used, own)
        # Whether the site's stores are known (a store that failed is known to have failed).
        self.stores_known = site is not None and "stores" not in broken
        stores = site.stores if self.stores_known and site is not None else {}
        self.broken_stores = frozenset(b[len("stores.") :] for b in broken if b[:7] == "stores.")
        self.kinds = {k: store_kind(k, s) for k, s in stores.items()}
        self.offered = frozenset(self.kinds.values())  # the kinds of store the site has
        self.stores = Suggester([*self.kinds, *self.broken_stores], min_length=1)
        # key -> published name, in site.toml order
        self.store_names = {k: s.name for k, s in stores.items()}
        # The hosts of each store of kind `other` that has any: a link elsewhere is checked.
        self.hosts = {
            k: hosts
            for k, s in stores.items()
            if self.kinds[k] == "other" and (hosts := store_hosts(k, s))
        }
        # The stores read from one front-matter key (`externalUrl` for itch and steam): each
        # page's link there belongs to the one whose hosts it is on.
        self.shared: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = ()
        if fields is not None:
            by_path: dict[Any, list[str]] = {}
            for key, path in fields.store_paths.items():
                if key in stores:
                    by_path.setdefault(path, []).append(key)
            self.shared = tuple(
                tuple((k, store_hosts(k, stores[k])) for k in keys)
                for keys in by_path.values()
                if len(keys) > 1
            )
        # With [content] body_links: the hosts of the stores whose links a body can give.
        self.body_hosts: HostTable | None = None
        if site is not None and site.content.body_links and "content" not in broken:
            table = HostTable.of_site(
                {k: s for k, s in stores.items() if k not in self.broken_stores}
            )
            self.body_hosts = table if table.keys else None
        # [content] category: only the pages holding it are games.
        self.category = site.content.category if site is not None else None
        self.vocab: dict[str, tuple[frozenset[str], Suggester] | None] = {}
        for name in ("platforms", "genres"):
            allowed = getattr(site, name) if site is not None and name not in broken else None
            self.vocab[name] = (
                None if allowed is None else (frozenset(allowed), Suggester(allowed, min_length=1))
            )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the arguments it is made of (a parse worker makes its own)."""
        args = (self.site, self.fields, self.severities, self.now, self.locate, self.broken)
        return (PageContext, args)


# A path without a scheme or a leading slash: relative to the page (a bundle's `cover.png`).
_RELATIVE = re.compile(r"(?![A-Za-z][A-Za-z0-9+.-]*:)[^/\s?#][^\s?#]*")


def _relative_icon(icon: str, ctx: PageContext, game_id: str, folder: str | None) -> str:
    """What to write for an icon given relative to its page: the site path of the file beside
    the page (a page bundle's resource), else the path from the site's root."""
    name = icon.removeprefix("./")
    page = ctx.game_url.replace("{id}", game_id) if game_id and ctx.game_url else ""
    path = urlsplit(page).path if page else ""
    beside = folder is not None and is_file(Path(folder) / name)
    if beside and path.startswith("/"):
        where = f"{path.rstrip('/') + '/' + name!r}, the file beside the page as game_url places it"
    else:
        where = f"{'/' + name!r} if the file is at that path of the site"
    return (
        f"is a path relative to the page ({icon!r}), which the catalog cannot serve; write it "
        f"as a path on the site, {where}, or as an https:// URL"
    )


def check_icon(
    icon: str, ctx: PageContext, add: Add, game_id: str = "", folder: str | None = None
) -> str:
    """The icon's published URL: an absolute URL, or a site path under the base URL.
    `game_id`, `folder`: the page's id and folder, to name the site path of an icon given
    relative to the page."""
    if not icon.startswith("/") or icon.startswith("//"):
        problem = url_problem(icon, loopback_http=True)
        if problem:
            relative = _RELATIVE.fullmatch(icon) is not None
            add(
                "invalid-url",
                ("icon",),
                _relative_icon(icon, ctx, game_id, folder)
                if relative
                else "an icon must be an https:// URL or a path on the site such as "
                f"/icons/x.png, and this one {problem}",
            )
        return icon
    # A plain path after a base that passes cannot change the verdict: the common case
    # skips the full check (same answer, a third of the time of a page's URL checks).
    plain = ctx.base_passes and len(ctx.base) + len(icon) <= MAX_URL_LENGTH
    if not (plain and _PLAIN_PATH.fullmatch(icon)):
        problem = url_problem(ctx.base + icon, loopback_http=True)
        if problem:
            add("invalid-url", ("icon",), f"the site path {shown(icon)} {problem}")
    return ctx.icon_prefix + icon


def check_vocabulary(vocab_name: str, values: list[str], ctx: PageContext, add: Add) -> None:
    """Platforms or genres: each listed once, each from site.toml's list when it has one."""
    vocab = ctx.vocab.get(vocab_name)
    if len(set(values)) == len(values) and (vocab is None or vocab[0].issuperset(values)):
        return  # the common case, answered without a step per value
    seen: set[str] = set()
    for i, value in enumerate(values):
        if value in seen:
            add("duplicate-value", (vocab_name, i), f"{shown(value)} is listed twice; remove one")
        seen.add(value)
        if vocab is not None and value not in vocab[0] and len(value) > MAX_SITE_NAME:
            add(
                "limit",
                (vocab_name, i),
                f"{shown(value)} is longer than {MAX_SITE_NAME} characters, the limit of a "
                f"name in the {vocab_name} of site.toml, so it cannot be one; shorten it",
            )
        elif vocab is not None and value not in vocab[0]:
            close = vocab[1](value)
            hint = (
                f"did you mean {close!r}?"
                if close
                else f"use one of them, or add it to {vocab_name} in site.toml"
            )
            add(
                "vocabulary",
                (vocab_name, i),
                f"{shown(value)} is not in the {vocab_name} of site.toml; {hint}",
            )


MAX_NAMED = 10  # names a message lists (a site may define hundreds of stores)


def _some(names: Iterable[str]) -> str:
    """Names for a message: the first `MAX_NAMED`, and how many more. A page's findings grow
    with its own text, not with site.toml's lists times the page's mistakes."""
    listed = list(names)
    shown = ", ".join(listed[:MAX_NAMED])
    return f"{shown} and {len(listed) - MAX_NAMED} more" if len(listed) > MAX_NAMED else shown


def check_stores(links: dict[str, str], ctx: PageContext, add: Add) -> dict[str, str]:
    """The store links that may be published (key -> URL, with attribution parameters)."""
    site = ctx.site
    passing: dict[str, str] = {}
    for key, url in links.items():
        loc = ("stores", key)
        known = key in ctx.kinds
        if ctx.stores_known and not known and key not in ctx.broken_stores:
            close = ctx.stores(key)
            defined = _some(ctx.kinds) or "none"
            hint = (
                f"did you mean {close!r}?"
                if close
                else f"use one of them, or add [stores.{key}] to site.toml"
            )
            add(
                "unknown-store",
                loc,
                f"unknown store key {shown(key)} (site.toml defines: {defined}); {hint}",
            )
            continue
        problem = url_problem(url, loopback_http=True)
        if problem:
            add(
                "invalid-url",
                loc,
                f"a store link must be the app's https:// address on its store, and this one "
                f"{problem}",
            )
            continue
        if not known:
            continue  # its store failed in site.toml: its kind is not known
        kind = ctx.kinds[key]
        problem = kind_problem(kind, url)
        if problem:
            add("store-url", loc, f"{problem} ({KIND_NAMES[kind]} store {key!r})")
            passing[key] = url  # published without the store's attribution parameters
            continue
        if key in ctx.hosts and _off_hosts(key, url, ctx, add):
            passing[key] = url  # published without the store's attribution parameters
            continue
        passing[key] = with_params(url, site.stores[key].params) if site is not None else url
    return passing


def _off_hosts(key: str, url: str, ctx: PageContext, add: Add) -> bool:
    """Whether the link of a store of kind `other` is on none of its hosts (reported): on
    another known store's, it would be published under the wrong store's name."""
    hosts = ctx.hosts[key]
    host = url_host(url)
    if host is None or any(host_matches(host, p) for p in hosts):
        return False
    name = ctx.store_names[key]
    other = known_store_of_host(host)
    on = _some(hosts)
    if other is not None:
        add(
            "store-url",
            ("stores", key),
            f"links {other.name} ({host}), not {name!r}, whose links are on {on}; add a "
            f"store for {other.name} to site.toml ([stores.{other.key}]), mapped in "
            "[fields.stores] to this same key if pages keep both stores' links in it (each "
            f"link goes to the store of its host), or set {key!r}'s hosts if this truly is "
            "its link",
        )
    else:
        add(
            "store-host",
            ("stores", key),
            f"is on {host}, none of the hosts of store {name!r} ({on}); if it is {name}'s "
            f"link, add {host!r} to [stores.{key}] hosts in site.toml",
        )
    return True


def split_shared(data: dict[str, Any], ctx: PageContext) -> None:
    """A link read from a front-matter key that several stores share goes to the first of them
    whose hosts it is on (else to the first, where the host check reports it)."""
    stores = data.get("stores")
    if not isinstance(stores, dict):
        return
    for group in ctx.shared:
        given = [(k, hosts) for k, hosts in group if k in stores]
        if len(given) < 2 or len({id(stores[k]) for k, _ in given}) > 1:
            continue  # not one value of the shared key (a table gave one of them)
        url = stores[given[0][0]]
        host = url_host(url.strip()) if isinstance(url, str) else None
        owner = given[0][0]
        if host is not None:
            owner = next(
                (k for k, hosts in given if any(host_matches(host, p) for p in hosts)), owner
            )
        for k, _ in given:
            if k != owner:
                del stores[k]


def read_body_links(
    data: dict[str, Any], ctx: PageContext, out: Findings, body: PageBody
) -> dict[str, BodyLink]:
    """The stores the front matter does not give, read from the page's body (`[content]
    body_links`) and added to the page's stores: store key -> the link."""
    table = ctx.body_hosts
    stores = data.get("stores")
    if table is None or (stores is not None and not isinstance(stores, dict)):
        return {}  # no store has hosts; or `stores` is not a table (reported as such)
    wanted = [k for k in table.keys if stores is None or k not in stores]
    if not wanted:
        return {}
    found, cut_at = body.links(table, wanted)
    if cut_at is not None and len(found) < len(wanted):
        keys = {link.store for link in found}
        missed = _some([k for k in wanted if k not in keys])
        out.add(
            "body-links",
            f"the page's body is longer than {MAX_BODY_BYTES // 1024:,} KiB, the most read for "
            f"store links, and no link of {missed} was found before this line; put the link "
            "nearer the top, or in the front matter",
            line=cut_at,
            field="stores",
        )
    if found:
        merged = dict(stores) if stores is not None else {}
        for link in found:
            merged[link.store] = link.url
        data["stores"] = merged
    return {link.store: link for link in found}


def check_store_platforms(src: GamePage, ctx: PageContext, add: Add) -> None:
    """A platform and a link to a store of its kind come together (iOS and an `apple` store,
    Android and a `google-play` store), whatever the store's key is."""
    listed = [p.lower() for p in src.platforms]
    kinds = ctx.kinds
    have = {kinds[key]: key for key in src.stores if key in kinds}  # kind -> a store key
    needed: set[str] = set()
    for i, platform in enumerate(listed):
        kind = PLATFORM_KINDS.get(platform)
        if kind is None or kind in needed:
            continue
        needed.add(kind)
        if kind not in have and kind in ctx.offered:
            add(
                "store-platform",
                ("platforms", i),
                f"lists platform {src.platforms[i]!r} but has no {KIND_NAMES[kind]} link (a "
                f"store of kind {kind!r} in site.toml); add the link under stores, or remove "
                "the platform",
            )
    for kind, key in have.items():
        sold = SOLD_BY.get(kind)
        if sold is not None and sold.isdisjoint(listed):
            add(
                "store-platform",
                ("stores", key),
                f"has {'an' if kind == 'apple' else 'a'} {KIND_NAMES[kind]} link ({key!r}) but "
                "lists none of its platforms "
                f"({', '.join(KIND_PLATFORMS[kind])}); add the platform, or remove the link",
            )


# Each kind's platforms, lowercased, as pages are compared with them.
SOLD_BY = {kind: frozenset(p.lower() for p in names) for kind, names in KIND_PLATFORMS.items()}
