"""What a parser's error means, in the project's words: YAML (libyaml or PyYAML), TOML (tomli)
and JSON (the standard library).

The parsers' own texts are written for people who know the grammar ("while parsing a flow
sequence … did not find expected ',' or ']'"); a content author gets a plain sentence instead:
what is wrong, where it started when that is elsewhere, and what to write. The position stays
the parser's (the finding's line and column). A text no entry here recognises is passed on
after its language's name, so that nothing is hidden; a test runs a corpus of broken documents
through each parser and expects every message to be one of these.

Why one module: the three tables are one vocabulary; each says the same things the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import yaml

from catalogctl.content.document import Problem

# --- YAML ------------------------------------------------------------------------------------


class YamlError(NamedTuple):
    """A YAML error as the parser raised it, with the text around its position."""

    problem: str  # "did not find expected ',' or ']'"
    context: str  # "while parsing a flow sequence", or ""
    opened: int | None  # the line (in the file) where `context` started, if known
    char: str  # the character at the parser's position ("" at the end)
    near: str  # the text from the parser's position to the end of its line


def _at(err: YamlError) -> str:
    return f" on line {err.opened}" if err.opened is not None else ""


def _char(err: YamlError) -> str:
    return repr(err.char) if err.char else "the end"


def _value_start(e: YamlError) -> str:
    if e.char in ("]", "}"):
        return (
            f"{e.char!r} closes a list or mapping that was never opened; remove it, or quote "
            "the value"
        )
    return f"a value cannot start with {_char(e)} here; quote the value"


def _no_colon(e: YamlError) -> str:
    line = "this line" if e.opened is None else f"line {e.opened}"
    return (
        f"{line} is neither a 'key: value' entry nor a '- ' item; add ': ' after the key, "
        "'- ' before the item, or indent the line further to continue the value above"
    )


def _alias(e: YamlError) -> str:
    m = re.match(r"\*([^\s,\[\]{}]+)", e.near)
    name = m.group(1) if m else "…"
    return (
        f"'*{name}' refers to an anchor '&{name}' that is not defined before it; define the "
        "anchor first, or quote the value if the '*' is part of the text"
    )


def _escape(e: YamlError) -> str:
    m = re.match(r"\\?(.)", e.near)
    shown = f"'\\{m.group(1)}'" if m else "this backslash"
    return (
        f"{shown} is not an escape of double-quoted YAML; write '\\\\' for a backslash, or "
        "use single quotes, in which a backslash is plain text"
    )


_TAG = (
    "'!' starts a YAML tag here, and this one cannot be read; quote the value if the '!' is "
    "part of the text"
)
_DIRECTIVE = "a '%' line here is a YAML directive that cannot be read; remove it"

# (what the problem says, what the context says, or None for any) -> the sentence: a template
# of {at} (" on line N", where the context started) and {char} (the character at the error),
# or a function of the error. libyaml and PyYAML's pure parser word the same error
# differently; both are matched.
_YAML_TABLE: list[tuple[str, str | None, str | Callable[[YamlError], str]]] = [
    (
        r"expected ',' or '\]'",
        None,
        "the list opened with '['{at} is not closed before {char}; separate its items with "
        "',' and end it with ']', or quote a value that contains '['",
    ),
    (
        r"expected ',' or '\}'",
        None,
        "the mapping opened with '{{'{at} is not closed before {char}; separate its entries "
        "with ',' and end it with '}}', or quote a value that contains '{{'",
    ),
    (r"(did not find expected|expected the) node content", None, _value_start),
    (
        r"^mapping values are not allowed",
        None,
        "a ': ' here would start a key inside a value; quote the value "
        '(name: "Moon: Lander"), or, if this line is a key, indent it like the keys around it',
    ),
    (
        r"^mapping keys are not allowed",
        None,
        "'? ' starts a complex key, which is not allowed here; quote the value",
    ),
    (
        r"^(block )?sequence entries are not allowed",
        None,
        "a '- ' list item cannot start here; put each item on a line of its own under its "
        "key, indented, or quote the value",
    ),
    (
        r"did not find expected key|expected <block end>",
        r"block mapping",
        "this line is not a 'key: value' entry of the mapping that starts{at}; write "
        "'key: value' with the indentation of its other keys, indent the line further if it "
        "continues the value above, or quote a value that starts with {char}",
    ),
    (
        r"did not find expected '-' indicator|expected <block end>",
        None,
        "this line does not go on with the list that starts{at}; start each item with '- ' "
        "at the same indentation, or indent the line further if it continues the item above",
    ),
    (r"could not find expected ':'", None, _no_colon),
    (
        r"found unexpected end of stream",
        r"quoted scalar",
        "the quoted value that starts{at} is never closed; end it with the quote it starts with",
    ),
    (
        r"found unexpected document indicator",
        None,
        "the quoted value that starts{at} runs into a '---' or '...' line; close the quote "
        "before it, or indent that line",
    ),
    (r"found unknown escape character", None, _escape),
    (
        r"hexdecimal number|hexadecimal numbers",
        None,
        "a '\\x', '\\u' or '\\U' escape in double-quoted YAML must be followed by "
        "hexadecimal digits; fix the escape, write '\\\\' for a backslash, or use single "
        "quotes",
    ),
    (
        r"found invalid Unicode character escape code",
        None,
        "the escape names no Unicode character; fix it, or use single quotes",
    ),
    (
        r"alphabetic or numeric character",
        r"anchor|alias",
        "'&' (an anchor) or '*' (an alias) must be followed by a name here; quote the value "
        "if the '&' or '*' is part of the text",
    ),
    (r"found undefined alias", None, _alias),
    (
        r"^(second occurrence|found duplicate anchor)",
        None,
        "an anchor of this name is defined twice (first{at}); rename one of them",
    ),
    (
        r"cannot start any token",
        None,
        "a value cannot start with {char} ('@' and '`' are reserved in YAML); quote the value",
    ),
    (
        r"tab character|'\\t'",
        None,
        "a tab indents this line, and YAML indents with spaces only; replace the tab with spaces",
    ),
    (
        r"expected <document start>|expected '<document start>'",
        None,
        "this line ends the YAML document (it follows a '...' line, or is a '%' directive); "
        "remove it, or quote a value that starts with '%'",
    ),
    (
        r"found unexpected ':'",
        None,
        "a ':' inside [ ] or {{ }} must be followed by a space; quote the value",
    ),
    (
        r"indentation indicator (equal to 0|in the range)",
        None,
        "the indentation number after '|' or '>' must be 1 to 9, not 0; remove the 0",
    ),
    (
        r"comment or (a )?line break|chomping or indentation",
        r"block scalar",
        "after '|' or '>' only an indentation digit (1 to 9), '+' or '-' and a comment may "
        "follow on the same line; start the text on the next line, indented",
    ),
    (r".", r"\btag\b", _TAG),
    (r"undefined tag handle|expected '!'|expected tag URI|expected '>'", None, _TAG),
    (r".", r"directive", _DIRECTIVE),
    (r"incompatible YAML document|directive", None, _DIRECTIVE),
    (
        r"control characters are not allowed|special characters are not allowed",
        None,
        "YAML takes no control characters but tab and line breaks; remove it",
    ),
]
_YAML = [(re.compile(p), None if c is None else re.compile(c), say) for p, c, say in _YAML_TABLE]


def yaml_message(err: YamlError) -> str:
    """A YAML syntax error, as a sentence: what is wrong, and what to write."""
    for problem, context, say in _YAML:
        if problem.search(err.problem) and (context is None or context.search(err.context)):
            text = say(err) if callable(say) else say.format(at=_at(err), char=_char(err))
            return "invalid YAML: " + text
    said = "; ".join(part for part in (err.problem, err.context) if part)
    return f"invalid YAML: {said or 'the text cannot be read'}"


def yaml_problem(exc: yaml.YAMLError, line0: int, text: str = "") -> Problem:
    """PyYAML's error (libyaml's or its own) as a `syntax` finding at the parser's position,
    in plain words; `text` is the YAML, whose first line is line `line0` of the file."""
    if isinstance(exc, yaml.reader.ReaderError):
        where = min(max(exc.position, 0), len(text))
        line = line0 + text.count("\n", 0, where)
        col = where - (text.rfind("\n", 0, where) + 1) + 1
        char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
        return Problem("syntax", yaml_character(char), line, col)
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        opened = exc.context_mark if exc.context and exc.context_mark is not None else None
        near = ""
        if mark is not None:
            lines = text.split("\n")
            near = lines[mark.line][mark.column :] if mark.line < len(lines) else ""
        err = YamlError(
            problem=exc.problem or "",
            context=exc.context or "",
            opened=None if opened is None else line0 + opened.line,
            char=near[:1],
            near=near,
        )
        if mark is None:
            return Problem("syntax", yaml_message(err))
        return Problem("syntax", yaml_message(err), line0 + mark.line, mark.column + 1)
    return Problem("syntax", f"invalid YAML: {exc}")


def yaml_character(char: str) -> str:
    """A character YAML refuses anywhere (libyaml's reader)."""
    return (
        f"invalid YAML: the character {_codepoint(char)} is not allowed (YAML takes no control "
        "characters but tab and line breaks); remove it"
    )


_CORE_TAG = "tag:yaml.org,2002:"
_KINDS = {"timestamp": "a date", "int": "an integer", "float": "a number", "bool": "true or false"}
# What each tag of YAML's types asks for, in a content author's words.
_ASKS = {
    **_KINDS,
    "str": "text",
    "null": "nothing (null)",
    "binary": "base64 data",
    "seq": "a list",
    "map": "a mapping",
    "set": "a set",
    "omap": "an ordered mapping",
    "pairs": "a list of pairs",
}
_UNREAD_TAGS = frozenset({"set", "omap", "pairs"})  # YAML's, but no catalog key takes them


def _shown_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(_CORE_TAG) if tag.startswith(_CORE_TAG) else tag


def yaml_tag(tag: str, on: str | None = None) -> str:
    """A tag the safe loader has no type for (`!!python/object`, `!custom`); with `on` ("a
    list", "a mapping"), a tag of a single value given to a list or a mapping."""
    shown = _shown_tag(tag)
    name = tag.removeprefix(_CORE_TAG)
    known = tag.startswith(_CORE_TAG) and name in _ASKS and name not in _UNREAD_TAGS
    if on is not None and known:
        return (
            f"invalid YAML: the tag {shown!r} asks for {_ASKS[name]}, and it is given {on}; "
            "remove the tag"
        )
    return (
        f"invalid YAML: the tag {shown!r} is not one catalogctl reads (it reads text, numbers, "
        "true/false, dates, null, lists and mappings); remove it, or quote the value"
    )


def yaml_tagged(text: str, tag: str) -> str:
    """A value of another form than its explicit tag asks for (`!!int ""`, `!!bool maybe`)."""
    shown = _shown_tag(tag)
    asks = _ASKS.get(tag.removeprefix(_CORE_TAG), "a value of its type")
    return (
        f"invalid YAML: the tag {shown!r} asks for {asks}, and {text[:40]!r} is not; remove "
        "the tag, or write a value of that type"
    )


def yaml_value(text: str, tag: str, reason: str) -> str:
    """A value that has the form of a type but is not one of it (`2024-02-30`)."""
    name = tag.removeprefix(_CORE_TAG)
    kind = _KINDS.get(name, f"'!!{name}'" if tag.startswith(_CORE_TAG) else repr(tag))
    return (
        f"invalid YAML: {text[:40]!r} cannot be read as {kind} ({reason}); write a valid one, "
        "or quote it to keep it as text"
    )


def _codepoint(char: str) -> str:
    return f"U+{ord(char):04X}" if len(char) == 1 else repr(char)


# --- TOML ------------------------------------------------------------------------------------

# tomli's message (without its position) -> the sentence; {0} is the pattern's first group.
_TOML_TABLE: list[tuple[str, str]] = [
    (
        r"^Invalid statement",
        "this line is not a TOML statement; write 'key = value', a [table] header or a "
        "comment starting with '#'",
    ),
    (
        r"^Expected newline or end of document after a statement",
        "text after a value on its line; put each 'key = value' on a line of its own, and "
        "quote text that has spaces",
    ),
    (
        r"^Expected '\]' at the end of a table declaration",
        "a table header must end with ']' on its line: [table]",
    ),
    (
        r"^Expected '\]\]' at the end of an array declaration",
        "an array-of-tables header must end with ']]' on its line: [[table]]",
    ),
    (
        r"^Expected '=' after a key",
        "a key must be followed by '=' and its value: key = value (quote a key that has spaces)",
    ),
    (
        r"^Invalid initial character for a key part",
        "a key is missing or starts with a character keys cannot have; use letters, digits, "
        "'-' and '_', or quote the key",
    ),
    (
        r"^Unclosed array",
        "an array [ … ] is not closed; separate its items with ',' and end it with ']'",
    ),
    (
        r"^Unclosed inline table",
        "an inline table {{ … }} is not closed; separate its entries with ',' and end it with "
        "'}}' on the same line",
    ),
    (
        r"^Unescaped '\\' in a string",
        "a backslash in a double-quoted string starts an escape; write '\\\\' for a "
        "backslash, or use single quotes, in which a backslash is plain text",
    ),
    (
        r"^Unterminated string",
        "this string is never closed; end it with the quote it starts with, on the same line "
        "(triple quotes hold text over several lines)",
    ),
    (
        r"^Expected ['\"](.*)['\"]$",
        "'{0}' is missing: a multi-line string or a value is not closed before the end; close it",
    ),
    (
        r"^Illegal character '\\n'",
        "this string is never closed on its line; end it with the quote it starts with "
        "(triple quotes hold text over several lines)",
    ),
    (
        r"^(?:Illegal|Found invalid) character",
        "a control character is not allowed here; remove it (in a string, write it as an "
        "escape such as \\t)",
    ),
    (r"^Invalid hex value", "a \\u or \\U escape must be followed by 4 or 8 hexadecimal digits"),
    (r"^Escaped character is not a Unicode scalar value", "the escape names no Unicode character"),
    (
        r"^Invalid date or datetime",
        "not a valid date or date-time; write 2024-05-31 or 2024-05-31T10:00:00Z, or quote it "
        "to keep it as text",
    ),
    (
        r"^Invalid value",
        "a value must be a quoted string, a number, true or false, a date, an array [ … ] or "
        'an inline table {{ … }}; quote text (name = "Moon Lander")',
    ),
    (
        r"^Cannot mutate immutable namespace (.*)",
        "{0} is an inline table {{ … }}, which cannot be added to later; add the key inside "
        "its braces",
    ),
    (
        r"^(?:Cannot overwrite a value|Cannot declare|Cannot redefine|Duplicate inline table)",
        "a key or table is given twice; keep one",
    ),
]
_TOML = [(re.compile(p), say) for p, say in _TOML_TABLE]


def toml_message(msg: str) -> str:
    """A tomli error (its `msg`, without the position), as a sentence."""
    for pattern, say in _TOML:
        m = pattern.search(msg)
        if m:
            return "invalid TOML: " + say.format(*m.groups())
    return f"invalid TOML: {msg}"


# --- JSON ------------------------------------------------------------------------------------

_JSON = {
    "Expecting value": (
        "a value is missing here, or is not JSON; write a string in double quotes, a number, "
        "true, false, null, an array or an object"
    ),
    "Expecting ',' delimiter": "a ',' is missing between two items",
    "Expecting ':' delimiter": "a key must be followed by ':' and its value",
    "Expecting property name enclosed in double quotes": (
        "a key must be a string in double quotes (\"name\"), and no ',' may follow the last "
        "entry of an object"
    ),
    "Unterminated string starting at": "this string is never closed; end it with '\"'",
    "Invalid control character at": (
        "a string cannot hold a control character (a tab, a line break); write it as an "
        "escape: \\t, \\n"
    ),
    "Invalid \\escape": "not a JSON escape; write '\\\\' for a backslash",
    "Invalid \\uXXXX escape": "a \\u escape must be followed by 4 hexadecimal digits",
    "Extra data": "text after the end of the JSON object; remove it",
    "Illegal trailing comma before end of object": "remove the ',' after the last entry",
    "Illegal trailing comma before end of array": "remove the ',' after the last item",
}


def json_message(msg: str) -> str:
    """A `json.JSONDecodeError`'s message (its `msg`), as a sentence."""
    return f"invalid JSON: {_JSON.get(msg, msg)}"
