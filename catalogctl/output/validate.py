"""validate's report: findings as a table, the JSON envelope, and the CI formats; and the list
of its rules (`--list-rules`).

One JUnit test case per page (a game, passed or failed) and per other file with findings
(site.toml, a page that could not be read). build and serve report the findings of invalid
content the same way. May import: the content layer and below.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from catalogctl import docs_url
from catalogctl.findings import Finding, Rule, report_order, rule_docs
from catalogctl.output.envelope import envelope, finding_json, findings_summary
from catalogctl.output.model import Case, Level, Location, Report, Result
from catalogctl.text import clean, md_code, md_text, plural

if TYPE_CHECKING:
    from rich.console import RenderableType

    from catalogctl.content.loader import Content
    from catalogctl.content.rules.registry import Rule as ContentRule


class BodyLinkRow:
    """A store link validate read from a page's body."""

    __slots__ = ("column", "file", "line", "name", "store", "url")

    def __init__(self, file: str, line: int, column: int, store: str, name: str, url: str) -> None:
        self.file, self.line, self.column = file, line, column
        self.store = store  # its key in site.toml
        self.name = name  # the store's published name
        self.url = url  # as the page writes it

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("file", "line", "column", "store", "name", "url")}

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def body_link_rows(content: Content) -> list[BodyLinkRow] | None:
    """The store links read from page bodies, by file and line; None when site.toml does not
    ask for them (`[content] body_links`)."""
    site = content.site
    if site is None or not site.content.body_links:
        return None
    rows = [
        BodyLinkRow(e.file, b.line, b.column, b.store, site.stores[b.store].name, b.url)
        for e in content.entries
        for b in e.body_links
    ]
    rows.sort(key=lambda r: (r.file, r.line, r.column))
    return rows


def validate_report(content: Content, *, strict: bool) -> Report:
    """What validate found in a content tree, and what it read; with `strict`, warnings fail."""
    summary = content.summary
    read_line = summary.describe()
    rows = body_link_rows(content)
    if rows:
        pages = len({r.file for r in rows})
        read_line += (
            f"; {plural(len(rows), 'store link')} from the bodies of {plural(pages, 'page')}"
        )
    elif rows is not None:
        read_line += "; no store link from the pages' bodies"
    return findings_report(
        "validate",
        content.findings,
        strict=strict,
        pages=[e.file for e in content.entries],
        files=content.files,
        games=summary.published,
        read=summary.to_json(),
        read_line=read_line,
        body_links=rows,
    )


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=report_order)


def content_rules(findings: Sequence[Finding]) -> list[Rule]:
    """Every rule of the content registry (id, default severity, what it checks, how to fix
    what it finds, its section of the rules reference), and any other rule `findings` name."""
    from catalogctl.content.rules.explain import EXPLANATIONS
    from catalogctl.content.rules.registry import rules_table

    out: dict[str, Rule] = {}
    for r in rules_table():
        how = (
            "Its severity can be changed under [rules] in site.toml."
            if r.configurable
            else "Always an error: it guards what the catalog can publish."
        )
        summary = r.summary + "."
        explained = EXPLANATIONS.get(r.id)
        fix = f" How to fix it: {explained.fix}" if explained else ""
        out[r.id] = Rule(r.id, r.severity, summary, f"{summary} {how}{fix}", rule_docs(r.id))
    for f in findings:
        if f.rule not in out:
            out[f.rule] = Rule(f.rule, f.severity, f.rule.replace("-", " ") + ".")
    return list(out.values())


def _result(f: Finding, strict: bool) -> Result:
    level: Level = "error" if f.severity == "error" else "warning"
    message = f"{f.field}: {f.message}" if f.field else f.message
    location = Location(f.file, f.line, f.column)
    return Result(f.rule, level, message, location, level == "error" or strict)


