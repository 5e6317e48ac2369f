"""Keys: a key given twice in one mapping, and unknown keys that look like typos."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalogctl.content.document import Document, Path
from catalogctl.content.rules.registry import Findings
from catalogctl.content.rules.suggest import Suggester
from catalogctl.urls import shown


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path) if path else "(front matter)"


def check_duplicates(doc: Document, out: Findings) -> None:
    for dup in doc.duplicates:
        name = dotted((*dup.path, dup.key))
        out.add(
            "duplicate-key",
            f"key {shown(dup.key)} is given twice in one mapping: on line {dup.first[0]} and "
            f"line {dup.second[0]}; only one is read",
            line=dup.second[0],
            column=dup.second[1],
            field=name,
        )


class KeyChecker:
    """Finds unknown keys close to known ones, at each level of the known paths."""

    def __init__(self, known: Iterable[tuple[str, ...]]) -> None:
        levels: dict[tuple[str, ...], set[str]] = {}
        for path in known:
            for i, part in enumerate(path):
                levels.setdefault(tuple(path[:i]), set()).add(part)
        self.levels = {prefix: (names, Suggester(names)) for prefix, names in levels.items()}

    def check(self, data: Mapping[Any, Any], doc: Document, out: Findings) -> None:
        for prefix, (names, suggest) in self.levels.items():
            table: Any = data
            for part in prefix:
                table = table.get(part) if isinstance(table, dict) else None
            if not isinstance(table, dict):
                continue
            for key in table:
                if not isinstance(key, str) or key in names:
                    continue
                close = suggest(key)
                if close is None:
                    continue
                path = (*prefix, key)
                line, col = doc.key_pos(path)
                out.add(
                    "unknown-key",
                    f"unknown key {shown(key)}; did you mean {close!r}?",
                    line=line,
                    column=col,
                    field=dotted(path),
                )
