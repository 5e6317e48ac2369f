"""Which store a link belongs to: the known stores' hosts, a site's `hosts`, kinds by name."""

from __future__ import annotations

import pytest

from catalogctl.content.settings import StoreSettings
from catalogctl.content.storehosts import (
    KNOWN_STORES,
    host_matches,
    host_problem,
    known_store,
    known_store_of_url,
    store_for_url,
    store_hosts,
    store_kind,
    url_host,
)


def store(name: str, kind: str | None = None, hosts: list[str] | None = None) -> StoreSettings:
    return StoreSettings(name=name, kind=kind, hosts=hosts)  # type: ignore[arg-type]


SITE = {
    "ios": store("App Store"),
    "android": store("Google Play"),
    "steam": store("Steam", "other"),
    "itch": store("itch.io"),
    "web": store("Play online", hosts=["games.example.com", "*.Example.NET."]),
}


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://apps.apple.com/us/app/moon-lander/id1234567890", "ios"),
        ("https://itunes.apple.com/app/id1234567890", "ios"),
        ("HTTPS://Apps.Apple.COM./app/id1", "ios"),
        ("https://play.google.com/store/apps/details?id=com.example.x", "android"),
        ("https://play.google.com:443/store/apps/details?id=com.example.x", "android"),
        ("http://store.steampowered.com/app/620/", "steam"),
        ("https://studio.itch.io/moon-lander", "itch"),
        ("https://a.b.itch.io/x", "itch"),
        ("https://games.example.com/play/x", "web"),
        ("https://arcade.example.net/x", "web"),
        ("https://games.example.com/", "web"),  # a site's own host: its front page may be a game
        # a known store's pages that are not a game's
        ("https://studio.itch.io/", None),
        ("https://studio.itch.io", None),
        ("https://store.steampowered.com/", None),
        ("https://store.steampowered.com/developer/studio", None),
        ("https://store.steampowered.com/publisher/studio/", None),
        ("https://play.google.com/store/apps/dev?id=1", None),
        ("https://play.google.com/store/apps/developer?id=Studio", None),
        ("https://apps.apple.com/us/developer/studio/id1", None),
        ("https://apps.apple.com/developer/studio/id1", None),
        ("https://apps.apple.com/app/developer/id1", "ios"),  # a game named Developer
        # not any store's
        ("https://itch.io/games", None),
        ("https://notitch.io/x", None),
        ("https://evilitch.io/x", None),
        ("https://example.net/x", None),
        ("https://steampowered.com/app/620", None),
        ("https://apps.apple.com.evil.example/app/id1", None),
        ("https://linkmaker.itunes.apple.com/en-us/badge-lrg.svg", None),
        ("ftp://apps.apple.com/app/id1", None),
        ("/games/x", None),
        ("https://[::1/", None),
        ("", None),
    ],
)
def test_store_for_url_by_host(url: str, key: str | None) -> None:
    assert store_for_url(url, SITE) == key


def test_the_first_store_of_a_shared_host_takes_its_links() -> None:
    stores = {"ios": store("App Store"), "mac": store("Mac App Store", "apple")}
    assert store_for_url("https://apps.apple.com/app/id1?mt=12", stores) == "ios"
    assert store_for_url("https://apps.apple.com/app/id1", dict(reversed(stores.items()))) == "mac"


def test_hosts_replace_what_catalogctl_knows() -> None:
    stores = {"ios": store("App Store", hosts=["testflight.apple.com"])}
    assert store_for_url("https://apps.apple.com/app/id1", stores) is None
    assert store_for_url("https://testflight.apple.com/join/x", stores) == "ios"


def test_an_unknown_other_store_has_no_hosts() -> None:
    assert store_hosts("kong", store("Kongregate")) == ()
    assert store_for_url("https://www.kongregate.com/games/x", {"kong": store("Kong")}) is None


