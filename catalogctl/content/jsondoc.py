"""JSON front matter (a top-level `{…}` object, as Hugo allows): `json` parses, a scan locates.

Like TOML, the standard library's parser decides what is valid; `scan_json` finds where keys and
values start only when a finding needs it. Keys given twice are found by the parser's own
`object_pairs_hook` and located by the scan.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from catalogctl.content.document import Document, Duplicate, Path, Pos, Positions, Problem
from catalogctl.content.limits import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    line_col,
    long_number,
    nested_too_deep,
    too_long_number,
)
from catalogctl.content.walk import check_tree

_NUMBER_END = re.compile(r"[,\]}\s]")


class _TooLong(Exception):
    pass


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _TooLong(text)
    return int(text)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number; quote it, or write a number")


def object_end(text: str) -> int:
    """The offset just after the top-level object that `text` starts with (or a Problem).

    A loop over the characters, no recursion: it also bounds the nesting depth before the
    parser (recursive) sees the object.
    """
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, i) + 1
                col = i - text.rfind("\n", 0, i)
                raise Problem("limit", nested_too_deep(), line, col)
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Problem(
        "front-matter",
        "JSON front matter opened with '{' on line 1 is never closed; end it with '}'",
        1,
        1,
    )


def read_json(text: str, file: str, line0: int, start: Pos) -> Document:
    """Parse a JSON object text whose first line is line `line0` of the file."""
    duplicated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicated
        out = dict(items)
        if len(out) != len(items):
            duplicated = True
        return out

    import json  # here: most content trees have no JSON page, and validate starts without it

    try:
        data = json.loads(
            text, object_pairs_hook=pairs, parse_int=_parse_int, parse_constant=_constant
        )
    except _TooLong:
        line, col = line_col(text, long_number(text))
        raise Problem("limit", too_long_number(), line0 + line - 1, col) from None
    except json.JSONDecodeError as exc:
        from catalogctl.content.syntax_messages import json_message

        msg, line, col = exc.msg, exc.lineno, exc.colno
        comma = _trailing_comma(text, exc.msg, exc.pos)
        if comma is not None:
            msg, (line, col) = comma[1], line_col(text, comma[0])
        raise Problem("syntax", json_message(msg), line0 + line - 1, col) from None
    except RecursionError:
        raise Problem("limit", nested_too_deep(), *start) from None
    except ValueError as exc:  # NaN, Infinity (`_constant`)
        raise Problem("syntax", f"invalid JSON: {exc}", *start) from None
    if not isinstance(data, dict):
        raise Problem(
            "front-matter",
            'JSON front matter must be an object of keys to values: {"name": …}',
            *start,
        )
    doc = Document(file, "json", data, start, None, lambda: scan_json(text, line0), duplicated)
    check_tree(doc)
    return doc


class _Scan:
    def __init__(self, text: str, line0: int) -> None:
        self.t = text
        self.i = 0
        self.line0 = line0
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.pos = Positions()

    def lc(self, off: int) -> Pos:
        row = bisect.bisect_right(self.starts, off) - 1
        return (self.line0 + row, off - self.starts[row] + 1)

    def ws(self) -> None:
        t = self.t
        while self.i < len(t) and t[self.i] in " \t\r\n":
            self.i += 1

    def string(self) -> str:
        t, j = self.t, self.i + 1
        while t[j] != '"':
            j += 2 if t[j] == "\\" else 1
        raw = t[self.i : j + 1]
        self.i = j + 1
        if "\\" not in raw:
            return raw[1:-1]
        import json

        result: str = json.loads(raw)
        return result

    def value(self, path: Path) -> None:
        self.ws()
        t = self.t
        self.pos.values.setdefault(path, self.lc(self.i))
        ch = t[self.i]
        if ch == "{":
            self.i += 1
            seen: dict[str, Pos] = {}
            while True:
                self.ws()
                if t[self.i] == "}":
                    self.i += 1
                    return
                if t[self.i] == ",":
                    self.i += 1
                    continue
                where = self.lc(self.i)
                key = self.string()
                if key in seen:
                    self.pos.duplicates.append(Duplicate(path, key, seen[key], where))
                else:
                    seen[key] = where
                self.pos.keys.setdefault((*path, key), where)
                self.ws()
                if t[self.i] != ":":
                    raise ValueError("expected ':'")
                self.i += 1
                self.value((*path, key))
        elif ch == "[":
            self.i += 1
            index = 0
            while True:
                self.ws()
                if t[self.i] == "]":
                    self.i += 1
                    return
                if t[self.i] == ",":
                    self.i += 1
                    continue
                self.value((*path, index))
                index += 1
        elif ch == '"':
            self.string()
        else:
            m = _NUMBER_END.search(t, self.i)
            if m is None or m.start() == self.i:
                raise ValueError("unexpected character")
            self.i = m.start()


def scan_json(text: str, line0: int = 1) -> Positions:
    scan = _Scan(text, line0)
    scan.value(())
    return scan.pos


# What Python before 3.13 says at the bracket after a trailing comma; 3.13 names the comma.
_BEFORE_313 = {
    "}": ("Expecting property name enclosed in double quotes", "object"),
    "]": ("Expecting value", "array"),
}


def _trailing_comma(text: str, msg: str, pos: int) -> tuple[int, str] | None:
    """A trailing comma (`{"a": 1,}`, `[1,]`) as Python 3.13 reports it, the comma's offset
    and its message, when an older Python reported it at the bracket in other words: the
    same words and place on every Python."""
    expected = _BEFORE_313.get(text[pos : pos + 1])
    if expected is None or msg != expected[0]:
        return None
    before = text[:pos].rstrip(" \t\r\n")
    if not before.endswith(","):
        return None
    return len(before) - 1, f"Illegal trailing comma before end of {expected[1]}"
