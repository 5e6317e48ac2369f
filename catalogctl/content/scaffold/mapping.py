"""Which front-matter key each catalog key is read from: by the usual names of each
generator's keys, then by what the values look like (`values`)."""

from __future__ import annotations

from catalogctl.content.scaffold import values
from catalogctl.content.scaffold.pages import PageKeys

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
    "weight": (("weight", "params.weight", "extra.weight"), frozenset({"int"})),
    "draft": (("draft", "extra.draft", "params.draft"), frozenset({"bool"})),
}


def map_fields(keys: PageKeys) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Each catalog key's most used candidate that holds a value of its kind; then, for a key
    no usual name gives, the key whose values look like it. The second mapping holds the
    evidence of each key mapped by its values."""
    out: dict[str, tuple[str, int]] = {}
    for key, (names, kinds) in CANDIDATES.items():
        best: tuple[int, str] | None = None
        for name in names:
            path = tuple(name.split("."))
            kinds_seen = keys.types.get(path, set())
            if not kinds_seen & kinds or kinds_seen - kinds - {"NoneType"}:
                continue
            if key == "genres" and values.labels_are_genres(keys.values.get(path, [])) is None:
                continue  # `tags: [games]` says what the page is, not its genre
            n = keys.paths[path]
            if best is None or n > best[0]:
                best = (n, name)
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
        if guess is not None:
            out[key] = (guess.path, guess.pages)
            guesses[key] = guess.evidence
    return out, guesses


def own_keys(keys: PageKeys, fields: dict[str, tuple[str, int]]) -> list[str]:
    """Keys half the pages use that `validate` would take for a misspelled catalog key (a
    Jekyll site's `platform`): the site's own, listed so they are not reported."""
    from catalogctl.content.fields import FieldMap
    from catalogctl.content.rules.keys import KeyChecker

    fmap = FieldMap.from_settings({k: path for k, (path, _) in fields.items()})
    checker = KeyChecker(fmap.used())
    names, suggest = checker.levels[()]
    return sorted(
        path[0]
        for path, n in keys.paths.items()
        if len(path) == 1
        and path[0] not in names
        and n >= max(2, keys.pages // 2)
        and suggest(path[0]) is not None
    )


__all__ = ["CANDIDATES", "map_fields", "own_keys"]
