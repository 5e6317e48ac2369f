"""One exception tree and the exit codes, caught once at the CLI edge (base layer)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from catalogctl.findings import Finding


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the check found problems (invalid content, broken links, differences)
    USAGE = 2  # usage error or unreadable input


class CatalogError(Exception):
    """An error a user can act on; the CLI prints the message and exits with `exit_code`."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, *, exit_code: ExitCode | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self.args[0])


class InputError(CatalogError):
    """A path, URL or option that cannot be used at all (exit 2)."""


class ContentInvalid(CatalogError):
    """Content has error findings; carries them so the CLI can report them (exit 1)."""

    exit_code = ExitCode.FINDINGS

    def __init__(self, message: str, findings: Sequence[Finding]) -> None:
        super().__init__(message)
        self.findings = list(findings)
