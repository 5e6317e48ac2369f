"""diff's report: its rules, one item per change, the summary line, and the `Report` every
format is written from.

One JUnit test case per game that changes and per contract change; breaking changes are
errors, release warnings are warnings, the other changes notes. Which of them fail the check
follows `--fail-on`. The tables and the Markdown notes are in `catalogctl.output.diff_views`.
Every text from a catalog source (names, ids, descriptions, URLs) is cleaned of control
characters before it reaches a format. May import: the cores and below.
"""

from __future__ import annotations

from typing import Any

from catalogctl.diff.core import DiffResult, FailOn
from catalogctl.findings import Rule
from catalogctl.output.diff_views import lines, markdown, summary, tables
from catalogctl.output.envelope import envelope
from catalogctl.output.model import Case, Level, Location, Report, Result
from catalogctl.text import clean

# The rules of diff, as SARIF, GitHub annotations and JUnit name them; the diff page lists
# them under "Formats".
DOCS = "commands/diff.md#formats"
BREAKING = Rule(
    "breaking-change",
    "error",
    "The published contract changes in a way that breaks existing clients.",
    "Keep the field or parameter in /api/v1 and make the change in a new version (/api/v2).",
    docs=DOCS,
)
COMPATIBLE = Rule(
    "compatible-change",
    "note",
    "The published contract changes in a way clients can ignore.",
    docs=DOCS,
)
ADDED = Rule("added-game", "note", "A game is added to the catalog.", docs=DOCS)
REMOVED = Rule(
    "removed-game",
    "note",
    "A game is removed from the catalog.",
    "Clients that kept its id lose it; say so in the release notes.",
    docs=DOCS,
)
CHANGED = Rule("changed-game", "note", "A game's published fields change.", docs=DOCS)
REORDERED = Rule("reordered-game", "note", "A game moves in the catalog order.", docs=DOCS)
ID_RENAME = Rule(
    "id-rename",
    "error",
    "A game looks renamed: one id removed, another with the same name or store link added.",
    "Clients key games by id: keep the old id (slug) unless the rename is intended.",
    docs=DOCS,
)
GAME_REMOVED = Rule(
    "game-removed",
    "error",
    "A game is removed: clients that kept its id will not find it again.",
    "Keep the game (as a draft page it stays out), or announce the removal.",
    docs=DOCS,
)
STORE_APP_CHANGED = Rule(
    "store-app-changed",
    "error",
    "A store link now opens another app (another App Store id or Google Play package).",
    "Check the store URL: clients that match the app by its link lose it.",
    docs=DOCS,
)
ATTRIBUTION = Rule(
    "attribution",
    "warning",
    "A store link's attribution parameters change.",
    "Check the store parameters in site.toml: install attribution depends on them.",
    docs=DOCS,
)
PLATFORM_STORE = Rule(
    "platform-store",
    "warning",
    "A platform loses its store link.",
    "Add the store link back, or remove the platform from the game.",
    docs=DOCS,
)
RULES = (
    BREAKING,
    GAME_REMOVED,
    ID_RENAME,
    STORE_APP_CHANGED,
    ATTRIBUTION,
    PLATFORM_STORE,
    REMOVED,
    ADDED,
    CHANGED,
    REORDERED,
    COMPATIBLE,
)
_WARNING_RULES = {r.id: r for r in (ATTRIBUTION, PLATFORM_STORE)}
_BREAK_RULES = {r.id: r for r in (GAME_REMOVED, ID_RENAME, STORE_APP_CHANGED)}


def changes(result: DiffResult) -> list[dict[str, Any]]:
    """Every difference as one item with its kind and rule (the JSON envelope's `changes`)."""
    out: list[dict[str, Any]] = []

    def add(kind: str, rule: Rule, **data: Any) -> None:
        out.append({"kind": kind, "rule": rule.id, "severity": rule.severity, **data})

    # A break's or a warning's kind is its rule id: the rule names it.
    for b in result.breaks:
        rule = _BREAK_RULES[b.kind]
        add("breaking", rule, where=b.where, id=b.id, **b.details, message=b.message)
    for c in result.breaking:
        add("breaking", BREAKING, where=c.where, message=c.message)
    for w in result.warnings:
        add("warning", _WARNING_RULES[w.kind], id=w.id, **w.details, message=w.message)
    for g in result.removed:
        add("removed", REMOVED, id=g.id, name=g.name)
    for g in result.added:
        add("added", ADDED, id=g.id, name=g.name)
    for ch in result.changed:
        add("changed", CHANGED, id=ch.id, name=ch.name, fields=ch.fields)
    for m in result.reordered:
        add("reordered", REORDERED, id=m.id, name=m.name, before=m.before, after=m.after)
    for c in result.compatible:
        add("compatible", COMPATIBLE, where=c.where, message=c.message)
    return out


def change_message(item: dict[str, Any]) -> str:
    """One line for an annotation or a test case (cleaned of control characters)."""
    kind = item["kind"]
    if kind in ("breaking", "compatible", "warning"):
        text = item["message"]  # the game or contract member is the result's location
    elif kind == "changed":
        text = f"{item['name']} changed: {', '.join(item['fields'])}"
    elif kind == "reordered":
        text = f"{item['name']} moved from position {item['before']} to {item['after']}"
    else:
        text = f"{item['name']} {kind}"
    return clean(text)


def _failing(kind: str, fail_on: FailOn, failed: bool) -> bool:
    if not failed:
        return False
    if kind == "breaking":
        return True
    if kind == "warning":
        return fail_on != "breaking"
    return fail_on == "any" and kind != "compatible"


def _summary_json(result: DiffResult, fail_on: FailOn) -> dict[str, Any]:
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
        "fail_on": fail_on.value,
    }


def diff_report(result: DiffResult, *, fail_on: FailOn) -> Report:
    """`result` as every format writes it; it passes unless `--fail-on` counts a change."""
    failed = result.failed(fail_on)
    items = changes(result)
    cases: dict[str, Case] = {}
    # A removed game that is reported as breaking is reported once, as the break.
    broken = {b.id for b in result.breaks if b.kind == "game-removed"}
    for item in items:
        if item["kind"] == "removed" and item["id"] in broken:
            continue
        key = item["id"] if "id" in item else item["where"]
        case = cases.get(key)
        if case is None:
            case = cases[key] = Case(key, "diff.games" if "id" in item else "diff.contract")
        failing = _failing(item["kind"], fail_on, failed)
        level: Level = item["severity"]
        location = Location(logical=key)
        case.results.append(Result(item["rule"], level, change_message(item), location, failing))
    if result.is_breaking:
        mark = ("✗", "red")
    elif failed:
        mark = ("!", "yellow")
    else:
        mark = ("✓", "green")
    line = summary(result)
    if result.contract_one_sided:
        line += " (contract not checked: only one side has an OpenAPI document)"
    return Report(
        command="diff",
        ok=not failed,
        summary=line,
        rules=lambda: RULES,
        cases=lambda: list(cases.values()),
        envelope=lambda: envelope(
            "diff", ok=not failed, summary=_summary_json(result, fail_on), items=items
        ),
        markdown=lambda: markdown(result),
        tables=lambda width: tables(result, width),
        mark=mark,
        lines=lambda: lines(result),
    )
