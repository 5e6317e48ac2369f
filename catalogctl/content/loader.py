"""Content tree → catalog: reading site.toml and the game pages, and every rule of `validate`.

`load()` never raises for bad content: every problem becomes a `Finding` with its rule id,
file, line, column and field, so that `validate` can report all of them at once, and a
`ReadSummary` says what was read and what was skipped. `load_catalog()` raises `ContentInvalid`
when the content has errors, and otherwise returns the catalog as published.

Why one module: `load()` is one pass from a content tree to its findings: site.toml first (its
settings decide where the pages are and how they are read), then every page (from
`PARALLEL_THRESHOLD` pages in parallel workers, each given this module's page context), then
the checks across pages; the result types it fills (`ReadSummary`, `Content`, `Catalog`) are
what every command reads. The rules themselves live in `content.rules`, the reading of files
in the modules below.
"""

import datetime as dt
import os
import posixpath
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.bodylinks import PageBody
from catalogctl.content.categories import in_category, page_labels
from catalogctl.content.discovery import Discovery, PageFile, discover, unreadable
from catalogctl.content.document import Document, Problem
from catalogctl.content.fields import FieldMap
from catalogctl.content.files import read_head
from catalogctl.content.frontmatter import HEAD_BYTES, parse_page
from catalogctl.content.rules.ids import check_id_case, named
from catalogctl.content.rules.page import (
    DRAFT,
    EXPIRED,
    PUBLISHED,
    SCHEDULED,
    Entry,
    PageContext,
    check_page,
)
from catalogctl.content.rules.registry import DEFAULT_SEVERITIES, Findings, Severities, cap_run
from catalogctl.content.rules.site import check_mappings, check_site, severities_of
from catalogctl.content.rules.stores import (
    PLATFORM_OF_KIND,
    check_unlinked_stores,
    store_kind,
    with_params,
)
from catalogctl.content.rules.usable import SiteCheck
from catalogctl.content.settings import SiteSettings
from catalogctl.content.sitefile import SITE_FILE, games_as_on_disk, read_site
from catalogctl.content.summary import ReadSummary
from catalogctl.contract.publication import Lifecycle, Publication
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.findings import ERROR, WARNING, Finding
from catalogctl.paths import inside
from catalogctl.text import path_text, plural, quoted
from catalogctl.urls import shown as shown_value
from catalogctl.urls import url_problem

__all__ = [
    "GAMES_DIR",
    "SITE_FILE",
    "Catalog",
    "Content",
    "ReadSummary",
    "load",
    "load_catalog",
    "read_site",
    "sample_content",
    "store_platforms",
    "with_params",
]

GAMES_DIR = "games"
# Below this many pages a process pool costs more than it saves.
PARALLEL_THRESHOLD = 1500


class Content(NamedTuple):
    """Everything loaded from a content tree, valid or not."""

    root: Path
    site: SiteSettings | None
    entries: list[Entry]
    findings: list[Finding]
    summary: ReadSummary

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    @property
    def files(self) -> int:
        """Files read: site.toml and the pages."""
        return self.summary.pages + 1

    def published(self) -> list[dict[str, Any]]:
        """The published games, in Hugo's order."""
        games = [e for e in self.entries if e.state == PUBLISHED and e.game is not None]
        games.sort(key=lambda e: e.order)
        return [e.game for e in games if e.game is not None]


class Catalog(NamedTuple):
    """A valid catalog: site settings and the games as published (contract §2.3 field order)."""

    site: SiteSettings
    games: list[dict[str, Any]]
    summary: ReadSummary
    warnings: list[Finding]  # findings that do not stop it

    @property
    def publication(self) -> Publication:
        """The site-wide facts every contract document is made from."""
        site, v1 = self.site, self.site.api.v1
        return Publication(
            base_url=site.base_url,
            title=site.title,
            description=site.description,
            store_names=tuple(s.name for s in site.stores.values()),
            lifecycle=Lifecycle(v1.status, v1.deprecation, v1.sunset, v1.migration),
        )


