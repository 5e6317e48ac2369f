"""`catalogctl validate`: check the content, every problem at once."""

from __future__ import annotations

import typer

from catalogctl.cli.common import ContentArg, FormatOpt, OutputOpt, StrictOpt, resolve_content
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, use_format


def validate(
    content: ContentArg = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Check the content: every problem at once, with its file, line and field.

    Exit 0 when the content is valid, 1 when it has errors (or warnings with --strict),
    2 when it cannot be read at all.

    [bold]Examples[/]

      catalogctl validate                      # ./content
      catalogctl validate site/content --strict
      catalogctl validate --format json | jq '.findings[]'
      catalogctl validate --format github      # annotations on the pull request
      catalogctl validate --format sarif --output catalogctl.sarif
    """
    from catalogctl.content.loader import load
    from catalogctl.output.reports import report_validate

    use_format("validate", fmt, output)

    root, display = resolve_content(content)
    result = load(root, display=display)
    games = sum(not e.source.draft for e in result.entries)
    ok = report_validate(
        result.findings,
        fmt,
        strict=strict,
        pages=[e.front.file for e in result.entries],
        files=result.files,
        games=games,
    )
    raise typer.Exit(int(ExitCode.OK if ok else ExitCode.FINDINGS))
