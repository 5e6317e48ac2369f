"""The site.toml text of a proposal: each setting with a comment saying what it rests on."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from catalogctl.content.scaffold.choose import Candidate
from catalogctl.content.scaffold.configs import cname
from catalogctl.content.scaffold.pageurl import page_url
from catalogctl.content.scaffold.proposal import Proposal
from catalogctl.content.scaffold.sections import astro_schema, schema_store
from catalogctl.content.scaffold.stores import Store
from catalogctl.content.scaffold.values import one_value_note
from catalogctl.content.storehosts import known_store
from catalogctl.errors import InputError
from catalogctl.text import clean, path_text, plural
from catalogctl.urls import base_url_problem, host_of, is_loopback_host

_BARE = re.compile(r"[A-Za-z0-9_-]+")
# Parameters of contract §2.4 that are the same for every site (pt is the studio's own).
SPEC_PARAMS = {
    "apple": '{ ct = "service_api_game_catalog", mt = "8" }',
    "google-play": '{ utm_source = "service_api", utm_campaign = "game_catalog" }',
}


# What JSON leaves as it is but a TOML string may not hold (DEL), or a reader should not meet
# raw (C1 controls): written as escapes.
_TOML_ESCAPES = re.compile("[\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # a byte of a name that is not UTF-8


def toml_str(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's, with DEL and C1 escaped too); a name
    that is not UTF-8 (a folder's, read from the disk) has no TOML form: InputError."""
    if _SURROGATE.search(value):
        raise InputError(
            f"site.toml cannot hold {path_text(value)}: a name in it is not UTF-8; rename that "
            "folder or file in UTF-8"
        )
    text = json.dumps(value, ensure_ascii=False)
    return _TOML_ESCAPES.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def toml_key(key: str) -> str:
    return key if _BARE.fullmatch(key) else toml_str(key)


def site_toml(root: Path, p: Proposal) -> tuple[str, list[str]]:
    """The site.toml of a proposal, and what the user should check or add by hand."""
    gen = p.generator
    notes: list[str] = []
    site_name = gen.title or root.resolve().name
    lines = [
        f"# site.toml of the game catalog, proposed by `catalogctl init` for {gen.site}.",
        "# Each setting says what it rests on; check the guesses, then run `catalogctl validate`.",
    ]
    # The address the settings give, where validate takes it as a base URL (else a note).
    found: list[tuple[str, str]] = []
    if gen.base_url:
        found.append((gen.base_url.rstrip("/"), gen.base_from or gen.config or "its settings"))
    local = gen.base_url is not None and is_loopback_host(host_of(gen.base_url))
    given = gen.base_url or ""
    unusable = bool(given) and base_url_problem(given.rstrip("/")) is not None
    custom = cname(root) if not given or local or unusable else None
    if custom is not None:  # a GitHub Pages site's own domain
        found.append((custom, "the CNAME file"))
    elif unusable and given.startswith("http://"):
        # An address of the days before https (`url: http://studio.dk`): the same host, with
        # https, is the guess (GitHub Pages and most hosts serve both).
        secure = "https://" + given.rstrip("/").removeprefix("http://")
        if not base_url_problem(secure):
            found.append((secure, f"{gen.base_from or gen.config}, with https"))
    usable = [(address, source) for address, source in found if not base_url_problem(address)]
    # A local address (Hugo's `baseURL = "http://localhost:1313/"` while the site is worked
    # on) only where there is no other: the catalog's links would point at the editor's machine.
    usable.sort(key=lambda found: is_loopback_host(host_of(found[0])))
    if usable:
        address, source = usable[0]
        lines.append(f"base_url = {toml_str(address)}  # from {source}")
        if source.endswith(", with https"):
            notes.append(
                f"base_url is {clean(address)[:200]}: {clean(source.removesuffix(', with https'))}"
                f" gives {clean(gen.base_url or '')[:200]}, and the catalog's links must start "
                "with https://; check the website is served there"
            )
        if is_loopback_host(host_of(address)):
            notes.append(
                f"set base_url to the website's public address: the one in {clean(source)} "
                f"({clean(address)[:200]}) is a local one, so the catalog's links would point "
                "at this machine"
            )
    else:
        lines.append('base_url = "https://example.com"  # guess: no address found; set yours')
        if found:
            address, source = found[0]
            notes.append(
                f"set base_url to the website's address: the one in {clean(source)} "
                f"({clean(address)[:200]}) {base_url_problem(address)}"
            )
        else:
            notes.append("set base_url to the website's address (none was found in its settings)")
    said = gen.title_from or gen.config
    from_config = f"  # from {said}" if gen.title else "  # guess: the folder's name"
    lines.append(f"title = {toml_str(site_name)}{from_config}")
    if gen.description:
        said = gen.description_from or gen.config
        lines.append(f"description = {toml_str(gen.description)}  # from {said}")
    else:
        lines.append(f"description = {toml_str(f'Games by {site_name}.')}  # guess: one line")
    url = page_url(gen, root, p.games)
    lines.append(f"game_url = {toml_str('{base_url}' + url.path)}  # guess: {url.why}")
    if url.note is not None:
        notes.append(url.note)
    lines += ["", "[content]", *_content_lines(p, notes)]
    lines += _field_lines(p)
    lines += _store_lines(root, p, notes)
    # One line each: a value a comment quotes (a page's, a folder's name) cannot start a line
    # of its own (values themselves are escaped, `toml_str`).
    return "\n".join(clean(line) for line in lines) + "\n", notes


