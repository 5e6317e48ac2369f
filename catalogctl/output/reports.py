"""Writing a command's report in the format asked for, and the report of a failed command.

table: on a terminal, the command's rich tables on stdout; elsewhere (a pipe, a CI log, --output
FILE) one line per finding, never wrapped; the summary line on stderr. json: the versioned
envelope. github: workflow-command annotations (and the summary line on stderr). sarif, junit,
markdown: a document for the tool that reads it. `--output FILE` sends the report to FILE and
leaves the summary line for the terminal. `_body` is the one place that picks a format: a new
format is a branch there (and a module beside this one), and then works for every command.
May import: the cores and below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalogctl import docs_url
from catalogctl.output import console
from catalogctl.output.console import emit, json_text
from catalogctl.output.model import Report

if TYPE_CHECKING:
    from catalogctl.errors import CatalogError
    from catalogctl.findings import Finding
    from catalogctl.links.catalog import Located
    from catalogctl.links.result import LinkReport


def write(report: Report, fmt: str) -> None:
    """`report` in `fmt`, to stdout or --output FILE; the summary line on stderr."""
    _body(report, fmt)
    if console.wants_summary():
        console.status(*report.mark, report.summary)


def _body(report: Report, fmt: str) -> None:
    error = report.error
    if fmt == "table":
        if report.has_tables and console.to_terminal():
            console.emit_renderables(report.tables)
        elif report.has_tables or console.settings.output is not None:
            # --output FILE is written even with nothing in it: a report left by an earlier
            # run would still list what has been fixed since.
            emit("".join(line + "\n" for line in report.plain_lines()))
    elif fmt == "json":
        text = report.envelope_text
        emit(json_text(report.envelope()) if text is None else text())
    elif fmt == "github":
        from catalogctl.output.github import error_command, workflow_commands

        failed = "" if error is None else error_command(report.command, error)
        docs = {r.id: docs_url(r.docs) for r in report.rules() if r.docs}
        emit(workflow_commands(report.results, docs) + failed)
    elif fmt == "sarif":
        from catalogctl.output.sarif import sarif_log

        emit(json_text(sarif_log(report.rules(), report.results, error=error)))
    elif fmt == "junit":
        from catalogctl.output.junit import junit_xml

        emit(junit_xml(report.command, report.cases(), seconds=report.seconds, error=error))
    elif fmt == "markdown":
        emit(report.markdown())
    else:  # pragma: no cover - the CLI's choices are the formats above
        raise ValueError(fmt)


def report_links(
    result: LinkReport, fmt: str, *, strict: bool, located: Located | None = None
) -> bool:
    """check-links' report; whether every link passes (exit 0)."""
    from catalogctl.output.links import links_report

    report = links_report(result, strict=strict, located=located)
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
        report = failure_report(message, code=code, kind=kind, findings=findings or [])
        _body(report, console.settings.format)
    except Exception as exc:  # noqa: BLE001 - e.g. --output unwritable: still say why we failed
        # What the system said (`No space left on device`), without Python's `[Errno 28]`;
        # once, when the message does not say it already (stdout refused it too).
        said = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        if said not in message:
            console.error_line(said)
    console.error_line(message)


def failure_report(message: str, *, code: int, kind: str, findings: list[Finding]) -> Report:
    """The running command's failure: why, the exit code, and the findings that caused it."""
    from catalogctl.output.envelope import error_envelope
    from catalogctl.output.validate import findings_report
    from catalogctl.text import md_text

    command = console.settings.command
    found = findings_report(command, findings, ok=False)

    def markdown() -> str:
        body = found.markdown() if findings else ""
        return f"### ❌ catalogctl {command} failed\n\n{md_text(message)}\n\n{body}"

    return found._replace(
        error=message,
        envelope=lambda: error_envelope(command, message, code=code, kind=kind, findings=findings),
        markdown=markdown,
    )