def store_platforms(site: SiteSettings) -> dict[str, str]:
    """Store name → the platform its kind sells to ("ios", "android"), for the stores whose
    kind has one."""
    out: dict[str, str] = {}
    for key, store in site.stores.items():
        platform = PLATFORM_OF_KIND.get(store_kind(key, store))
        if platform is not None:
            out[store.name] = platform
    return out


# --- site.toml ------------------------------------------------------------------------------


_NO_SITE = SiteCheck(None, None, frozenset())


def _load_site(
    root: Path, shown: str
) -> tuple[SiteCheck, Document | None, Severities, list[Finding]]:
    out = Findings(posixpath.join(shown, SITE_FILE), DEFAULT_SEVERITIES)
    try:
        doc = read_site(root, shown)
    except Problem as p:
        out.add(p.rule, p.message, line=p.line, column=p.column)
        return _NO_SITE, None, DEFAULT_SEVERITIES, out.items
    severities = severities_of(doc.data)
    out.severities = severities
    return check_site(doc, out), doc, severities, out.items


# --- pages ----------------------------------------------------------------------------------


class _Outcome(NamedTuple):
    entry: Entry | None  # None: the page could not be read, or was not checked
    findings: list[Finding]
    seen: int = 0  # which of site.toml's [fields] mappings the page has (bits)
    listed: int = 0  # which ran into a list without picking an item (bits)
    linked: tuple[str, ...] = ()  # the store keys the page links (front matter or body)
    outside: bool = False  # not of [content] category: read, not a game
    labels: tuple[str, ...] = ()  # an outside page's categories (for a did-you-mean)


_CONTEXT: PageContext | None = None  # set before the pages are checked (by each worker too)


def _use_context(ctx: PageContext | None) -> None:
    """Where a parse worker starts: the context its pages are checked against."""
    global _CONTEXT  # noqa: PLW0603 - read by _check_one
    _CONTEXT = ctx


def _check_one(page: PageFile) -> _Outcome:
    ctx = _CONTEXT
    assert ctx is not None
    out = Findings(page.file, ctx.severities)
    try:
        raw, complete = read_head(page.path, HEAD_BYTES)
        doc = parse_page(raw, page.file, complete=complete)
    except OSError as exc:
        out.add("unreadable-file", unreadable(exc))
        return _Outcome(None, out.items)
    except Problem as p:
        out.add(p.rule, p.message, line=p.line, column=p.column)
        return _Outcome(None, out.items)
    if ctx.category is not None and not in_category(doc.data, ctx.category):
        return _Outcome(None, out.items, outside=True, labels=tuple(page_labels(doc.data)[:20]))
    body = None
    if ctx.body_hosts is not None and doc.body_at >= 0:
        body = PageBody(page.path, raw, complete, doc.body_at)
    entry, found = check_page(doc, page.id, page.date, ctx, out, body, os.path.dirname(page.path))
    if found is None:
        return _Outcome(entry, out.items)
    stores = found.values.get("stores")
    linked = tuple(stores) if isinstance(stores, dict) else ()
    return _Outcome(entry, out.items, found.seen, found.listed, linked)


def _crashed(page: PageFile, why: str) -> _Outcome:
    finding = Finding(
        page.file,
        None,
        None,
        f"the parser process {why} while reading this file, so it is not read; look for a "
        "huge or deeply nested front matter, and cut it down",
        ERROR,
        rule="parser-crash",
    )
    return _Outcome(None, [finding])


def _check_pages(pages: list[PageFile], ctx: PageContext) -> list[_Outcome]:
    _use_context(ctx)
    try:
        if len(pages) < PARALLEL_THRESHOLD:
            return [_check_one(p) for p in pages]
        from catalogctl.content.pool import cpu_count, parallel_map, start_method

        method = start_method()
        workers = min(cpu_count(), 8)
        if method is None or workers < 2:
            return [_check_one(p) for p in pages]
        return parallel_map(
            _check_one,
            pages,
            workers,
            _crashed,
            method=method,
            initializer=_use_context,
            initargs=(ctx,),
        )
    finally:
        _use_context(None)


def _nfc(text: str) -> str:
    if text.isascii():
        return text
    import unicodedata  # only for such a name: validate's start-up matters

    return unicodedata.normalize("NFC", text)


