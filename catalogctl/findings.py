"""A finding: one located problem in the content (base layer: no catalogctl imports)."""

from typing import Any, Literal, NamedTuple

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
WARNING: Severity = "warning"


class Finding(NamedTuple):
    """One problem in the content, located as precisely as the parsers allow.

    `rule` is a stable id (`unknown-key`, `store-url`, …: `catalogctl validate --list-rules`);
    `line` and `column` are 1-based and point at the offending value where the parser knows it.
    """

    file: str
    line: int | None
    field: str | None
    message: str
    severity: Severity = ERROR
    rule: str = "invalid-value"
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
        }


class Rule(NamedTuple):
    """A check with a stable id, as reports name and document it (SARIF, GitHub, JUnit)."""

    id: str  # stable, kebab-case: `unknown-key`, `broken-link`, `breaking-change`
    severity: Severity | Literal["note"]  # the default level of what it reports
    summary: str  # one line: what the rule checks
    help: str = ""  # what to do about it
