"""Which PyYAML loader reads a YAML text, and how it resolves tags.

One answer on every machine, and it is libyaml's: Jekyll (Psych) and Hugo read YAML the way
libyaml does, so a page they build is a page this reads. libyaml (the C loader, used where it
is installed, which is nearly everywhere) reads every text. The pure-Python loader, for a
PyYAML built without it, follows libyaml where PyYAML's own scanner is stricter or looser:

- a tab separates tokens wherever libyaml lets it (in flow collections, after a key's `:`,
  after a scalar, an anchor or a tag), and sits inside a plain scalar; a tab that indents
  stays an error, as in libyaml;
- a block scalar header may be followed by a comment without a space (`description: >#`);
- a `%YAML` directive asks for 1.1 or 1.2 (libyaml refuses other versions), and tabs separate
  the words of a directive.

A test runs one corpus, and random texts, through both and expects the same values or an
error from both. Both resolve tags as PyYAML's safe loader does, with less work per node
(`_Resolve`).

Why one module: the loader classes, the scanner and parser methods they change and the tag
resolver they share make one reading of YAML; split, each part would be read without the
rule that makes it agree with libyaml.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.error import MarkedYAMLError
from yaml.scanner import ScannerError

MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"
MERGE = "tag:yaml.org,2002:merge"
INT = "tag:yaml.org,2002:int"
STR = "tag:yaml.org,2002:str"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
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
    scalars are such strings. Same tags as PyYAML's (a test compares them). It earns its
    place: without it, validate of 2,000 games runs 1.78 G instructions instead of 1.63 G
    (docs/architecture/performance.md).
    """

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


_BREAKZ = "\0\r\n\x85\u2028\u2029"  # a line break or the end of the text
_BLANKZ = " \t" + _BREAKZ


