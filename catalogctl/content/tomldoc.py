"""TOML (front matter and site.toml): `tomli` parses, a token scan locates.

`tomli` is a complete TOML 1.0 parser (the standard library's `tomllib` is its pure-Python
copy; tomli's wheels are compiled with mypyc and parse a page about three times faster). It
decides what is valid and rejects a key given twice. It is held below 2.4, which reads TOML
1.1: Hugo (go-toml) and Zola read TOML 1.0, so a page valid here must be valid there.

tomli keeps no positions, so findings are located by `scan_toml`, a scan of the same (already
valid) text that records where each key and value starts. It runs only when a finding needs a
place, so valid pages cost nothing extra, and a scan that cannot follow the text falls back to
the table's or block's line instead of failing the check. (`tomlkit` keeps positions too, but
is a pure-Python parser many times slower, and would be a second opinion on what is valid
TOML.)
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from itertools import accumulate

import tomli

from catalogctl.content.document import Document, Duplicate, Path, Pos, Positions, Problem
from catalogctl.content.limits import (
    MAX_DEPTH,
    bracket_count,
    line_col,
    long_number,
    nested_too_deep,
    too_deep,
    too_long_number,
)
from catalogctl.content.walk import check_tree

_PLUS_ONE = (1).__add__
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_WS_RE = re.compile(r"[ \t]*")
_WS_NL = re.compile(r"(?:[ \t\r\n]|#[^\n]*)*")
_SCALAR_END = re.compile(r"[,\]}\n#]")
# The rest of a basic string, through its closing quote (a backslash escapes any character).
_BASIC_REST = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*"')


def read_toml(text: str, file: str, line0: int, start: Pos) -> Document:
    """Parse a TOML text whose first line is line `line0` of the file."""
    if bracket_count(text) > MAX_DEPTH:
        where = too_deep(text, toml=True)
        if where >= 0:
            line, col = line_col(text, where)
            raise Problem("limit", nested_too_deep(), line0 + line - 1, col)
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as exc:
        raise _problem(exc, text, line0) from None
    except RecursionError:
        raise Problem("limit", nested_too_deep(), *start) from None
    except ValueError:  # an integer past Python's own digit limit
        line, col = line_col(text, long_number(text))
        raise Problem("limit", too_long_number(), line0 + line - 1, col) from None
    # tomli refuses a repeated key, so positions are only ever looked up: on demand.
    doc = Document(file, "toml", data, start, may_repeat_keys=False, find=_Finder(text, line0))
    check_tree(doc)
    return doc


def _problem(exc: tomli.TOMLDecodeError, text: str, line0: int) -> Problem:
    """tomli's error as a finding at tomli's position, in plain words."""
    from catalogctl.content.syntax_messages import toml_message

    msg = exc.msg
    line = line0 + exc.lineno - 1
    col = exc.colno
    if msg.startswith(("Cannot overwrite", "Cannot declare")):
        try:
            dups = scan_toml(text, line0).duplicates
        except (ValueError, IndexError, RecursionError):
            dups = []
        for dup in dups:
            if dup.second[0] == line:
                dotted = ".".join(str(p) for p in (*dup.path, dup.key))
                return Problem(
                    "duplicate-key",
                    f"key {dotted!r} is given twice, on lines {dup.first[0]} and "
                    f"{dup.second[0]}; keep one",
                    *dup.second,
                )
        return Problem("duplicate-key", toml_message(msg), line, col)
    return Problem("syntax", toml_message(msg), line, col)


class _Scan:
    def __init__(self, text: str, line0: int) -> None:
        self.t = text
        self.n = len(text)
        self.i = 0
        self.line0 = line0
        # Where each line starts (a line end and the length of each line before it).
        self.starts = [0, *accumulate(map(_PLUS_ONE, map(len, text.split("\n")[:-1])))]
        self.pos = Positions()
        self.seen: dict[Path, Pos] = {}
        self.aot: dict[Path, int] = {}
        self.table: Path = ()

    def lc(self, off: int) -> Pos:
        row = bisect.bisect_right(self.starts, off) - 1
        return (self.line0 + row, off - self.starts[row] + 1)

    def ws(self, newlines: bool = False) -> None:
        """Past spaces and tabs (`newlines`: also line ends and comments)."""
        self.i = (_WS_NL if newlines else _WS_RE).match(self.t, self.i).end()  # type: ignore[union-attr]

    def define(self, path: Path, where: Pos) -> None:
        first = self.seen.get(path)
        if first is None:
            self.seen[path] = where
        elif path:
            self.pos.duplicates.append(Duplicate(path[:-1], str(path[-1]), first, where))

    def key(self) -> list[str]:
        parts: list[str] = []
        t = self.t
        while True:
            self.ws()
            ch = t[self.i]
            if ch == '"':
                end = self.i + 1
                while t[end] != '"':
                    end += 2 if t[end] == "\\" else 1
                raw = t[self.i : end + 1]
                parts.append(tomli.loads(f"k = {raw}")["k"] if "\\" in raw else raw[1:-1])
                self.i = end + 1
            elif ch == "'":
                end = t.index("'", self.i + 1)
                parts.append(t[self.i + 1 : end])
                self.i = end + 1
            else:
                m = _BARE_KEY.match(t, self.i)
                if m is None:
                    raise ValueError("not a key")
                parts.append(m.group())
                self.i = m.end()
            self.ws()
            if self.i < self.n and t[self.i] == ".":
                self.i += 1
                continue
            return parts

    def resolve(self, parts: list[str]) -> Path:
        path: Path = ()
        for part in parts[:-1]:
            path = (*path, part)
            if path in self.aot:
                path = (*path, self.aot[path])
        return (*path, parts[-1])

    def run(self) -> Positions:
        for _ in self.statements():
            pass
        return self.pos

    def statements(self) -> Iterator[None]:
        """The scan, a statement (a table header, or a key and its value) at a time."""
        t = self.t
        while True:
            self.ws(newlines=True)
            if self.i >= self.n:
                return
            where = self.lc(self.i)
            if t.startswith("[[", self.i):
                self.i += 2
                path = self.resolve(self.key())
                self.header_tables(path, where)
                index = self.aot.get(path, -1) + 1
                self.aot[path] = index
                self.pos.keys.setdefault(path, where)
                self.table = (*path, index)
                self.pos.values.setdefault(self.table, where)
                self.i = t.index("]]", self.i) + 2
            elif t[self.i] == "[":
                self.i += 1
                path = self.resolve(self.key())
                self.header_tables(path, where)
                self.define(path, where)
                self.pos.keys.setdefault(path, where)
                self.pos.values.setdefault(path, where)
                self.table = path
                self.i = t.index("]", self.i) + 1
            else:
                before = self.i
                self.pair(self.table)
                if self.i == before:
                    raise ValueError("no progress")
            yield

    def header_tables(self, path: Path, where: Pos) -> None:
        """The tables a header names on its way (`[store.android]` names `store`): located at
        the first header that does, unless a key defined them before."""
        for end in range(1, len(path)):
            if type(path[end - 1]) is str:
                self.pos.keys.setdefault(path[:end], where)
                self.pos.values.setdefault(path[:end], where)

    def pair(self, table: Path) -> None:
        where = self.lc(self.i)
        parts = self.key()
        path = (*table, *parts)
        for end in range(len(table) + 1, len(path)):  # dotted keys: their tables
            self.pos.keys.setdefault(path[:end], where)
        self.define(path, where)
        self.pos.keys.setdefault(path, where)
        if self.t[self.i] != "=":
            raise ValueError("expected '='")
        self.i += 1
        self.ws()
        self.value(path)

    def value(self, path: Path) -> None:
        t = self.t
        self.pos.values.setdefault(path, self.lc(self.i))
        ch = t[self.i]
        if t.startswith('"""', self.i) or t.startswith("'''", self.i):
            self.i = self.multiline_end()
        elif ch == '"':
            m = _BASIC_REST.match(t, self.i + 1)
            if m is None:
                raise IndexError("unclosed string")
            self.i = m.end()
        elif ch == "'":
            self.i = t.index("'", self.i + 1) + 1
        elif ch == "[":
            self.array(path)
        elif ch == "{":
            self.inline_table(path)
        else:
            m = _SCALAR_END.search(t, self.i)
            self.i = self.n if m is None else m.start()

    def multiline_end(self) -> int:
        """Where the multi-line string starting here ends (after its closing quotes)."""
        t = self.t
        quote = t[self.i : self.i + 3]
        j = self.i + 3
        while not t.startswith(quote, j):
            j += 2 if (quote == '"""' and t[j] == "\\") else 1
            if j >= self.n:
                raise ValueError("unclosed string")
        j += 3
        while j < self.n and t[j] == quote[0] and j - self.i < 5 + 3:  # up to 2 more quotes
            j += 1
        return j

    def array(self, path: Path) -> None:
        t = self.t
        self.i += 1
        index = 0
        while True:
            self.ws(newlines=True)
            if t[self.i] == "]":
                self.i += 1
                return
            before = self.i
            self.value((*path, index))
            if self.i == before:
                raise ValueError("no progress")
            index += 1
            self.ws(newlines=True)
            if t[self.i] == ",":
                self.i += 1

    def inline_table(self, path: Path) -> None:
        t = self.t
        self.i += 1
        while True:
            self.ws(newlines=True)
            if t[self.i] == "}":
                self.i += 1
                return
            before = self.i
            self.pair(path)
            if self.i == before:
                raise ValueError("no progress")
            self.ws(newlines=True)
            if t[self.i] == ",":
                self.i += 1


class _Finder:
    """Where a key or value is, scanning the text only as far as the first lookup that needs
    it: a finding on the third line of a page scans three lines. Positions are those of the
    first definition, as a whole scan records them."""

    __slots__ = ("line0", "scan", "steps", "text")

    def __init__(self, text: str, line0: int) -> None:
        self.text = text
        self.line0 = line0
        self.scan: _Scan | None = None
        self.steps: Iterator[None] | None = None

    def __call__(self, path: Path, key: bool) -> Pos | None:
        if self.scan is None:
            self.scan = _Scan(self.text, self.line0)
            self.steps = self.scan.statements()
        found = self.scan.pos.keys if key else self.scan.pos.values
        while path not in found and self.steps is not None:
            try:
                next(self.steps)
            except StopIteration:
                self.steps = None
            except (ValueError, IndexError, RecursionError):  # a scan that cannot follow
                self.steps = None
        return found.get(path)


def scan_toml(text: str, line0: int = 1) -> Positions:
    """Where each key and value of a valid TOML text starts (a scan, not a parse)."""
    return _Scan(text, line0).run()
