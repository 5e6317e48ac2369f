"""The rules of one game page: its catalog keys, once `[fields]` has mapped them.

Every problem at once: a key that is missing or fails validation leaves out only the checks
that need it (a page without a `name` still has its store links, id and vocabulary checked),
and a page that fails is still an entry (its id takes part in the duplicate check, its state
in the counts), only without a game to publish.
"""

import datetime as dt
import re
from functools import partial
from typing import Any, NamedTuple
from urllib.parse import quote

from catalogctl.content.bodylinks import BodyLink, PageBody
from catalogctl.content.document import Document, Path
from catalogctl.content.fields import Extracted, FieldMap, extract, show_path
from catalogctl.content.rules.characters import check_page_text
from catalogctl.content.rules.keys import check_duplicates, dotted
from catalogctl.content.rules.registry import Findings
from catalogctl.content.rules.storelinks import (
    check_store_platforms,
    check_stores,
    read_body_links,
)
from catalogctl.content.rules.validation import pydantic_findings
from catalogctl.content.rules.values import Add, PageContext, check_icon, check_vocabulary
from catalogctl.content.settings import REQUIRED_KEYS, GamePage
from catalogctl.urls import shown

__all__ = ["DRAFT", "EXPIRED", "PUBLISHED", "SCHEDULED", "Entry", "PageContext", "check_page"]

# A slug must be usable as one URL path segment as it stands.
_ID_RE = re.compile(r"^[^\s/\\?#%\"'<>`{}|^\[\]\x00-\x1f\x7f]+$")
_CANONICAL_ID_RE = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")
MAX_ID_LENGTH = 200
_URL_SAFE = re.compile(r"[A-Za-z0-9_.~-]*")  # what quote() leaves as it is
_NOTHING: frozenset[str] = frozenset()

PUBLISHED, DRAFT, SCHEDULED, EXPIRED = "published", "draft", "scheduled", "expired"


class Entry(NamedTuple):
    """A page that was checked: its id, its state and, when every catalog key validated,
    the game it publishes."""

    id: str  # "" when its `slug` is not valid
    file: str
    state: str  # published | draft | scheduled | expired
    game: dict[str, Any] | None  # None: a catalog key is missing or invalid
    order: tuple[Any, ...]
    id_pos: tuple[int, int]
    id_field: str
    lines: dict[str, int | None]  # "icon", "stores.<name>", "url" (filled with --locate)
    body_links: tuple[BodyLink, ...] = ()  # store links read from the body ([content] body_links)


class _Page(NamedTuple):
    src: GamePage  # the values that validated; the others are None
    missing: frozenset[str]  # catalog keys without a valid value: their checks are left out
    all_stores: bool  # every store link of the page validated and is known
    found: Extracted
    draft: bool  # `draft: true`, or Jekyll's `published: false`
    body: dict[str, BodyLink]  # store key -> the link read from the body


def _as_time(value: Any) -> dt.datetime | str | None:
    """A date or date-time as an aware datetime (naive means UTC, as in Hugo).

    It keeps its own UTC offset: aware datetimes compare (and give timestamps) across offsets,
    while converting `9999-12-31T23:59:59-14:00` or `0001-01-01T00:00:00+14:00` to UTC would
    leave the years a datetime can hold.
    """
    if value is None:
        return None
    if not isinstance(value, str | dt.date):
        return "invalid"
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            try:
                value = dt.date.fromisoformat(value.strip())
            except ValueError:
                return "invalid"
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    aware: dt.datetime = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
    return aware


def check_page(
    doc: Document,
    default_id: str,
    default_date: str | None,
    ctx: PageContext,
    out: Findings,
    body: PageBody | None = None,
    folder: str | None = None,
) -> tuple[Entry | None, Extracted | None]:
    """Every rule of one page: its entry (None when site.toml could not be read, so the page
    was only parsed) and what site.toml's mappings found in it. `body`: the page's body, read
    for the stores its front matter does not give when site.toml asks (`body_links`).
    `folder`: the folder of the page's file, where an icon given relative to it would be."""
    if ctx.fields is None:
        check_duplicates(doc, out)
        return None, None
    page = _game_page(doc, default_date, ctx, out, body)
    src, missing, fmap, where = page.src, page.missing, ctx.fields, page.found.where

    def add(rule: str, loc: tuple[Any, ...], msg: str) -> None:
        if not out.keeps(rule):
            out.count(rule)  # past the file's cap: not placed
            return
        link = page.body.get(loc[1]) if len(loc) > 1 and loc[0] == "stores" else None
        if link is not None:  # a store link of the body: its line and column there
            out.add(rule, msg, line=link.line, column=link.column, field=f"stores.{link.store}")
            return
        path = fmap.source(loc, where)
        line, col = doc.value_pos(path)
        out.add(rule, msg, line=line, column=col, field=dotted(path))

    # An id from the file's own name (not a bundle's or a section's folder).
    by_name = doc.file.rsplit("/", 1)[-1].split(".")[0] == default_id
    game_id, id_loc = (
        _check_id(src, default_id, add, by_name) if "slug" not in missing else ("", ())
    )
    for name in ("name", "description"):
        if name not in missing and not getattr(src, name).strip():
            add("empty-value", (name,), "is blank; give it a value")
    check_page_text(src, missing, add)
    times = _check_times(src, missing, add)
    icon_url = (
        check_icon(src.icon, ctx, add, game_id, folder, bundle=not by_name)
        if "icon" not in missing
        else ""
    )
    for name in ("platforms", "genres"):
        if name not in missing:
            check_vocabulary(name, getattr(src, name), ctx, add)
    passing = check_stores(src.stores, ctx, add) if "stores" not in missing else {}
    whole = "platforms" not in missing and "stores" not in missing
    if ctx.stores_known and page.all_stores and whole:
        check_store_platforms(src, ctx, add)
    return _entry(doc, page, ctx, game_id, id_loc, times, icon_url, passing), page.found