def _first_others(same: list[Entry], e: Entry, n: int) -> list[Entry]:
    """The first `n` entries of `same` other than `e`."""
    out: list[Entry] = []
    for o in same:
        if o is not e:
            out.append(o)
            if len(out) == n:
                break
    return out


def _cross_checks(entries: list[Entry], severities: Severities) -> list[Finding]:
    out: list[Finding] = []
    if len({e.id for e in entries}) == len(entries):
        return out
    by_id: dict[str, list[Entry]] = {}
    for e in entries:
        if e.id:  # "": an invalid slug, reported already
            by_id.setdefault(e.id, []).append(e)
    for game_id, same in by_id.items():
        if len(same) < 2:
            continue
        published = sum(e.state != DRAFT for e in same)
        # Per page, in constant time: the others it names, and whether one of them is its own
        # file written another way (thousands of pages may share an id).
        files = Counter(e.file for e in same)
        forms = Counter(_nfc(e.file) for e in same)
        for e in same:
            others = _first_others(same, e, 4)
            others_named = named([o.file for o in others[:3]]) + (
                f" and {len(same) - 4} more" if len(same) > 4 else ""
            )
            fix = "give one of them another slug"
            if forms[_nfc(e.file)] > files[e.file]:
                fix = (
                    "the two file names differ only in how an accent is written (composed, "
                    "or decomposed as macOS writes it); remove one of the two files"
                )
            found = Findings(e.file, severities, draft=published < 2)
            found.add(
                "duplicate-id",
                f"id {game_id!r} is also used by {others_named}; {fix}",
                line=e.id_pos[0],
                column=e.id_pos[1],
                field=e.id_field,
            )
            out.extend(found.items)
    return out


# --- the tree -------------------------------------------------------------------------------


def load(
    root: Path,
    *,
    display: str | None = None,
    base_url: str | None = None,
    now: dt.datetime | None = None,
    locate: bool = False,
    uncapped: bool = False,
) -> Content:
    """Load a content tree; every problem becomes a finding. Raises only for a bad root or
    a bad `base_url` override. `locate`: record the line of each published link. `uncapped`:
    without the cap of a rule per run (`MAX_PER_RULE_RUN`; a file's own cap stays)."""
    if not root.exists():
        raise InputError(f"content directory not found: {path_text(root)}")
    if not root.is_dir():
        raise InputError(f"not a content directory: {path_text(root)}")
    shown = path_text(display if display is not None else root)
    checked, site_doc, severities, findings = _load_site(root, shown)
    site, usable, broken = checked
    if usable is not None and base_url is not None:
        problem = url_problem(base_url, schemes=("http", "https"))
        if problem is None and base_url.endswith("/"):
            problem = "must not end with '/'"
        if problem:
            raise InputError(f"--base-url {problem}: {quoted(base_url)}")
        usable = usable.replace(base_url=base_url)
        site = site.replace(base_url=base_url) if site is not None else None
        broken -= {"base_url"}

    sitefile = Findings(posixpath.join(shown, SITE_FILE), severities)
    games_name = usable.content.games if usable is not None else GAMES_DIR
    games_shown = posixpath.normpath(posixpath.join(shown, path_text(games_name)))
    found = _discover(root, usable, broken, findings, sitefile)
    if usable is not None and site_doc is not None:
        _unused_excludes(found.unmatched, usable, site_doc, games_shown, sitefile)

    fields = None
    if usable is not None and "fields" not in broken:
        fields = FieldMap.from_settings(usable.fields)
    ctx = PageContext(usable, fields, severities, now or dt.datetime.now(dt.UTC), locate, broken)
    outcomes = _check_pages(found.pages, ctx)
    entries = [o.entry for o in outcomes if o.entry is not None]
    for outcome in outcomes:
        findings.extend(outcome.findings)
    findings.extend(sitefile.items)
    findings.extend(_cross_checks(entries, severities))
    findings.extend(check_id_case(entries, severities))
    games_read = any(not o.outside for o in outcomes)  # a page of the category, if any
    if fields is not None and site_doc is not None and games_read and usable is not None:
        mapping = Findings(sitefile.file, severities)
        unused: set[str] = set()  # stores whose [fields.stores] entry no page has
        if fields.mapped:
            use = _mapping_use(found.pages, outcomes)
            body_links = usable.content.body_links
            unused = check_mappings(site_doc, fields.mapped, use, body_links, mapping)
        if "stores" not in broken:  # which stores no page links
            # (one warning for one cause: a store whose entry no page has is told there)
            linked = {key for outcome in outcomes for key in outcome.linked} | unused
            every = all(o.entry is not None or o.outside for o in outcomes)
            check_unlinked_stores(site_doc, usable, linked, every, mapping)
        findings.extend(mapping.items)

    summary = _summary(found, outcomes, findings, ctx.category)
    # Pages not looked for (site.toml does not say where or which): site.toml's finding says
    # why, and no game published is no news.
    looked = not (broken & _WHERE_PAGES) and not any(f.rule == "games-folder" for f in findings)
    if looked and summary.published == summary.failed == summary.unchecked == 0:
        empty = Findings(games_shown, severities)
        fix = "add a game page to the games folder, or publish a draft"
        if summary.outside and summary.outside == summary.pages:
            fix = _no_page_of_the_category(summary.category, outcomes)
        elif summary.excluded and not summary.pages:
            fix = (
                f"[content] exclude leaves out every page ({summary.excluded}); narrow its patterns"
            )
        empty.add("empty-catalog", f"no game is published ({summary.describe()}); {fix}")
        findings.extend(empty.items)
    return Content(root, site, entries, findings if uncapped else cap_run(findings), summary)


