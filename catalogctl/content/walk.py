"""Limits on parsed data: depth, number of values, integer size (an iterative walk)."""

from __future__ import annotations

from typing import Any

from catalogctl.content.document import Document, Path, Problem
from catalogctl.content.limits import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_NODES,
    nested_too_deep,
    too_long_number,
    too_many_values,
)

_MAX_INT = 10**MAX_INT_DIGITS


def check_tree(doc: Document) -> None:
    """Raise a `limit` problem for data deeper, larger or with longer numbers than allowed.

    JSON and TOML values (dotted keys nest without brackets) are checked here, before any
    recursive code sees them; YAML's are checked while its nodes are built. The walk keeps no
    paths: the path of an offending value is looked up when there is one.
    """
    data = doc.data
    nodes = 1
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            line, col = doc.value_pos(_path_to(data, value))
            raise Problem("limit", nested_too_deep(), line, col)
        children = value.values() if type(value) is dict else value
        nodes += len(children)
        if nodes > MAX_NODES:
            raise Problem("limit", too_many_values(), *doc.start)
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is int and abs(child) >= _MAX_INT:
                line, col = doc.value_pos(_path_to(data, child))
                raise Problem("limit", too_long_number(), line, col)


def _path_to(data: Any, target: Any) -> Path:
    """The path of the value that is `target`: a container, or a parsed number (each is an
    object of its own)."""
    stack: list[tuple[Any, Path]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if value is target:
            return path
        if type(value) is dict:
            stack.extend((child, (*path, key)) for key, child in value.items())
        elif type(value) is list:
            stack.extend((child, (*path, i)) for i, child in enumerate(value))
    return ()