@pytest.mark.parametrize(
    ("key", "name", "kind", "hosts"),
    [
        ("ios", "App Store", "apple", ("apps.apple.com", "itunes.apple.com")),
        ("mac", "Mac App Store", "apple", ("apps.apple.com", "itunes.apple.com")),
        ("android", "Google Play", "google-play", ("play.google.com",)),
        ("gp", "Google Play", "google-play", ("play.google.com",)),
        ("steam", "Steam", "other", ("store.steampowered.com",)),
        ("pc", "Steam", "other", ("store.steampowered.com",)),
        ("itch", "itch.io", "other", ("*.itch.io",)),
        ("epic", "Epic Games Store", "other", ("store.epicgames.com",)),
        ("gog", "GOG.com", "other", ("www.gog.com", "gog.com")),
        # generic words that name Apple ("app store") lose to the store they belong to
        ("amazon", "Amazon Appstore", "other", ("www.amazon.com", "amazon.com")),
        ("android", "Amazon Appstore", "other", ("www.amazon.com", "amazon.com")),
        ("windows", "Windows App Store", "other", ("apps.microsoft.com",)),
        (
            "huawei",
            "Huawei App Gallery",
            "other",
            ("appgallery.huawei.com", "appgallery.cloud.huawei.com"),
        ),
        ("galaxy", "Galaxy Store", "other", ("galaxystore.samsung.com", "apps.samsung.com")),
        ("switch", "Nintendo eShop", "other", ("www.nintendo.com",)),
        ("ps5", "PlayStation Store", "other", ("store.playstation.com",)),
        ("xbox", "Xbox", "other", ("www.xbox.com",)),
        ("quest", "Meta Quest", "other", ("www.meta.com", "www.oculus.com")),
        ("humble", "Humble Store", "other", ("www.humblebundle.com",)),
        ("gamejolt", "Game Jolt", "other", ("gamejolt.com",)),
        ("fdroid", "F-Droid", "other", ("f-droid.org",)),
        ("web", "Play in the browser", "other", ()),
    ],
)
def test_kind_and_hosts_from_key_and_name(
    key: str, name: str, kind: str, hosts: tuple[str, ...]
) -> None:
    assert store_kind(key, store(name)) == kind
    assert store_hosts(key, store(name)) == hosts


def test_an_explicit_kind_decides_the_hosts() -> None:
    assert store_hosts("steam", store("Steam", "apple")) == ("apps.apple.com", "itunes.apple.com")
    assert store_hosts("ios", store("App Store", "other")) == ()


def test_every_known_store_is_found_by_its_own_key_name_and_hosts() -> None:
    for known in KNOWN_STORES:
        assert known_store(known.key, known.name) is known
        assert known_store(known.key) is known, known.key
        path = "/moon-lander/dp/B0ABCDEFGH" if known.key == "amazon" else "/games/x"
        for host in known.hosts:
            url = f"https://{host.replace('*', 'studio')}{path}"
            assert known_store_of_url(url) is known
    assert known_store_of_url("https://example.com/x") is None
    # On amazon.com, only an app's page (its ASIN starts B0) is the Appstore's: not a book's.
    assert known_store_of_url("https://www.amazon.com/dp/B0ABCDEFGH").key == "amazon"
    assert known_store_of_url("https://www.amazon.com/gp/product/B0ABCDEFGH").key == "amazon"
    assert known_store_of_url("https://www.amazon.com/gp/mas/dl/android?p=com.x.y")
    assert known_store_of_url("https://www.amazon.com/Game-Coding/dp/1556220782") is None
    assert known_store_of_url("https://www.amazon.com/s?k=moon+lander") is None
    assert known_store_of_url("https://play.date/games/chopter-copter/").key == "playdate"
    assert known_store_of_url("https://play.date/shop/") is None
    assert known_store_of_url("https://gamejolt.com/@studio") is None
    assert known_store_of_url("mailto:x@example.com") is None


def test_host_matching() -> None:
    assert host_matches("a.itch.io", "*.itch.io")
    assert not host_matches("itch.io", "*.itch.io")
    assert not host_matches("xitch.io", "*.itch.io")
    assert host_matches("gog.com", "gog.com")
    assert not host_matches("www.gog.com", "gog.com")
    assert url_host("https://User@Host.Example:8443/x") == "host.example"
    assert url_host("https://host.example./x") == "host.example"
    assert url_host("https://[nope/") is None


@pytest.mark.parametrize(
    "good", ["store.steampowered.com", "*.itch.io", "STORE.example.com", "localhost", "192.0.2.1"]
)
def test_good_hosts(good: str) -> None:
    assert host_problem(good) is None


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        ("https://store.steampowered.com/app/1", "'store.steampowered.com'"),
        ("store.steampowered.com/app", "host name"),
        ("store.steampowered.com:443", "host name"),
        ("*itch.io", "host name"),
        ("a.*.io", "host name"),
        ("-bad.example", "host name"),
        ("bad..example", "host name"),
        ("space example", "host name"),
        ("x" * 64 + ".example", "host name"),
    ],
)
def test_bad_hosts(bad: str, hint: str) -> None:
    problem = host_problem(bad)
    assert problem is not None and hint in problem


def test_the_known_stores_table_of_the_docs_is_the_code_s() -> None:
    """docs/content/format.md lists every known store with its kind and hosts, in order."""
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "content" / "format.md").read_text()
    table = page.split("### Known stores", 1)[1].split("| store | kind | hosts |", 1)[1]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    shown = []
    for row in rows:
        name, kind, hosts, _words = (c.strip() for c in row.strip("|").split("|"))
        shown.append((name, kind.strip("`"), tuple(h.strip(" `") for h in hosts.split(","))))
    assert shown == [(s.name, s.kind, s.hosts) for s in KNOWN_STORES]