class _LibyamlScanner:
    """The scanner methods where libyaml and PyYAML's pure scanner disagree, as libyaml
    (0.2.5) scans: each is PyYAML's method with libyaml's rule for tabs and comments."""

    # Attributes and methods of PyYAML's Scanner and Reader, which this is mixed into.
    index: int
    column: int
    flow_level: int
    indent: int
    allow_simple_key: bool
    peek: Any
    forward: Any
    prefix: Any
    get_mark: Any
    scan_line_break: Any
    scan_tag_handle: Any
    scan_tag_uri: Any
    scan_uri_escapes: Any

    def scan_to_next_token(self) -> None:
        """Past spaces, comments and line breaks; and past tabs in a flow collection or
        where no simple key may start (after a key's `:`, a scalar, an anchor or a tag)."""
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (
                self.peek() == "\t" and (self.flow_level or not self.allow_simple_key)
            ):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in _BREAKZ:
                    self.forward()
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return

    def scan_plain(self) -> yaml.ScalarToken:
        """A plain scalar. In a flow collection `?` is text in it, and a `:` before `,`,
        `?` or a bracket is an error (PyYAML ends the scalar at `?` and reads `a:,` as a key)."""
        chunks: list[str] = []
        start_mark = self.get_mark()
        end_mark = start_mark
        indent = self.indent + 1
        spaces: list[str] | None = []
        while self.peek() != "#":
            length = 0
            while (ch := self.peek(length)) not in _BLANKZ:
                if ch == ":":
                    after = self.peek(length + 1)
                    if self.flow_level and after in ",?[]{}":
                        self.forward(length)
                        raise ScannerError(
                            "while scanning a plain scalar",
                            start_mark,
                            "found unexpected ':'",
                            self.get_mark(),
                        )
                    if after in _BLANKZ:
                        break
                elif self.flow_level and ch in ",[]{}":
                    break
                length += 1
            if length == 0:
                break
            self.allow_simple_key = False
            chunks.extend(spaces or ())
            chunks.append(self.prefix(length))
            self.forward(length)
            end_mark = self.get_mark()
            spaces = self.scan_plain_spaces(indent, start_mark)
            if not spaces or self.peek() == "#" or (not self.flow_level and self.column < indent):
                break
        return yaml.ScalarToken("".join(chunks), True, start_mark, end_mark)

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> list[str] | None:
        """Spaces and tabs inside a plain scalar; a tab that indents its next line is an
        error (PyYAML's own method takes spaces only)."""
        chunks: list[str] = []
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        if self.peek() in "\r\n\x85\u2028\u2029":
            line_break = self.scan_line_break()
            self.allow_simple_key = True
            if self._document_marker():
                return None
            breaks = []
            while (ch := self.peek()) in " \t\r\n\x85\u2028\u2029":
                if ch == " ":
                    self.forward()
                elif ch == "\t":
                    if self.column < indent:
                        raise ScannerError(
                            "while scanning a plain scalar",
                            start_mark,
                            "found a tab character that violates indentation",
                            self.get_mark(),
                        )
                    self.forward()
                else:
                    breaks.append(self.scan_line_break())
                    if self._document_marker():
                        return None
            if line_break != "\n":
                chunks.append(line_break)
            elif not breaks:
                chunks.append(" ")
            chunks.extend(breaks)
        elif whitespaces:
            chunks.append(whitespaces)
        return chunks

    def _document_marker(self) -> bool:
        return self.prefix(3) in ("---", "...") and self.peek(3) in _BLANKZ

    def scan_tag(self) -> yaml.TagToken:
        """A tag, ended by a space, a tab or a line break (or a `,` in a flow collection)."""
        start_mark = self.get_mark()
        ch = self.peek(1)
        if ch == "<":
            handle = None
            self.forward(2)
            suffix = self.scan_tag_uri("tag", start_mark)
            if self.peek() != ">":
                raise ScannerError(
                    "while parsing a tag",
                    start_mark,
                    f"expected '>', but found {self.peek()!r}",
                    self.get_mark(),
                )
            self.forward()
        elif ch in _BLANKZ:
            handle = None
            suffix = "!"
            self.forward()
        else:
            length = 1
            use_handle = False
            while ch not in _BLANKZ:
                if ch == "!":
                    use_handle = True
                    break
                length += 1
                ch = self.peek(length)
            if use_handle:
                handle = self.scan_tag_handle("tag", start_mark)
                suffix = self._shorthand_suffix(start_mark)
            else:
                handle = "!"
                self.forward()
                # `!` before a character no tag holds (`[!, x]`) is libyaml's `!` tag too.
                suffix = self._shorthand_suffix(start_mark, empty_ok=True)
                if not suffix:
                    handle, suffix = None, "!"
        ch = self.peek()
        if ch not in _BLANKZ and not (self.flow_level and ch == ","):
            raise ScannerError(
                "while scanning a tag",
                start_mark,
                f"expected ' ', but found {ch!r}",
                self.get_mark(),
            )
        return yaml.TagToken((handle, suffix), start_mark, self.get_mark())

    def _shorthand_suffix(self, start_mark: Any, *, empty_ok: bool = False) -> str:
        """A tag's suffix after its handle (`!!str`): URI characters but `,`, `[` and `]`,
        which libyaml keeps for flow collections (PyYAML's `scan_tag_uri` takes them)."""
        chunks: list[str] = []
        length = 0
        ch = self.peek(length)
        while ch.isascii() and (ch.isalnum() or ch in "-;/?:@&=+$_.!~*'()%"):
            if ch == "%":
                chunks.append(self.prefix(length))
                self.forward(length)
                length = 0
                chunks.append(self.scan_uri_escapes("tag", start_mark))
            else:
                length += 1
            ch = self.peek(length)
        if length:
            chunks.append(self.prefix(length))
            self.forward(length)
        if not chunks and not empty_ok:
            raise ScannerError(
                "while parsing a tag",
                start_mark,
                f"expected URI, but found {ch!r}",
                self.get_mark(),
            )
        return "".join(chunks)

    def scan_block_scalar_indicators(self, start_mark: Any) -> tuple[bool | None, int | None]:
        """`|` or `>`'s chomping and indentation indicators, followed by a blank, a comment
        (libyaml needs no space before it) or the line's end."""
        chomping: bool | None = None
        increment: int | None = None
        ch = self.peek()
        if ch in "+-":
            chomping = ch == "+"
            self.forward()
            if self.peek() in "0123456789":
                increment = self._block_indent(start_mark)
        elif ch in "0123456789":
            increment = self._block_indent(start_mark)
            if self.peek() in "+-":
                chomping = self.peek() == "+"
                self.forward()
        ch = self.peek()
        if ch not in _BLANKZ and ch != "#":
            raise ScannerError(
                "while scanning a block scalar",
                start_mark,
                f"expected chomping or indentation indicators, but found {ch!r}",
                self.get_mark(),
            )
        return chomping, increment

    def _block_indent(self, start_mark: Any) -> int:
        increment = int(self.peek())
        if increment == 0:
            raise ScannerError(
                "while scanning a block scalar",
                start_mark,
                "expected indentation indicator in the range 1-9, but found 0",
                self.get_mark(),
            )
        self.forward()
        return increment

    def scan_block_scalar_indentation(self) -> tuple[list[str], int, Any]:
        """The blank lines and indentation before a block scalar's first line, which sets
        its indentation; a tab there is an error (PyYAML would take it for text)."""
        chunks: list[str] = []
        max_indent = 0
        end_mark = self.get_mark()
        while (ch := self.peek()) in " \r\n\x85\u2028\u2029":
            if ch != " ":
                chunks.append(self.scan_line_break())
                end_mark = self.get_mark()
            else:
                self.forward()
                max_indent = max(max_indent, self.column)
        if ch == "\t":
            raise _tab_indents(self.get_mark())
        return chunks, max_indent, end_mark

    def scan_block_scalar_breaks(self, indent: int) -> tuple[list[str], Any]:
        """Line breaks and indentation inside a block scalar; a tab that indents is an error."""
        chunks: list[str] = []
        end_mark = self.get_mark()
        while True:
            while self.column < indent and self.peek() == " ":
                self.forward()
            if self.column < indent and self.peek() == "\t":
                raise _tab_indents(self.get_mark())
            if self.peek() not in "\r\n\x85\u2028\u2029":
                return chunks, end_mark
            chunks.append(self.scan_line_break())
            end_mark = self.get_mark()

    def scan_block_scalar_ignored_line(self, start_mark: Any) -> None:
        """The rest of a block scalar's header line: blanks and a comment."""
        while self.peek() in " \t":
            self.forward()
        if self.peek() == "#":
            while self.peek() not in _BREAKZ:
                self.forward()
        ch = self.peek()
        if ch not in _BREAKZ:
            raise ScannerError(
                "while scanning a block scalar",
                start_mark,
                f"expected a comment or a line break, but found {ch!r}",
                self.get_mark(),
            )
        self.scan_line_break()


