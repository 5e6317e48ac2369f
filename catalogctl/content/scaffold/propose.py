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
from catalogctl.content.scaffold.pages import PageKeys, read_keys, template_keys
from catalogctl.content.scaffold.proposal import Proposal
from catalogctl.content.scaffold.stores import (
    STORE_ORDER,
    Store,
    front_stores,
    provider_token,
    with_body_stores,
)
from catalogctl.content.scaffold.survey import NO_FRONT_MATTER, PageInfo
from catalogctl.content.scaffold.write import site_toml
from catalogctl.content.storehosts import KNOWN_STORES, url_host
from catalogctl.errors import InputError
from catalogctl.paths import is_dir
from catalogctl.text import path_text, plural

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
            raise InputError(_nothing_to_go_on(root, choice))
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
    keys = read_keys(root, games, gen.language or "en", category.label, exclude, bool(sections))
    if keys.pages == 0:
        raise InputError(_none_read(games, keys))
    fields, guesses = map_fields(keys, category.label)
    stores, table, store_notes = front_stores(keys)
    games_inside = [p for p in inside if category.label is None or p.game_labels]
    body = sum(1 for p in games_inside if p.body and not p.front_link)
    front = sum(p.front_link for p in games_inside)
    body_links = body > 0 and (body >= front / 2 or not stores)
    if body_links:
        stores = with_body_stores(stores, body_stores(games_inside))
        stores.sort(key=lambda s: STORE_ORDER.get(s.kind, len(STORE_ORDER)))
    template = template_keys(root, games) if not stores else None
    named = front_stores(template[0]) if template is not None else None
    if template is not None and named is not None and named[0]:
        # No game links a store yet: the stores the template of a new game names, a key each
        # (one that no page has yet is a warning).
        stores = [s._replace(path=s.path or f"{named[1]}.{s.key}") for s in named[0]]
        table = None
        store_notes += named[2]
        store_notes.append(
            f"no page links a store yet: the stores are those of {template[1]}, the template "
            "of a new game (each a warning until a page links it)"
        )
    if not stores:
        games_files = {p.file for p in inside}
        elsewhere = [p for p in found.pages if p.body and p.file not in games_files]
        linked = body_stores(elsewhere)
        if linked:
            # No game page links a store, but other pages of the site do (a devlog's "play it
            # on itch.io"): the games are sold there, perhaps; each a warning until a game
            # page links it.
            stores = [
                Store(known.key, known.name, known.kind, None, 0, hosts[0], hosts=tuple(hosts))
                for known, hosts in linked.values()
            ]
            stores.sort(key=lambda s: STORE_ORDER.get(s.kind, len(STORE_ORDER)))
            shown_files = few([at(shown, p.file) for p in elsewhere])
            store_notes.append(
                f"no game page links a store: the stores are those other pages of the site "
                f"link in their text ({shown_files}), each a warning until a game page links it"
            )
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


def _none_read(games: str, keys: PageKeys) -> str:
    """Why no page of the games folder could be read: the files without front matter, and
    the front matter each other page failed on (as `validate` says it, with its line)."""
    plain = [f for f, why in keys.unread if "no front matter" in why]
    failed = [(f, why) for f, why in keys.unread if "no front matter" not in why]
    said = []
    if plain:
        have = "has" if len(plain) == 1 else "have"
        said.append(
            f"{plural(len(plain), 'Markdown file')} {have} no front matter ({few(plain)}), and "
            "catalogctl reads each game from the front matter of its page"
        )
    if failed:
        more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        why = "; ".join(f"{file}: {reason}" for file, reason in failed[:3])
        said.append(f"the front matter of {plural(len(failed), 'page')} is invalid ({why}{more})")
    reasons = ": " + "; ".join(said) if said else ""
    return (
        f"no page in {games} could be read{reasons}; correct the pages, or name the folder of "
        "the game pages with --games FOLDER"
    )


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


# Hosts that sell no game: code, video, social and reference sites a page's text links.
NOT_STORES = frozenset(
    {
        "github.com",
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
    """Whether a host is one of `NOT_STORES` (or below one: `en.wikipedia.org`)."""
    return any(host == h or host.endswith("." + h) for h in NOT_STORES)


def _without_front_matter(found: Scan, folder: str = ".") -> str:
    """`; 18 Markdown files have no front matter (…)`, of `folder`, for a message saying
    that no page was found: the site keeps its games in files catalogctl does not read."""
    plain = [
        f
        for f, why in found.unread
        if why == NO_FRONT_MATTER and (folder == "." or f.startswith(folder.rstrip("/") + "/"))
    ]
    unread = [
        f
        for f, why in found.unread
        if why != NO_FRONT_MATTER and (folder == "." or f.startswith(folder.rstrip("/") + "/"))
    ]
    said = ""
    if plain:
        have = "has" if len(plain) == 1 else "have"
        said += (
            f"; {plural(len(plain), 'Markdown file')} {have} no front matter ({few(plain)}), "
            "and catalogctl reads each game from the front matter of its page"
        )
    if unread:
        said += (
            f"; {plural(len(unread), 'file')} could not be read ({few(unread)}; --games with "
            "their folder says why)"
        )
    return said


def _nothing_to_go_on(root: Path, choice: Choice) -> str:
    seen = [c for c in choice.candidates if c.folder != "."][:5]
    legal = [p.file for p in choice.scan.legal]
    left_out = f" ({plural(len(legal), 'legal page')} left out: {few(legal)})" if legal else ""
    if not seen:
        return (
            f"no pages found in {path_text(root)} to take for game pages{left_out}"
            f"{_without_front_matter(choice.scan)}: name the games folder with --games FOLDER"
        )
    shown = "; ".join(
        f"{c.folder} ({plural(c.pages, 'page')}{': ' + ', '.join(c.reasons) if c.reasons else ''})"
        for c in seen
    )
    linked = any(p.front_link or p.body for p in choice.scan.pages)
    links = "a store link only in a few of a blog's posts" if linked else "no store link"
    return (
        f"no folder of {path_text(root)} looks like the games section ({links}, no games or "
        f"apps folder, no game category or collection); folders of pages seen: {shown}"
        f"{left_out}; name the games folder with --games FOLDER"
    )


__all__ = ["Proposal", "propose"]
