"""init's report: the site.toml written, what it rests on, and what the pages still lack.

May import: the content layer and below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catalogctl.output.console import print_json, print_text, status
from catalogctl.output.envelope import envelope, finding_json, findings_summary
from catalogctl.output.reference import finding_line
from catalogctl.output.validate import sort_findings
from catalogctl.text import clean, path_text, plural, undecoded

if TYPE_CHECKING:
    from catalogctl.content.scaffold.run import InitResult

_SHOWN = 3  # pages named per lacking key
_OTHERS_SHOWN = 8  # other findings shown; validate lists them all


def report_init(result: InitResult, fmt: str) -> bool:
    """init's report; whether the site validates with the site.toml written (exit 0)."""
    content = result.content
    counts = findings_summary(content.findings)
    ok = counts["errors"] == 0
    if fmt == "json":
        print_json(envelope("init", ok=ok, summary=_summary(result, counts), items=_items(result)))
        return ok
    print_text(_text(result))
    mark = ("✓", "green") if ok else ("✗", "red")
    status(
        *mark,
        f"validate: {plural(counts['errors'], 'error')}, "
        f"{plural(counts['warnings'], 'warning')}; {content.summary.describe()}",
    )
    return ok


def _summary(result: InitResult, counts: dict[str, int]) -> dict[str, Any]:
    """The report's summary, each name in it as `path_text` shows one: the bytes of a name
    the locale could not decode as `\\xe9`, not as a lone surrogate (which JSON cannot carry)."""
    p = result.proposal
    summary: dict[str, Any] = {
        **counts,
        "site_toml": path_text(result.path),
        "generator": p.generator.name,
        "games": p.games,
        "pages": p.keys.pages,
        "fields": {key: path for key, (path, _) in p.fields.items()},
        "stores": [
            {"key": s.key, "name": s.name, "kind": s.kind, "path": s.path} for s in p.stores
        ],
        "notes": p.notes,
        "guesses": p.guesses,
        "unmapped": p.unmapped,
        "category": p.category,
        "outside_category": p.keys.outside,
        "body_links": p.body_links,
        "candidates": [
            {"folder": c.folder, "pages": c.pages, "reasons": c.reasons}
            for c in (p.choice.candidates[:5] if p.choice is not None else [])
        ],
        "sure": p.choice.sure if p.choice is not None else True,
        "unread": [
            {"file": f, "reason": why} for f, why in (p.choice.scan.unread if p.choice else [])
        ],
        "lacking": result.lacking(),
        "read": result.content.summary.to_json(),
    }
    return {key: _undecoded(value) for key, value in summary.items()}


def _undecoded(value: Any) -> Any:
    """`value` with `undecoded` applied to every text in it, keys included."""
    if isinstance(value, str):
        return undecoded(value)
    if isinstance(value, dict):
        return {_undecoded(k): _undecoded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_undecoded(v) for v in value]
    return value


def _items(result: InitResult) -> list[dict[str, Any]]:
    return [finding_json(f) for f in result.content.findings]


def _read(p: Any) -> str:
    """How many pages init read in the games folder, and how many of them link a store."""
    n, body, front = p.keys.pages, p.body_pages, p.keys.games
    pages = plural(n, "game page" if p.category is not None else "page")
    outside = ""
    if p.category is not None and p.keys.outside:
        others = plural(p.keys.outside, "other page")
        outside = f" ({others} outside the category {p.category!r})"
    if body and front:
        linked = f"{front} of them with store links in front matter, {body} in the page text"
    elif body:
        linked = f"{body} of them with store links in the page text"
    elif front:
        linked = f"{front} of them with store links"
    else:
        linked = "none of them with a store link"
    return f"{pages} in {clean(path_text(p.games))}{outside}, {linked}"


def _text(result: InitResult) -> str:
    p = result.proposal
    lines = [
        f"Wrote {clean(path_text(result.path))} for {p.generator.site}: {_read(p)}.",
    ]
    mapped = [
        f"{key} ← {clean(path)}" + (" (by its values)" if key in p.guesses else "")
        for key, (path, _) in p.fields.items()
        if path != key
    ]
    if mapped:
        lines.append("Keys: " + ", ".join(mapped))
    if p.stores:
        table = p.stores_table or "stores"
        where = [
            f"{clean(s.name)} ({s.kind}) ← "
            + ("the page text" if s.body else clean(s.path or f"{table}.{s.key}"))
            for s in p.stores
        ]
        lines.append("Stores: " + ", ".join(where))
    lacking = result.lacking()
    if lacking:
        lines.append("The pages lack:")
        lines += [_lacking_line(p, key, files) for key, files in lacking.items()]
    if p.notes:
        lines.append("Check:")
        lines += [f"  - {clean(note)}" for note in p.notes]
    others = sort_findings(f for f in result.content.findings if not _said(result, f))
    if others:
        lines.append("Validate also finds:")
        lines += [f"  {clean(finding_line(f))}" for f in others[:_OTHERS_SHOWN]]
        if len(others) > _OTHERS_SHOWN:
            lines.append(
                f"  … and {len(others) - _OTHERS_SHOWN} more: "
                f"`catalogctl validate {clean(path_text(result.path.parent))}` lists them"
            )
    return "\n".join(lines) + "\n"


def _said(result: InitResult, f: Any) -> bool:
    """Whether a finding is said already: a key the pages lack, or the stores site.toml lacks
    when no page links a store (a note says what to add)."""
    if f.rule != "missing-field":
        return False
    return f.file != result.site_file or (f.field == "stores" and not result.proposal.stores)


def _lacking_line(p: Any, key: str, files: list[str]) -> str:
    """A key some pages lack (validate names the catalog key, or the page key it is mapped
    to): how many pages, which, and what to do."""
    n = p.keys.pages
    them = "them" if len(files) > 1 else "it"
    if len(files) == n:
        count = {1: "the page", 2: "both pages"}.get(n, f"all {n} pages")
    else:
        named = ", ".join(clean(f) for f in files[:_SHOWN])
        more = f" and {len(files) - _SHOWN} more" if len(files) > _SHOWN else ""
        count = f"{len(files)} of {plural(n, 'page')} ({named}{more})"
    catalog = next((k for k, (path, _) in p.fields.items() if path == key and k != key), None)
    shown = f"{catalog} ({clean(key)})" if catalog is not None else clean(key)
    if key == "stores":
        where = "the page text or the front matter" if p.body_links else "the front matter"
        fix = f"add a link to the game's store page to {where}"
    elif key in p.unmapped:
        fix = (
            f"no key of theirs looked like it: add {key} to {them}, or map the key that holds "
            "it in [fields]"
        )
    else:
        fix = f"add {clean(key)} to {them}"
    return f"  - {shown}: {count}; {fix}"
