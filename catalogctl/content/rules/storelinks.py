"""The rules of a page's store links that need site.toml: the key of each store, its URL
for the store's kind and hosts, the links a page's body gives (`[content] body_links`), and
platforms against stores.

Each check runs on the values that validated, against the settings that validated: a broken
`[stores.ios]` leaves the Google Play links checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from catalogctl.content.bodylinks import MAX_BODY_BYTES, BodyLink, PageBody
from catalogctl.content.rules.registry import Findings
from catalogctl.content.rules.stores import (
    KIND_NAMES,
    KIND_PLATFORMS,
    PLATFORM_KINDS,
    kind_problem,
    with_params,
)
from catalogctl.content.rules.values import Add, PageContext
from catalogctl.content.storehosts import (
    host_matches,
    host_problem,
    is_game_page,
    is_store_host,
    known_store,
    known_store_of_host,
    url_host,
)
from catalogctl.urls import shown, url_problem

if TYPE_CHECKING:
    from catalogctl.content.settings import GamePage


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
        host = url_host(url)
        if host is not None and not is_game_page(url, host):
            add(
                "store-host",
                loc,
                f"links a page of {host} that is not a game's (the store's front page, a "
                f"studio's or a developer's page): link the game's own page on "
                f"{ctx.store_names.get(key, key)}",
            )
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
    # Another store's host, not one of the store's own that its `hosts` leaves out.
    if other is not None and other is not known_store(key, name):
        # The site's own store of that host, if it has one (`mysteam`, named "Steam"); not
        # `key`, on none of whose hosts the link is.
        theirs = ctx.host_table.store_of_host(host)
        fix = (
            f"give the link under {theirs!r}, the store of site.toml on {host}"
            if theirs is not None
            else f"add a store for {other.name} to site.toml ([stores.{other.key}]), mapped "
            "in [fields.stores] to this same key if pages keep both stores' links in it (each "
            "link goes to the store of its host)"
        )
        add(
            "store-url",
            ("stores", key),
            f"links {other.name} ({host}), not {name!r}, whose links are on {on}; {fix}, or "
            f"set the hosts of {key!r} if this truly is its link",
        )
    elif host_problem(host) is None and not is_store_host(host):
        add(
            "store-host",
            ("stores", key),
            f"is on {host}, none of the hosts of store {name!r} ({on}); if it is {name}'s "
            f"link, add {host!r} to [stores.{key}] hosts in site.toml",
        )
    else:  # an address, or a known store's own site (itch.io itself): no host to add
        add(
            "store-host",
            ("stores", key),
            f"is on {host}, none of the hosts of store {name!r} ({on}): link the game's own "
            f"page on {name}",
        )
    return True


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
