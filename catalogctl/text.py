"""Small text helpers shared by every layer (no catalogctl imports).

`clean` is the one function that makes text from content files or from the network safe to
show: every report format, every console line and serve's log lines pass such text through it.
`path_text` is the one way a file's path becomes text for a user (findings, summaries, errors).
`plural` words a count (content's read summary uses it too). The Markdown escapes and
`Indented` serve the reports; they live here, not in `output/`, while check-links' report
(`links/report.py`) uses them too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

# C0 controls but TAB and LF, DEL, and C1 controls (ESC, BEL, CSI … start terminal sequences);
# and the bidirectional controls, which reorder what a terminal, a pull request or an editor
# shows (U+202E makes `trojan\u202edm.exe.md` read "trojanem.exe.md"): CVE-2021-42574.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Tag characters (U+E0000 to U+E007F) show nothing and carry text that a program (a language
# model reading llms.txt) reads: kept only as a flag's tag sequence (U+1F3F4, 1 to 7 tag
# digits or small letters, CANCEL TAG: the flag of England), which group 1 keeps.
_TAGS = re.compile(
    "(\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,7}\U000e007f)"
    "|[\U000e0000-\U000e007f]"
)
# Unicode's line and paragraph separators end a line too, where they are shown.
_LINE_BREAK = re.compile("\r\n?|[\n\u2028\u2029]")
# Lone surrogates (an undecodable file name) cannot be written as UTF-8; U+FFFE/U+FFFF are
# not characters (XML refuses them).
_NOT_TEXT = re.compile("[\ud800-\udfff\ufffe\uffff]")


def clean(text: str, *, newlines: bool = False, tabs: bool = True) -> str:
    """`text` without control characters, safe for a terminal, a log line or a report.

    Line breaks (CR, LF, CRLF) become one space unless `newlines` keeps them (as LF); a TAB
    stays unless `tabs` is False (then it becomes a space). Every other C0 or C1 control
    character (ESC, BEL, NUL, DEL, CSI, …) is removed, so text cannot move the cursor,
    recolour the terminal, ring the bell or forge lines of a log or an annotation; so are the
    bidirectional controls (U+202E …), so it cannot show itself in another order. U+2028 and
    U+2029 are line breaks. Tag characters are removed too, but a flag's tag sequence, so
    text cannot hide words that a reader does not see. The bytes of a name that the locale could
    not decode read as `path_text` shows them (`caf\\xe9.md`), before the controls go (such
    bytes may be UTF-8 for one); any other lone surrogate becomes U+FFFD.
    """
    if text.isprintable():
        return text  # the common case: nothing to do
    text = undecoded(text)
    text = _LINE_BREAK.sub("\n" if newlines else " ", text)
    if not tabs:
        text = text.replace("\t", " ")
    text = _TAGS.sub(r"\1", text)
    return _NOT_TEXT.sub("\ufffd", _CONTROL.sub("", text))


# What a JSON document may hold as it is but a terminal reads as a command or an order: DEL,
# the C1 controls (U+009B is CSI, as ESC [ is), the bidirectional controls, the line and
# paragraph separators, and lone surrogates (which no UTF-8 stream can carry). C0 controls
# are escaped by JSON itself.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)


def json_escaped(text: str) -> str:
    """JSON text with what `_JSON_UNSAFE` matches written as `\\uXXXX` escapes: a report on a
    terminal moves nothing, and a program that parses it reads the same data."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


# Bytes of a file name that the locale could not decode (Python's surrogate escapes: a byte B
# becomes U+DC00+B, as under a C locale, where every byte above 0x7F is one).
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")


def _decoded(m: re.Match[str]) -> str:
    return bytes(ord(c) - 0xDC00 for c in m.group()).decode("utf-8", "backslashreplace")


def path_text(path: str | os.PathLike[str]) -> str:
    """A path as messages, reports and ids show it, on every OS: `/` between its parts
    (`content/games/x.md`, as SARIF and URLs write them), and its name bytes read as UTF-8,
    whatever the locale decoded them as (a byte that is not UTF-8 shows as `\\xe9`)."""
    text = path.as_posix() if isinstance(path, PurePath) else os.fspath(path)
    if os.sep != "/":
        text = text.replace(os.sep, "/")
    return undecoded(text)


def undecoded(text: str) -> str:
    """`text` with the bytes the locale could not decode (an argument, a name) read as UTF-8
    where they are, and shown as `\\xe9` where they are not."""
    if text.isascii():
        return text
    return _ESCAPED_BYTES.sub(_decoded, text)


# A surrogate escape as repr() writes it (`\udce9`), after an even number of backslashes.
_REPR_ESCAPED_BYTE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def quoted(value: str) -> str:
    """`value` quoted for a message, as repr() quotes it (control characters escaped), but a
    byte the locale could not decode as `\\xe9`, as `path_text` shows one, not as Python's
    surrogate escape `\\udce9`."""
    return undecoded_bytes(repr(value))


def undecoded_bytes(text: str) -> str:
    """A message holding repr()s (click's usage errors) with each `\\udce9` as `\\xe9`."""
    return _REPR_ESCAPED_BYTE.sub(r"\1\\x\2", text) if "\\udc" in text else text


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~&])")
# GitHub turns `@name` into a mention that notifies that user or team, and `#12` into a link
# that notes the reference in issue 12, after Markdown is read (a backslash does not stop
# them): a zero-width space after the sign, as an entity, leaves the text as it reads. Not
# after a letter, digit, `/` or `.`: `a@b.com`, `/@studio` and `page#2` are no references.
_MD_REFERENCE = re.compile(r"(?<![\w/.])(?:@|\\#)(?=[A-Za-z0-9])")
# What starts a list item at the start of a line: `-`, `+`, `1.` or `1)`, then a space or the end.
_MD_LIST = re.compile(r"^(\d{0,9})([-+.)])(?=[ \t]|$)")


def md_text(text: str) -> str:
    """Text for a Markdown paragraph or table cell, read as written: cleaned, one line, markup
    escaped (`&` too: `&lt;` stays as written), no list item or code block at the start of a
    line, no `@mention` or `#12` reference made."""
    escaped = _MD_SPECIAL.sub(r"\\\1", clean(text, tabs=False).lstrip(" "))
    escaped = _MD_LIST.sub(r"\1\\\2", escaped, count=1)
    return _MD_REFERENCE.sub("\\g<0>&#8203;", escaped)


def md_code(text: str, *, cell: bool = False) -> str:
    """Text as inline code; a backtick inside cannot end the span, nor (in a table `cell`,
    where GitHub reads `\\|` as a pipe even in code) a pipe the cell."""
    code = clean(text, tabs=False).replace("`", "ˋ")
    return f"`{code.replace('|', chr(92) + '|') if cell else code}`"


class Indented:
    """A rich Text shown `indent` columns in, wrapped at spaces (a word longer than a line is
    folded), lines after the first `hanging` columns further in, with no padding after the
    words: narrow layouts are made of these."""

    def __init__(self, text: Any, indent: int, hanging: int = 0) -> None:
        self.text, self.indent, self.hanging = text, indent, hanging

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        width = max(1, options.max_width - self.indent - self.hanging)
        for i, line in enumerate(self.text.wrap(console, width, overflow="fold")):
            line.rstrip()
            line.pad_left(self.indent + (self.hanging if i else 0))
            yield line