def findings_report(
    command: str,
    findings: Iterable[Finding],
    *,
    ok: bool | None = None,
    strict: bool = False,
    pages: Sequence[str] = (),
    files: int | None = None,
    games: int | None = None,
    read: Mapping[str, object] | None = None,
    read_line: str = "",
    body_links: Sequence[BodyLinkRow] | None = None,
) -> Report:
    """The findings of `command` (validate, or build and serve when the content is invalid);
    `body_links`: the store links read from page bodies, when site.toml asks for them."""
    items = sort_findings(findings)
    links = body_links
    counts = findings_summary(items)
    if ok is None:
        ok = not (counts["errors"] or (strict and counts["warnings"]))

    def cases() -> list[Case]:
        by_file: dict[str, Case] = {p: Case(p, command, p) for p in pages}
        for f in items:
            case = by_file.get(f.file)
            if case is None:
                case = by_file[f.file] = Case(f.file, command, f.file)
            case.results.append(_result(f, strict))
        return sorted(by_file.values(), key=lambda c: c.name)

    summary: dict[str, Any] = {**counts, "files": files, "games": games}
    if read is not None:
        summary["read"] = dict(read)
    where = "" if files is None else f" in {plural(files, 'file')}"
    if games is not None:
        where += f" ({plural(games, 'game')})"
    line = f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}{where}"
    if read_line:
        line += f"; {read_line}"
    if counts["errors"]:
        mark = ("✗", "red")
    elif counts["warnings"]:
        mark = ("!", "yellow")
    else:
        mark = ("✓", "green")
    return Report(
        command=command,
        ok=ok,
        summary=line,
        rules=lambda: content_rules(items),
        cases=cases,
        envelope=lambda: envelope(
            command,
            ok=ok,
            summary=summary,
            items=[finding_json(f) for f in items],
            more=None if links is None else {"body_links": [r.to_json() for r in links]},
        ),
        markdown=lambda: findings_markdown(items, line, ok=ok),
        tables=lambda width: (
            ([findings_table(items, width)] if items else [])
            + ([body_links_table(links, width)] if links else [])
        ),
        mark=mark,
        has_tables=bool(items or links),
        lines=None if not links else lambda: _plain_lines(cases(), links),
    )


def _plain_lines(cases: list[Case], links: Sequence[BodyLinkRow]) -> list[str]:
    return [r.line() for c in cases for r in c.results] + [body_link_line(r) for r in links]


def body_link_line(row: BodyLinkRow) -> str:
    """A body link on one line, for a pipe or a log: `file:line:column: read from the body ·
    stores.<key> (<name>): <url>`."""
    return clean(f"{row.where()}: read from the body · stores.{row.store} ({row.name}): {row.url}")


def body_links_table(rows: Sequence[BodyLinkRow], width: int) -> RenderableType:
    """The store links read from page bodies: where each is, its store and URL."""
    from rich.table import Table
    from rich.text import Text

    if width < NARROW:  # as the findings' lines: the location, then what is there
        lines = ["", "Store links read from page bodies:"]
        for r in rows:
            lines += [r.where(), f"  stores.{r.store} ({r.name})", f"    {r.url}"]
        # Never folded: a location stays one string an editor or terminal can open.
        return Text("\n".join(clean(line) for line in lines), no_wrap=True, overflow="ignore")
    table = Table(
        title="Store links read from page bodies", title_justify="left", header_style="bold"
    )
    table.add_column("File", overflow="fold")
    table.add_column("Line", justify="right")
    table.add_column("Store", overflow="fold")
    table.add_column("URL", overflow="fold", ratio=1)
    for r in rows:
        table.add_row(
            Text(clean(r.file)),
            str(r.line),
            Text(clean(f"{r.store} ({r.name})")),
            Text(clean(r.url)),
        )
    return table


# Below this many columns the table would cut file names and words: a list instead.
NARROW = 100
# Above this many findings, a list too: a table that long scrolls off any screen, and rich
# takes about a second per 1,000 rows to lay it out.
TABLE_ROWS = 200


def findings_table(findings: list[Finding], width: int) -> RenderableType:
    """The (sorted) findings as a table, or (below `NARROW` columns, or with more than
    `TABLE_ROWS` findings) as `file:line:column` lines each followed by the finding, wrapped at
    spaces."""
    if width >= NARROW and len(findings) <= TABLE_ROWS:
        return _wide(findings)
    return _FindingLines(findings, width)


