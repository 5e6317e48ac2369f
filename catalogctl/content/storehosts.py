"""Which store a link belongs to: the hosts of the stores catalogctl knows, and of a site's.

A store's hosts are where its links point. `[stores.<key>] hosts` sets them; without it, a
store of kind `apple` or `google-play` has its kind's hosts, and a store of kind `other` has
those of the known store its key or name names (`steam`, "Steam" → store.steampowered.com).
A host is matched exactly, without regard to case, or as `*.<domain>`: any host below
`<domain>` (`*.itch.io` matches `studio.itch.io`, not `itch.io` itself). A `www.` is never
implied: a store whose links use both `gog.com` and `www.gog.com` lists both.

A link to a store's front page, or to a page of a known store that is not a game's (a
studio's page on itch.io, a developer page on Google Play, the App Store or Steam, Playdate's
pages outside its catalog), belongs to no store: a page's text links them beside its own
buttons ("more of our games", "see our studio").

`store_for_url(url, stores)` answers which of a site's stores a link belongs to, as
`HostTable` does for page bodies with `[content] body_links`; `known_store_of_url(url)`
which known store, before a site has any (`catalogctl init`, in front matter and bodies).

May import: catalogctl.content.settings only.
"""

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from catalogctl.content.settings import StoreSettings

__all__ = [
    "APPLE_HOSTS",
    "KNOWN_STORES",
    "PLAY_HOSTS",
    "HostTable",
    "KnownStore",
    "host_matches",
    "host_problem",
    "is_game_page",
    "is_store_host",
    "known_store",
    "known_store_of_host",
    "known_store_of_url",
    "store_for_url",
    "store_hosts",
    "store_kind",
    "url_host",
]


class KnownStore(NamedTuple):
    """A store catalogctl knows: its kind, usual name and key, hosts, and the words of a key
    or name that mean it."""

    kind: str  # apple | google-play | other
    name: str  # the name a site usually publishes
    key: str  # the key a site usually gives it in [stores]
    hosts: tuple[str, ...]  # where its app or game pages are ("*.itch.io": any subdomain)
    words: tuple[frozenset[str], ...]  # a key or name holding all words of one set means it
    # The paths on its hosts that are not a game's page (matched whole, lowercased).
    other_pages: str = r"/?"  # its front page


def _w(*sets: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(s.split()) for s in sets)


APPLE_HOSTS = ("apps.apple.com", "itunes.apple.com")
PLAY_HOSTS = ("play.google.com",)

# The stores a game studio's pages link, with the hosts of their product pages only: a host
# that also serves much else (www.microsoft.com, amazon.de) is left for `hosts` to add.
# Specific stores come before Apple and Google Play, whose words are generic ("app store"):
# "Amazon Appstore" is Amazon's, "Windows App Store" Microsoft's.
KNOWN_STORES: tuple[KnownStore, ...] = (
    KnownStore(
        "other",
        "Steam",
        "steam",
        ("store.steampowered.com",),
        _w("steam"),
        r"/?|/(?:developer|publisher|curator|franchise|search)(?:/.*)?",
    ),
    # A studio's own page is `<studio>.itch.io/`; itch.io itself (jams, profiles) is no host.
    KnownStore("other", "itch.io", "itch", ("*.itch.io",), _w("itch", "itchio")),
    KnownStore("other", "Epic Games Store", "epic", ("store.epicgames.com",), _w("epic")),
    KnownStore("other", "GOG", "gog", ("www.gog.com", "gog.com"), _w("gog")),
    KnownStore(
        "other",
        "Amazon Appstore",
        "amazon",
        ("www.amazon.com", "amazon.com"),
        _w("amazon"),
        # An app's page names its ASIN, which starts B0 (a book's is its ISBN).
        r"(?!(?:/[^/]+)?/(?:dp|gp/product)/b0[a-z0-9]{8}(?:/.*)?$)(?!/gp/mas/dl/android).*",
    ),
    KnownStore(
        "other",
        "Microsoft Store",
        "microsoft",
        ("apps.microsoft.com",),
        _w("microsoft", "msstore", "windows store"),
    ),
    KnownStore(
        "other",
        "AppGallery",
        "appgallery",
        ("appgallery.huawei.com", "appgallery.cloud.huawei.com"),
        _w("huawei", "appgallery", "app gallery"),
    ),
    KnownStore(
        "other",
        "Galaxy Store",
        "galaxy",
        ("galaxystore.samsung.com", "apps.samsung.com"),
        _w("samsung", "galaxy"),
    ),
    KnownStore(
        "other",
        "Nintendo eShop",
        "nintendo",
        ("www.nintendo.com",),
        _w("nintendo", "eshop", "switch"),
    ),
    KnownStore(
        "other",
        "PlayStation Store",
        "playstation",
        ("store.playstation.com",),
        _w("playstation", "psn", "ps4", "ps5"),
    ),
    KnownStore("other", "Xbox", "xbox", ("www.xbox.com",), _w("xbox")),
    KnownStore(
        "other",
        "Meta Quest",
        "quest",
        ("www.meta.com", "www.oculus.com"),
        _w("oculus", "quest"),
    ),
    KnownStore("other", "Humble Store", "humble", ("www.humblebundle.com",), _w("humble")),
    KnownStore(
        "other",
        "Game Jolt",
        "gamejolt",
        ("gamejolt.com",),
        _w("gamejolt", "game jolt"),
        r"/?|/@.*",  # a profile
    ),
    KnownStore("other", "F-Droid", "fdroid", ("f-droid.org",), _w("fdroid", "f droid")),
    # play.date is also the console's own site: only its catalog's pages are a game's.
    KnownStore(
        "other",
        "Playdate Catalog",
        "playdate",
        ("play.date",),
        _w("playdate"),
        r"(?!/games/[^/]+).*",
    ),
    KnownStore(
        "apple",
        "App Store",
        "ios",
        APPLE_HOSTS,
        _w("ios", "apple", "appstore", "itunes", "iphone", "ipad", "app store"),
        r"/?|(?:/[a-z]{2}(?:-[a-z]{2,4})?)?/(?:developer|artist)/.*",
    ),
    KnownStore(
        "google-play",
        "Google Play",
        "android",
        PLAY_HOSTS,
        _w("android", "googleplay", "google play", "playstore", "play store"),
        r"/?|/store(?:/apps)?/?|/store/apps/(?:dev|developer)/?|/store/search/?",
    ),
)
_KIND_HOSTS = {"apple": APPLE_HOSTS, "google-play": PLAY_HOSTS}


