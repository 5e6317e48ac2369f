"""diff's report: the change tables, the JSON envelope and the CI formats.

One JUnit test case per game that changes and per contract change; breaking changes are
errors, release warnings are warnings, the other changes notes. Which of them fail the check
follows `--fail-on`. May import: the cores and below.
"""

from __future__ import annotations

from typing import Any

from catalogctl.diff.core import DiffResult
from catalogctl.diff.report import (
    RULES,
    change_message,
    changes,
    summary,
    to_markdown,
    to_renderables,
)
from catalogctl.output.envelope import envelope
from catalogctl.output.model import Case, Location, Report, Result

_LEVEL: dict[str, Any] = {"error": "error", "warning": "warning", "note": "note"}


def _failing(kind: str, fail_on: str, failed: bool) -> bool:
    if not failed:
        return False
    if kind == "breaking":
        return True
    if kind == "warning":
        return fail_on != "breaking"
    return fail_on == "any" and kind != "compatible"


def diff_summary(result: DiffResult, fail_on: str) -> dict[str, Any]:
    return {
        "old": result.old,
        "new": result.new,
        "old_games": result.old_games,
        "new_games": result.new_games,
        "added": len(result.added),
        "removed": len(result.removed),
        "changed": len(result.changed),
        "reordered": len(result.reordered),
        "warnings": len(result.warnings),
        "breaking": len(result.breaks) + len(result.breaking),
        "compatible": len(result.compatible),
        "contract_checked": result.contract_checked,
        "fail_on": fail_on,
    }


def diff_report(result: DiffResult, *, fail_on: str) -> Report:
    failed = result.failed(fail_on)  # type: ignore[arg-type]
    items = changes(result)
    cases: dict[str, Case] = {}
    # A removed game that is reported as breaking is reported once, as the break.
    broken = {b.id for b in result.breaks if b.kind == "game-removed"}
    for item in items:
        if item["kind"] == "removed" and item["id"] in broken:
            continue
        if "id" in item:
            key, classname, loc = item["id"], "diff.games", Location(logical=item["id"])
        else:
            key, classname, loc = item["where"], "diff.contract", Location(logical=item["where"])
        case = cases.get(key)
        if case is None:
            case = cases[key] = Case(key, classname)
        failing = _failing(item["kind"], fail_on, failed)
        level = _LEVEL[item["severity"]]
        case.results.append(Result(item["rule"], level, change_message(item), loc, failing))
    if result.is_breaking:
        mark = ("✗", "red")
    elif failed:
        mark = ("!", "yellow")
    else:
        mark = ("✓", "green")
    return Report(
        command="diff",
        ok=not failed,
        summary=summary(result),
        rules=lambda: RULES,
        cases=lambda: list(cases.values()),
        envelope=lambda: envelope(
            "diff", ok=not failed, summary=diff_summary(result, fail_on), items=items
        ),
        markdown=lambda: to_markdown(result),
        tables=lambda width: to_renderables(result, width),
        mark=mark,
    )
