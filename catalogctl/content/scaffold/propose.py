"""The site.toml `catalogctl init` proposes for a website: its generator, games folder (and
the category of its game pages), the key each catalog key is read from, the stores and where
their links are; each guess with what it rests on."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from catalogctl.content.scaffold.choose import (
    GAME_NAMES,
    Choice,
    Scan,
    at,
    body_stores,
    choose,
    few,
    game_category,
    pages_of,
    scan,
)
from catalogctl.content.scaffold.generators import detect
from catalogctl.content.scaffold.mapping import map_fields, own_keys
from catalogctl.content.scaffold.notgames import not_games, without_legal
from catalogctl.content.scaffold.nothing import none_read, nothing_to_go_on
from catalogctl.content.scaffold.pages import PageKeys, front_store, read_keys, template_keys
from catalogctl.content.scaffold.proposal import Proposal
from catalogctl.content.scaffold.stores import (
    STORE_ORDER,
    Store,
    front_stores,
    provider_token,
    store_key,
    with_body_stores,
)
from catalogctl.content.scaffold.survey import NO_FRONT_MATTER, PageInfo
from catalogctl.content.scaffold.write import site_toml
from catalogctl.content.storehosts import KNOWN_STORES, url_host
from catalogctl.errors import InputError
from catalogctl.paths import is_dir
from catalogctl.text import clean, path_text, plural

_KINDS = {store.key: store.kind for store in KNOWN_STORES}  # a body link's store -> its kind
REQUIRED = ("name", "description", "platforms", "genres", "icon")  # what [fields] may map
MAX_HOSTS_SHOWN = 4  # other hosts named in a note


def propose(root: Path, games: str | None = None, shown: str = ".") -> Proposal:
    """The site.toml for the website at `root` (`games`: its games folder, when known;
    `shown`: the root as the user named it, which the files named in notes start with)."""
    gen = detect(root)
    choice: Choice | None = None
    if games is None:
        choice = choose(root, gen)
        if choice.folder is None:
            raise InputError(nothing_to_go_on(root, choice))
        games = choice.folder
        found = choice.scan
    elif not is_dir(root / games):
        raise InputError(
            f"the games folder {games} does not exist in {path_text(root)}: give --games the "
            "folder of the game pages, relative to the website's root"
        )
    else:
        found = without_legal(scan(root, (games,)), GAME_NAMES)
    inside = pages_of(games, found)
    others = not_games(inside, pages_of(games, found._replace(pages=list(found.legal))), games)
    if others.pages:
        left_out = {p.file for p in others.pages}
        inside = [p for p in inside if p.file not in left_out]
    exclude = [pattern for pattern, _ in others.patterns]
    sections = [p.file for p in inside if p.section]
    category = game_category(games, inside, shown)
    language = gen.language or "en"
    keys = read_keys(root, games, language, category.label, exclude, bool(sections))
    if keys.pages == 0 and not sections:
        # Each game a section of its own (`content/<app>/_index.md` beside its privacy.md),
        # and no store link to tell: the section pages are the game pages.
        keys = read_keys(root, games, language, category.label, exclude, True)
        sections = keys.files
    if keys.pages == 0:
        raise InputError(none_read(games, keys))
    fields, guesses = map_fields(keys, category.label)
    stores, table, store_notes = front_stores(keys)
    games_inside = [p for p in inside if category.label is None or p.game_labels]
    body = sum(1 for p in games_inside if p.body and not p.front_link)
    # One game page whose only store link is in its text (an itch.io embed, beside pages that
    # give theirs in front matter) is enough: validate reads a store from the text only where
    # the front matter does not give it.
    body_links = body > 0
    if body_links:
        stores = with_body_stores(stores, body_stores(games_inside))
        stores.sort(key=lambda s: STORE_ORDER.get(s.kind, len(STORE_ORDER)))
    if not stores:
        stores, table, more = _stores_named_elsewhere(root, games, keys, inside, found, shown)
        store_notes += more
    apple_links = [link.url for link in keys.links if link.store.kind == "apple"] + [
        link.url for p in games_inside for link in p.body if _KINDS.get(link.store) == "apple"
    ]
    token = provider_token(apple_links)
    if token is not None:
        stores = [s._replace(pt=token) if s.kind == "apple" else s for s in stores]
    draft = Proposal(
        generator=gen,
        games=games,
        keys=keys,
        fields=fields,
        stores=stores,
        stores_table=table,
        own_keys=own_keys(keys, fields, {s.key: s.path for s in stores if s.path is not None}),
        choice=choice,
        guesses=guesses,
        body_links=body_links,
        body_pages=body,
        category=category.label,
        unmapped=[k for k in REQUIRED if k not in fields],
        exclude=others.patterns,
        sections=sections,
        text="",
        notes=[],
    )
    text, notes = site_toml(root, draft)
    if category.why:
        notes.append(category.why)
    notes += store_notes + _other_stores(games_inside, gen.base_url)
    return draft._replace(text=text, notes=notes + _scan_notes(found, shown))


def _scan_notes(found: Scan, shown: str) -> list[str]:
    """What the walk could not read, the Markdown files it did not take for pages, and the
    bounds it reached."""
    notes: list[str] = []
    plain = [at(shown, f) for f, why in found.unread if why == NO_FRONT_MATTER]
    unread = [at(shown, f) for f, why in found.unread if why != NO_FRONT_MATTER]
    if unread:
        notes.append(
            f"{plural(len(unread), 'file')} could not be read while looking for the games "
            f"folder ({few(unread)}): the JSON report's unread says why"
        )
    if plain:
        notes.append(
            f"{plural(len(plain), 'Markdown file')} without front matter "
            + ("was not taken for a page" if len(plain) == 1 else "were not taken for pages")
            + f" ({few(plain)})"
        )
    return notes + found.bounds[:3]


def _other_stores(pages: list[PageInfo], base_url: str | None) -> list[str]:
    """The hosts that pages linking no known store link in their text, when two or more of
    them do: stores catalogctl does not know, perhaps, which the user names with `hosts`."""
    lacking = [p for p in pages if not p.front_link and not p.body]
    own = url_host(base_url or "")
    seen = Counter(h for p in lacking for h in p.other_hosts if h != own and not _no_store(h))
    shared = [(h, n) for h, n in seen.most_common(MAX_HOSTS_SHOWN) if n >= 2]
    if not shared:
        return []
    shown = ", ".join(f"{h} ({n} pages)" for h, n in shared)
    return [
        f"{plural(len(lacking), 'page')} link no store catalogctl knows; their text links "
        f"{shown}: if the games are sold there, add a [stores.<key>] table for that store with "
        f'hosts = ["{shared[0][0]}"]'
    ]


# Hosts that sell no game: code, video, social, reference and licence sites a page's text
# links (a game's "licensed under CC BY-SA", its source's raw files), and game jams' sites
# (a jam entry's page, as on itch.io).
NOT_STORES = frozenset(
    {
        "ludumdare.com",
        "ldjam.com",
        "globalgamejam.org",
        "github.com",
        "githubusercontent.com",
        "creativecommons.org",
        "opensource.org",
        "gnu.org",
        "gitlab.com",
        "bitbucket.org",
        "codeberg.org",
        "youtube.com",
        "youtu.be",
        "twitter.com",
        "x.com",
        "discord.gg",
        "discord.com",
        "reddit.com",
        "facebook.com",
        "instagram.com",
        "tiktok.com",
        "linkedin.com",
        "wikipedia.org",
        "patreon.com",
        "ko-fi.com",
        "twitch.tv",
        "bsky.app",
    }
)


def _no_store(host: str) -> bool:
    """Whether a host is one of `NOT_STORES` (or below one: `en.wikipedia.org`), or a forum's,
    a wiki's or a blog's by its first label (`forum.bennugd.org`)."""
    if host.split(".", 1)[0] in NOT_STORE_LABELS:
        return True
    return any(host == h or host.endswith("." + h) for h in NOT_STORES)


# First labels of hosts where people talk or read, not buy: `forum.example.org`.
NOT_STORE_LABELS = frozenset(
    {"forum", "forums", "community", "wiki", "blog", "docs", "discuss", "news", "mail"}
)


def _other_table_links(
    keys: PageKeys, table: tuple[str, ...], stores: list[Store]
) -> tuple[list[Store], list[str]]:
    """The other keys of the pages' table of store links, which the template does not name,
    that hold https links (`storeLinks.web`: a web game's own address): the site calls them
    store links, so each is a store of kind `other`, with a note to check it."""
    named = {s.path for s in stores}
    taken = {s.key for s in stores}
    more: list[Store] = []
    notes = []
    for path, values in keys.values.items():
        if len(path) != len(table) + 1 or path[:-1] != table or ".".join(path) in named:
            continue
        urls = [v for v in values if isinstance(v, str) and v.startswith("https://")]
        host = url_host(urls[0]) if urls else None
        if not urls or host is None:
            continue
        known = front_store(urls[0])  # a store catalogctl knows, which the template omits
        key = store_key(path[-1], known.key if known is not None else "")[:40]
        if not key or key in taken:
            continue
        taken.add(key)
        dotted = ".".join(path)
        name = known.name if known is not None else path[-1][:40].strip().capitalize()
        kind = known.kind if known is not None else "other"
        more.append(Store(key, name, kind, dotted, len(urls), host))
        whose = f"{known.name}'s" if known is not None else "no known store's"
        notes.append(
            f"{dotted} holds a link in {plural(len(urls), 'page')} ({clean(host)[:80]}), "
            f"{whose}: written as store {key!r}; remove it if players do not get the game there"
        )
    return more, notes


def _stores_named_elsewhere(
    root: Path, games: str, keys: PageKeys, inside: list[PageInfo], found: Scan, shown: str
) -> tuple[list[Store], str | None, list[str]]:
    """The stores of a site whose game pages link none yet: those the template of a new game
    names, or those the site's other pages link in their text (each a warning until a game
    page links it); the table of links the template keeps; notes saying so."""
    template = template_keys(root, games)
    named = front_stores(template[0]) if template is not None else None
    if template is not None and named is not None and named[0]:
        # The stores the template of a new game names, a key each.
        stores = [
            s._replace(path=s.path or f"{named[1]}.{s.key}", template=template[1]) for s in named[0]
        ]
        notes = [
            *named[2],
            f"no page links a known store yet: the stores are those of {template[1]}, the "
            "template of a new game (each a warning until a page links it)",
        ]
        if named[1] is not None:
            more, said = _other_table_links(keys, tuple(named[1].split(".")), stores)
            stores += more
            notes += said
        return stores, None, notes
    games_files = {p.file for p in inside}
    elsewhere = [p for p in found.pages if p.body and p.file not in games_files]
    linked = body_stores(elsewhere)
    if not linked:
        return [], None, []
    # Other pages of the site link stores (a devlog's "play it on itch.io"): the games are
    # sold there, perhaps.
    stores = [
        Store(known.key, known.name, known.kind, None, 0, hosts[0], hosts=tuple(hosts))
        for known, hosts in linked.values()
    ]
    stores.sort(key=lambda s: STORE_ORDER.get(s.kind, len(STORE_ORDER)))
    shown_files = few([at(shown, p.file) for p in elsewhere])
    return (
        stores,
        None,
        [
            f"no game page links a store: the stores are those other pages of the site link "
            f"in their text ({shown_files}), each a warning until a game page links it"
        ],
    )


__all__ = ["Proposal", "propose"]
