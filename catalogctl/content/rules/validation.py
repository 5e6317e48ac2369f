"""Schema validation errors (pydantic-core's) as findings, for pages and site.toml alike.

Each error becomes a finding with the rule a user looks up (`missing-field`, `unknown-key`,
`empty-value`, `wrong-type`), a message in the content's words, and the position of the
value or key it concerns.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from catalogctl.content.document import Document, Path
from catalogctl.content.rules.characters import text_problems
from catalogctl.content.rules.keys import dotted
from catalogctl.content.rules.registry import Findings
from catalogctl.urls import shown

# pydantic's error types for a key a model does not take: a model's and a dataclass's.
UNKNOWN = frozenset({"extra_forbidden", "unexpected_keyword_argument"})
_PYDANTIC_RULES = {
    "missing": "missing-field",
    "too_short": "empty-value",
    "string_too_short": "empty-value",
    "extra_forbidden": "unknown-setting",
    "unexpected_keyword_argument": "unknown-setting",
}


def kind_of(value: object) -> str:
    names = {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "true/false",
        list: "a list",
        dict: "a mapping",
        type(None): "empty",
        dt.date: "a date",
        dt.datetime: "a date-time",
        bytes: "binary data (!!binary)",
    }
    return names.get(type(value), f"a {type(value).__name__}")


# A string that is the same one item in a list in YAML, TOML and JSON alike (`["iOS"]`).
_PLAIN_ITEM = re.compile(
    r'[^"\\\x00-\x1f\x7f-\x9f\s](?:[^"\\\x00-\x1f\x7f-\x9f]{0,38}[^"\\\x00-\x1f\x7f-\x9f\s])?'
)


def pydantic_message(err: Any, path: Path = ()) -> str:
    """What a validation error means for the value at `path`, and what to write instead."""
    kind, value = err["type"], err.get("input")
    loc = err["loc"]
    name = repr(str(path[-1])) if path else "a"
    if kind == "missing":
        return f"the required key {name} is missing; add it"
    if kind in UNKNOWN:
        return "unknown key; remove it (the settings reference lists every key)"
    if kind in ("too_short", "string_too_short"):
        if isinstance(value, str):
            return "is blank; give it a value"
        return "is empty; list at least one item"
    got = kind_of(value)
    if kind in ("string_type", "string_sub_type"):
        if loc and loc[-1] == "[key]":
            return f"a key must be text, not {got}; quote it"
        if value is None:
            return "is empty; give it a value"
        return f"must be text, not {got}; quote it to keep it as text"
    if kind in _BY_VALUE:
        return _BY_VALUE[kind](value)
    if kind == "dict_type":
        return f"must be a mapping of keys to values, not {got}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"must be a whole number, not {got}"
    if kind == "bool_type":
        return f"must be true or false, not {got}"
    if kind in ("model_type", "dataclass_type", "dataclass_exact_type"):
        return f"must be a table of keys, not {got}"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}, not {shown(str(value))}"
    if kind.startswith(("date", "datetime")) or kind == "union_tag_invalid":
        return f"must be a date (2024-05-31) or a date-time (2024-05-31T10:00:00Z), not {got}"
    return str(err["msg"])


def _surrogate_message(value: object) -> str:
    """A text holding a lone surrogate (a JSON page's `"\\ud800"`), in the words of the
    control-character rule, which never sees it: the value fails validation first."""
    messages = text_problems(value) if isinstance(value, str) else {}
    return messages.get("control-character", "holds a character that is not text; remove it")


def _list_message(value: object) -> str:
    """What to write where a list is wanted: the one value given, as a list, where it can be
    written as one in YAML, TOML and JSON alike."""
    if value is None:
        return "is empty; list at least one item: [a, b]"
    items = [item.strip() for item in value.split(",")] if isinstance(value, str) else []
    if items and len(items) <= 8 and all(_PLAIN_ITEM.fullmatch(item) for item in items):
        listed = ", ".join(f'"{item}"' for item in items)  # `iOS, Android`: two items
        return f"must be a list, not {kind_of(value)}; write it as a list: [{listed}]"
    return f"must be a list, not {kind_of(value)}; write it as a list: [a, b]"


# Errors worded from the value alone.
_BY_VALUE = {"list_type": _list_message, "string_unicode": _surrogate_message}
_NO_STORE = ("missing", "too_short")  # no `stores`, or none of its links set
_UNION_MEMBER = re.compile(r"datetime|date|str|int|float|bool|[a-z_-]+\[.*\]")


def pydantic_findings(
    errors: list[Any],
    doc: Document,
    out: Findings,
    source: Any = None,
    no_store: str | None = None,
) -> None:
    """Validation errors as findings at the position of the value (or key) they concern.
    `no_store`: what to say of a page that links no store, where the site keeps its store
    links under keys of its own (a missing or empty `stores` means none of them is set)."""
    seen: set[tuple[Any, ...]] = set()
    for err in errors:
        loc = tuple(p for p in err["loc"] if p != "[key]")
        # A union reports one error per member, tagged with the member's type (`str`,
        # `dict[str,str]`, `function-plain[...]`): the first says it.
        if len(loc) > 1 and isinstance(loc[-1], str) and _UNION_MEMBER.fullmatch(loc[-1]):
            loc = loc[:-1]
        if loc in seen:
            continue
        seen.add(loc)
        path: Path = source(loc) if source is not None else loc
        rule = _PYDANTIC_RULES.get(err["type"], "wrong-type")
        if not out.keeps(rule):
            out.count(rule)  # past the file's cap: not placed, not worded
            continue
        line, col = doc.key_pos(path) if rule == "unknown-setting" else doc.value_pos(path)
        if err["type"] == "missing":
            line, col = doc.start
        message = pydantic_message(err, path)
        if err["type"] == "missing" and source is not None and path != loc:
            # A key [fields] maps: the page lacks its own key, which stands for the catalog's.
            message = (
                f"the required key {str(path[-1])!r} (the catalog's {dotted(loc)!r}, as "
                "[fields] maps it) is missing; add it"
            )
        if no_store is not None and loc == ("stores",) and err["type"] in _NO_STORE:
            message = no_store
        out.add(rule, message, line=line, column=col, field=dotted(path))