def _no_page_of_the_category(category: str | None, outcomes: list[_Outcome]) -> str:
    """What to do when no page holds `[content] category`: the categories the pages hold."""
    seen: dict[str, int] = {}
    for outcome in outcomes:
        for label in dict.fromkeys(label.lower() for label in outcome.labels):
            seen[label] = seen.get(label, 0) + 1
    top = sorted(seen.items(), key=lambda item: (-item[1], item[0]))[:5]
    if not top:
        return (
            f"no page has a categories, category or tags key holding {category!r}; add it to "
            "the game pages, or leave [content] category out to read every page as a game"
        )
    shown = ", ".join(f"{label} ({n})" for label, n in top)
    return (
        f"no page holds the category {category!r}; the pages' categories and tags are {shown}: "
        "set [content] category to the one the game pages hold"
    )


# The settings that say where the pages are and which of them are games.
_WHERE_PAGES = frozenset(
    {
        "content",
        "content.games",
        "content.language",
        "content.category",
        "content.exclude",
        "content.sections",
    }
)


def _unused_excludes(
    unmatched: list[int],
    site: SiteSettings,
    doc: Document,
    games_shown: str,
    out: Findings,
) -> None:
    """A pattern of [content] exclude that named no page: a finding at it."""
    for i in unmatched:
        pattern = site.content.exclude[i]
        line, col = doc.value_pos(("content", "exclude", i))
        out.add(
            "unused-exclude",
            f"{shown_value(pattern)} names no page of the games folder {games_shown}; "
            "correct it (read as .gitignore reads a pattern, from the games folder: "
            "'privacy*', 'legal/', '*/notes/*') or remove it",
            line=line,
            column=col,
            field=f"content.exclude.{i}",
        )


