"""JSON text of a report: exactly `json.dumps(data, indent=2, ensure_ascii=False)`, faster.

The standard library encodes with its C accelerator only without `indent`; with it, every value
goes through a chain of Python generators (about 0.1 s per 10,000 findings). Here a container
of plain values (a finding, a link) is encoded by the accelerator in one call, with the line end
and indent of its level as the item separator: JSON strings never hold a raw line end, so that
gives the indented text. Other containers are laid out here. A test compares the result with
`json.dumps` on generated data. A value of a type other than dict, list, tuple, str, int, float,
bool and None hands the whole document to `json.dumps`, which encodes it (or raises) as always.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from itertools import chain
from typing import Any

_encode_str = json.JSONEncoder(ensure_ascii=False).encode  # a str: its quoted JSON string
_PLAIN = frozenset({str, int, float, bool, type(None)})  # exactly these types, no subclass
_DICT = frozenset({dict})
_flat: dict[str, Callable[[Any], str]] = {}  # a flat container's encoder, by its items' indent
_CONSTANTS: dict[Any, str] = {None: "null", True: "true", False: "false"}
_INFINITY = float("inf")


class _Unsupported(Exception):
    """A value the fast writer does not encode."""


def dumps(data: Any, end: str = "") -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False) + end`.

    The text is written as pieces and joined once: a report of 10,000 findings is megabytes,
    and each concatenation of the whole would copy it again.
    """
    out: list[str] = []
    try:
        _write(data, "\n", out)
    except (_Unsupported, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False) + end
    out.append(end)
    return "".join(out)


def _scalar(value: Any) -> str:
    kind = type(value)
    if value is None or value is True or value is False:
        return _CONSTANTS[value]
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if math.isnan(value):
            return "NaN"
        if value == _INFINITY:
            return "Infinity"
        if value == -_INFINITY:
            return "-Infinity"
        return float.__repr__(value)
    raise _Unsupported


def _key(key: Any) -> str:
    if type(key) is str:
        return _encode_str(key)
    if key is None or key is True or key is False or type(key) in (int, float):
        return _encode_str(_scalar(key))
    raise _Unsupported


def _write(value: Any, newline: str, out: list[str]) -> None:
    """`value` encoded onto `out`, its inner lines indented after `newline` (a line end and
    indent)."""
    kind = type(value)
    if kind is str:
        out.append(_encode_str(value))
        return
    if kind is dict:
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        if _PLAIN.issuperset(map(type, value.values())):
            out.append("{" + inner + _flat_encoder(inner)(value)[1:-1] + newline + "}")
            return
        opening = "{"
        for k, v in value.items():
            out.append(f"{opening}{inner}{_key(k)}: ")
            _write(v, inner, out)
            opening = ","
        out.append(newline + "}")
        return
    if kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        if _PLAIN.issuperset(map(type, value)):
            out.append("[" + inner + _flat_encoder(inner)(value)[1:-1] + newline + "]")
            return
        if (
            _DICT.issuperset(map(type, value))
            and all(value)
            and _PLAIN.issuperset(map(type, chain.from_iterable(map(dict.values, value))))
        ):
            _records(value, newline, out)
            return
        opening = "["
        for v in value:
            out.append(opening + inner)
            _write(v, inner, out)
            opening = ","
        out.append(newline + "]")
        return
    out.append(_scalar(value))


def _records(items: list[Any] | tuple[Any, ...], newline: str, out: list[str]) -> None:
    """A list of mappings of plain values (findings, links), encoded in one call.

    The accelerator writes `[{"a": 1,<sep>"b": 2},<sep>{"a": 3, …}]`, the separator being the
    line end and indent of the mappings' items. A separator between `}` and `{` is one between
    two mappings: a plain value never ends with `}`, a key always starts with `"`. Those are
    given the list's indent; the brackets get their own lines.
    """
    inner = newline + "  "  # the list's items
    field = inner + "  "  # the mappings' items
    body = _flat_encoder(field)(items)[2:-2].replace(
        "}," + field + "{", inner + "}," + inner + "{" + field
    )
    out.extend(("[", inner, "{", field, body, inner, "}", newline, "]"))


def _flat_encoder(inner: str) -> Callable[[Any], str]:
    encode = _flat.get(inner)
    if encode is None:
        separators = ("," + inner, ": ")
        encode = _flat[inner] = json.JSONEncoder(ensure_ascii=False, separators=separators).encode
    return encode
