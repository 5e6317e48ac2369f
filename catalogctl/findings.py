"""A finding: one located problem in the content (base layer: no catalogctl imports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
WARNING: Severity = "warning"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in the content, located as precisely as the parsers allow."""

    file: str
    line: int | None
    field: str | None
    message: str
    severity: Severity = ERROR

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "severity": self.severity,
            "message": self.message,
        }
