"""Which PyYAML loader reads a YAML text, and how it resolves tags.

One loader for every machine. libyaml (the C loader, used for speed where it is installed)
accepts tabs as separators where the pure-Python loader does not, other YAML versions in a
`%YAML` directive, and a comment right after a block scalar's header (`description: >#`, which
YAML requires a space before); a text with a tab, a directive or a `|`/`>` followed by `#` is
therefore always read by the pure-Python loader, so a page valid on one machine is valid on all.

Both loaders resolve tags as PyYAML's safe loader does, with less work per node (`_Resolve`).
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING, Any

import yaml

MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"
INT = "tag:yaml.org,2002:int"
STR = "tag:yaml.org,2002:str"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
# A block scalar header followed by `#` (libyaml takes it for a comment without the space).
_HEADER_COMMENT = r"[|>][-+0-9]*#"  # compiled when a text has a `#`
_RESOLVERS = yaml.SafeLoader.yaml_implicit_resolvers
# The first characters of a plain scalar that may resolve to something other than a string.
_TYPED_START = frozenset(k for k in _RESOLVERS if k is not None)
# The shortcut in `_Resolve` holds while the safe loader has only resolvers keyed by a first
# character and no path resolvers (as PyYAML ships it); otherwise PyYAML's resolve answers.
_SHORTCUT = None not in _RESOLVERS and not yaml.SafeLoader.yaml_path_resolvers
# The tags a plain scalar resolves to, whose safe constructors build a value from the node
# alone (no generator, nothing to record for aliases: the caller keeps those itself).
IMPLICIT_TAGS = frozenset(
    {tag for resolvers in _RESOLVERS.values() for tag, _ in resolvers}
    - {MERGE, "tag:yaml.org,2002:value", "tag:yaml.org,2002:yaml"}
)
_PLAIN_TAGS: dict[str, str] = {}  # a plain scalar's text -> its tag (see `_Resolve`)
_PLAIN_TAG_ENTRIES = 4096
_PLAIN_TAG_TEXT = 64


class _Resolve:
    """`Resolver.resolve` with the safe loader's own resolvers, answered without trying them
    for the scalars no resolver can match (a plain scalar whose first character starts no
    typed value, or a quoted one). The composer calls it for every node, and most of a page's
    scalars are such strings. Same tags as PyYAML's (a test compares them).

    The composer also calls `descend_resolver(parent, index)` and `ascend_resolver()` around
    every node, for path resolvers. The safe loader has none, so PyYAML's own methods return at
    once; two builtins that ignore their arguments do the same without a Python frame per call
    (about a tenth of composing a page).
    """

    if TYPE_CHECKING:  # PyYAML's signatures

        def descend_resolver(self, current_node: Any, current_index: Any) -> None: ...
        def ascend_resolver(self) -> None: ...

    elif _SHORTCUT:
        descend_resolver = staticmethod(operator.is_)  # (parent, index): nothing to track
        ascend_resolver = staticmethod(().__len__)  # (): nothing to track

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if _SHORTCUT:
            if kind is not yaml.ScalarNode:
                return MAP if kind is yaml.MappingNode else SEQ
            if not implicit[0] or (value and value[0] not in _TYPED_START):
                return STR
            # A plain scalar's tag depends on its text alone: keys and values such as `name`
            # or `2024-01-01` come again on every page, and are matched against the regexes
            # once (the cache is bounded in entries and in the length of a text).
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)  # type: ignore[misc]
                if len(value) <= _PLAIN_TAG_TEXT:
                    if len(_PLAIN_TAGS) >= _PLAIN_TAG_ENTRIES:
                        _PLAIN_TAGS.clear()
                    _PLAIN_TAGS[value] = tag
            return tag
        resolved: str = super().resolve(kind, value, implicit)  # type: ignore[misc]
        return resolved


class PureLoader(_Resolve, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader."""


if hasattr(yaml, "CSafeLoader"):

    class CLoader(_Resolve, yaml.CSafeLoader):
        """PyYAML's safe loader on libyaml."""

    C_LOADER: type[Any] | None = CLoader
else:  # pragma: no cover - PyYAML built without libyaml
    C_LOADER = None

PURE: type[Any] = PureLoader
FAST: type[Any] = C_LOADER or PureLoader


def loader_for(text: str) -> type[yaml.SafeLoader]:
    """The C loader where it accepts exactly what the pure one does, else the pure one."""
    if "\t" in text or text.startswith("%") or "\n%" in text:
        return PURE
    if "#" in text and re.search(_HEADER_COMMENT, text):
        return PURE
    return FAST
