"""The rules of one game page: its catalog keys, once `[fields]` has mapped them."""

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from catalogctl.content.document import Document
from catalogctl.content.fields import FieldMap, extract
from catalogctl.content.rules.keys import KeyChecker, check_duplicates, dotted
from catalogctl.content.rules.registry import Findings, Severities
from catalogctl.content.rules.stores import (
    KIND_NAMES,
    SPEC_STORE_PARAMS,
    kind_problem,
    store_kind,
    with_params,
)
from catalogctl.content.rules.suggest import Suggester
from catalogctl.content.rules.validation import pydantic_findings
from catalogctl.content.settings import CATALOG_KEYS, GamePage, SiteSettings, validator
from catalogctl.urls import MAX_URL_LENGTH, shown, url_problem

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

# A slug must be usable as one URL path segment as it stands.
_ID_RE = re.compile(r"^[^\s/\\?#%\"'<>`{}|^\[\]\x00-\x1f\x7f]+$")
_CANONICAL_ID_RE = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")
MAX_ID_LENGTH = 200
# A site path of RFC 3986 path characters only: no '%', '[', ']', '?' or '#' to check.
_URL_SAFE = re.compile(r"[A-Za-z0-9_.~-]*")  # what quote() leaves as it is
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9\-._~/!$&()*+,;=:@]*")

PUBLISHED, DRAFT, SCHEDULED, EXPIRED = "published", "draft", "scheduled", "expired"


class PageContext:
    """What every page is checked against (made once, shared by the parser processes)."""

    __slots__ = (
        "base",
        "base_passes",
        "fields",
        "game",
        "game_url",
        "icon_prefix",
        "invalid",
        "keys",
        "kinds",
        "locate",
        "now",
        "severities",
        "site",
        "store_names",
        "stores",
        "vocab",
    )

    def __init__(
        self,
        site: SiteSettings | None,
        fields: FieldMap,
        severities: Severities,
        now: dt.datetime,
        locate: bool = False,  # record each published link's line (check-links reports them)
    ) -> None:
        from pydantic_core import ValidationError

        self.site = site
        self.fields = fields
        self.severities = severities
        self.now = now
        self.locate = locate
        ok = site is not None and url_problem(site.base_url, loopback_http=True) is None
        # For checking site paths (a bad base_url is reported once, by the site rules).
        self.base = site.base_url.rstrip("/") if ok and site else "https://example.com"
        self.base_passes = url_problem(self.base, loopback_http=True) is None
        self.icon_prefix = site.base_url if site is not None else ""  # a site path's prefix
        # game_url with the base URL in place, "{id}" still to fill.
        self.game_url = site.game_url.replace("{base_url}", site.base_url) if site else ""
        self.game: SchemaValidator = validator("game")
        self.invalid: type[ValidationError] = ValidationError
        self.keys = KeyChecker([*((k,) for k in CATALOG_KEYS), *fields.used()])
        self.kinds = {k: store_kind(k, s) for k, s in (site.stores.items() if site else ())}
        self.stores = Suggester(self.kinds, min_length=1)
        # key -> published name, in site.toml order
        self.store_names = {k: s.name for k, s in (site.stores.items() if site else ())}
        self.vocab: dict[str, tuple[frozenset[str], Suggester] | None] = {}
        for name in ("platforms", "genres"):
            allowed = getattr(site, name) if site is not None else None
            self.vocab[name] = (
                None if allowed is None else (frozenset(allowed), Suggester(allowed, min_length=1))
            )


class Entry(NamedTuple):
    """A page that validated: its published game and how it sorts."""

    id: str
    file: str
    state: str  # published | draft | scheduled | expired
    game: dict[str, Any]
    order: tuple[Any, ...]
    id_pos: tuple[int, int]
    id_field: str
    lines: dict[str, int | None]  # "icon", "stores.<name>", "url" (filled with --locate)


def _as_time(value: Any) -> dt.datetime | str | None:
    """A date or date-time as an aware UTC datetime (naive means UTC, as in Hugo)."""
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
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    result: dt.datetime = value.astimezone(dt.UTC)
    return result


# Reports a finding at the value of a catalog location: add(rule, ("stores", "ios"), message).
_Add = Callable[[str, tuple[Any, ...], str], None]