def _discover(
    root: Path,
    site: SiteSettings | None,
    broken: frozenset[str],
    findings: list[Finding],
    sitefile: Findings,
) -> Discovery:
    """The pages of the games folder that site.toml names (or the default one)."""
    games_name = site.content.games if site is not None else GAMES_DIR
    language = site.content.language if site is not None else "en"
    games_dir = os.path.normpath(os.path.join(root, games_name))
    games_shown = posixpath.normpath(
        posixpath.join(posixpath.dirname(sitefile.file), path_text(games_name))
    )
    if broken & _WHERE_PAGES:
        return Discovery()  # where the pages are, or which of them are games, is not known
    if any(f.rule == "games-folder" for f in findings):
        return Discovery()
    found = Discovery()
    on_disk = games_as_on_disk(root, games_name) if site is not None else None
    if not os.path.isdir(games_dir):
        if site is not None:  # without settings, the missing site.toml is the finding
            twin = f" ({on_disk!r} does: names differ in case)" if on_disk else ""
            sitefile.add(
                "games-folder",
                f"the games folder {games_name!r} does not exist{twin}; create it, or set "
                "[content] games in site.toml to the folder of the game pages",
                file=games_shown,
            )
    elif on_disk is not None:
        # Found here by a file system that ignores case (Windows, macOS): Linux, where CI
        # runs, reads another folder.
        sitefile.add(
            "games-folder",
            f"the games folder is {on_disk!r} on disk, not {games_name!r}: a system that tells "
            f"case apart (Linux) finds no folder {games_name!r}; write games = {on_disk!r}",
            file=games_shown,
        )
    elif not inside(games_dir, os.path.realpath(root)):
        sitefile.add(
            "games-folder",
            f"the games folder {games_name!r} leads out of the content tree; set [content] "
            "games to a folder inside it",
            file=games_shown,
        )
    else:
        content = site.content if site is not None else None
        found = discover(
            games_dir,
            games_shown,
            str(root),
            language,
            content.exclude if content is not None else (),
            content is not None and content.sections,
        )
    for p in found.problems:
        sitefile.add(p.rule, p.message, file=p.file)
    return found


def _mapping_use(pages: list[PageFile], outcomes: list[_Outcome]) -> tuple[int, dict[int, str]]:
    """Which [fields] mappings some page has (bits), and for each mapping that ran into a list
    in a page that lacks it, the first such page."""
    seen = 0
    listed: dict[int, str] = {}
    for page, outcome in zip(pages, outcomes, strict=True):
        seen |= outcome.seen
        bits, i = outcome.listed, 0
        while bits:
            if bits & 1:
                listed.setdefault(i, page.file)
            bits >>= 1
            i += 1
    return seen, listed


def _summary(
    found: Discovery, outcomes: list[_Outcome], findings: list[Finding], category: str | None
) -> ReadSummary:
    """Each page counted once: with errors, else by its state."""
    failing = {f.file for f in findings if f.severity == ERROR}
    counts = {PUBLISHED: 0, DRAFT: 0, SCHEDULED: 0, EXPIRED: 0}
    failed = unchecked = outside = 0
    for page, outcome in zip(found.pages, outcomes, strict=True):
        entry = outcome.entry
        if page.file in failing:
            failed += 1
        elif outcome.outside:
            outside += 1
        elif entry is None or (entry.game is None and entry.state != DRAFT):
            unchecked += 1
        else:
            counts[entry.state] += 1
    return ReadSummary(
        pages=len(found.pages),
        published=counts[PUBLISHED],
        drafts=counts[DRAFT],
        scheduled=counts[SCHEDULED],
        expired=counts[EXPIRED],
        failed=failed,
        unchecked=unchecked,
        translations=found.translations,
        sections=found.sections,
        resources=found.resources,
        excluded=found.excluded,
        ignored=tuple(sorted(found.ignored.items())),
        outside=outside,
        category=category,
    )


def load_catalog(
    root: Path,
    *,
    display: str | None = None,
    strict: bool = False,
    base_url: str | None = None,
) -> Catalog:
    """Load and check a content tree; raise `ContentInvalid` when it has errors.

    `base_url` replaces the one of site.toml (e.g. to serve the catalog locally).
    """
    content = load(root, display=display, base_url=base_url)
    failing = content.errors + (content.warnings if strict else [])
    if failing or content.site is None:
        n = sum(f.tally for f in failing)
        raise ContentInvalid(f"content is invalid ({plural(n, 'problem')})", content.findings)
    return Catalog(content.site, content.published(), content.summary, content.warnings)


def sample_content() -> Path:
    """The bundled sample content (installed package data, or the source checkout)."""
    here = Path(__file__).resolve().parent.parent  # the catalogctl package
    for candidate in (here / "_sample_content", here.parent / "content"):
        if (candidate / SITE_FILE).is_file():
            return candidate
    raise InputError("the bundled sample content is missing from this installation")
