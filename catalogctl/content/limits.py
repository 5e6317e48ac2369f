"""Limits on what a content tree may hold, checked before any parser runs.

Real front matter is a few kilobytes, a few levels deep; these limits are far above that and
far below what could exhaust memory or the C stack. Each over-limit input is a `limit` finding
naming its file (and line where known), never a crash.
"""

from __future__ import annotations

import re

MAX_FRONT_MATTER_BYTES = 1024 * 1024  # one page's front matter
MAX_SITE_BYTES = 1024 * 1024  # site.toml
MAX_DEPTH = 64  # nested mappings and lists
MAX_NODES = 200_000  # keys, list items and values of one document, aliases expanded
MAX_INT_DIGITS = 100  # digits of an integer literal
MAX_PAGES = 1_000_000  # page files in one tree
MAX_DIR_DEPTH = 64  # folders below the games folder
WORKER_FILE_SECONDS = 60.0  # a parser process that spends longer on one file is stopped
# site.toml, checked before any of its values is used.
MAX_SITE_KEY = 100  # characters of a key
MAX_SITE_NAME = 200  # of a name: a platform, a genre, a [fields] key path, an own key
MAX_SITE_TEXT = 4096  # of any other text (a URL's own limit is the same)
MAX_SITE_ENTRIES = 500  # items of a list, keys of a table
# Did-you-mean: a name longer than this gets no suggestion (indexing a name costs the cube of
# its length: every variant with one or two letters left out).
MAX_SUGGEST_LENGTH = 32


# What a `limit` finding says: the limit, and what to do (limits are far above real pages).


def nested_too_deep() -> str:
    return (
        f"lists and mappings are nested deeper than {MAX_DEPTH} levels, the limit; flatten the data"
    )


def too_many_values(*, aliases: bool = False, site: bool = False) -> str:
    """`site`: said of site.toml, not of a page's front matter."""
    counted = " (aliases counted as the values they repeat)" if aliases else ""
    fix = "site.toml holds settings only" if site else "move the data out of the front matter"
    return f"more than {MAX_NODES:,} keys and values{counted}, the limit of one document; {fix}"


def too_long_number() -> str:
    return f"a number longer than {MAX_INT_DIGITS} digits, the limit; quote it to keep it as text"


def too_long_text(what: str, limit: int) -> str:
    """`what`: "a key", "a name" (a platform, a genre, a key path) or "a text"."""
    return f"is longer than {limit:,} characters, the limit of {what} in site.toml; shorten it"


def too_many_entries(what: str) -> str:
    """`what`: "items" (of a list) or "keys" (of a table)."""
    return (
        f"holds more than {MAX_SITE_ENTRIES:,} {what}, the limit of a list or table in "
        "site.toml; keep fewer"
    )


def bracket_count(text: str) -> int:
    return text.count("[") + text.count("{")


def yaml_may_nest_deeper(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether a YAML document may be nested deeper than `limit`, from its text alone.

    An upper bound on the depth: flow collections need one bracket per level, and a block
    collection nested in another starts at a greater column (or, for a sequence under a mapping
    key, one level at the same column), a column made of the indentation and the `- `, `? `,
    `: ` indicators before it. The bound, brackets + 2 * (longest such run + 1), passes `limit`
    when some line starts with a run of at least (limit - brackets) // 2 of those characters.
    """
    run = (limit - bracket_count(text)) // 2
    if run <= 0:
        return True
    patterns = _RUNS.get(run)
    if patterns is None:  # at the start, or after a line end (which the engine scans for)
        chars = rf"[ \t?:\-]{{{run}}}"
        patterns = _RUNS[run] = (re.compile(chars), re.compile("\n" + chars))
    return patterns[0].match(text) is not None or patterns[1].search(text) is not None


_RUNS: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def too_deep(text: str, *, toml: bool, limit: int = MAX_DEPTH) -> int:
    """Where bracket nesting outside strings (and TOML comments) passes `limit`, or -1.

    Exact for JSON and TOML, whose strings and comments are unambiguous; YAML's depth is counted
    from its parser's events instead. Used only when `bracket_count` is above the limit.
    """
    depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "[{":
            depth += 1
            if depth > limit:
                return i
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == '"':
            if toml and text.startswith('"""', i):
                end = text.find('"""', i + 3)
                i = n if end < 0 else end + 3
                continue
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == "'" and toml:
            if text.startswith("'''", i):
                end = text.find("'''", i + 3)
                i = n if end < 0 else end + 3
                continue
            end = text.find("'", i + 1)
            i = n if end < 0 else end
        elif ch == "#" and toml:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        i += 1
    return -1


_LONG_NUMBER = re.compile(rf"[0-9][0-9_]{{{MAX_INT_DIGITS},}}")


def long_number(text: str) -> int:
    """Offset of the first run of more than MAX_INT_DIGITS digits, or 0 (to locate a finding)."""
    m = _LONG_NUMBER.search(text)
    return m.start() if m else 0


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


# JSON documents read whole (a games JSON, a build's manifest, an OpenAPI document): the
# structural characters, with `{}` written as `[]` and every other byte dropped.
_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')


def json_too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects in the UTF-8 JSON text `data` nest deeper than `limit`.

    Checked before a parser sees the text, so the limit is ours whatever the parser's own
    recursion limit is (Python's `json` raises RecursionError, pydantic-core stops at 200).
    Built from whole-buffer byte operations rather than a loop over characters: a catalog of
    100,000 games is 60 MB of JSON, and this check must cost little beside parsing it.

    Escaped backslashes and quotes are dropped first; then strings are the text between
    quote pairs, and a pass that removes every innermost `[]` peels one level. Text that is
    not JSON gets an answer too (the parser then reports what is wrong with it).
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(_AS_BRACKETS, _NOT_STRUCTURE)
    # Strings without brackets are adjacent quote pairs; when every quote goes with them, no
    # string holds a bracket. Otherwise split at the quotes: strings are every other piece.
    outside = marks.replace(b'""', b"")
    if b'"' in outside:
        outside = b"".join(marks.split(b'"')[0::2])
    for peeled in range(limit + 1):
        if not outside:
            return False
        inner = outside.replace(b"[]", b"")
        if len(inner) == len(outside):
            # Unbalanced (not JSON): what is left is `]]…[[…`; each `[` left encloses the
            # levels peeled so far.
            return peeled + inner.count(b"[") > limit
        outside = inner
    return True


def json_depth_problem(data: bytes, limit: int = MAX_DEPTH) -> str | None:
    """What is wrong with JSON text nested deeper than `limit` (to follow its name), or None."""
    if json_too_deep(data, limit):
        return f"nests arrays and objects deeper than {limit} levels (limit: {limit})"
    return None
