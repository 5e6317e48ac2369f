"""Writing a command's report in the format asked for, and the report of a failed command.

table: the command's rich tables on stdout and the summary line on stderr. json: the versioned
envelope. github: workflow-command annotations (and the summary line on stderr). sarif, junit,
markdown: a document for the tool that reads it. `--output FILE` sends the report to FILE and
leaves the summary line for the terminal. May import: the cores and below.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from catalogctl.output import console
from catalogctl.output.console import emit, json_text
from catalogctl.output.model import Report

if TYPE_CHECKING:
    from catalogctl.diff.core import DiffResult
    from catalogctl.errors import CatalogError
    from catalogctl.findings import Finding
    from catalogctl.links.core import LinkReport
    from catalogctl.links.report import Located


def write(report: Report, fmt: str) -> None:
    """`report` in `fmt`, to stdout or --output FILE; the summary line on stderr."""
    if fmt == "table":
        if report.has_tables:
            console.emit_renderables(report.tables)
    elif fmt == "json":
        emit(json_text(report.envelope()))
    elif fmt == "github":
        from catalogctl.output.github import workflow_commands

        emit(workflow_commands(report.results))
    elif fmt == "sarif":
        from catalogctl.output.sarif import sarif_log

        emit(json_text(sarif_log(report.rules(), report.results)))
    elif fmt == "junit":
        from catalogctl.output.junit import junit_xml

        emit(junit_xml(report.command, report.cases(), seconds=report.seconds))
    elif fmt == "markdown":
        emit(report.markdown())
    else:  # pragma: no cover - the CLI's choices are the formats above
        raise ValueError(fmt)
    if console.wants_summary():
        console.status(*report.mark, report.summary)


# --- each command ------------------------------------------------------------------------


def report_validate(
    findings: Iterable[Finding],
    fmt: str,
    *,
    strict: bool,
    pages: Sequence[str],
    files: int,
    games: int,
    read: Mapping[str, int] | None = None,
    read_line: str = "",
) -> bool:
    """validate's report; whether the content passes (exit 0).

    `read` counts what the content tree held (pages, published, drafts, skipped, ignored);
    `read_line` says it in words, after the summary line.
    """
    from catalogctl.output.validate import findings_report

    report = findings_report(
        "validate",
        findings,
        strict=strict,
        pages=pages,
        files=files,
        games=games,
        read=read,
        read_line=read_line,
    )
    write(report, fmt)
    return report.ok


def report_links(
    result: LinkReport, fmt: str, *, strict: bool, located: Located | None = None
) -> bool:
    """check-links' report; whether every link passes (exit 0)."""
    from catalogctl.output.links import links_report

    report = links_report(result, strict=strict, located=located)
    write(report, fmt)
    return report.ok


def report_diff(result: DiffResult, fmt: str, *, fail_on: str, note: str = "") -> bool:
    """diff's report; whether the gate passes (exit 0)."""
    from catalogctl.output.diff import diff_report

    report = diff_report(result, fail_on=fail_on)
    report = report._replace(summary=report.summary + note)
    write(report, fmt)
    return report.ok


# --- a command that could not do its work -------------------------------------------------


def report_error(exc: CatalogError) -> None:
    """The report of a failed command in its format (the JSON envelope with the error, a SARIF
    log whose invocation failed, …), and the message on stderr."""
    from catalogctl.output.envelope import error_kind

    findings: list[Finding] = list(getattr(exc, "findings", None) or [])
    report_failure(exc.message, code=int(exc.exit_code), kind=error_kind(exc), findings=findings)


def report_failure(
    message: str, *, code: int, kind: str, findings: list[Finding] | None = None
) -> None:
    """A failure's report in the running format, then `error: message` on stderr."""
    try:
        _failure(message, code=code, kind=kind, findings=findings or [])
    except Exception as exc:  # noqa: BLE001 - e.g. --output unwritable: still say why we failed
        console.error_line(str(exc))
    console.error_line(message)


def _failure(message: str, *, code: int, kind: str, findings: list[Finding]) -> None:
    from catalogctl.output.envelope import error_envelope
    from catalogctl.output.validate import findings_report

    fmt, command = console.settings.format, console.settings.command
    if fmt == "json":
        emit(json_text(error_envelope(command, message, code=code, kind=kind, findings=findings)))
        return
    report = findings_report(command, findings, ok=False)
    if fmt == "table":
        if findings:
            console.emit_renderables(report.tables)
    elif fmt == "github":
        from catalogctl.output.github import error_command, workflow_commands

        emit(workflow_commands(report.results) + error_command(command, message))
    elif fmt == "sarif":
        from catalogctl.output.sarif import sarif_log

        emit(json_text(sarif_log(report.rules(), report.results, error=message)))
    elif fmt == "junit":
        from catalogctl.output.junit import junit_xml

        emit(junit_xml(command, report.cases(), error=message))
    elif fmt == "markdown":
        from catalogctl.text import md_text

        body = report.markdown() if findings else ""
        emit(f"### ❌ catalogctl {command} failed\n\n{md_text(message)}\n\n{body}")
