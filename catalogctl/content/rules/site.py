"""The rules of site.toml: settings, [content], [fields], [rules], stores and API lifecycle.

site.toml is catalogctl's own file: every key of it is known, an unknown one is an error with
a did-you-mean (or the keys that table takes) at the line of the key itself. A value that fails
hides only the checks that need it: the pages are still checked against the settings that
validate (`usable_site`), and `SiteCheck.broken` names the ones that did not.

Why one module: the rules of one file run in an order the findings depend on: its limits
first (what is over one is left out before anything uses it), then `[rules]` and `[fields]`,
then validation, then the values that validated. Each step reads the same document for its
positions and passes on what the next must not see; split, every part would take the others'
document, findings and left-out settings as parameters.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import posixpath
import re
from collections.abc import Callable
from typing import Any

from catalogctl.content.document import Document
from catalogctl.content.fields import Mapped, parse_path, show_path
from catalogctl.content.limits import (
    MAX_SITE_ENTRIES,
    MAX_SITE_KEY,
    MAX_SITE_NAME,
    MAX_SITE_TEXT,
    too_long_text,
    too_many_entries,
)
from catalogctl.content.rules.characters import check_site_text
from catalogctl.content.rules.keys import dotted
from catalogctl.content.rules.registry import RULES, Findings, Severities
from catalogctl.content.rules.stores import SPEC_STORE_PARAMS, check_store_hosts, store_kind
from catalogctl.content.rules.suggest import Suggester
from catalogctl.content.rules.usable import SiteCheck, leave_out, usable_site
from catalogctl.content.rules.validation import UNKNOWN, pydantic_findings
from catalogctl.content.settings import (
    CATALOG_KEYS,
    REQUIRED_KEYS,
    ApiSettings,
    ApiVersionSettings,
    ContentSettings,
    SiteSettings,
    StoreSettings,
    validator,
)
from catalogctl.text import plural
from catalogctl.urls import shown, url_problem

_DIGITS_RE = re.compile(r"^[0-9]+$")
_LANGUAGE_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
# The settings class of each table ("*": any store key), for the keys it takes.
_TABLES: dict[tuple[str, ...], type[Any]] = {
    (): SiteSettings,
    ("content",): ContentSettings,
    ("api",): ApiSettings,
    ("api", "v1"): ApiVersionSettings,
    ("stores", "*"): StoreSettings,
}
_KNOWN = {prefix: tuple(f.name for f in dataclasses.fields(cls)) for prefix, cls in _TABLES.items()}
_SUGGEST = {prefix: Suggester(names, min_length=1) for prefix, names in _KNOWN.items()}
_RULE_IDS = Suggester(RULES, min_length=1)
_CATALOG_KEYS = Suggester(CATALOG_KEYS, min_length=1)


def severities_of(data: dict[str, Any]) -> Severities:
    rules = data.get("rules")
    if not isinstance(rules, dict):
        return Severities()
    return Severities({k: v for k, v in rules.items() if v in ("error", "warning", "off")})


def check_site(doc: Document, out: Findings) -> SiteCheck:
    data, cut = _within_limits(doc, out)
    _check_rules(data.get("rules"), doc, out)
    _check_fields(data.get("fields"), data.get("stores"), doc, out)
    from pydantic_core import ValidationError

    try:
        site: SiteSettings = validator("site").validate_python(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        for err in errors:
            if err["type"] in UNKNOWN:
                _unknown(tuple(err["loc"]), doc, out)
        pydantic_findings([e for e in errors if e["type"] not in UNKNOWN], doc, out)
        usable, broken = usable_site(data, errors)
        if usable is not None:
            _check_values(usable, doc, out)
        return SiteCheck(None, usable, broken | cut)
    _check_values(site, doc, out)
    if cut:  # valid without what was over a limit: not as written
        return SiteCheck(None, site, cut)
    return SiteCheck(site, site, frozenset())


# The lists and tables whose entries are names (a platform, a genre, a front-matter key path,
# a pattern of pages).
_NAME_LISTS = frozenset(
    {("platforms",), ("genres",), ("content", "own_keys"), ("content", "exclude"), ("fields",)}
)


def _within_limits(doc: Document, out: Findings) -> tuple[dict[str, Any], frozenset[str]]:
    """site.toml's data without what is over a limit (each a `limit` finding at it), and the
    names of the settings left out for it; checked before any value is used, so that no
    check downstream (the did-you-mean index of a vocabulary, above all) sees a name of
    200,000 letters or a list of a million."""
    over: list[tuple[tuple[Any, ...], str, bool]] = []  # (location, message, at its key)
    todo: list[tuple[tuple[Any, ...], Any]] = [((), doc.data)]
    while todo:
        path, value = todo.pop()
        if isinstance(value, dict | list) and len(value) > MAX_SITE_ENTRIES:
            what = "keys" if isinstance(value, dict) else "items"
            over.append((path, too_many_entries(what), False))
        elif isinstance(value, dict):
            for key, item in value.items():
                if len(key) > MAX_SITE_KEY:
                    over.append(((*path, key), too_long_text("a key", MAX_SITE_KEY), True))
                else:
                    todo.append(((*path, key), item))
        elif isinstance(value, list):
            todo.extend(((*path, i), item) for i, item in enumerate(value))
        elif isinstance(value, str):
            named = path[:-1] in _NAME_LISTS or path[:2] == ("fields", "stores")
            limit, what = (
                (MAX_SITE_NAME, "a name (a platform, a genre, a key path, a pattern)")
                if named
                else (MAX_SITE_TEXT, "a text")
            )
            if len(value) > limit:
                over.append((path, too_long_text(what, limit), False))
    if not over:
        return doc.data, frozenset()
    data = copy.deepcopy(doc.data)
    cut: set[str] = set()
    for loc, message, at_key in sorted(over, key=lambda o: _position(doc, o[0], o[2])):
        line, col = _position(doc, loc, at_key)
        out.add("limit", message, line=line, column=col, field=dotted(loc) if loc else None)
        leave_out(data, loc, cut)
    return data, frozenset(cut)


def _position(doc: Document, loc: tuple[Any, ...], at_key: bool) -> tuple[int, int]:
    line, col = doc.key_pos(loc) if at_key else doc.value_pos(loc)
    return (line or 0, col or 0)


def _unknown(loc: tuple[Any, ...], doc: Document, out: Findings) -> None:
    loc = tuple(p for p in loc if p != "[key]")
    prefix = tuple(
        "*" if len(loc) == 3 and loc[0] == "stores" and i == 1 else p
        for i, p in enumerate(loc[:-1])
    )
    suggest = _SUGGEST.get(prefix)
    close = suggest(str(loc[-1])) if suggest is not None else None
    hint = f"; did you mean {close!r}?" if close else ""
    known = _KNOWN.get(prefix)
    if not hint and known:
        where = f"[{dotted(loc[:-1])}]" if loc[:-1] else "site.toml"
        hint = f"; {where} takes: {', '.join(known)}"
    elif not hint:
        hint = "; remove it (the settings reference lists every key)"
    line, col = doc.key_pos(loc)
    out.add(
        "unknown-setting",
        f"unknown key {shown(str(loc[-1]))}{hint}",
        line=line,
        column=col,
        field=dotted(loc),
    )


def check_mappings(
    doc: Document,
    mapped: tuple[Mapped, ...],
    use: tuple[int, dict[int, str]],
    body_links: bool,
    out: Findings,
) -> set[str]:
    """Each [fields] entry that no page has (reported at its line of site.toml): for a
    required key, misspelled (an error); for an optional key or a store, not used by any page
    yet (a warning); running through a list without `[key=value]` to pick an item (an error).
    With `body_links`, pages may take their stores from their bodies: `stores` is optional.
    Returns the stores whose [fields.stores] entry was reported as no page's."""
    seen, listed = use
    required = REQUIRED_KEYS - {"stores"} if body_links else REQUIRED_KEYS
    stores: set[str] = set()
    for i, entry in enumerate(mapped):
        if seen >> i & 1:
            continue
        line, col = doc.value_pos(entry.loc)
        path = show_path(entry.path)
        rule = "field-mapping"
        if i in listed:
            message = (
                f"{path!r} runs through a list (in {listed[i]}, and no page has it): pick an "
                f"item with [key=value], e.g. 'links[platform=googleplay].url'"
            )
        elif entry.target in required:
            message = f"no page has {path!r}: check the key's spelling, or remove this line"
        else:
            rule = "unused-mapping"
            message = (
                f"no page has {path!r} yet; pages that set it will have their "
                f"{entry.target} read from it (check the key's spelling)"
            )
            if entry.target.startswith("stores."):
                store = entry.target.removeprefix("stores.")
                stores.add(store)
                message = (
                    f"no page has {path!r} yet, so no game lists store {store!r} from it; "
                    f"pages that set it will have their {entry.target} read from it (check "
                    "the key's spelling)"
                )
        out.add(rule, message, line=line, column=col, field=dotted(entry.loc))
    return stores


