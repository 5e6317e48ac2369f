"""Limits on parsed data: depth, number of values, integer size (an iterative walk)."""

from __future__ import annotations

from typing import Any

from catalogctl.content.document import Document, Problem
from catalogctl.content.limits import MAX_DEPTH, MAX_INT_DIGITS, MAX_NODES

_MAX_INT = 10**MAX_INT_DIGITS


def check_tree(doc: Document) -> None:
    """Raise a `limit` problem for data deeper, larger or with longer numbers than allowed.

    JSON and TOML values (dotted keys nest without brackets) are checked here, before any
    recursive code sees them; YAML's are checked while its nodes are built.
    """
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(doc.data, 1, ())]
    nodes = 0
    while stack:
        value, depth, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise Problem("limit", f"more than {MAX_NODES:,} keys and values", *doc.start)
        if isinstance(value, dict):
            children: Any = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _MAX_INT:
                line, col = doc.value_pos(path)
                raise Problem("limit", f"a number longer than {MAX_INT_DIGITS} digits", line, col)
            continue
        if depth > MAX_DEPTH:
            line, col = doc.value_pos(path)
            raise Problem("limit", f"nested deeper than {MAX_DEPTH} levels", line, col)
        for key, child in children:
            stack.append((child, depth + 1, (*path, key)))
