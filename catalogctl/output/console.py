"""Printing results: rich tables on a terminal, JSON and Markdown for machines and PRs.

Core modules never print; the CLI hands their results to the functions here.
May import: catalogctl.errors, catalogctl.findings (and, lazily, the cores' result types).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from catalogctl.text import plural

if TYPE_CHECKING:
    from rich.console import Console

    from catalogctl.errors import CatalogError
    from catalogctl.findings import Finding


class Format(StrEnum):
    table = "table"
    json = "json"


class RichFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


_out: Console | None = None
_err: Console | None = None


def out() -> Console:
    global _out  # noqa: PLW0603 - one console per process, made on first use
    if _out is None:
        from rich.console import Console

        _out = Console(highlight=False, soft_wrap=False)
    return _out


def err() -> Console:
    global _err  # noqa: PLW0603
    if _err is None:
        from rich.console import Console

        _err = Console(stderr=True, highlight=False)
    return _err


_ANSI = {"red": "31", "yellow": "33", "green": "32"}


def status(mark: str, color: str, text: str) -> None:
    """A one-line summary on stderr, without importing rich (validate start-up matters)."""
    sys.stdout.flush()  # after any table printed on stdout
    stream = sys.stderr
    if stream.isatty() and not os.environ.get("NO_COLOR") and color in _ANSI:
        mark = f"\x1b[{_ANSI[color]}m{mark}\x1b[0m"
    stream.write(f"{mark} {text}\n")
    stream.flush()


def print_text(text: str) -> None:
    """Text for another program (a shell script, a schema), exactly as given."""
    sys.stdout.write(text)
    sys.stdout.flush()


def print_json(data: Any) -> None:
    import json

    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def findings_table(findings: list[Finding]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, header_style="bold", expand=False)
    table.add_column("File", overflow="fold")
    table.add_column("Line", justify="right")
    table.add_column("Field", overflow="fold")
    table.add_column("Severity")
    table.add_column("Message", overflow="fold", ratio=1)
    for f in findings:
        style = "red" if f.severity == "error" else "yellow"
        table.add_row(
            Text(f.file),
            "" if f.line is None else str(f.line),
            Text(f.field or ""),
            Text(f.severity, style=style),
            Text(f.message),
        )
    out().print(table)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.file, f.line or 0, f.field or "", f.message))


# --- the command's report settings, and errors ---------------------------------------------

_command: str = "catalogctl"
_format: str = "table"


def use_format(command: str, fmt: str) -> None:
    """Remember which command runs and its output format, for `report_error`."""
    global _command, _format
    _command, _format = command, str(fmt)


def report_findings(
    findings: Iterable[Finding],
    fmt: str,
    *,
    files: int | None = None,
    games: int | None = None,
) -> None:
    """Findings as a table and a summary line, or as JSON."""
    items = sort_findings(findings)
    errors = sum(f.severity == "error" for f in items)
    warnings = len(items) - errors
    if fmt == Format.json:
        print_json(
            {
                "valid": errors == 0,
                "findings": [f.to_json() for f in items],
                "summary": {"errors": errors, "warnings": warnings, "files": files, "games": games},
            }
        )
        return
    if items:
        findings_table(items)
    mark, color = ("✗", "red") if errors else (("!", "yellow") if warnings else ("✓", "green"))
    where = "" if files is None else f" in {plural(files, 'file')}"
    if games is not None:
        where += f" ({plural(games, 'game')})"
    status(mark, color, f"{plural(errors, 'error')}, {plural(warnings, 'warning')}{where}")


def report_error(exc: CatalogError) -> None:
    """A command failed: its findings (if any), then the message on stderr."""
    findings = getattr(exc, "findings", None)
    if findings:
        report_findings(findings, _format)
    err().print(f"[bold red]error:[/] {exc.message}", markup=True, highlight=False)
