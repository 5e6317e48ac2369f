"""Rendering a `LinkReport`: a rich table of problems, JSON, or Markdown for a PR comment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catalogctl.links.core import LinkReport, LinkResult
from catalogctl.text import plural

if TYPE_CHECKING:
    from rich.console import RenderableType

Row = tuple[str, str, LinkResult]  # game, field, result


def problem_rows(report: LinkReport) -> list[Row]:
    """One row per (game, field) that uses a broken or warned link, in catalog order."""
    order: dict[str, int] = {}
    for r in report.results:
        for ref in r.link.refs:
            order.setdefault(ref.game, len(order))
    rows = [(ref.game, ref.field, r) for r in report.problems for ref in r.link.refs]
    rows.sort(key=lambda row: (order[row[0]], row[1], row[2].state != "broken", row[2].link.url))
    return rows


def _status(r: LinkResult) -> str:
    return "" if r.status is None else str(r.status)


def _message(r: LinkResult) -> str:
    return r.error or r.warning or ""


def summary_text(report: LinkReport) -> str:
    s = report.summary()
    fine = s["ok"]
    games = len({ref.game for r in report.results for ref in r.link.refs})
    extra = [f"{s['cached']} cached"] if s["cached"] else []
    if s["excluded"]:
        extra.append(f"{s['excluded']} excluded")
    more = f" ({', '.join(extra)})" if extra else ""
    return (
        f"{s['broken']} broken, {plural(s['warnings'], 'warning')}, {fine} fine: "
        f"{plural(s['links'], 'link')} of {plural(games, 'game')}{more}, "
        f"{plural(s['requests'], 'request')} in {s['seconds']:.2f} s"
    )


def table(report: LinkReport) -> RenderableType | None:
    """The problems grouped by game and field (nothing when every link is fine)."""
    from rich.table import Table
    from rich.text import Text

    rows = problem_rows(report)
    if not rows:
        return None
    table = Table(header_style="bold", expand=False)
    table.add_column("Game", overflow="fold")
    table.add_column("Field", no_wrap=True)
    table.add_column("Status", justify="right", no_wrap=True)
    table.add_column("Problem", overflow="fold", ratio=1)
    table.add_column("URL", overflow="fold", ratio=1)
    for i, (game, field, r) in enumerate(rows):
        first = i == 0 or rows[i - 1][0] != game
        last = i == len(rows) - 1 or rows[i + 1][0] != game
        style = "red" if r.state == "broken" else "yellow"
        table.add_row(
            Text(game if first else ""),
            Text(field),
            Text(_status(r), style=style),
            Text(_message(r), style=style),
            Text(r.link.url),
            end_section=last,
        )
    return table


def to_json(report: LinkReport) -> dict[str, Any]:
    return {
        "links": [r.to_json() for r in report.results],
        "summary": report.summary(),
    }


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(report: LinkReport) -> str:
    s = report.summary()
    rows = problem_rows(report)
    if s["broken"]:
        title = f"### ❌ Link check: {s['broken']} broken"
    elif s["warnings"]:
        title = "### ⚠️ Link check: no broken links"
    else:
        title = "### ✅ Link check: every link is fine"
    lines = [title, ""]
    if rows:
        lines += ["| Game | Field | Status | Problem | URL |", "|---|---|---:|---|---|"]
        for game, field, r in rows:
            mark = "❌" if r.state == "broken" else "⚠️"
            lines.append(
                f"| {_md(game)} | {_md(field)} | {_status(r)} | {mark} {_md(_message(r))} "
                f"| <{_md(r.link.url)}> |"
            )
        lines.append("")
    lines.append(summary_text(report) + ".")
    return "\n".join(lines) + "\n"
