"""Printing results: rich tables on a terminal, JSON and Markdown for machines and PRs.

Core modules never print; the CLI hands their results to the functions here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

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


def print_json(data: Any) -> None:
    import json

    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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
