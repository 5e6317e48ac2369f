"""A `LinkReport` for people and tools: its rules, a rich table, JSON items, Markdown.

Every text from content or from the network (URLs, game ids, error messages) is passed
through `catalogctl.text.clean` before it reaches a table or a document.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogctl.findings import Rule
from catalogctl.links.core import LinkReport, LinkResult
from catalogctl.text import Indented, clean, md_code, md_text, plural

if TYPE_CHECKING:
    from rich.console import RenderableType

Row = tuple[str, str, LinkResult]  # game, field, result

# The rules of check-links, as SARIF, GitHub annotations and JUnit name them.
INVALID_URL = Rule(
    "invalid-url",
    "error",
    "A link cannot be requested as written.",
    "Write an absolute http(s) URL with a host and no spaces.",
)
UNREACHABLE = Rule(
    "unreachable",
    "error",
    "A link gets no HTTP answer (connection refused, DNS, TLS, timeout).",
    "Check the host name and that the server is up; --timeout and --retries tune the patience.",
)
BROKEN_LINK = Rule(
    "broken-link",
    "error",
    "A link answers with a status that is not accepted, or its redirects go wrong.",
    "Fix or replace the URL; --accept lists the status codes that mean fine (default 2xx).",
)
NOT_AN_IMAGE = Rule(
    "not-an-image",
    "error",
    "An icon is not served with an image/* Content-Type.",
    "Point the icon at the image itself, not at a page that shows it.",
)
REDIRECT = Rule(
    "redirect",
    "warning",
    "A game page redirects; a canonical URL should answer itself.",
    "Use the URL the redirect ends at, or fix game_url in site.toml.",
)
RULES = (INVALID_URL, UNREACHABLE, BROKEN_LINK, NOT_AN_IMAGE, REDIRECT)


def rule_of(r: LinkResult) -> Rule | None:
    """The rule a broken or warned link breaks (None for a fine or excluded link)."""
    if r.state == "warning":
        return REDIRECT
    if r.state != "broken":
        return None
    if r.source == "syntax":
        return INVALID_URL
    if r.status is None:
        return UNREACHABLE
    if (r.error or "").startswith("icon is served as"):
        return NOT_AN_IMAGE
    return BROKEN_LINK


Located = dict[tuple[str, str], tuple[str, int | None]]


def content_locations(root: Path, display: str) -> Located:
    """(game, field) → (file, line) of each link of a content tree's published games."""
    from catalogctl.content.loader import load

    content = load(root, display=display, locate=True)
    out: Located = {}
    for e in content.entries:
        if e.state != "published":
            continue
        for field, line in e.lines.items():
            out[(e.id, field)] = (e.file, line)
    return out


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
    return clean(r.error or r.warning or "")


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


# Below this many columns the five-column table cannot show its cells whole: a list instead.
NARROW = 100


def table(report: LinkReport, width: int = NARROW) -> RenderableType | None:
    """The problems grouped by game and field (nothing when every link is fine): a table, or
    below `NARROW` columns a list in which only a URL longer than a line is ever folded."""
    rows = problem_rows(report)
    if not rows:
        return None
    return _wide(rows) if width >= NARROW else _narrow(rows)


def _wide(rows: list[Row]) -> RenderableType:
    from rich.table import Table
    from rich.text import Text

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
            Text(clean(game) if first else ""),
            Text(clean(field)),
            Text(_status(r), style=style),
            Text(_message(r), style=style),
            Text(clean(r.link.url)),
            end_section=last,
        )
    return table


def _status_and_message(r: LinkResult) -> str:
    status, message = _status(r), _message(r)
    return message if not status or message.startswith(status) else f"{status} {message}"


def _narrow(rows: list[Row]) -> RenderableType:
    """game, then per link: `✗ field · status problem` (wrapped at spaces) and its URL."""
    from rich.console import Group
    from rich.text import Text

    parts: list[RenderableType] = []
    for i, (game, field, r) in enumerate(rows):
        if i == 0 or rows[i - 1][0] != game:
            if parts:
                parts.append(Text(""))
            parts.append(Text(clean(game), style="bold"))
        style = "red" if r.state == "broken" else "yellow"
        line = Text.assemble(
            ("✗ " if r.state == "broken" else "! ", style),
            clean(field),
            " · ",
            (_status_and_message(r), style),
        )
        parts.append(Indented(line, 2, hanging=2))
        parts.append(Indented(Text(clean(r.link.url), style="dim", overflow="fold"), 4))
    return Group(*parts)


def link_json(r: LinkResult) -> dict[str, Any]:
    """One link in the JSON envelope: the result and the rule it breaks."""
    rule = rule_of(r)
    return {**r.to_json(), "rule": None if rule is None else rule.id}


def _md_url(url: str) -> str:
    """An autolink when the URL can be one, else inline code."""
    shown = clean(url)
    if shown.startswith(("http://", "https://")) and not any(c in shown for c in " <>|`\\"):
        return f"<{shown}>"
    return md_code(url, cell=True)


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
                f"| {md_text(game)} | {md_text(field)} | {_status(r)} "
                f"| {mark} {md_text(_message(r))} | {_md_url(r.link.url)} |"
            )
        lines.append("")
    lines.append(summary_text(report) + ".")
    return "\n".join(lines) + "\n"