def check_page(
    doc: Document, default_id: str, default_date: str | None, ctx: PageContext, out: Findings
) -> Entry | None:
    """Every rule of one page; the entry to publish when it has no error."""
    src = _game_page(doc, default_date, ctx, out)
    if src is None:
        return None
    fmap = ctx.fields

    def add(rule: str, loc: tuple[Any, ...], msg: str) -> None:
        path = fmap.source(loc)
        line, col = doc.value_pos(path)
        out.add(rule, msg, line=line, column=col, field=dotted(path))

    game_id, id_loc = _check_id(src, default_id, add)
    for name in ("name", "description"):
        if not getattr(src, name).strip():
            add("empty-value", (name,), "must not be blank")
    times = _check_times(src, add)
    icon_url = _check_icon(src.icon, ctx, add)
    _check_vocabularies(src, ctx, add)
    passing = _check_stores(src, ctx, add)
    _check_store_platforms(src, add)
    if ctx.site is None:
        return None
    return _entry(doc, src, ctx, game_id, id_loc, times, icon_url, passing)


def _game_page(
    doc: Document, default_date: str | None, ctx: PageContext, out: Findings
) -> GamePage | None:
    """The page's catalog keys, validated; None (with findings) when they do not validate."""
    data, clashes = extract(doc.data, ctx.fields)
    out.draft = data.get("draft") is True
    check_duplicates(doc, out)
    for key, first, second in clashes:
        line, col = doc.value_pos(second)
        out.add(
            "duplicate-key",
            f"store {key!r} is given twice: in {dotted(first)} and {dotted(second)}",
            line=line,
            column=col,
            field=dotted(second),
        )
    ctx.keys.check(doc.data, doc, out)
    if "date" not in data and default_date is not None:
        data["date"] = default_date
    try:
        src: GamePage = ctx.game.validate_python(data)
    except ctx.invalid as exc:
        pydantic_findings(exc.errors(include_url=False), doc, out, ctx.fields.source)
        return None
    return src


def _check_id(src: GamePage, default_id: str, add: _Add) -> tuple[str, tuple[Any, ...]]:
    """The game's id (its slug, else the file's name) and where it was given."""
    game_id = src.slug if src.slug is not None else default_id
    id_loc: tuple[Any, ...] = ("slug",) if src.slug is not None else ()
    if len(game_id) > MAX_ID_LENGTH:
        add("invalid-id", id_loc, f"id is longer than {MAX_ID_LENGTH} characters")
    elif not _ID_RE.match(game_id) or game_id in (".", "..") or not game_id.isprintable():
        add(
            "invalid-id",
            id_loc,
            f"id {shown(game_id)} cannot be a URL path segment "
            "(no spaces, quotes, '/', '?', '#', '%' or control characters)",
        )
    elif not _CANONICAL_ID_RE.match(game_id):
        add("id-style", id_loc, f"id {shown(game_id)} is not a lowercase slug (a-z, 0-9, '-')")
    return game_id, id_loc


def _check_times(src: GamePage, add: _Add) -> dict[str, dt.datetime | None]:
    """`date`, `publishDate` and `expiryDate` as UTC datetimes (None: not given or invalid)."""
    times: dict[str, dt.datetime | None] = {}
    for name in ("date", "publishDate", "expiryDate"):
        value = _as_time(getattr(src, name))
        if value == "invalid":
            add(
                "invalid-date",
                (name,),
                f"{shown(str(getattr(src, name)))} is not a date (2024-05-31) "
                "or date-time (2024-05-31T10:00:00Z)",
            )
            value = None
        times[name] = value if isinstance(value, dt.datetime) else None
    return times


def _check_icon(icon: str, ctx: PageContext, add: _Add) -> str:
    """The icon's published URL: an absolute URL, or a site path under the base URL."""
    if not icon.startswith("/") or icon.startswith("//"):
        problem = url_problem(icon, loopback_http=True)
        if problem:
            add(
                "invalid-url",
                ("icon",),
                f"must be an absolute https:// URL or a site path like /icons/x.png: {problem}",
            )
        return icon
    # A plain path after a base that passes cannot change the verdict: the common case
    # skips the full check (same answer, a third of the time of a page's URL checks).
    plain = ctx.base_passes and len(ctx.base) + len(icon) <= MAX_URL_LENGTH
    if not (plain and _PLAIN_PATH.fullmatch(icon)):
        problem = url_problem(ctx.base + icon, loopback_http=True)
        if problem:
            add("invalid-url", ("icon",), f"the site path {shown(icon)} {problem}")
    return ctx.icon_prefix + icon