def _tab_indents(mark: Any) -> ScannerError:
    return ScannerError(
        "while scanning a block scalar",
        None,
        "found a tab character where an indentation space is expected",
        mark,
    )


class _LibyamlParser:
    """The parser methods where libyaml and PyYAML's pure parser disagree, as libyaml parses."""

    # Attributes and methods of PyYAML's Parser, which this is mixed into.
    states: list[Any]
    state: Any
    yaml_version: tuple[int, int] | None
    get_token: Any
    peek_token: Any
    check_token: Any
    parse_flow_node: Any
    parse_flow_sequence_entry_mapping_value: Any
    process_empty_scalar: Any

    def parse_flow_sequence_entry_mapping_key(self) -> Any:
        """After `?` in a flow sequence, libyaml takes a `:` or `,` that follows at once for
        the empty key's own (`[?, , b]` is `[{null: null}, b]`, `[? : b]` an error)."""
        token = self.get_token()
        if not self.check_token(yaml.ValueToken, yaml.FlowEntryToken, yaml.FlowSequenceEndToken):
            self.states.append(self.parse_flow_sequence_entry_mapping_value)
            return self.parse_flow_node()
        if not self.check_token(yaml.FlowSequenceEndToken):
            token = self.get_token()
        self.state = self.parse_flow_sequence_entry_mapping_value
        return self.process_empty_scalar(token.end_mark)

    def parse_node(self, block: bool = False, indentless_sequence: bool = False) -> Any:
        """A node; an empty one with the non-specific tag `!` (`k: !`) is a string, as libyaml
        makes it (its tag is not implicit there), where PyYAML would resolve it to null."""
        event = super().parse_node(block, indentless_sequence)  # type: ignore[misc]
        if (
            isinstance(event, yaml.ScalarEvent)
            and event.tag == "!"
            and event.value == ""
            and event.style is None
        ):
            event.implicit = (False, False)
        return event

    def process_directives(self) -> Any:
        mark = self.peek_token().start_mark if self.check_token(yaml.DirectiveToken) else None
        value = super().process_directives()  # type: ignore[misc]
        version = self.yaml_version
        if version is not None and version[1] not in (1, 2):
            raise _VersionError(None, None, "found incompatible YAML document", mark)
        return value


class PureLoader(_LibyamlScanner, _LibyamlParser, _Resolve, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader, reading YAML as libyaml does."""

    def __init__(self, stream: str) -> None:
        if stream.startswith("%") or "\n%" in stream:
            stream = _directives_blank(stream)
        super().__init__(stream)


class _VersionError(MarkedYAMLError):
    """A `%YAML` version libyaml refuses (a parser error there)."""


def _directives_blank(text: str) -> str:
    """Tabs in the `%` directive lines at the top of a text as spaces: libyaml takes a tab for
    a space there, PyYAML's directive scanner does not (the lines keep their length)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("%"):
            lines[i] = line.replace("\t", " ")
        elif line.strip(" \t") and not line.lstrip(" \t").startswith("#"):
            break  # the document starts: a `%` further down is text
    return "\n".join(lines)


if hasattr(yaml, "CSafeLoader"):

    class CLoader(_Resolve, yaml.CSafeLoader):
        """PyYAML's safe loader on libyaml."""

    C_LOADER: type[Any] | None = CLoader
else:  # pragma: no cover - PyYAML built without libyaml
    C_LOADER = None

PURE: type[Any] = PureLoader
FAST: type[Any] = C_LOADER or PureLoader


def loader_for(text: str) -> type[yaml.SafeLoader]:
    """libyaml where it is installed, else the pure loader (which reads the same)."""
    return FAST