def _content_lines(p: Proposal, notes: list[str]) -> list[str]:
    """`[content]`: the games folder (and the folders weighed when init is unsure), the
    category of the game pages, the language, the site's own keys, body links."""
    gen, n = p.generator, p.keys.pages
    if p.choice is None:
        why = "given with --games"
    else:
        chosen = p.choice.chosen()
        why = "; ".join(chosen.reasons) if chosen is not None and chosen.reasons else ""
        why = why or f"{p.keys.games + p.body_pages} of {plural(n, 'page')} link a store"
    lines = [f"games = {toml_str(p.games)}  # {why}"]
    if p.choice is not None and not p.choice.sure:
        others = [c for c in p.choice.candidates if c.folder != p.games][:3]
        if others:
            lines.append("# Not sure: also weighed " + "; ".join(_weighed(c) for c in others))
            notes.append(
                f"the games folder is a guess: {p.games} ({why}) over "
                + "; ".join(_weighed(c) for c in others)
                + ": check [content] games"
            )
    if p.sections:
        shown = ", ".join(p.sections[:2]) + (", …" if len(p.sections) > 2 else "")
        lines.append(
            f"sections = true  # a game with pages of its own keeps its text in its section's "
            f"page: {shown}"
        )
    if p.exclude:
        lines.append("exclude = [  # pages of the games folder that are not games")
        lines += [f"  {toml_str(pattern)},  # {why}" for pattern, why in p.exclude]
        lines.append("]")
    if p.category is not None:
        held, pages = p.keys.pages, p.keys.pages + p.keys.outside
        lines.append(
            f"category = {toml_str(p.category)}  # held by {held} of {plural(pages, 'page')} "
            f"of {p.games}; the others are not games"
        )
    if gen.language and gen.language != "en":
        lines.append(f"language = {toml_str(gen.language)}  # from {gen.config}")
    if p.own_keys:
        lines.append(
            f"own_keys = [{', '.join(toml_str(k) for k in p.own_keys)}]  # the site's own keys "
            "that look like catalog keys"
        )
    if p.body_links:
        lines.append(
            f"body_links = true  # {p.body_pages} of {plural(n, 'page')} link their stores in "
            "the page text, not in front matter"
        )
    return lines


def _weighed(c: Candidate) -> str:
    reasons = ", ".join(c.reasons) if c.reasons else "nothing says games"
    return f"{c.folder} ({plural(c.pages, 'page')}: {reasons})"


