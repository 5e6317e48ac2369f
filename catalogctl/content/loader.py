"""Content tree → catalog: reading site.toml and the game pages, and every rule of `validate`.

`load()` never raises for bad content: every problem becomes a `Finding` with its rule id,
file, line, column and field, so that `validate` can report all of them at once, and a
`ReadSummary` says what was read and what was skipped. `load_catalog()` raises `ContentInvalid`
when the content has errors, and otherwise returns the catalog as published.

Why one module: `load()` is one pass from a content tree to its findings: site.toml first (its
settings decide where the pages are and how they are read), then every page (in forked
workers that inherit this module's page context), then the checks across pages; the result
types it fills (`ReadSummary`, `Content`, `Catalog`) are what every command reads. The rules
themselves live in `content.rules`, the reading of files in the modules below.
"""

import datetime as dt
import os
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.discovery import Discovery, PageFile, discover, read_head
from catalogctl.content.document import Document, Problem
from catalogctl.content.fields import DEFAULT_FIELDS, FieldMap
from catalogctl.content.frontmatter import HEAD_BYTES, decode, parse_page
from catalogctl.content.limits import MAX_SITE_BYTES
from catalogctl.content.rules.page import (
    DRAFT,
    EXPIRED,
    PUBLISHED,
    SCHEDULED,
    Entry,
    PageContext,
    check_page,
)
from catalogctl.content.rules.registry import DEFAULT_SEVERITIES, Findings, Severities
from catalogctl.content.rules.site import check_site, severities_of
from catalogctl.content.rules.stores import SPEC_STORE_PARAMS, with_params
from catalogctl.content.settings import SiteSettings
from catalogctl.content.tomldoc import read_toml
from catalogctl.contract.publication import Lifecycle, Publication
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.findings import ERROR, WARNING, Finding
from catalogctl.text import plural
from catalogctl.urls import url_problem

__all__ = [
    "GAMES_DIR",
    "SITE_FILE",
    "SPEC_STORE_PARAMS",
    "Catalog",
    "Content",
    "ReadSummary",
    "games_folder",
    "load",
    "load_catalog",
    "sample_content",
    "with_params",
]

SITE_FILE = "site.toml"
GAMES_DIR = "games"
# Below this many pages a process pool costs more than it saves.
PARALLEL_THRESHOLD = 1500


class ReadSummary(NamedTuple):
    """What a command read from a content tree, and what it left out."""

    pages: int = 0  # page files read in the published language
    published: int = 0
    drafts: int = 0
    scheduled: int = 0  # publishDate in the future
    expired: int = 0  # expiryDate in the past
    translations: int = 0  # pages in other languages, skipped
    sections: int = 0  # _index.md section pages, skipped
    ignored: int = 0  # files that are not pages
    resources: int = 0  # files of leaf bundles besides their index.md
    failed: int = 0  # pages that could not be read or checked

    def describe(self) -> str:
        """One line: `read 14 pages: 12 published, 1 draft, …`."""
        parts = [f"{self.published} published"]
        for n, word in (
            (self.drafts, "draft"),
            (self.scheduled, "scheduled"),
            (self.expired, "expired"),
            (self.failed, "with errors"),
        ):
            if n:
                parts.append(
                    f"{n} {word}"
                    if word in ("scheduled", "expired", "with errors")
                    else plural(n, word)
                )
        text = f"read {plural(self.pages, 'page')}: {', '.join(parts)}"
        skipped = [
            plural(n, word)
            for n, word in ((self.translations, "translation"), (self.sections, "section page"))
            if n
        ]
        if skipped:
            text += f"; skipped {' and '.join(skipped)}"
        if self.ignored:
            text += f"; ignored {plural(self.ignored, 'other file')}"
        return text

    def to_json(self) -> dict[str, int]:
        return {
            "pages": self.pages,
            "published": self.published,
            "drafts": self.drafts,
            "scheduled": self.scheduled,
            "expired": self.expired,
            "translations": self.translations,
            "sections": self.sections,
            "ignored": self.ignored,
            "resources": self.resources,
            "failed": self.failed,
        }


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
        games = [e for e in self.entries if e.state == PUBLISHED]
        games.sort(key=lambda e: e.order)
        return [e.game for e in games]


class Catalog(NamedTuple):
    """A valid catalog: site settings and the games as published (SPEC §2.3 field order)."""

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


# --- site.toml ------------------------------------------------------------------------------