def _other_pages() -> tuple[dict[str, re.Pattern[str]], tuple[tuple[str, re.Pattern[str]], ...]]:
    """The known stores' pages that are not a game's: by host, and by `*.<domain>` suffix."""
    exact: dict[str, re.Pattern[str]] = {}
    below: list[tuple[str, re.Pattern[str]]] = []
    for store in KNOWN_STORES:
        rule = re.compile(store.other_pages)
        for pattern in store.hosts:
            if pattern.startswith("*."):
                below.append((pattern[1:], rule))
            else:
                exact[pattern] = rule
    return exact, tuple(below)


_OTHER_PAGES, _OTHER_PAGES_BELOW = _other_pages()
_WORDS = re.compile(r"[a-z0-9]+")
# A host name (or `*.` and a domain), as `hosts` takes them: labels of letters, digits and
# inner hyphens.
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"(?:\*\.)?{_LABEL}(?:\.{_LABEL})*", re.IGNORECASE)
_SCHEME = re.compile(r"https?://", re.IGNORECASE)


@lru_cache(maxsize=256)
def known_store(key: str, name: str = "") -> KnownStore | None:
    """The known store a store's key or name means (`steam`, "Google Play"), or None."""
    words = frozenset(_WORDS.findall(f"{key} {name}".lower()))
    for store in KNOWN_STORES:
        if any(w <= words for w in store.words):
            return store
    return None


def store_kind(key: str, store: "StoreSettings") -> str:
    """The store's `kind`, or the one its key or name implies (`other` when neither does)."""
    if store.kind is not None:
        return store.kind
    known = known_store(key, store.name)
    return known.kind if known is not None else "other"


def store_hosts(key: str, store: "StoreSettings") -> tuple[str, ...]:
    """The hosts of a site's store, lowercased: its `hosts`, else its kind's (apple,
    google-play), else those of the known store its key or name means; () when unknown."""
    if store.hosts is not None:
        return tuple(h.lower().rstrip(".") for h in store.hosts)
    kind = store_kind(key, store)
    if kind in _KIND_HOSTS:
        return _KIND_HOSTS[kind]
    known = known_store(key, store.name)
    return known.hosts if known is not None and known.kind == "other" else ()


def url_host(url: str) -> str | None:
    """The host of an http(s) URL, lowercased, without port or final dot; None otherwise."""
    if not _SCHEME.match(url):
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:  # a bad port or bracketed host
        return None
    return host.rstrip(".") if host else None


def host_matches(host: str, pattern: str) -> bool:
    """Whether a (lowercased) host is `pattern`, or lies below it for `*.<domain>`."""
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return host == pattern


def is_game_page(url: str, host: str) -> bool:
    """Whether a link on `host` (its lowercased host) can be a game's page: not a known store's
    front page, nor one of its pages that is not a game's (a developer's, a profile)."""
    rule = _OTHER_PAGES.get(host)
    if rule is None:
        rule = next(
            (r for suffix, r in _OTHER_PAGES_BELOW if host.endswith(suffix)),
            None,
        )
        if rule is None:
            return True
    try:
        path = urlsplit(url).path
    except ValueError:
        return True  # the URL rules say what is wrong with it
    return rule.fullmatch(path.lower()) is None