def _game_page(
    doc: Document,
    default_date: str | None,
    ctx: PageContext,
    out: Findings,
    body: PageBody | None,
) -> _Page:
    """The page's catalog keys: the ones that validate, and findings for the others."""
    fmap = ctx.fields
    assert fmap is not None
    found = extract(doc.data, fmap, ctx.owner if fmap.shared else None)
    data = found.values
    from_body = read_body_links(data, ctx, out, body) if body is not None else {}
    # Jekyll leaves out a page with `published: false`; Hugo's `published` is a date.
    draft = data.get("draft") is True or doc.data.get("published") is False
    out.draft = draft
    check_duplicates(doc, out)
    for key, first, second in found.clashes:
        line, col = doc.value_pos(second)
        out.add(
            "duplicate-key",
            f"store {key!r} is given twice, in {dotted(first)} and {dotted(second)}; keep one",
            line=line,
            column=col,
            field=dotted(second),
        )
    ctx.keys.check(doc.data, doc, out)
    if "date" not in data and default_date is not None:
        data["date"] = default_date
    # A key whose [fields] entry is broken is unknown, not missing (site.toml says why).
    unknown = fmap.broken
    try:
        src: GamePage = ctx.game.validate_python(data)
    except ctx.invalid as exc:
        errors = [
            e
            for e in exc.errors(include_url=False)
            if not (e["type"] == "missing" and e["loc"][0] in unknown)
        ]
        source = partial(fmap.source, where=found.where)
        pydantic_findings(errors, doc, out, source, _no_store(fmap, ctx))
        return _partial(data, errors, unknown, found, draft, from_body)
    return _Page(src, _NOTHING, not unknown, found, draft, from_body)


def _no_store(fmap: FieldMap, ctx: PageContext) -> str:
    """What a page that links no store lacks: where a link may be given, in the site's own
    keys ([fields.stores]), in the stores table, and in the text with body_links."""
    keys = sorted({show_path(path) for path in fmap.store_paths.values()})
    named = [repr(key) for key in keys[:6]] + (["…"] if len(keys) > 6 else [])
    table = repr(show_path(fmap.stores))
    where = f"{', '.join(named)} or {table}" if named else table
    body = ", or in the page's text" if ctx.body_hosts is not None else ""
    return f"links no store: give a link in {where}{body} (a key left empty gives no link)"


def _partial(
    data: dict[str, Any],
    errors: list[Any],
    unknown: frozenset[str],
    found: Extracted,
    draft: bool,
    from_body: dict[str, BodyLink],
) -> _Page:
    """The values that validated (a store link that failed leaves the others)."""
    bad: set[str] = set(unknown)
    bad_links: set[Any] = set()
    for err in errors:
        loc = err["loc"]
        if loc[0] == "stores" and len(loc) > 1:
            bad_links.add(loc[1])
        else:
            bad.add(str(loc[0]))
    values = {k: v for k, v in data.items() if k not in bad}
    stores = values.get("stores")
    if isinstance(stores, dict):
        # A key that is not text failed too, named by its repr (`None`, a date's): out.
        values["stores"] = {
            k: v for k, v in stores.items() if isinstance(k, str) and k not in bad_links
        }
    missing = frozenset(bad | (REQUIRED_KEYS - values.keys()))
    src = GamePage(**{**dict.fromkeys(REQUIRED_KEYS), **values})
    return _Page(src, missing, not bad_links and "stores" not in unknown, found, draft, from_body)


_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


def slug_for(game_id: str) -> str:
    """A lowercase slug made of an id (`Moon Lander!` → `moon-lander`)."""
    if not game_id.isascii():  # `Café` → `cafe`: the accents dropped, not the letters
        import unicodedata

        game_id = unicodedata.normalize("NFKD", game_id).encode("ascii", "ignore").decode()
    slug = _NOT_SLUG.sub("-", game_id.lower()).strip("-")
    return slug[:MAX_ID_LENGTH].strip("-") or "game"