def _check_vocabularies(src: GamePage, ctx: PageContext, add: _Add) -> None:
    """Platforms and genres: each listed once, each from site.toml's list when it has one."""
    for vocab_name in ("platforms", "genres"):
        values: list[str] = getattr(src, vocab_name)
        vocab = ctx.vocab.get(vocab_name)
        if len(set(values)) == len(values) and (vocab is None or vocab[0].issuperset(values)):
            continue  # the common case, answered without a step per value
        seen: set[str] = set()
        for i, value in enumerate(values):
            if value in seen:
                add("duplicate-value", (vocab_name, i), f"{shown(value)} is listed twice")
            seen.add(value)
            if vocab is not None and value not in vocab[0]:
                close = vocab[1](value)
                hint = f"; did you mean {close!r}?" if close else ""
                add(
                    "vocabulary",
                    (vocab_name, i),
                    f"{shown(value)} is not in the {vocab_name} of site.toml{hint}",
                )


def _check_stores(src: GamePage, ctx: PageContext, add: _Add) -> dict[str, str]:
    """The store links that may be published (key -> URL, with attribution parameters)."""
    site = ctx.site
    passing: dict[str, str] = {}
    for key, url in src.stores.items():
        loc = ("stores", key)
        if site is not None and key not in site.stores:
            close = ctx.stores(key)
            hint = f"did you mean {close!r}? " if close else ""
            known = ", ".join(site.stores) or "none"
            add(
                "unknown-store",
                loc,
                f"unknown store key {shown(key)}; {hint}site.toml defines: {known}",
            )
            continue
        problem = url_problem(url, loopback_http=True)
        if problem:
            add("invalid-url", loc, f"store URL {problem}")
            continue
        kind = ctx.kinds.get(key, "other")
        problem = kind_problem(kind, url)
        if problem:
            add("store-url", loc, f"{problem} ({KIND_NAMES[kind]} store {key!r})")
            passing[key] = url  # published without the store's attribution parameters
        else:
            passing[key] = with_params(url, site.stores[key].params) if site is not None else url
    return passing


def _check_store_platforms(src: GamePage, add: _Add) -> None:
    """A platform of SPEC §2.4 and its store link come together."""
    platform_keys = {p.lower() for p in src.platforms}
    store_keys = {k.lower() for k in src.stores}
    if platform_keys == store_keys:
        return
    for key in sorted(SPEC_STORE_PARAMS.keys() & platform_keys - store_keys):
        add("store-platform", ("stores",), f"lists platform {key!r} but has no {key!r} store link")
    for key in sorted(SPEC_STORE_PARAMS.keys() & store_keys - platform_keys):
        add(
            "store-platform",
            ("platforms",),
            f"has a {key!r} store link but does not list that platform",
        )


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
    src: GamePage,
    ctx: PageContext,
    game_id: str,
    id_loc: tuple[Any, ...],
    times: dict[str, dt.datetime | None],
    icon_url: str,
    passing: dict[str, str],
) -> Entry:
    """The published game of a page that passed, how it sorts and where its values are."""
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
    fmap = ctx.fields
    id_path = fmap.source(id_loc) if id_loc else ()
    id_pos = doc.value_pos(id_path) if id_path else doc.start
    lines: dict[str, int | None] = {}
    if ctx.locate:
        lines["url"] = id_pos[0] if id_path else None
        lines["icon"] = doc.value_pos(fmap.source(("icon",)))[0]
        for key in passing:
            name = ctx.store_names[key]
            lines[f"stores.{name}"] = doc.value_pos(fmap.source(("stores", key)))[0]
    field_name = dotted(id_path) if id_path else "id"
    return Entry(
        game_id, doc.file, _state(src.draft, times, ctx.now), game, order, id_pos, field_name, lines
    )
