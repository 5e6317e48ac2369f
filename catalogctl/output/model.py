"""What every report format is written from: results located in files, grouped in cases.

Each command's result (validate's findings, check-links' links, diff's changes, a failure) is
mapped to a `Report` once, by the command's module here (`validate_report`, `diff_report`, …);
`catalogctl.output.reports.write` writes a `Report` in any format, and the machine formats
(GitHub annotations, SARIF, JUnit) are written from its results and cases, so a format behaves
the same for every command. May import: the base layer.
"""

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from catalogctl.findings import Rule
from catalogctl.text import clean

if TYPE_CHECKING:
    from rich.console import RenderableType

Level = Literal["error", "warning", "note"]


class Location(NamedTuple):
    """Where a result is: a file (with line and column when known) and/or a logical name."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    logical: str | None = None  # a game id, a URL or a contract path, when there is no file
    kind: str = "object"  # SARIF logicalLocation kind: "object" (a game), "resource" (a URL)


class Result(NamedTuple):
    """One thing a format reports: a finding, a broken link, a change."""

    rule: str
    level: Level
    message: str
    location: Location = Location()
    failing: bool = True  # it makes the command exit 1

    def line(self) -> str:
        """The result on one line, where it is first: `file:line:column: level rule · message`
        (a game id, URL or contract path where there is no file)."""
        loc = self.location
        where = loc.file or loc.logical or ""
        if loc.file and loc.line is not None:
            where += f":{loc.line}" + (f":{loc.column}" if loc.column is not None else "")
        return clean(f"{where}: {self.level} {self.rule} · {self.message}")


class Case:
    """A JUnit test case: one game, file or link, passed or failed by its results."""

    __slots__ = ("classname", "file", "name", "results", "skipped")

    def __init__(
        self,
        name: str,
        classname: str,
        file: str | None = None,
        results: list[Result] | None = None,
        skipped: str | None = None,  # why it was not checked
    ) -> None:
        self.name = name
        self.classname = classname
        self.file = file
        self.results: list[Result] = [] if results is None else results
        self.skipped = skipped

    @property
    def failures(self) -> list[Result]:
        return [r for r in self.results if r.failing]


class Report(NamedTuple):
    """A command's outcome, ready to be written in any format."""

    command: str  # validate, check-links, diff; build or serve when they fail
    ok: bool  # exit 0
    summary: str  # the one-line summary a terminal shows
    # What only some formats need is made when one asks for it (validate of 10,000 pages would
    # otherwise make 10,000 JUnit cases to print a table).
    rules: Callable[[], Sequence[Rule]]
    cases: Callable[[], list[Case]]
    envelope: Callable[[], dict[str, Any]]  # the versioned JSON document
    markdown: Callable[[], str]  # a PR comment
    tables: Callable[[int], "list[RenderableType]"]  # the table format at a width (columns)
    mark: tuple[str, str]  # the summary line's mark and its colour: ("✗", "red")
    seconds: float | None = None
    # False when `tables` has nothing to show: the table format then needs no console at all
    # (`validate` of clean content starts without importing rich's console).
    has_tables: bool = True
    # Why the command could not do its work: the machine formats say so (a failed SARIF
    # invocation, a JUnit error, a GitHub error annotation), and stderr gets it, not `summary`.
    error: str | None = None
    # The table format when it is not shown on a terminal (a pipe, a CI log, --output FILE):
    # one line per item, never wrapped, so that grep finds a whole finding. By default each
    # result's `line`; a command whose tables say more than its results gives its own.
    lines: Callable[[], list[str]] | None = None
    # The JSON document's text, when the command lays it out itself (check-links: a link a
    # line); None: `envelope()` indented by two.
    envelope_text: Callable[[], str] | None = None

    @property
    def results(self) -> list[Result]:
        return [r for c in self.cases() for r in c.results]

    def plain_lines(self) -> list[str]:
        if self.lines is not None:
            return self.lines()
        return [r.line() for r in self.results]
