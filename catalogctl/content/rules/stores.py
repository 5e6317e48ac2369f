"""Store links: each store's kind decides what a download URL of it must look like.

- `apple`: https on apps.apple.com or itunes.apple.com, with an `id<digits>` path segment;
- `google-play`: https on play.google.com, path `/store/apps/details`, a valid `id=` package;
- `other`: any absolute https URL.

Every URL passes the RFC 3986 check of `catalogctl.urls` first. Attribution parameters are
added only to URLs that pass their kind's rule, so a Chrome Web Store link under the `ios`
store is never published with Apple's parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote

from catalogctl.content.document import Document
from catalogctl.content.rules.registry import Findings
from catalogctl.content.settings import SiteSettings
from catalogctl.content.storehosts import APPLE_HOSTS as _APPLE
from catalogctl.content.storehosts import PLAY_HOSTS, host_problem, store_hosts, store_kind
from catalogctl.urls import shown

__all__ = [
    "APPLE_HOSTS",
    "KIND_NAMES",
    "KIND_PLATFORMS",
    "PLATFORM_KINDS",
    "PLATFORM_OF_KIND",
    "PLAY_HOST",
    "PLAY_PATH",
    "SPEC_STORE_PARAMS",
    "check_store_hosts",
    "check_unlinked_stores",
    "kind_problem",
    "store_kind",
    "with_params",
]

APPLE_HOSTS = frozenset(_APPLE)
PLAY_HOST = PLAY_HOSTS[0]
PLAY_PATH = "/store/apps/details"
_APPLE_ID = re.compile(r"(?:^|/)id[0-9]+(?:/|$)")  # a whole path segment
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+")
# An absolute URL that url_problem() accepted: authority, path, query.
_SPLIT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://([^/?#]*)([^?#]*)(?:\?([^#]*))?")
KIND_NAMES = {"apple": "Apple", "google-play": "Google Play", "other": "other"}

# contract §2.4: the attribution parameters each kind of store carries (None: any value).
SPEC_STORE_PARAMS: dict[str, dict[str, str | None]] = {
    "apple": {"pt": None, "ct": "service_api_game_catalog", "mt": "8"},
    "google-play": {"utm_source": "service_api", "utm_campaign": "game_catalog"},
}
# Platforms (lowercased) whose apps come from one kind of store only: a page that lists one
# needs a link to a store of that kind.
PLATFORM_KINDS = {"ios": "apple", "ipados": "apple", "android": "google-play"}
# The platforms each kind of store sells for, as pages write them: a link to a store of that
# kind needs one of them in the page's platforms.
KIND_PLATFORMS = {
    "apple": ("iOS", "iPadOS", "macOS", "tvOS", "watchOS", "visionOS"),
    "google-play": ("Android",),
}
# The platform each kind of store is named by where a catalog needs one ("ios", "android").
PLATFORM_OF_KIND = {"apple": "ios", "google-play": "android"}


def kind_problem(kind: str, url: str) -> str | None:
    """Why an (RFC-valid, https) URL does not fit a store kind, or None."""
    if kind == "other":
        return None
    m = _SPLIT.match(url)
    if m is None:  # pragma: no cover - url_problem() passed
        return "is not a URL"
    authority, path, query = m.group(1), m.group(2), m.group(3) or ""
    name, colon, port = authority.rpartition(":")
    host = (name if colon and port.isdigit() else authority).lower().rstrip(".")
    if kind == "apple":
        if host not in APPLE_HOSTS:
            return f"an Apple store link must be on apps.apple.com, not {host}"
        if _APPLE_ID.search(path) is None:
            return "an Apple store link needs the app's id<digits> path segment (…/id1234567890)"
        return None
    if host != PLAY_HOST:
        return f"a Google Play link must be on play.google.com, not {host}"
    if path.rstrip("/") != PLAY_PATH:
        return f"a Google Play link must have the path {PLAY_PATH}, not {path or '/'}"
    if "%" in query or "+" in query:  # escapes: as a server decodes them
        ids = [v for k, v in parse_qsl(query, keep_blank_values=True) if k == "id"]
    else:  # what parse_qsl gives for a query without escapes
        ids = [p[3:] for p in query.split("&") if p == "id" or p.startswith("id=")]
    if len(ids) != 1 or not _PACKAGE.fullmatch(ids[0]):
        return "a Google Play link needs one id= with the app's package name (id=com.example.game)"
    return None


@lru_cache(maxsize=64)
def _encoded(params: tuple[tuple[str, str], ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    names = frozenset(k for k, _ in params)
    return names, tuple(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in params)


def with_params(url: str, params: dict[str, str]) -> str:
    """Add attribution parameters, keeping the URL's own (an author's value is replaced)."""
    if not params:
        return url
    names, encoded = _encoded(tuple(params.items()))
    if "?" not in url and "#" not in url:  # the common link: nothing of its own to keep
        return f"{url}?{'&'.join(encoded)}"
    base, _, fragment = url.partition("#")
    path, _, query = base.partition("?")
    kept = [p for p in query.split("&") if p and p.split("=", 1)[0] not in names]
    kept.extend(encoded)
    out = f"{path}?{'&'.join(kept)}"
    return f"{out}#{fragment}" if fragment else out


def check_store_hosts(site: SiteSettings, add: Callable[[str, tuple[Any, ...], str], None]) -> None:
    """Each entry of a store's `hosts` is a host name, or `*.` and a domain; with `[content]
    body_links`, each store has hosts, and no two stores share one."""
    for key, store in site.stores.items():
        for i, host in enumerate(store.hosts or ()):
            problem = host_problem(host)
            if problem:
                add("store-hosts", ("stores", key, "hosts", i), f"{problem}, not {shown(host)}")
    if not site.content.body_links:
        return
    claimed: dict[str, str] = {}  # host -> the first store that has it
    for key, store in site.stores.items():
        hosts = store_hosts(key, store)
        if not hosts and store.hosts is None:
            add(
                "body-links",
                ("stores", key),
                f"catalogctl does not know where the links of {store.name!r} point, so page "
                "bodies are not searched for them; set its hosts (hosts = "
                '["store.example.com"]), or hosts = [] if its links are only in front matter',
            )
        for host in hosts:
            first = claimed.setdefault(host, key)
            if first != key:
                loc = ("stores", key, "hosts") if store.hosts is not None else ("stores", key)
                add(
                    "body-links",
                    loc,
                    f"shares the host {host} with store {first!r}, which comes first in "
                    f"site.toml, so a link of a page body on {host} is read as {first!r}'s; "
                    f"give {key!r}'s links in front matter, or set hosts that tell them apart",
                )


def check_unlinked_stores(
    doc: Document, site: SiteSettings, linked: set[str], every_page: bool, out: Findings
) -> None:
    """Each store of site.toml that no page links yet (in front matter or, with `body_links`,
    in its body): a warning at its table, since a studio sets a store up before its games
    reach it. `every_page`: whether every page could be read."""
    pages = "no page" if every_page else "no page that could be read"
    for key, store in site.stores.items():
        if key in linked:
            continue
        where = "its front matter" if not site.content.body_links else "its front matter or body"
        line, col = doc.key_pos(("stores", key))
        out.add(
            "unlinked-store",
            f"{pages} links {store.name!r} yet, so no game lists it; a page lists it once "
            f"{where} links it",
            line=line,
            column=col,
            field=f"stores.{key}",
        )
