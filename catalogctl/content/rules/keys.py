"""Keys: a key given twice in one mapping, and unknown keys that look like typos.

A page's keys belong to the website: a key the catalog does not read is allowed. One that is a
near miss of a key the catalog reads is reported with its did-you-mean: `unknown-key`, a
warning (the site may use that name for itself: `[content] own_keys` says so); or
`misspelled-key`, an error, when the key it resembles decides whether, when or where a page is
published (`draft`, `slug`, `date`, `publishDate`, `expiryDate`): a typo there would publish
what should not be.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from catalogctl.content.document import Document, Path
from catalogctl.content.rules.registry import Findings
from catalogctl.content.rules.suggest import Suggester
from catalogctl.urls import shown

# Catalog keys whose misspelling publishes something unintended: a draft, a page before its
# date or after its expiry, a game under another id.
GUARDED = frozenset({"draft", "slug", "date", "publishDate", "expiryDate"})


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path) if path else "(front matter)"


def check_duplicates(doc: Document, out: Findings) -> None:
    for dup in doc.duplicates:
        name = dotted((*dup.path, dup.key))
        out.add(
            "duplicate-key",
            f"key {shown(dup.key)} is given twice in one mapping, on lines {dup.first[0]} and "
            f"{dup.second[0]}, and only one of them is read; keep one",
            line=dup.second[0],
            column=dup.second[1],
            field=name,
        )


class KeyChecker:
    """Finds unknown keys close to known ones, at each level of the known paths."""

    def __init__(
        self, known: Iterable[tuple[tuple[str, ...], str]], own: Iterable[str] = ()
    ) -> None:
        """`known`: each front-matter path the catalog reads, with its catalog key; `own`: the
        site's own keys (dotted), never reported."""
        levels: dict[tuple[str, ...], dict[str, set[str]]] = {}
        for path, catalog_key in known:
            for i, part in enumerate(path):
                levels.setdefault(path[:i], {}).setdefault(part, set()).add(catalog_key)
        self.levels = {prefix: (names, Suggester(names)) for prefix, names in levels.items()}
        self.own = frozenset(own)

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
                if self.own and dotted(path) in self.own:
                    continue
                self._report(path, close, names[close], doc, out)

    def _report(
        self, path: tuple[str, ...], close: str, reads: set[str], doc: Document, out: Findings
    ) -> None:
        key = path[-1]
        guarded = sorted(reads & GUARDED)
        if key.lower() == close.lower():
            target = sorted(reads)[0]
            table, _, store = target.partition(".")
            entry = f"[fields.stores] {store}" if store else f"[fields] {table}"
            hint = (
                f"keys are case-sensitive: rename it to {close!r}, or map it in site.toml "
                f'({entry} = "{dotted(path)}")'
            )
        else:
            hint = f"did you mean {close!r}?"
        if guarded:
            rule = "misspelled-key"
            why = (
                f" As written, {guarded[0]!r} is not set: the page may publish when or where "
                "it should not."
            )
        else:
            rule = "unknown-key"
            why = f" (A key of the site's own? List {dotted(path)!r} in [content] own_keys.)"
        line, col = doc.key_pos(path)
        out.add(
            rule,
            f"unknown key {shown(key)}: {hint}{why}",
            line=line,
            column=col,
            field=dotted(path),
        )