def _check_id(
    src: GamePage, default_id: str, add: Add, by_name: bool = True
) -> tuple[str, tuple[Any, ...]]:
    """The game's id (its slug, else the file's name) and where it was given.

    In Unicode's composed form (NFC): macOS gives `café.md` back decomposed (e and a combining
    accent), and the catalog publishes one id for the two spellings."""
    game_id = src.slug if src.slug is not None else default_id
    if not game_id.isascii():
        import unicodedata  # only for such an id: validate's start-up matters

        game_id = unicodedata.normalize("NFC", game_id)
    id_loc: tuple[Any, ...] = ("slug",) if src.slug is not None else ()
    if len(game_id) > MAX_ID_LENGTH:
        add(
            "invalid-id",
            id_loc,
            f"id is longer than {MAX_ID_LENGTH} characters; set a shorter slug",
        )
    elif not _ID_RE.match(game_id) or game_id in (".", "..") or not game_id.isprintable():
        # A file name with spaces: Jekyll publishes `GS Map Editor.md` at GS-Map-Editor/, and
        # a slug would move the page; the file renamed so keeps its address.
        hyphens = _SPACES.sub("-", game_id).strip("-")
        rename = (
            f", or name the file {hyphens!r} (and its extension), where Jekyll publishes the "
            "page already (a slug moves it)"
            if by_name and not id_loc and hyphens != game_id and _ID_RE.match(hyphens)
            else ""
        )
        add(
            "invalid-id",
            id_loc,
            f"id {shown(game_id)} cannot be a URL path segment (no spaces, quotes, '/', '?', "
            f"'#', '%' or control characters); set a slug such as {slug_for(game_id)!r}"
            f"{rename}",
        )
    elif not _CANONICAL_ID_RE.match(game_id):
        add(
            "id-style",
            id_loc,
            f"id {shown(game_id)} is not a lowercase slug (a-z and 0-9, joined by '-', '_' or "
            f"'.'); set slug to "
            f"{slug_for(game_id)!r}, or rename the file",
        )
    return game_id, id_loc


def _check_times(src: GamePage, missing: frozenset[str], add: Add) -> dict[str, dt.datetime | None]:
    """`date`, `publishDate` and `expiryDate` as UTC datetimes (None: not given or invalid)."""
    times: dict[str, dt.datetime | None] = {}
    for name in ("date", "publishDate", "expiryDate"):
        value = None if name in missing else _as_time(getattr(src, name))
        if value == "invalid":
            add(
                "invalid-date",
                (name,),
                f"{shown(str(getattr(src, name)))} is not a date; write a date (2024-05-31) "
                "or a date-time (2024-05-31T10:00:00Z)",
            )
            value = None
        times[name] = value if isinstance(value, dt.datetime) else None
    return times


def _state(draft: bool, times: dict[str, dt.datetime | None], now: dt.datetime) -> str:
    publish, expiry = times["publishDate"], times["expiryDate"]
    if draft:
        return DRAFT
    if publish is not None and publish > now:
        return SCHEDULED
    if expiry is not None and expiry <= now:
        return EXPIRED
    return PUBLISHED


def _entry(
    doc: Document,
    page: _Page,
    ctx: PageContext,
    game_id: str,
    id_loc: tuple[Any, ...],
    times: dict[str, dt.datetime | None],
    icon_url: str,
    passing: dict[str, str],
) -> Entry:
    """The page's entry: its state, and the game it publishes when every key validated."""
    src, fmap, where = page.src, ctx.fields, page.found.where
    assert fmap is not None
    id_path: Path = fmap.source(id_loc, where) if id_loc else ()
    id_pos = doc.value_pos(id_path) if id_path else doc.start
    field_name = dotted(id_path) if id_path else "id"
    state = _state(page.draft, times, ctx.now)
    from_body = tuple(page.body.values())
    if page.missing or not game_id or ctx.site is None:
        return Entry(game_id, doc.file, state, None, (), id_pos, field_name, {}, from_body)
    date = times["date"]
    weight = src.weight or 0
    order = (
        0 if weight else 1,
        weight,
        0 if date is not None else 1,
        -date.timestamp() if date is not None else 0.0,
        src.name,
        game_id,
    )
    game = {
        "id": game_id,
        "name": src.name,
        "description": src.description,
        "url": ctx.game_url.replace(
            "{id}", game_id if _URL_SAFE.fullmatch(game_id) else quote(game_id, safe="")
        ),
        "platforms": list(src.platforms),
        "genres": list(src.genres),
        "icon": icon_url,
        "stores": [
            {"name": name, "url": passing[key]}
            for key, name in ctx.store_names.items()
            if key in passing
        ],
    }
    lines: dict[str, int | None] = {}
    if ctx.locate:
        lines["url"] = id_pos[0] if id_path else None
        lines["icon"] = doc.value_pos(fmap.source(("icon",), where))[0]
        for key in passing:
            name = ctx.store_names[key]
            link = page.body.get(key)
            lines[f"stores.{name}"] = (
                link.line if link else doc.value_pos(fmap.source(("stores", key), where))[0]
            )
    return Entry(game_id, doc.file, state, game, order, id_pos, field_name, lines, from_body)