def _check_rules(rules: Any, doc: Document, out: Findings) -> None:
    if not isinstance(rules, dict):
        return
    for key in rules:
        loc = ("rules", key)
        line, col = doc.key_pos(loc)
        rule = RULES.get(key)
        if rule is None:
            close = _RULE_IDS(str(key))
            hint = f"did you mean {close!r}? " if close else ""
            out.add(
                "unknown-setting",
                f"unknown rule {shown(str(key))}; {hint}"
                "`catalogctl validate --list-rules` lists them",
                line=line,
                column=col,
                field=dotted(loc),
            )
        elif not rule.configurable:
            out.add(
                "rule-config",
                f"rule {key!r} cannot be changed (a catalog with this problem cannot be "
                "published); remove this line",
                line=line,
                column=col,
                field=dotted(loc),
            )


def _check_fields(fields: Any, stores: Any, doc: Document, out: Findings) -> None:
    if not isinstance(fields, dict):
        return
    for key, value in fields.items():
        loc = ("fields", key)
        if key not in CATALOG_KEYS:
            close = _CATALOG_KEYS(str(key))
            hint = (
                f"; did you mean {close!r}?"
                if close
                else f"; catalog keys: {', '.join(CATALOG_KEYS)}"
            )
            line, col = doc.key_pos(loc)
            out.add(
                "unknown-setting",
                f"{shown(str(key))} is not a catalog key{hint}",
                line=line,
                column=col,
                field=dotted(loc),
            )
            continue
        items = value.items() if key == "stores" and isinstance(value, dict) else [(None, value)]
        for store, text in items:
            sub = loc if store is None else (*loc, store)
            line, col = doc.value_pos(sub)
            if not isinstance(text, str) or parse_path(text) is None:
                out.add(
                    "field-mapping",
                    "must be a front-matter key, dotted for nested tables "
                    f'("params.icon"), with [key=value] to pick an item of a list '
                    f'("links[platform=ios].url"), not {shown(str(text))}',
                    line=line,
                    column=col,
                    field=dotted(sub),
                )
            elif store is not None and isinstance(stores, dict) and store not in stores:
                out.add(
                    "unknown-store",
                    f"maps store {shown(str(store))}, which [stores] does not define; add "
                    f"[stores.{store}], or remove this line",
                    line=line,
                    column=col,
                    field=dotted(sub),
                )