def _field_lines(p: Proposal) -> list[str]:
    """`[fields]`: each catalog key read from another key, with the evidence."""
    n = p.keys.pages
    lines = ["", "[fields]  # the front-matter key of each catalog key, where it is not its own"]
    for key, (path, count) in p.fields.items():
        if path == key:
            continue
        if key in p.guesses:
            why = f"guess: {p.guesses[key]}"
        else:
            why = f"in {count} of {plural(n, 'page')}"
            if key in ("platforms", "genres"):
                example = "iOS" if key == "platforms" else "Puzzle"
                why += one_value_note(p.keys, tuple(path.split(".")), example)
        lines.append(f"{key} = {toml_str(path)}  # {why}")
    if p.stores_table is not None:
        lines.append(f"stores = {toml_str(p.stores_table)}  # the pages' table of store links")
    return lines


def _unused_schema_stores(root: Path, p: Proposal) -> list[str]:
    """The store keys of an Astro collection's schema that no page has yet, as comments: they
    wait for the first page that links the store."""
    schema = astro_schema(root)
    if schema is None:
        return []
    config, names = schema
    used = {s.path for s in p.stores}
    # Not linked by any page yet: absent, or empty (`gamejolt: ""`).
    waiting = [k for k in names if k not in used]
    if not waiting:
        return []
    lines = ["", f"# {config}'s schema has store keys no page links yet; when a page links one:"]
    for name in waiting:
        store = schema_store(name)
        key = store.key if store is not None else name
        lines.append(f"# {toml_key(key)} = {toml_str(name)}  (and a [stores.{key}] table)")
    return lines


def _store_lines(root: Path, p: Proposal, notes: list[str]) -> list[str]:
    """`[fields.stores]` and a `[stores.<key>]` table per store."""
    n = p.keys.pages
    lines: list[str] = []
    per_store = [s for s in p.stores if s.path is not None]
    if per_store:
        lines += ["", "[fields.stores]  # where each store's link is"]
        paths = Counter(s.path for s in per_store)
        for s in per_store:
            shared = "; each link goes to the store of its host" if paths[s.path] > 1 else ""
            said = (
                f"named by {s.template}, the template of a new game; no page links it yet"
                if s.template is not None
                else f"{s.host} links in {s.links} of {plural(n, 'page')}{shared}"
            )
            lines.append(f"{toml_key(s.key)} = {toml_str(s.path or '')}  # {said}")
    lines += _unused_schema_stores(root, p)
    if not p.stores:
        notes.append(
            "no store link found in the pages: add a [stores.<key>] table for each store the "
            "games are sold in, and the links to the pages"
        )
    for s in p.stores:
        # An apple store's provider token is the studio's own: validate's spec-params says
        # where it goes, and the table has a comment for it.
        lines += ["", f"[stores.{toml_key(s.key)}]", *_store_table(s)]
    return lines


def _store_table(s: Store) -> list[str]:
    where = ", ".join(s.hosts[:3]) if s.body and s.hosts else s.host
    said = f"the usual name of {where}"
    if known_store(s.key, s.name) is None:  # a store of the site's own (`storeLinks.web`)
        said = f"from its key, {s.path or s.key}"
    lines = [f"name = {toml_str(s.name)}  # guess: {said}"]
    if s.template is not None:
        links = f"link in {s.template}"
    elif s.body:
        links = "links in the page text"
    else:
        links = plural(s.links, "link") if s.links else "links on the site's other pages"
    lines.append(f"kind = {toml_str(s.kind)}  # by the host of its {links}")
    if s.kind == "apple" and s.pt is not None:
        params = SPEC_PARAMS["apple"].replace("{ ", f"{{ pt = {toml_str(s.pt)}, ", 1)
        lines.append(f"params = {params}  # pt: the provider token of the pages' own links")
    elif s.kind in SPEC_PARAMS:
        lines.append(f"params = {SPEC_PARAMS[s.kind]}")
    if s.kind == "apple" and s.pt is None:
        lines.append(
            '# pt = "…": your App Store provider token (API contract §2.4): add it to params'
        )
    return lines


__all__ = ["SPEC_PARAMS", "site_toml", "toml_key", "toml_str"]
