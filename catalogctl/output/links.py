"""check-links' report: the problem table, the JSON envelope and the CI formats.

One JUnit test case per link (failed when broken, skipped when excluded); one annotation or
SARIF result per place a problem link is used, at the line of its field when the source is a
content tree. May import: the cores and below.
"""

from __future__ import annotations

from typing import Any

from catalogctl.links.core import LinkReport, LinkResult
from catalogctl.links.report import (
    RULES,
    Located,
    link_json,
    rule_of,
    summary_text,
    table,
    to_markdown,
)
from catalogctl.output.envelope import envelope
from catalogctl.output.model import Case, Level, Location, Report, Result
from catalogctl.text import clean


def _results(r: LinkResult, located: Located, strict: bool) -> list[Result]:
    rule = rule_of(r)
    if rule is None:
        return []
    problem = clean(r.error or r.warning or "")
    level: Level = "error" if r.state == "broken" else "warning"
    failing = r.state == "broken" or strict
    out = []
    for ref in r.link.refs:
        file, line = located.get((ref.game, ref.field), (None, None))
        where = Location(file, line, logical=ref.game if file is None else None)
        message = f"{ref.field} {clean(r.link.url)}: {problem}"
        out.append(Result(rule.id, level, message, where, failing))
    return out


def _mark(s: dict[str, Any]) -> tuple[str, str]:
    if s["broken"]:
        return ("✗", "red")
    return ("!", "yellow") if s["warnings"] else ("✓", "green")


def links_report(report: LinkReport, *, strict: bool, located: Located | None = None) -> Report:
    located = located or {}
    s = report.summary()
    ok = not (s["broken"] or (strict and s["warnings"]))
    cases = []
    for r in report.results:
        kinds = sorted(r.link.kinds)
        ref = r.link.refs[0] if r.link.refs else None
        file = located.get((ref.game, ref.field), (None, None))[0] if ref else None
        case = Case(clean(r.link.url), f"check-links.{'+'.join(kinds) or 'link'}", file)
        case.results = _results(r, located, strict)
        if r.state == "excluded":
            case.skipped = "excluded by --include/--exclude"
        cases.append(case)
    return Report(
        command="check-links",
        ok=ok,
        summary=summary_text(report),
        rules=lambda: RULES,
        cases=lambda: cases,
        envelope=lambda: envelope(
            "check-links", ok=ok, summary=s, items=[link_json(r) for r in report.results]
        ),
        markdown=lambda: to_markdown(report),
        tables=lambda width: [t for t in (table(report, width),) if t is not None],
        mark=_mark(s),
        seconds=report.seconds,
    )
