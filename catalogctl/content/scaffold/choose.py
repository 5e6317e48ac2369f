"""Which folder holds the game pages: every folder of pages weighed on what it shows.

Each folder of pages the walk (`survey`) read is weighed on:

- store links: pages whose front matter links a store, pages whose body does (a "Get it on
  Google Play" button, a Markdown link to itch.io), and the share of all such pages it holds;
- its name: games, apps, showcase, released-games, portfolio, projects, …;
- the generator's own configuration: a Jekyll collection, an Astro collection (more when its
  schema has store URL keys), a Hugo or Zola section with `_index.md`, an Eleventy directory data
  file (more when it tags its pages `game`);
- a game category: pages whose `categories`, `category` or `tags` say game (Jekyll `_posts`);
- page shape: pages sharing a title, an image and a description key.

Legal pages (a privacy policy, terms of use) are left out before any folder is weighed: a
folder holding only them is no games folder (`notgames`).

With no store link, no game name, no game category and no game collection anywhere, there is
nothing to go on: init names the folders it saw and asks for `--games`. Every file it could not
read, and every bound it reached, is reported.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from catalogctl.content.scaffold.generators import Generator
from catalogctl.content.scaffold.notgames import without_legal
from catalogctl.content.scaffold.sections import declared_folders
from catalogctl.content.scaffold.survey import GAME_WORDS, PageInfo, Scan, scan
from catalogctl.content.storehosts import KNOWN_STORES, KnownStore, url_host
from catalogctl.text import plural

# Folder names of a games section, and their weight.
GAME_NAMES = {
    "games": 3.0,
    "_games": 3.0,
    "game": 3.0,
    "released-games": 3.0,
    "apps": 2.5,
    "_apps": 2.5,
    "app": 2.5,
    "showcase": 2.0,
    "_showcase": 2.0,
    "portfolio": 1.5,
    "_portfolio": 1.5,
    "projects": 1.5,
    "_projects": 1.5,
    # The games of a site in another language: Spanish, French, German, Italian, Portuguese,
    # Polish, Dutch.
    "juegos": 3.0,
    "_juegos": 3.0,
    "videojuegos": 3.0,
    "jeux": 3.0,
    "_jeux": 3.0,
    "spiele": 3.0,
    "_spiele": 3.0,
    "giochi": 3.0,
    "_giochi": 3.0,
    "jogos": 3.0,
    "_jogos": 3.0,
    "gry": 3.0,
    "spellen": 3.0,
}
# A games folder named with a word before it: our-games, my_games, mobile-games.
_GAMES_SUFFIX = re.compile(r"[a-z0-9]+[-_](?:games|apps)")


def name_weight(name: str) -> float:
    """The weight of a folder's name (lowercased) as a games section's: 0 for none."""
    if name in GAME_NAMES:
        return GAME_NAMES[name]
    return 2.5 if _GAMES_SUFFIX.fullmatch(name.lstrip("_")) else 0.0


BLOG_NAMES = frozenset({"blog", "posts", "news", "devlog", "devlogs", "articles", "updates"})
_KNOWN = {store.key: store for store in KNOWN_STORES}


class Candidate(NamedTuple):
    folder: str
    pages: int
    score: float
    reasons: list[str]  # what speaks for it, as a sentence lists it
    game: bool  # something says games (a link, a name, a category, a game collection)


class Choice(NamedTuple):
    """The games folder init chose, and what it weighed."""

    folder: str | None  # None: nothing to go on
    candidates: list[Candidate]  # best first, each folder once
    sure: bool
    body_links: bool  # the chosen folder's pages link their stores in the body
    scan: Scan

    def chosen(self) -> Candidate | None:
        return next((c for c in self.candidates if c.folder == self.folder), None)


def _inside(page_folder: str, folder: str) -> bool:
    return folder in (".", page_folder) or page_folder.startswith(folder + "/")


def choose(root: Path, gen: Generator) -> Choice:
    """The games folder of the website at `root`, and every folder weighed."""
    found = without_legal(scan(root, gen.search), GAME_NAMES)
    declared = declared_folders(root, gen)
    # Each folder with the pages inside it, at any depth: each page counted in each folder
    # above it (pages × depth, where weighing each folder against every page was pages ×
    # folders: 5,000 games in a folder each took 7.5 s).
    inside_of: dict[str, list[PageInfo]] = {}
    for page in found.pages:
        parts = page.folder.split("/") if page.folder != "." else []
        for end in range(len(parts) + 1):
            inside_of.setdefault("/".join(parts[:end]) or ".", []).append(page)
    linked_total = sum(1 for p in found.pages if p.front_link or p.body)
    weighed: list[tuple[float, int, Candidate, frozenset[str]]] = []
    for folder, inside in inside_of.items():
        candidate = _weigh(folder, inside, linked_total, declared.get(folder))
        depth = 0 if folder == "." else folder.count("/") + 1
        weighed.append(
            (round(candidate.score, 6), depth, candidate, frozenset(p.file for p in inside))
        )
    weighed.sort(key=lambda w: (-w[0], -w[1], w[2].folder))
    # A folder holding the same pages as a better one is the same choice: listed once.
    candidates: list[Candidate] = []
    sets: set[frozenset[str]] = set()
    for _, _, candidate, files in weighed:
        if files not in sets:
            candidates.append(candidate)
            sets.add(files)
    best = candidates[0] if candidates else None
    if best is None or not best.game:
        return Choice(None, candidates, False, False, found)
    second = candidates[1] if len(candidates) > 1 else None
    sure = (second is None or second.score < 0.75 * best.score) and any(
        r.endswith("link a store") or "in their text" in r for r in best.reasons
    )
    inside = inside_of[best.folder]
    front = sum(p.front_link for p in inside)
    body = sum(1 for p in inside if p.body and not p.front_link)
    return Choice(best.folder, candidates, sure, body > 0 and body >= front / 2, found)


def _weigh(
    folder: str, pages: list[PageInfo], linked_total: int, declared: tuple[str, bool] | None
) -> Candidate:
    n = len(pages)
    front = sum(p.front_link for p in pages)
    body = sum(1 for p in pages if p.body and not p.front_link)
    linked = sum(1 for p in pages if p.front_link or p.body)
    category = sum(p.game_category for p in pages)
    shape = sum(p.shape for p in pages)
    name = folder.rsplit("/", 1)[-1].lower()
    score = 0.0
    reasons: list[str] = []
    game = False
    if front:
        score += 3 * front / n
        reasons.append(f"{front} of {plural(n, 'page')} link a store")
    if body:
        score += 2.5 * body / n
        hosts = Counter(url_host(link.url) or "" for p in pages for link in p.body)
        shown = ", ".join(h for h, _ in hosts.most_common(3))
        reasons.append(f"{body} of {plural(n, 'page')} link a store in their text ({shown})")
    # Pages that all sit in a blog's folder are posts: a few of them linking the studio's game
    # ("our first Steam release") do not make them games; most of them linking a store does.
    posts = all(any(part.lower() in BLOG_NAMES for part in p.folder.split("/")) for p in pages)
    if linked:
        score += 3 * linked / linked_total
        game = not posts or 2 * linked > n
    if name_weight(name):
        score += name_weight(name)
        reasons.append(f"its name, {name}")
        game = True
    elif name in BLOG_NAMES:
        score -= 1.5
        reasons.append(f"its name, {name}, is a blog's")
    if declared is not None:
        why, gamelike = declared
        score += 2.0 if gamelike else 1.0
        reasons.append(why)
        game = game or gamelike
    if category:
        score += 2 * category / n
        reasons.append(f"{category} of {plural(n, 'page')} have a game category")
        game = True
    if shape and n > 1:
        score += shape / n
        reasons.append(f"{shape} of {plural(n, 'page')} share a title, an image and a description")
    return Candidate(folder, n, score, reasons, game)


def pages_of(folder: str, found: Scan) -> list[PageInfo]:
    """The pages the walk read in `folder`, its subfolders included."""
    return [p for p in found.pages if _inside(p.folder, folder)]


def body_stores(pages: list[PageInfo]) -> dict[str, tuple[KnownStore, list[str]]]:
    """Each known store the bodies of `pages` link, by its usual key: the store and the hosts
    its links are on, most used first."""
    hosts: dict[str, Counter[str]] = {}
    for page in pages:
        for link in page.body:
            hosts.setdefault(link.store, Counter())[url_host(link.url) or ""] += 1
    return {key: (_KNOWN[key], [h for h, _ in seen.most_common()]) for key, seen in hosts.items()}


class CategoryChoice(NamedTuple):
    """`[content] category` for a folder whose game pages carry a game category beside pages
    that do not (Jekyll `_posts` of games and blog posts)."""

    label: str | None  # the category to write; None: none (and `why` says why, or "")
    why: str  # a note for the user when a category could not be chosen, or pages need a look


def at(shown: str, file: str) -> str:
    """A file of the website (relative to its root) as the user reads it: under the root as
    they named it."""
    return file if shown in ("", ".") else posixpath.join(shown, file)


def game_category(folder: str, pages: list[PageInfo], shown: str = ".") -> CategoryChoice:
    """The category that keeps only the game pages of `folder`: written when most of its pages
    carry one game label and the others none. `shown`: the root, as files are named."""
    labelled = [p for p in pages if p.game_labels]
    if not labelled or len(labelled) == len(pages):
        return CategoryChoice(None, "")
    if 2 * len(labelled) < len(pages) and not _sorted_by_category(labelled, pages):
        return CategoryChoice(None, "")
    layouts = {p.layout for p in pages}
    if len(layouts) == 1 and layouts <= GAME_WORDS:
        # Every page asks for the game layout (`layout: game`): all are games, and a label
        # some of them carry (`category: Action Game`) is a genre, not what marks them.
        return CategoryChoice(None, "")
    spellings = Counter(p.game_labels[0] for p in labelled)
    distinct = Counter(label.lower() for label in spellings.elements())
    (top, most), *rest = distinct.most_common()
    counts = ", ".join(f"{label} ({n})" for label, n in distinct.most_common())
    # A label on nine in ten of the labelled pages marks the games, and so does one whose
    # pages link stores where the others' link none: a stray other one (a listicle's "games"
    # among "game" posts) does not undo that.
    linked = {p.game_labels[0].lower() for p in labelled if p.front_link or p.body}
    if rest and 10 * most < 9 * len(labelled) and linked != {top}:
        return CategoryChoice(
            None,
            f"the pages of {folder} carry the game categories {counts}: set [content] category "
            "to the one that marks the games, or leave it out to read every page as a game",
        )
    label = next(s for s in spellings if s.lower() == top)
    stray = [at(shown, p.file) for p in labelled if p.game_labels[0].lower() != top]
    others = [at(shown, p.file) for p in pages if not p.game_labels and (p.front_link or p.body)]
    notes = []
    if stray:
        verb = "carries" if len(stray) == 1 else "carry"
        notes.append(
            _not_read(folder, stray, f"{verb} another game category than {label!r} ({counts})")
            + f": give the games the category {label!r}"
        )
    if others:
        verb = "links a store but lacks" if len(others) == 1 else "link a store but lack"
        notes.append(
            _not_read(folder, others, f"{verb} the category {label!r}")
            + ": add the category to the pages that are games"
        )
    return CategoryChoice(label, "; ".join(notes))


def _sorted_by_category(labelled: list[PageInfo], pages: list[PageInfo]) -> bool:
    """Whether a folder where the games are the fewer sorts every page by its category (a
    portfolio's `category: games` beside `mods`, `websites`, `design`), and its game pages
    link stores where the others mostly do not: the game category marks the games. Where
    pages outside it link stores as often (`tags: [game, puzzle]` on some games, `[puzzle]`
    on others), it does not."""
    if not all(p.labelled for p in pages):
        return False
    others = [p for p in pages if not p.game_labels]
    games_linked = sum(1 for p in labelled if p.front_link or p.body) / len(labelled)
    others_linked = sum(1 for p in others if p.front_link or p.body) / len(others)
    return games_linked > 0 and others_linked < games_linked / 2


def _not_read(folder: str, files: list[str], why: str) -> str:
    """`2 pages of _posts <why>, so validate does not read them as games (a.md, b.md)`."""
    them = "it as a game" if len(files) == 1 else "them as games"
    return (
        f"{plural(len(files), 'page')} of {folder} {why}, so validate does not read {them} "
        f"({few(files)})"
    )


def few(files: list[str]) -> str:
    """The first three files, and `…` for more."""
    return ", ".join(files[:3]) + (", …" if len(files) > 3 else "")


__all__ = [
    "Candidate",
    "CategoryChoice",
    "Choice",
    "PageInfo",
    "Scan",
    "at",
    "body_stores",
    "choose",
    "few",
    "game_category",
    "pages_of",
    "scan",
]
