"""`catalogctl validate`: check the content, every problem at once."""

from typing import Annotated

import typer

from catalogctl.cli.common import ContentArg, FormatOpt, OutputOpt, StrictOpt, resolve_content
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, use_format

RULES_PANEL = "Rules"


def validate(
    content: ContentArg = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    strict: StrictOpt = False,
    list_rules: Annotated[
        bool,
        typer.Option(
            "--list-rules",
            help="List every rule: id, default severity, what it checks.",
            rich_help_panel=RULES_PANEL,
        ),
    ] = False,
    explain: Annotated[
        str | None,
        typer.Option(
            "--explain",
            metavar="RULE",
            help="What RULE checks, why, how to fix it, with an example (as the rules reference).",
            rich_help_panel=RULES_PANEL,
        ),
    ] = None,
) -> None:
    """Check the content: every problem at once, with its rule, file, line, column and field.

    Exit 0 when the content is valid, 1 when it has errors (or warnings with --strict) or
    publishes no game, 2 when it cannot be read at all. `[rules]` in site.toml sets a rule to
    "error", "warning" or "off".

    Examples

      catalogctl validate                      # ./content
      catalogctl validate site/content --strict
      catalogctl validate --format json | jq '.findings[]'
      catalogctl validate --format github      # annotations on the pull request
      catalogctl validate --format sarif --output catalogctl.sarif
      catalogctl validate --list-rules
      catalogctl validate --explain unknown-key
    """
    use_format("validate", fmt, output)
    if explain is not None:
        from catalogctl.output.console import print_text
        from catalogctl.output.reference import explanation

        print_text(explanation(explain))
        return
    if list_rules:
        from catalogctl.content.rules.registry import rules_table
        from catalogctl.output.validate import write_rules

        write_rules(rules_table(), fmt)
        return
    from catalogctl.content.loader import load
    from catalogctl.output.reports import write
    from catalogctl.output.validate import validate_report

    root, display = resolve_content(content)
    report = validate_report(load(root, display=display), strict=strict)
    write(report, fmt)
    raise typer.Exit(int(ExitCode.OK if report.ok else ExitCode.FINDINGS))