def _wide(findings: list[Finding]) -> RenderableType:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, header_style="bold", expand=False)
    table.add_column("File", overflow="fold")
    table.add_column("Line", justify="right")
    table.add_column("Field", overflow="fold")
    table.add_column("Rule", overflow="fold")
    table.add_column("Severity")
    table.add_column("Message", overflow="fold", ratio=1)
    for f in findings:
        style = "red" if f.severity == "error" else "yellow"
        table.add_row(
            Text(clean(f.file)),
            "" if f.line is None else str(f.line),
            Text(clean(f.field or "")),
            Text(f.rule),
            Text(f.severity, style=style),
            Text(clean(f.message)),
        )
    return table


class _FindingLines:
    """`file:line:column` lines each followed by the finding, two columns in, wrapped at
    spaces here (lines after the first two more columns in), blank lines between files.

    Yielded as rich segments, not Texts: linear and fast for tens of thousands of findings.
    """

    def __init__(self, findings: list[Finding], width: int) -> None:
        self.findings, self.width = findings, width

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.segment import Segment
        from rich.style import Style

        from catalogctl.output.layout import wrap_cells

        bold, styles = Style(bold=True), {"error": Style(color="red")}
        newline = Segment.line()
        previous = None
        for f in self.findings:
            where = f.file
            if f.line is not None:
                where += f":{f.line}" + (f":{f.column}" if f.column is not None else "")
            if previous is not None and previous != f.file:
                yield newline
            previous = f.file
            # The location is never folded: it stays one string an editor or terminal can open.
            yield Segment(clean(where), bold)
            yield newline
            field = f"{clean(f.field)}: " if f.field else ""
            body = f"{f.severity} {f.rule} · {field}{clean(f.message)}"
            for j, line in enumerate(wrap_cells(body, self.width - 4)):
                if j:
                    yield Segment(f"    {line}")
                else:
                    yield Segment("  ")
                    yield Segment(f.severity, styles.get(f.severity, Style(color="yellow")))
                    yield Segment(line[len(f.severity) :])
                yield newline


def findings_markdown(findings: Sequence[Finding], summary: str, *, ok: bool) -> str:
    """A PR comment: the summary, then a table of findings."""
    errors = any(f.severity == "error" for f in findings)
    icon = "✅" if ok and not findings else ("❌" if not ok or errors else "⚠️")
    lines = [f"### {icon} Content check: {md_text(summary)}", ""]
    if findings:
        lines += ["| File | Line | Rule | Severity | Message |", "|---|---:|---|---|---|"]
        for f in findings:
            mark = "❌" if f.severity == "error" else "⚠️"
            field = f"{md_code(f.field, cell=True)}: " if f.field else ""
            lines.append(
                f"| {md_code(f.file, cell=True)} | {'' if f.line is None else f.line} "
                f"| [{md_code(f.rule, cell=True)}]({docs_url(rule_docs(f.rule))}) "
                f"| {mark} {f.severity} "
                f"| {field}{md_text(f.message)} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


# --- --list-rules -------------------------------------------------------------------------------


RULE_FORMATS = ("table", "json", "markdown")


def write_rules(rules: Sequence[ContentRule], fmt: str) -> None:
    """Every rule: its id, default severity and what it checks; as a plain table (one rule a
    line), the JSON envelope or a Markdown table."""
    from catalogctl.output.console import emit, json_text

    if fmt not in RULE_FORMATS:
        from catalogctl.errors import InputError

        raise InputError(f"--list-rules is written as table, json or markdown, not {fmt}")
    if fmt == "json":
        items = [
            {
                "id": r.id,
                "severity": r.severity,
                "configurable": r.configurable,
                "summary": r.summary,
                "docs_url": docs_url(rule_docs(r.id)),
            }
            for r in rules
        ]
        emit(json_text(envelope("rules", ok=True, summary={"rules": len(rules)}, items=items)))
    elif fmt == "markdown":
        lines = ["| Rule | Severity | Configurable | What it checks |", "|---|---|---|---|"]
        lines += [
            f"| `{r.id}` | {r.severity} | {'yes' if r.configurable else 'no'} "
            f"| {md_text(r.summary)} |"
            for r in rules
        ]
        emit("\n".join(lines) + "\n")
    else:
        width = max(len(r.id) for r in rules)
        emit(
            "".join(
                f"{r.id:<{width}}  {r.severity:<7}  {r.summary}"
                f"{'' if r.configurable else '  (always an error)'}\n"
                for r in rules
            )
        )
