"""Store links as init recognises them: by host, in front matter values and in page bodies.

A store link is an `https://` URL on a store's host (apps.apple.com, play.google.com,
store.steampowered.com, a game's page on `<studio>.itch.io`, …). itch.io's own host
(`itch.io/jam/…`, `itch.io/profile/…`) is not a game's page, nor are images and embeds served
from a store's other hosts.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

# Hosts of store links: the store's kind, its usual name, a key for it.
STORE_HOSTS: dict[str, tuple[str, str, str]] = {
    "apps.apple.com": ("apple", "App Store", "ios"),
    "itunes.apple.com": ("apple", "App Store", "ios"),
    "play.google.com": ("google-play", "Google Play", "android"),
    "store.steampowered.com": ("other", "Steam", "steam"),
    "itch.io": ("other", "itch.io", "itch"),  # as `<studio>.itch.io`
    "www.gog.com": ("other", "GOG", "gog"),
    "gog.com": ("other", "GOG", "gog"),
    "store.epicgames.com": ("other", "Epic Games Store", "epic"),
    "apps.microsoft.com": ("other", "Microsoft Store", "microsoft"),
    "galaxystore.samsung.com": ("other", "Galaxy Store", "galaxy"),
    "appgallery.huawei.com": ("other", "AppGallery", "appgallery"),
    "www.amazon.com": ("other", "Amazon Appstore", "amazon"),
    "www.nintendo.com": ("other", "Nintendo eShop", "nintendo"),
    "store.playstation.com": ("other", "PlayStation Store", "playstation"),
    "www.xbox.com": ("other", "Xbox", "xbox"),
    "play.date": ("other", "Playdate Catalog", "playdate"),
    "gamejolt.com": ("other", "Game Jolt", "gamejolt"),
    "www.humblebundle.com": ("other", "Humble Store", "humble"),
}
MAX_URL = 2000
# A URL in a page's text: a Markdown link's target, an HTML attribute, a shortcode's argument or
# a bare URL, up to the first character no URL holds unescaped.
_URL_RE = re.compile(r"https://[^\s\"'<>()\[\]{}`\\|]+")
_TRAILING = ".,;:!?*_~"
MAX_BODY_LINKS = 200  # URLs looked at in one page's body


def store_of(value: Any) -> tuple[str, str, str, str] | None:
    """(kind, name, key, host) of a store link, by its host; None for anything else."""
    if not isinstance(value, str) or not value.startswith("https://") or len(value) > MAX_URL:
        return None
    try:
        parts = urlsplit(value)
        host = (parts.hostname or "").lower()
    except ValueError:
        return None
    if host.endswith(".itch.io"):
        # A game's page is a path on its studio's host; the bare host is the studio's page.
        return (*STORE_HOSTS["itch.io"], host) if parts.path.strip("/") else None
    known = STORE_HOSTS.get(host) if host != "itch.io" else None
    return None if known is None else (*known, host)


def body_links(text: str) -> list[tuple[str, tuple[str, str, str, str], int]]:
    """The store links of a page's body: (URL, its store, its line, counted from the body's
    first line), in the order they come."""
    out: list[tuple[str, tuple[str, str, str, str], int]] = []
    for n, m in enumerate(_URL_RE.finditer(text)):
        if n >= MAX_BODY_LINKS:
            break
        url = m.group(0).rstrip(_TRAILING)
        store = store_of(url)
        if store is not None:
            out.append((url, store, text.count("\n", 0, m.start())))
    return out


def has_store_link(data: Any, depth: int = 0) -> bool:
    """Whether a front matter value holds a store link anywhere."""
    if depth > 6:
        return False
    if isinstance(data, dict):
        return any(has_store_link(v, depth + 1) for v in data.values())
    if isinstance(data, list):
        return any(has_store_link(v, depth + 1) for v in data[:50])
    return store_of(data) is not None


def unknown_hosts(hosts: tuple[str, ...]) -> list[str]:
    """The hosts a site.toml must name for its store: those of no store catalogctl knows."""
    from catalogctl.content.storehosts import known_store_of_url

    return [h for h in hosts if known_store_of_url(f"https://{h}/x") is None]
