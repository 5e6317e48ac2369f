"""The rules of a page's values that need site.toml: what every page is checked against
(`PageContext`), the icon and the vocabularies (store links: `storelinks`).

Each check runs on the values that validated, against the settings that validated: a missing
icon leaves the store links checked.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from catalogctl.content.fields import FieldMap
from catalogctl.content.limits import MAX_SITE_NAME
from catalogctl.content.rules.keys import KeyChecker
from catalogctl.content.rules.registry import Severities
from catalogctl.content.rules.stores import (
    store_kind,
)
from catalogctl.content.rules.suggest import Suggester
from catalogctl.content.settings import CATALOG_KEYS, SiteSettings, validator
from catalogctl.content.storehosts import HostTable, host_matches, store_hosts, url_host
from catalogctl.paths import is_file
from catalogctl.urls import MAX_URL_LENGTH, shown, url_problem

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator, ValidationError


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
        "host_table",
        "hosts",
        "icon_prefix",
        "invalid",
        "keys",
        "kinds",
        "locate",
        "now",
        "offered",
        "severities",
        "shared_hosts",
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
        # The same as a table, for the store of a link's host in a step per label.
        self.host_table = HostTable(self.hosts)
        # The hosts of the stores read from one front-matter key (`externalUrl` for itch and
        # steam), which tell whose a page's link there is (`owner`).
        shared = fields.shared if fields is not None else {}
        self.shared_hosts = {k: store_hosts(k, stores[k]) for k in shared if k in stores}
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

    def owner(self, keys: tuple[str, ...], value: Any) -> str:
        """Which of the stores sharing a front-matter key a link of it belongs to: the first
        whose hosts it is on (else the first, where the host check reports it)."""
        host = url_host(value.strip()) if isinstance(value, str) else None
        if host is not None:
            for key in keys:
                if any(host_matches(host, p) for p in self.shared_hosts.get(key, ())):
                    return key
        return keys[0]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the arguments it is made of (a parse worker makes its own)."""
        args = (self.site, self.fields, self.severities, self.now, self.locate, self.broken)
        return (PageContext, args)


# A path without a scheme or a leading slash: relative to the page (a bundle's `cover.png`).
_RELATIVE = re.compile(r"(?![A-Za-z][A-Za-z0-9+.-]*:)[^/\s?#][^\s?#]*")


def _bundle_icon(icon: str, ctx: PageContext, game_id: str, folder: str | None) -> str | None:
    """The address of an icon given relative to a page bundle's own page, where the file is
    in the bundle (`icon.png` beside `games/x/index.md`) and game_url places the page: the
    file is served beside the page, as Hugo and Zola publish a bundle's resources. None
    where either is not so."""
    name = icon.removeprefix("./")
    if folder is None or not game_id or not ctx.game_url or ".." in name.split("/"):
        return None
    page = ctx.game_url.replace("{id}", game_id)
    if not urlsplit(page).path.startswith("/") or not is_file(Path(folder) / name):
        return None
    return page.split("?", 1)[0].split("#", 1)[0].rstrip("/") + "/" + name


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
    icon: str,
    ctx: PageContext,
    add: Add,
    game_id: str = "",
    folder: str | None = None,
    *,
    bundle: bool = False,
) -> str:
    """The icon's published URL: an absolute URL, or a site path under the base URL; in a
    page bundle (`bundle`), a file of the bundle named relative to the page, at the page's
    address. `game_id`, `folder`: the page's id and folder, to find such a file and to name
    the site path of any other icon given relative to the page."""
    if not icon.startswith("/") or icon.startswith("//"):
        problem = url_problem(icon, loopback_http=True)
        if problem:
            relative = _RELATIVE.fullmatch(icon) is not None
            beside = _bundle_icon(icon, ctx, game_id, folder) if relative and bundle else None
            if beside is not None:
                problem = url_problem(beside, loopback_http=True)
                if not problem:
                    return beside
                add("invalid-url", ("icon",), f"the icon's address {shown(beside)} {problem}")
                return icon
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
        if not value.strip():
            continue  # blank: an empty-value finding already
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