def _as_date(value: Any) -> dt.date:
    return value.date() if isinstance(value, dt.datetime) else value


# Reports a finding at the value of a site.toml location: add(rule, ("base_url",), message).
_Add = Callable[[str, tuple[Any, ...], str], None]


def _check_values(site: SiteSettings, doc: Document, out: Findings) -> None:
    """The rules of the values (those that failed validation stand in as defaults, which
    pass these rules: nothing is reported twice)."""

    def add(rule: str, loc: tuple[Any, ...], msg: str) -> None:
        line, col = doc.value_pos(loc)
        out.add(rule, msg, line=line, column=col, field=dotted(loc))

    for name in ("title", "description"):
        if not getattr(site, name).strip():
            add("empty-value", (name,), "is blank; give it a value")
    check_site_text(site, add)
    _check_urls(site, add)
    _check_content(site.content, add)
    _check_store_params(site, add)
    check_store_hosts(site, add)
    _check_api_lifecycle(site.api.v1, add)


def _check_urls(site: SiteSettings, add: _Add) -> None:
    """`base_url`, and `game_url` with the base URL and an id filled in."""
    base = site.base_url
    problem = url_problem(base, loopback_http=True)
    if problem:
        add(
            "invalid-url",
            ("base_url",),
            f"the base URL {problem} (the address the catalog is published at, such as "
            "https://games.example.com)",
        )
    elif base.endswith("/"):
        add("base-url", ("base_url",), f"must not end with '/': use {shown(base.rstrip('/'))}")
    elif "?" in base or "#" in base:
        add("base-url", ("base_url",), "must not carry a query or fragment; remove the ?… or #…")
    if "{id}" not in site.game_url:
        add(
            "game-url",
            ("game_url",),
            "must contain '{id}', the place of the game's id in its page URL",
        )
    elif not problem:
        example = site.game_url.replace("{base_url}", base).replace("{id}", "example-id")
        game_problem = url_problem(example, loopback_http=True)
        if game_problem:
            add(
                "invalid-url",
                ("game_url",),
                f"with {{base_url}} and {{id}} filled in, the game URL {game_problem}",
            )


def _check_content(content: ContentSettings, add: _Add) -> None:
    """[content]: a games folder inside the content tree, a language code."""
    games = content.games
    normal = posixpath.normpath(games.replace("\\", "/"))
    if (
        games.startswith(("/", "\\"))
        or re.match(r"^[A-Za-z]:", games)
        or normal == ".."
        or normal.startswith("../")
    ):
        add(
            "games-folder",
            ("content", "games"),
            f"must be a folder inside the content tree, relative to site.toml, not {shown(games)}",
        )
    elif "\\" in games:
        # Read as a separator on Windows only: the same site.toml would name another folder
        # (or none) on Linux and macOS, where CI runs.
        add(
            "games-folder",
            ("content", "games"),
            f"separates its folders with '\\', which only Windows reads as a separator; write "
            f"{shown(normal)}, which every system reads",
        )
    if not _LANGUAGE_RE.match(content.language):
        add(
            "wrong-type",
            ("content", "language"),
            f"must be a language code like 'en' or 'pt-br', not {shown(content.language)}",
        )


