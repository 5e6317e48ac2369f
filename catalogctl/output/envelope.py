"""The one JSON shape of every command: `{"schema": "catalogctl/<command>/v1", "ok", …}`.

`schemas/catalogctl.v1.schema.json` in the repository describes it (a test checks real output
against it). A change that breaks a reader of the JSON needs a new version (`…/v2`); adding a
member does not. May import: the base layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catalogctl import docs_url
from catalogctl.findings import rule_docs

if TYPE_CHECKING:
    from collections.abc import Iterable

    from catalogctl.errors import CatalogError
    from catalogctl.findings import Finding

VERSION = 1
# The list each command reports, beside "summary".
ITEMS = {
    "validate": "findings",
    "check-links": "links",
    "diff": "changes",
    "build": "findings",
    "rules": "rules",  # validate --list-rules
}


def schema_id(command: str) -> str:
    return f"catalogctl/{command}/v{VERSION}"


def envelope(
    command: str,
    *,
    ok: bool,
    summary: dict[str, Any],
    items: list[Any],
    more: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A command's report: what it found, and whether that makes it fail (`more`: members
    of the command's own after its items)."""
    key = ITEMS.get(command, "findings")
    doc = {"schema": schema_id(command), "ok": ok, "summary": summary, key: items}
    if more:
        doc.update(more)
    return doc


def finding_json(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "severity": f.severity,
        "file": f.file,
        "line": f.line,
        "column": f.column,
        "field": f.field,
        "message": f.message,
        "docs_url": docs_url(rule_docs(f.rule)),
    }


def findings_summary(findings: Iterable[Finding]) -> dict[str, int]:
    """Errors and warnings found, listed or not (a finding that says how many more of its rule
    were left out counts them)."""
    errors = warnings = 0
    for f in findings:
        if f.severity == "error":
            errors += f.tally
        else:
            warnings += f.tally
    return {"errors": errors, "warnings": warnings}


def error_kind(exc: CatalogError) -> str:
    from catalogctl.errors import ContentInvalid, InputError

    if isinstance(exc, ContentInvalid):
        return "content"
    if isinstance(exc, InputError):
        return "input"
    return "error"


def error_envelope(
    command: str, message: str, *, code: int, kind: str, findings: list[Finding] | None = None
) -> dict[str, Any]:
    """A command that could not do its work: why, with the exit code (and findings, if any)."""
    doc: dict[str, Any] = {
        "schema": schema_id(command),
        "ok": False,
        "error": {"kind": kind, "code": code, "message": message},
    }
    if findings:
        doc["summary"] = findings_summary(findings)
        doc["findings"] = [finding_json(f) for f in findings]
    return doc
