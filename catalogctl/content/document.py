"""A parsed front matter (or site.toml): its data, and where each key and value is.

Positions come from the parsers themselves: PyYAML's composed nodes for YAML, and for TOML and
JSON (whose standard-library parsers keep none) a scan of the same text that runs only when a
finding needs a place. Lines are lines of the file, columns count characters from 1.
"""

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

Path = tuple[str | int, ...]
Pos = tuple[int, int]  # (line, column), 1-based, in the file
Syntax = Literal["yaml", "toml", "json"]


class Problem(Exception):
    """A file that cannot be parsed: a finding of `rule` at a line and column (if known)."""

    def __init__(
        self, rule: str, message: str, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.line = line
        self.column = column

    @property
    def message(self) -> str:
        return str(self.args[0])


class Duplicate(NamedTuple):
    """A key given twice in one mapping."""

    path: Path  # the mapping's path
    key: str
    first: Pos
    second: Pos


class Positions:
    """Where each key and value of a document is (by path), and its repeated keys."""

    __slots__ = ("duplicates", "keys", "values")

    def __init__(self) -> None:
        self.values: dict[Path, Pos] = {}
        self.keys: dict[Path, Pos] = {}
        self.duplicates: list[Duplicate] = []


class Document:
    """Data of one front matter or site.toml, and the positions of its keys and values.

    (The plain classes and named tuples of the content layer are not dataclasses: `validate`
    starts by importing them, and a dataclass costs about a millisecond to create.)
    """

    __slots__ = (
        "_find",
        "_positions",
        "_scan",
        "body_at",
        "data",
        "file",
        "may_repeat_keys",
        "start",
        "syntax",
    )

    def __init__(
        self,
        file: str,
        syntax: Syntax,
        data: dict[str, Any],
        start: Pos,
        positions: Positions | None = None,
        scan: Callable[[], Positions] | None = None,
        may_repeat_keys: bool = True,
        find: Callable[[Path, bool], Pos | None] | None = None,
    ) -> None:
        self.file = file
        self.syntax = syntax
        self.data = data
        self.start = start  # where the block starts (its opening line), for whole-block findings
        self._positions = positions
        self._scan = scan
        self.may_repeat_keys = may_repeat_keys  # False when the parser refused repeated keys
        # Where the key (True) or value (False) at a path is, found without a scan of the whole
        # document (YAML: from its nodes); when set, `_scan` is only needed for the duplicates.
        self._find = find
        # A page's body: the offset of its first byte in the file (-1: not a page's, or none).
        self.body_at = -1

    @property
    def duplicates(self) -> list[Duplicate]:
        return self.positions.duplicates if self.may_repeat_keys else []

    @property
    def positions(self) -> Positions:
        if self._positions is None:
            scan, self._scan = self._scan, None
            try:
                self._positions = scan() if scan is not None else Positions()
            except (ValueError, IndexError, RecursionError):  # a locator never fails a check
                self._positions = Positions()
        return self._positions

    def _at(self, path: Path, key: bool) -> Pos | None:
        if self._find is not None:
            return self._find(path, key)
        pos = self.positions
        return (pos.keys if key else pos.values).get(path)

    def value_pos(self, path: Path) -> Pos:
        """The value at `path`, else the nearest enclosing value or key that is known."""
        for end in range(len(path), 0, -1):
            sub = path[:end]
            found = self._at(sub, False) or self._at(sub, True)
            if found is not None:
                return found
        return self.start

    def key_pos(self, path: Path) -> Pos:
        found = self._at(path, True)
        return found if found is not None else self.value_pos(path)