def _check_store_params(site: SiteSettings, add: _Add) -> None:
    """Each store's attribution parameters, against those the API contract (§2.4) names for
    its kind."""
    for key, store in site.stores.items():
        loc = ("stores", key, "params")
        for name, _value in store.params.items():
            if not name.strip():
                add("store-params", loc, "a parameter name is blank; name it, or remove it")
        pt = store.params.get("pt")
        if pt is not None and not _DIGITS_RE.match(pt):
            add(
                "store-params",
                (*loc, "pt"),
                f"the provider token pt is {shown(pt)}, and it must be digits only (the App "
                "Store's provider token of the studio)",
            )
        for name, expected in SPEC_STORE_PARAMS.get(store_kind(key, store), {}).items():
            have = store.params.get(name)
            value = '"…"' if expected is None else f'"{expected}"'
            if have is None:
                add(
                    "spec-params",
                    loc,
                    f"the API contract (§2.4) names the attribution parameter {name!r} for "
                    f"this store; add {name} = {value} to its params",
                )
            elif expected is not None and have != expected:
                add(
                    "spec-params",
                    (*loc, name),
                    f"{name} is {shown(have)}, and the API contract (§2.4) names {name} = "
                    f"{value} for this store; set it to {value}",
                )


def _in_utc(value: dt.date | dt.datetime) -> bool:
    """Whether a date-time's UTC time is within the years a date holds (1 to 9999): the
    headers give it in UTC (`9999-12-31T23:59:59-14:00` is in the year 10000 there)."""
    if not isinstance(value, dt.datetime) or value.tzinfo is None:
        return True
    try:
        value.astimezone(dt.UTC)
    except OverflowError:
        return False
    return True


def _check_api_lifecycle(v1: ApiVersionSettings, add: _Add) -> None:
    """[api.v1]: status, deprecation, sunset and migration agree (RFC 9745, the API
    contract's §9)."""
    api: tuple[str, ...] = ("api", "v1")
    outside = False
    for name in ("deprecation", "sunset"):
        value = getattr(v1, name)
        if value is not None and not _in_utc(value):
            outside = True
            add(
                "api-lifecycle",
                (*api, name),
                f"{value.isoformat()} is, in UTC, outside the years 1 to 9999 that the "
                f"{name.capitalize()} header can carry; set a date within them",
            )
    if v1.status == "deprecated" and v1.deprecation is None:
        add(
            "api-lifecycle",
            (*api, "deprecation"),
            "status is 'deprecated' but no deprecation date is set; add deprecation = "
            "YYYY-MM-DD, the day the deprecation is announced (RFC 9745)",
        )
    if v1.status == "deprecated" and v1.migration is None:
        add(
            "migration-link",
            (*api, "migration"),
            "status is 'deprecated' but no migration guide is linked; set migration to the "
            "address of a guide to the next version",
        )
    if v1.status == "supported" and v1.deprecation is not None:
        add(
            "api-lifecycle",
            (*api, "status"),
            "a deprecation date is set but status is 'supported'; set status = "
            '"deprecated", or remove the deprecation date',
        )
    if v1.sunset is not None and not outside:
        if v1.deprecation is None:
            add(
                "api-lifecycle",
                (*api, "sunset"),
                "a sunset date is set without a deprecation date; add deprecation, at least "
                "90 days before the sunset (the API contract, §9)",
            )
        else:
            notice = (_as_date(v1.sunset) - _as_date(v1.deprecation)).days
            if notice < 90:
                deprecated = _as_date(v1.deprecation)
                fix = (
                    f"set sunset to {deprecated + dt.timedelta(days=90)} or later"
                    if deprecated <= dt.date.max - dt.timedelta(days=90)
                    else "set deprecation at least 90 days before it"
                )
                add(
                    "api-lifecycle",
                    (*api, "sunset"),
                    f"sunset is {plural(notice, 'day')} after deprecation, and the API "
                    f"contract (§9) gives clients at least 90; {fix}",
                )
    if v1.migration is not None:
        problem = url_problem(v1.migration, loopback_http=True)
        if problem:
            add(
                "invalid-url",
                (*api, "migration"),
                f"the migration guide's address {problem} (an https:// URL)",
            )
