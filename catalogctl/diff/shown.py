"""What a contract change of `diff` shows of the two OpenAPI documents, bounded: the report
stays linear in the documents however long a name is or however many places share a schema.

A name (path, field, parameter, media type, schema) of more than MAX_NAME characters and a
`where` of more than MAX_WHERE keep their ends and say how much was left out, with a digest of
the whole so that two long names stay apart; a list of values shows its first SHOWN_VALUES and
counts the rest.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import reprlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_NAME",
    "MAX_WHERE",
    "SHOWN_VALUES",
    "Listed",
    "brief",
    "clip",
    "first_missing",
    "missing",
    "value_key",
]

MAX_NAME = 120
MAX_WHERE = 400
SHOWN_VALUES = 10


def value_key(value: Any) -> Any:
    """A hashable stand-in for a JSON value (enum members may be objects or lists): a string
    stands for itself, any other value for its canonical JSON text (a tuple, so that the
    string "1" and the number 1 stay apart)."""
    if isinstance(value, str):
        return value
    return ("json", json.dumps(value, sort_keys=True, default=str))


@dataclass(frozen=True, slots=True)
class Listed:
    """What one side has and the other lacks (values, field names): how many, the first few."""

    count: int
    shown: list[Any]
    schema: str  # " of schemas.S" when a $ref names the schema they come from, else ""

    def __bool__(self) -> bool:
        return self.count > 0

    def __str__(self) -> str:
        return self.text("value")

    def text(self, noun: str) -> str:
        """`['a', 'b']` when that is all of them, else `3 {noun}s{of}: ['a', 'b', …] and 1 more`."""
        items = ", ".join(brief(v) for v in self.shown)
        more = self.count - len(self.shown)
        if not self.schema and not more:
            return f"[{items}]"  # the whole list, as Python writes it
        head = f"{self.count:,} {noun}{'s' * (self.count != 1)}{self.schema}"
        if not self.shown:
            return head
        tail = f", …] and {more:,} more" if more else "]"
        return f"{head}: [{items}{tail}"


def missing(values: dict[Any, Any], other: dict[Any, Any], schema: str | None) -> Listed:
    """The values in `values` that `other` lacks, counted by walking the smaller of the two, and
    the first SHOWN_VALUES of them (skipping only values both hold): never more work than the
    smaller side and the values shown, however large the other is."""
    small, large = (values, other) if len(values) <= len(other) else (other, values)
    shared = sum(1 for k in small if k in large)
    count = len(values) - shared
    of = "" if schema is None else f" of schemas.{clip(schema)}"
    if not count:
        return Listed(0, [], of)
    shown = list(itertools.islice((v for k, v in values.items() if k not in other), SHOWN_VALUES))
    return Listed(count, shown, of)


def first_missing(names: dict[str, Any], other: dict[str, Any], limit: int) -> list[str]:
    """The first `limit` keys of `names` that `other` lacks, in order."""
    return list(itertools.islice((k for k in names if k not in other), limit))


class _BriefRepr(reprlib.Repr):
    """`reprlib`'s bounded repr, reading a dict in its own order (reprlib sorts the keys
    first: work in the dict's size, not in what is shown)."""

    def repr_dict(self, x: dict[Any, Any], level: int) -> str:
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = [
            f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}"
            for k, v in itertools.islice(x.items(), self.maxdict)
        ]
        return "{" + ", ".join(pieces) + (", ...}" if len(x) > self.maxdict else "}")


_REPR = _BriefRepr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = MAX_NAME
_REPR.maxlist = _REPR.maxdict = _REPR.maxtuple = SHOWN_VALUES
_REPR.maxlevel = 4


def brief(value: Any, repr_: Any = repr) -> str:
    """A value from a document as a message shows it: `repr_` (repr, or str for a number),
    bounded in length and in the work it takes (a long string is clipped, not copied whole)."""
    if isinstance(value, str):
        return repr(clip(value)) if repr_ is repr else clip(value)
    if isinstance(value, bool | int | float | type(None)):
        return clip(repr_(value))
    return _REPR.repr(value)


def clip(text: str, limit: int = MAX_NAME) -> str:
    """`text`, or when longer than `limit` its ends with a count of what is left out between
    them and a digest of the whole (two long names that share their ends stay apart)."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 6) :]
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    left_out = len(text) - len(head) - len(tail)
    return f"{head}…({left_out:,} characters left out, #{digest})…{tail}"