def store_for_url(url: str, stores: Mapping[str, "StoreSettings"]) -> str | None:
    """The key of the site's store a link belongs to, by its host: the first store, in the
    order of `[stores]`, one of whose hosts it is on; None for a link of no store, or one that
    is not a game's page (`is_game_page`)."""
    host = url_host(url)
    if host is None or not is_game_page(url, host):
        return None
    for key, store in stores.items():
        if any(host_matches(host, p) for p in store_hosts(key, store)):
            return key
    return None


def known_store_of_url(url: str) -> KnownStore | None:
    """The known store a link points into, by its host (a site with no stores yet); None for
    a link of no known store, or one that is not a game's page (`is_game_page`)."""
    host = url_host(url)
    if host is None or not is_game_page(url, host):
        return None
    return known_store_of_host(host)


def known_store_of_host(host: str) -> KnownStore | None:
    """The known store one of whose hosts a (lowercased) host is, or None."""
    for store in KNOWN_STORES:
        if any(host_matches(host, p) for p in store.hosts):
            return store
    return None


def is_store_host(host: str) -> bool:
    """Whether a (lowercased) host is a known store's, or the domain of one's `*.` hosts
    (itch.io itself: its jams and profiles)."""
    return any(
        host_matches(host, pattern) or host == pattern.removeprefix("*.")
        for store in KNOWN_STORES
        for pattern in store.hosts
    )


def host_problem(text: str) -> str | None:
    """Why an entry of `hosts` is not a host name or `*.<domain>`, or None."""
    if _HOST.fullmatch(text) and len(text) <= 253:
        return None
    hint = ""
    host = url_host(text)
    if host is not None:
        hint = f"; write the host alone: {host!r}"
    return (
        "must be a host name such as 'store.steampowered.com', or '*.itch.io' for any host "
        f"below itch.io{hint}"
    )


# A URL's authority, read without urllib: a page's body may hold thousands of URLs.
_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)")


class HostTable:
    """Which store a link belongs to: the first, in order, one of whose hosts it is on (as
    `store_for_url`), and never a page that is not a game's (`is_game_page`); made once, for
    every page's body (`catalogctl.content.bodylinks`)."""

    __slots__ = ("exact", "keys", "suffixes")

    def __init__(self, hosts: Mapping[str, Sequence[str]]) -> None:
        """`hosts`: store key -> its hosts (lowercased), in the order stores are looked up."""
        self.exact: dict[str, tuple[int, str]] = {}
        # ".itch.io" -> (order, key) of the first store below that domain: a link's host is
        # looked up by each of its parent domains, a step per label however many hosts.
        self.suffixes: dict[str, tuple[int, str]] = {}
        keys: list[str] = []  # the stores whose links a body can give
        for i, (key, its_hosts) in enumerate(hosts.items()):
            if its_hosts:
                keys.append(key)
            for host in its_hosts:
                if host.startswith("*."):
                    self.suffixes.setdefault(host[1:], (i, key))
                else:
                    self.exact.setdefault(host, (i, key))
        self.keys = tuple(keys)

    @classmethod
    def of_site(cls, stores: Mapping[str, "StoreSettings"]) -> "HostTable":
        """The table of a site's `[stores]`, in their order."""
        return cls({key: store_hosts(key, store) for key, store in stores.items()})

    @classmethod
    def of_known_stores(cls) -> "HostTable":
        """The table of the stores catalogctl knows, keyed by their usual keys (`init`, before
        a site has stores)."""
        return cls({store.key: store.hosts for store in KNOWN_STORES})

    def store_of(self, url: str) -> str | None:
        """The store a URL belongs to, by its host."""
        host = _host(url)
        key = self.store_of_host(host)
        return key if key is not None and is_game_page(url, host) else None

    def store_of_host(self, host: str) -> str | None:
        """The first store, in order, one of whose hosts a (lowercased) host is."""
        best = self.exact.get(host)
        if self.suffixes:
            dot = host.find(".")
            while dot >= 0:
                found = self.suffixes.get(host[dot:])
                if found is not None and dot > 0 and (best is None or found < best):
                    best = found
                dot = host.find(".", dot + 1)
        return None if best is None else best[1]


def _host(url: str) -> str:
    """The host of an absolute URL, lowercased, without user name, port or final dot."""
    m = _AUTHORITY.match(url)
    authority = m.group(1) if m else ""
    host = authority.rpartition("@")[2]
    name, colon, port = host.rpartition(":")
    if colon and (port.isdigit() or not port):
        host = name
    return host.lower().rstrip(".")
