"""`catalogctl validate`: check the content, every problem at once."""

from __future__ import annotations

import typer

from catalogctl.cli.common import ContentArg, FormatOpt, StrictOpt, resolve_content
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, report_findings, use_format


def validate(
    content: ContentArg = None,
    fmt: FormatOpt = Format.table,
    strict: StrictOpt = False,
) -> None:
    """Check the content: every problem at once, with its file, line and field.

    Exit 0 when the content is valid, 1 when it has errors (or warnings with --strict),
    2 when it cannot be read at all.

    [bold]Examples[/]

      catalogctl validate                      # ./content
      catalogctl validate site/content --strict
      catalogctl validate --format json | jq '.findings[]'
    """
    from catalogctl.content.loader import load

    use_format("validate", fmt)

    root, display = resolve_content(content)
    result = load(root, display=display)
    games = sum(not e.source.draft for e in result.entries)
    report_findings(result.findings, fmt, files=result.files, games=games)
    failing = result.errors or (strict and result.warnings)
    raise typer.Exit(int(ExitCode.FINDINGS if failing else ExitCode.OK))