def _inside(path: str, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _site_document(raw: bytes, complete: bool, file: str) -> Document:
    if not complete:
        raise Problem("limit", f"site.toml is larger than {MAX_SITE_BYTES // 1024:,} KiB", 1, 1)
    return read_toml(decode(raw.removeprefix(b"\xef\xbb\xbf")), file, 1, (1, 1))


def _load_site(
    root: Path, shown: str
) -> tuple[SiteSettings | None, Document | None, Severities, list[Finding]]:
    path = os.path.join(root, SITE_FILE)
    file = os.path.join(shown, SITE_FILE)
    out = Findings(file, DEFAULT_SEVERITIES)
    if not os.path.lexists(path):
        out.add("site-missing", "site.toml is missing from the content tree")
        return None, None, DEFAULT_SEVERITIES, out.items
    if os.path.islink(path) and not _inside(path, os.path.realpath(root)):
        out.add("symlink-outside", "site.toml is a symlink out of the content tree; it is not read")
        return None, None, DEFAULT_SEVERITIES, out.items
    try:
        raw, complete = read_head(os.path.realpath(path), MAX_SITE_BYTES)
        doc = _site_document(raw, complete, file)
    except OSError as exc:
        out.add("unreadable-file", f"cannot read site.toml: {exc.strerror or exc}")
        return None, None, DEFAULT_SEVERITIES, out.items
    except Problem as p:
        out.add(p.rule, p.message, line=p.line, column=p.column)
        return None, None, DEFAULT_SEVERITIES, out.items
    severities = severities_of(doc.data)
    out.severities = severities
    site = check_site(doc, out)
    return site, doc, severities, out.items


# --- pages ----------------------------------------------------------------------------------


class _Outcome(NamedTuple):
    entry: Entry | None
    findings: list[Finding]
    failed: bool


_CONTEXT: PageContext | None = None  # set before the pages are checked (inherited by workers)


def _check_one(page: PageFile) -> _Outcome:
    ctx = _CONTEXT
    assert ctx is not None
    out = Findings(page.file, ctx.severities)
    try:
        raw, complete = read_head(page.path, HEAD_BYTES)
        doc = parse_page(raw, page.file, complete=complete)
    except OSError as exc:
        out.add("unreadable-file", f"cannot read: {exc.strerror or exc}")
        return _Outcome(None, out.items, True)
    except Problem as p:
        out.add(p.rule, p.message, line=p.line, column=p.column)
        return _Outcome(None, out.items, True)
    entry = check_page(doc, page.id, page.date, ctx, out)
    failed = entry is None or any(f.severity == ERROR for f in out.items)
    return _Outcome(entry, out.items, failed)


def _crashed(page: PageFile, why: str) -> _Outcome:
    finding = Finding(
        page.file,
        None,
        None,
        f"the parser process {why} while reading this file; it is not read",
        ERROR,
        rule="parser-crash",
    )
    return _Outcome(None, [finding], True)


def _check_pages(pages: list[PageFile], ctx: PageContext) -> list[_Outcome]:
    global _CONTEXT  # noqa: PLW0603 - read by forked workers
    _CONTEXT = ctx
    try:
        if len(pages) < PARALLEL_THRESHOLD or not hasattr(os, "fork"):
            return [_check_one(p) for p in pages]
        from catalogctl.content.pool import cpu_count, parallel_map

        workers = min(cpu_count(), 8)
        if workers < 2:
            return [_check_one(p) for p in pages]
        return parallel_map(_check_one, pages, workers, _crashed)
    finally:
        _CONTEXT = None


def _cross_checks(entries: list[Entry], severities: Severities) -> list[Finding]:
    out: list[Finding] = []
    if len({e.id for e in entries}) == len(entries):
        return out
    by_id: dict[str, list[Entry]] = {}
    for e in entries:
        by_id.setdefault(e.id, []).append(e)
    for game_id, same in by_id.items():
        if len(same) < 2:
            continue
        published = sum(e.state != DRAFT for e in same)
        for e in same:
            others = [o.file for o in same if o is not e]
            named = ", ".join(others[:3]) + (
                f" and {len(others) - 3} more" if len(others) > 3 else ""
            )
            found = Findings(e.file, severities, draft=published < 2)
            found.add(
                "duplicate-id",
                f"id {game_id!r} is also used by {named}",
                line=e.id_pos[0],
                column=e.id_pos[1],
                field=e.id_field,
            )
            out.extend(found.items)
    return out


# --- the tree -------------------------------------------------------------------------------


def games_folder(root: Path) -> Path:
    """The games folder of a content tree, as its site.toml names it (for watching files)."""
    try:
        raw, _ = read_head(os.path.join(root, SITE_FILE), MAX_SITE_BYTES)
        data = read_toml(decode(raw), SITE_FILE, 1, (1, 1)).data
        games = data.get("content", {}).get("games", GAMES_DIR)
        return root / (games if isinstance(games, str) else GAMES_DIR)
    except (OSError, Problem, AttributeError):
        return root / GAMES_DIR


def load(
    root: Path,
    *,
    display: str | None = None,
    base_url: str | None = None,
    now: dt.datetime | None = None,
    locate: bool = False,
) -> Content:
    """Load a content tree; every problem becomes a finding. Raises only for a bad root or
    a bad `base_url` override. `locate`: record the line of each published link."""
    if not root.exists():
        raise InputError(f"content directory not found: {root}")
    if not root.is_dir():
        raise InputError(f"not a content directory: {root}")
    shown = display if display is not None else str(root)
    site, _doc, severities, findings = _load_site(root, shown)
    if site is not None and base_url is not None:
        problem = url_problem(base_url, schemes=("http", "https"))
        if problem is None and base_url.endswith("/"):
            problem = "must not end with '/'"
        if problem:
            raise InputError(f"--base-url {problem}: {base_url!r}")
        site = site.replace(base_url=base_url)

    games_name = site.content.games if site is not None else GAMES_DIR
    language = site.content.language if site is not None else "en"
    games_dir = os.path.normpath(os.path.join(root, games_name))
    games_shown = os.path.normpath(os.path.join(shown, games_name))
    found = Discovery()
    sitefile = Findings(os.path.join(shown, SITE_FILE), severities)
    root_real = os.path.realpath(root)
    if not any(f.rule == "games-folder" for f in findings):
        if not os.path.isdir(games_dir):
            sitefile.add(
                "games-folder",
                f"the games folder {games_name!r} is missing"
                + ("" if site is None else " (set [content] games in site.toml)"),
                file=games_shown,
            )
        elif not _inside(games_dir, root_real):
            sitefile.add(
                "games-folder",
                f"the games folder {games_name!r} leads out of the content tree",
                file=games_shown,
            )
        else:
            found = discover(games_dir, games_shown, str(root), language)
    for p in found.problems:
        sitefile.add(p.rule, p.message, file=p.file)

    ctx = PageContext(
        site,
        FieldMap.from_settings(site.fields) if site is not None else DEFAULT_FIELDS,
        severities,
        now or dt.datetime.now(dt.UTC),
        locate,
    )
    outcomes = _check_pages(found.pages, ctx)
    entries: list[Entry] = []
    counts = {PUBLISHED: 0, DRAFT: 0, SCHEDULED: 0, EXPIRED: 0}
    failed = 0
    for outcome in outcomes:
        findings.extend(outcome.findings)
        entry = outcome.entry
        if entry is not None:
            entries.append(entry)
        if entry is not None and entry.state == DRAFT:
            counts[DRAFT] += 1
        elif outcome.failed or entry is None:
            failed += 1
        else:
            counts[entry.state] += 1
    findings.extend(sitefile.items)
    findings.extend(_cross_checks(entries, severities))

    summary = ReadSummary(
        pages=len(found.pages),
        published=counts[PUBLISHED],
        drafts=counts[DRAFT],
        scheduled=counts[SCHEDULED],
        expired=counts[EXPIRED],
        translations=found.translations,
        sections=found.sections,
        ignored=found.ignored,
        resources=found.resources,
        failed=failed,
    )
    if summary.published == 0 and failed == 0:
        empty = Findings(games_shown, severities)
        empty.add("empty-catalog", f"no game is published ({summary.describe()})")
        findings.extend(empty.items)
    return Content(root, site, entries, findings, summary)


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
        n = len(failing)
        raise ContentInvalid(f"content is invalid ({n} problem{'s' * (n != 1)})", content.findings)
    return Catalog(content.site, content.published(), content.summary, content.warnings)


def sample_content() -> Path:
    """The bundled sample content (installed package data, or the source checkout)."""
    here = Path(__file__).resolve().parent.parent  # the catalogctl package
    for candidate in (here / "_sample_content", here.parent / "content"):
        if (candidate / SITE_FILE).is_file():
            return candidate
    raise InputError("the bundled sample content is missing from this installation")
