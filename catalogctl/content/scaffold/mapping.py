"""Which front-matter key each catalog key is read from: by the usual names of each
generator's keys, then by what the values look like (`values`)."""

from __future__ import annotations

from typing import Any

from catalogctl.content.scaffold import values
from catalogctl.content.scaffold.pages import PageKeys
from catalogctl.content.scaffold.survey import GAME_WORDS

# The usual front-matter keys of each catalog key, in order of preference, with the kinds of
# value that fit it.
CANDIDATES: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "name": (("name", "title", "params.name", "extra.name"), frozenset({"str"})),
    "description": (
        (
            "description",
            "summary",
            "excerpt",
            "tagline",
            "subtitle",
            "lead",
            "params.description",
            "extra.description",
        ),
        frozenset({"str"}),
    ),
    "platforms": (
        ("platforms", "extra.platforms", "params.platforms", "taxonomies.platforms", "systems"),
        frozenset({"list[str]"}),
    ),
    "genres": (
        (
            "genres",
            "genre",
            "categories",
            "category",
            "taxonomies.genres",
            "extra.genres",
            "params.genres",
            "taxonomies.categories",
            "tags",
        ),
        frozenset({"list[str]", "str"}),
    ),
    "icon": (
        (
            "icon",
            "params.icon",
            "extra.icon",
            "app_icon",
            "appIcon",
            "image",
            "thumbnail",
            "cover",
            "coverImage",
            "heroImage",
            "logo",
            "params.image",
            "extra.image",
            "featured_image",
        ),
        frozenset({"str"}),
    ),
    "date": (
        ("date", "pubDate", "published_at", "extra.date"),
        frozenset({"date", "datetime", "str"}),
    ),
    "weight": (("weight", "params.weight", "extra.weight", "order"), frozenset({"int"})),
    "draft": (("draft", "extra.draft", "params.draft"), frozenset({"bool"})),
}


def map_fields(
    keys: PageKeys, category: str | None = None
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Each catalog key's most used candidate that holds a value of its kind; then, for a key
    no usual name gives, the key whose values look like it. The second mapping holds the
    evidence of each key mapped by its values. `category`: the game pages' category, which a
    key holding it among other words (Jekyll's `categories: renpy horror game`) marks: that
    key is no list of genres."""
    out: dict[str, tuple[str, int]] = {}
    for key, (names, kinds) in CANDIDATES.items():
        best: tuple[int, str] | None = None
        own = 0  # pages with a value at the catalog's own key
        for name in names:
            path = tuple(name.split("."))
            kinds_seen = keys.types.get(path, set())
            if not kinds_seen & kinds or kinds_seen - kinds - {"NoneType"}:
                continue
            if not _fits(key, keys, path, category):
                continue
            n = keys.filled_in(path)
            if n == 0:
                continue
            if best is None or n > best[0]:
                best = (n, name)
            if name == key:
                own = n
        # The catalog's own key wins where half as many pages have it as the most used one
        # (`icon` in 7 pages beside `cover` in 8).
        if best is not None and 2 * own >= best[0]:
            best = (own, key)
        if best is not None:
            out[key] = (best[1], best[0])
    guesses: dict[str, str] = {}
    by_values = {
        "platforms": values.platforms,
        "genres": values.genres,
        "icon": values.icon,
        "date": values.date,
    }
    for key, guess_of in by_values.items():
        if key in out:
            continue
        guess = guess_of(keys)
        if guess is None:
            continue
        marks_games = category is not None and _holds_word(
            keys, tuple(guess.path.split(".")), category
        )
        path = tuple(guess.path.split("."))
        if key == "genres" and (marks_games or _own_labels(keys, path) or _marks_games(keys, path)):
            continue  # the words of the game category, or each page's own name: not genres
        out[key] = (guess.path, guess.pages)
        guesses[key] = guess.evidence
    return out, guesses


def _fits(key: str, keys: PageKeys, path: tuple[str, ...], category: str | None) -> bool:
    """Whether the values at `path` can be the catalog key's, beyond their kind."""
    found = keys.values.get(path, [])
    if key == "genres":
        if values.labels_are_genres(found) is None:
            return False  # `tags: [games]` says what the page is, not its genre
        if category is not None and _holds_word(keys, path, category):
            return False
        return not (_own_labels(keys, path) or _marks_games(keys, path))
    if key == "description":
        return _mostly_words(found)  # `subtitle: "📃"`: a mark, not a description
    return True


def _mostly_words(found: list[Any]) -> bool:
    """Whether most of a key's text values hold a word (three letters or more)."""
    texts = [v for v in found if isinstance(v, str) and v.strip()]
    worded = sum(1 for v in texts if sum(ch.isalpha() for ch in v[:200]) >= 3)
    return 2 * worded > len(texts)


def _own_labels(keys: PageKeys, path: tuple[str, ...]) -> bool:
    """Whether most pages list their own id among the labels of a key (`tags: [game,
    cat-hatch]` on cat-hatch.md): the key tags pages, it does not name their genres."""
    return keys.own_labels is not None and 2 * keys.own_labels[path] > keys.paths[path]


def _marks_games(keys: PageKeys, path: tuple[str, ...]) -> bool:
    """Whether most pages say there that they are games (`categories: [game, rust]`,
    `[scratch, game]`): the key sorts pages, it does not name their genres; another key
    (`tags: [strategy, boardgame]`) may."""
    found = [v for v in keys.values.get(path, []) if values.strings_of(v)]
    marked = sum(
        1 for v in found if any(s.strip().lower() in GAME_WORDS for s in values.strings_of(v))
    )
    return 2 * marked > len(found)


def _holds_word(keys: PageKeys, path: tuple[str, ...], word: str) -> bool:
    """Whether the text values of a key hold `word` among the words of a string."""
    word = word.lower()
    return any(isinstance(v, str) and word in v.lower().split() for v in keys.values.get(path, []))


def own_keys(
    keys: PageKeys, fields: dict[str, tuple[str, int]], stores: dict[str, str] | None = None
) -> list[str]:
    """Keys that `validate` would take for a misspelled catalog or store key (a Jekyll site's
    `platform`, an Astro page's `team` beside its `steam`): the site's own, listed so they are
    not reported. A key is the site's own when half the pages use it, or when the pages have
    the key it resembles too (`stores`: store key -> its front-matter path)."""
    from catalogctl.content.fields import FieldMap
    from catalogctl.content.rules.keys import KeyChecker

    mapping: dict[str, Any] = {k: path for k, (path, _) in fields.items()}
    if stores:
        mapping["stores"] = stores
    fmap = FieldMap.from_settings(mapping)
    checker = KeyChecker(fmap.used())
    names, suggest = checker.levels[()]
    own = []
    for path, n in keys.paths.items():
        if len(path) != 1 or path[0] in names:
            continue
        close = suggest(path[0])
        if close is None:
            continue
        if n >= max(2, keys.pages // 2) or keys.paths.get((close,), 0) > 0:
            own.append(path[0])
    return sorted(own)


__all__ = ["CANDIDATES", "map_fields", "own_keys"]
