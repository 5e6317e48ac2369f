"""check-links' report: the problem table (or list), the JSON envelope, Markdown and the CI
formats.

One JUnit test case per link (failed when broken, skipped when excluded); one annotation or
SARIF result per place a problem link is used, at the line of its field when the source is a
content tree. Each verdict resting on an answer names the method that got it (`GET 404`).
Every text from content or from the network (URLs, game ids, error messages) is passed through
`catalogctl.text.clean` before it reaches a table or a document. May import: the cores and
below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catalogctl.links.catalog import Located
from catalogctl.links.result import RULES, LinkReport, LinkResult, rule_of
from catalogctl.output.console import json_text
from catalogctl.output.envelope import envelope
from catalogctl.output.model import Case, Level, Location, Report, Result
from catalogctl.text import Indented, clean, json_escaped, md_code, md_text, plural

if TYPE_CHECKING:
    from rich.console import RenderableType

Row = tuple[str, str, LinkResult]  # game, field, result

# Below this many columns the five-column table cannot show its cells whole: a list instead.
NARROW = 100


# --- texts of one result --------------------------------------------------------------------


def _status(r: LinkResult) -> str:
    """The answer a verdict rests on: `GET 404` (empty when there was none)."""
    if r.status is None:
        return ""
    return f"{r.method} {r.status}" if r.method else str(r.status)


def _message(r: LinkResult) -> str:
    return clean(r.error or r.warning or "")


def _message_with_status(r: LinkResult) -> str:
    """`404 Not Found (GET)`, `icon is served as text/html, not an image (HEAD 200)`."""
    message, status = _message(r), _status(r)
    if not status:
        return message
    if r.method and message.startswith(str(r.status)):
        return f"{message} ({r.method})"
    return f"{message} ({status})"


def summary(report: LinkReport) -> dict[str, Any]:
    """The JSON summary: counts of verdicts and the figures of the run."""
    return {
        "links": len(report.results),
        "ok": report.count("ok"),
        "warnings": report.count("warning"),
        "broken": report.count("broken"),
        "excluded": report.count("excluded"),
        "cached": report.cached,
        "requests": report.requests,
        "hosts": report.hosts,
        "retries": report.retries,
        "rate_limited": report.rate_limited,
        "seconds": round(report.seconds, 3),
    }


def summary_text(report: LinkReport) -> str:
    s = summary(report)
    games = len({ref.game for r in report.results for ref in r.link.refs})
    extra = [f"{s['cached']} cached"] if s["cached"] else []
    if s["excluded"]:
        extra.append(f"{s['excluded']} excluded")
    more = f" ({', '.join(extra)})" if extra else ""
    requests = plural(s["requests"], "request")
    if s["hosts"]:
        requests += f" to {plural(s['hosts'], 'host')}"
    if s["retries"]:
        requests += f", {s['retries']} retr{'y' if s['retries'] == 1 else 'ies'}"
    if s["rate_limited"]:
        requests += f", {s['rate_limited']} answered 429"
    return (
        f"{s['broken']} broken, {plural(s['warnings'], 'warning')}, {s['ok']} fine: "
        f"{plural(s['links'], 'link')} of {plural(games, 'game')}{more}, "
        f"{requests} in {s['seconds']:.2f} s"
    )


def link_json(r: LinkResult) -> dict[str, Any]:
    """One link in the JSON envelope: the verdict, the answer it rests on, the rule broken."""
    link = r.link
    return {
        "url": link.url,
        "ok": r.state != "broken",
        "status": r.status,
        "method": r.method,
        "error": r.error,
        "warning": r.warning,
        "games": link.games,
        "field": ", ".join(link.fields),
        "state": r.state,
        "checked": r.source,
        "final_url": r.final_url,
        "redirects": r.redirects,
        "rule": r.rule,
    }


def envelope_text(doc: dict[str, Any]) -> str:
    """The JSON envelope indented by two, as every command writes it, with each link on a line
    of its own.

    A line a link: 8,000 links are 8,000 lines, not 128,000, a `grep` finds a link whole, and
    the links are written by the json module's C encoder instead of its Python indenter (which
    only indents): 0.02 s for 8,000 links instead of 0.06 s.
    """
    import json

    rest = dict(doc)
    items = rest.pop("links")
    head = json_text(rest).removesuffix("\n}\n")
    encode = json.JSONEncoder(ensure_ascii=False).encode
    links = (
        json_escaped("".join(["[\n    ", ",\n    ".join(map(encode, items)), "\n  ]"]))
        if items
        else "[]"
    )
    return f'{head},\n  "links": {links}\n}}\n'


# --- the table format -----------------------------------------------------------------------


def problem_rows(report: LinkReport) -> list[Row]:
    """One row per (game, field) that uses a broken or warned link, in catalog order."""
    order: dict[str, int] = {}
    for r in report.results:
        for ref in r.link.refs:
            order.setdefault(ref.game, len(order))
    rows = [(ref.game, ref.field, r) for r in report.problems for ref in r.link.refs]
    rows.sort(key=lambda row: (order[row[0]], row[1], row[2].state != "broken", row[2].link.url))
    return rows


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

    out = Table(header_style="bold", expand=False)
    out.add_column("Game", overflow="fold")
    out.add_column("Field", no_wrap=True)
    out.add_column("Status", justify="right", no_wrap=True)
    out.add_column("Problem", overflow="fold", ratio=1)
    out.add_column("URL", overflow="fold", ratio=1)
    for i, (game, field, r) in enumerate(rows):
        first = i == 0 or rows[i - 1][0] != game
        last = i == len(rows) - 1 or rows[i + 1][0] != game
        style = "red" if r.state == "broken" else "yellow"
        out.add_row(
            Text(clean(game) if first else ""),
            Text(clean(field)),
            Text(_status(r), style=style),
            Text(_message(r), style=style),
            Text(clean(r.link.url)),
            end_section=last,
        )
    return out


def _narrow(rows: list[Row]) -> RenderableType:
    """game, then per link: `✗ field · GET 404 problem` (wrapped at spaces) and its URL."""
    from rich.console import Group
    from rich.text import Text

    parts: list[RenderableType] = []
    for i, (game, field, r) in enumerate(rows):
        if i == 0 or rows[i - 1][0] != game:
            if parts:
                parts.append(Text(""))
            parts.append(Text(clean(game), style="bold"))
        style = "red" if r.state == "broken" else "yellow"
        status, message = _status(r), _message(r)
        if status and r.status is not None and message.startswith(str(r.status)):
            message = message[len(str(r.status)) :].lstrip()
        line = Text.assemble(
            ("✗ " if r.state == "broken" else "! ", style),
            clean(field),
            " · ",
            (f"{status} {message}" if status else message, style),
        )
        parts.append(Indented(line, 2, hanging=2))
        parts.append(Indented(Text(clean(r.link.url), style="dim", overflow="fold"), 4))
    return Group(*parts)


# --- Markdown ----------------------------------------------------------------------------


def _md_url(url: str) -> str:
    """An autolink when the URL can be one, else inline code."""
    shown = clean(url)
    if shown.startswith(("http://", "https://")) and not any(c in shown for c in " <>|`\\"):
        return f"<{shown}>"
    return md_code(url, cell=True)


def to_markdown(report: LinkReport) -> str:
    s = summary(report)
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


# --- the report --------------------------------------------------------------------------


def _results(r: LinkResult, located: Located, strict: bool) -> list[Result]:
    rule = rule_of(r)
    if rule is None:
        return []
    problem = _message_with_status(r)
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
    s = summary(report)
    ok = not (s["broken"] or (strict and s["warnings"]))

    def cases() -> list[Case]:
        out = []
        for r in report.results:
            kinds = sorted(r.link.kinds)
            ref = r.link.refs[0] if r.link.refs else None
            file = located.get((ref.game, ref.field), (None, None))[0] if ref else None
            case = Case(clean(r.link.url), f"check-links.{'+'.join(kinds) or 'link'}", file)
            case.results = _results(r, located, strict)
            if r.state == "excluded":
                case.skipped = "excluded by --include/--exclude"
            out.append(case)
        return out

    def doc() -> dict[str, Any]:
        return envelope(
            "check-links", ok=ok, summary=s, items=[link_json(r) for r in report.results]
        )

    return Report(
        command="check-links",
        ok=ok,
        summary=summary_text(report),
        rules=lambda: RULES,
        cases=cases,
        envelope=doc,
        envelope_text=lambda: envelope_text(doc()),
        markdown=lambda: to_markdown(report),
        tables=lambda width: [t for t in (table(report, width),) if t is not None],
        mark=_mark(s),
        seconds=report.seconds,
        has_tables=bool(report.problems),
    )


__all__ = [
    "NARROW",
    "envelope_text",
    "link_json",
    "links_report",
    "summary",
    "summary_text",
    "to_markdown",
]
