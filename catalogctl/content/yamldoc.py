"""YAML front matter: PyYAML's safe loader, its nodes' positions, and guards around it.

One reading on every machine, libyaml's (`content.yamlload`: the C loader, or the pure-Python
one made to read alike). A lone surrogate escape (`"\\ud800"`), which only the pure loader
accepts, is refused here too.

No crash from deep input: PyYAML composes nodes recursively (in C for libyaml, where 25,000
levels overflow the stack). The nesting depth is bounded from the text first, and counted
exactly from the parser's events (a loop, no recursion) when the bound is above the limit; a
document deeper than `MAX_DEPTH` never reaches the composer.

Values are built here from the composed nodes (not by `yaml.load`), which gives every key and
value its line and column, finds keys given twice (which `yaml.load` silently keeps the last
of), caps integer literals and alias expansion, and refuses recursive aliases. Positions are
looked up in the nodes only when a finding needs one, so a valid page costs no more than its
values. A value its tag's constructor cannot make (`!!int ""`, `!!bool maybe`, `!!seq "x"`)
is a finding at it, whatever PyYAML raised.

Why one module: the depth guard, the builder and the finder work on the same composed nodes
and agree on where each key and value is: the builder records it (or notes what makes a walk
unreliable), the finder finds it again on demand, and every refusal is placed the same way.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import re
from typing import Any

import yaml

from catalogctl.content.document import Document, Duplicate, Path, Pos, Positions, Problem
from catalogctl.content.limits import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_NODES,
    nested_too_deep,
    too_long_number,
    too_many_values,
    yaml_may_nest_deeper,
)
from catalogctl.content.yamlload import (
    IMPLICIT_TAGS,
    INT,
    MAP,
    MERGE,
    PURE,
    SEQ,
    STR,
    TIMESTAMP,
    loader_for,
)

_SCALAR = yaml.ScalarNode
NULL = "tag:yaml.org,2002:null"
BINARY = "tag:yaml.org,2002:binary"
_NULL = re.compile(r"~|null|Null|NULL|")  # the texts YAML reads as null
# What PyYAML's constructors raise for a value they cannot take: their own errors, Python's for
# a text of the wrong form (`int("")`), and those of constructors that index or match the
# text without checking it first (`!!int ""`: IndexError, `!!bool maybe`: KeyError,
# `!!timestamp x`: AttributeError).
_REFUSED = (
    yaml.YAMLError,
    ValueError,
    OverflowError,
    LookupError,
    AttributeError,
    TypeError,
)
_PLAIN_KEY = "invalid YAML: a key must be plain text, not a list or a mapping; write 'key: value'"
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _problem_from(exc: yaml.YAMLError, line0: int, text: str = "") -> Problem:
    from catalogctl.content.syntax_messages import yaml_problem  # only when a page is broken

    return yaml_problem(exc, line0, text)


def _check_depth(text: str, loader: type[yaml.SafeLoader], line0: int) -> None:
    """Refuse a document nested deeper than `MAX_DEPTH`, counted from the parser's events.

    A parser may refuse deep input with a cap of its own before our count gets there (libyaml
    reads flow brackets ahead of the events it gives, and since PyYAML 6.0.4 stops at 1000
    levels). Our limit must not depend on which release is installed, so when the parser fails
    on its cap, the events are counted again by the pure-Python parser, which has no cap: a
    document past our limit is a `limit` finding whatever the library would have said.
    """
    if not yaml_may_nest_deeper(text):
        return
    try:
        _count_depth(text, loader, line0)
    except yaml.YAMLError as exc:
        # Only libyaml's own cap hides levels our count has not seen; any other error came
        # after every level was counted (a syntax error at the end of a megabyte is not
        # parsed again, by a parser ten times slower, for nothing).
        if loader is not PURE and "nesting depth" in str(exc):
            with contextlib.suppress(yaml.YAMLError):
                _count_depth(text, PURE, line0)
        raise _problem_from(exc, line0, text) from None


def _count_depth(text: str, loader: type[yaml.SafeLoader], line0: int) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = (line0 + mark.line, mark.column + 1) if mark else (None, None)
                raise Problem("limit", nested_too_deep(), *where)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _Builder:
    """Python values from composed nodes; linear in the nodes, no recursion deeper than the
    (already checked) nesting depth.

    With `locate`, it also records where every key and value is (`pos`), and the keys given
    twice. Without, it only notes whether a mapping gives a key twice (`repeated`) or merges
    another (`merged`): a page with neither is located later by walking its nodes (`_Finder`),
    only when a finding needs a place.
    """

    def __init__(
        self, loader: yaml.SafeLoader, line0: int, pure: bool, shared: bool, *, locate: bool
    ) -> None:
        self.loader = loader
        self.line0 = line0
        self.pure = pure
        # Whether nodes can be shared: an alias needs an anchor (`&name`); without any `&` in
        # the text every node is built once, and the alias bookkeeping is skipped.
        self.shared = shared
        self.locate = locate
        self.pos = Positions()
        self.done: dict[int, Any] = {}
        self.sizes: dict[int, int] = {}
        self.active: set[int] = set()
        self.nodes = 0
        self.repeated = False
        self.merged = False
        # A string scalar's value is its node's text (what SafeConstructor gives) for the C
        # loader; without anchors or positions to record, a collection then takes its string
        # items as they are, without a call per node, and checks the node count once.
        self.inline = not pure and not shared and not locate

    def at(self, node: yaml.Node) -> Pos:
        mark = node.start_mark
        return (self.line0 + mark.line, mark.column + 1)

    def fail(self, rule: str, message: str, node: yaml.Node) -> Problem:
        line, col = self.at(node)
        return Problem(rule, message, line, col)

    def build(self, node: yaml.Node, path: Path) -> Any:
        """The value of `node`; an alias gives the value built for its anchor again."""
        if not self.shared:
            return self.value(node, path)
        key = id(node)
        if key in self.active:
            raise self.fail(
                "limit",
                "an alias refers to the mapping or list it is inside of, which would never end; "
                "copy the values instead",
                node,
            )
        if key in self.done:
            # An alias: the same value again. Count its size, so that aliases of aliases
            # ("billion laughs") cannot expand past the node limit in later checks.
            self.nodes += self.sizes[key]
            if self.nodes > MAX_NODES:
                raise self.fail("limit", too_many_values(aliases=True), node)
            return self.done[key]
        before = self.nodes
        self.active.add(key)
        value = self.value(node, path)
        self.active.discard(key)
        self.done[key] = value
        self.sizes[key] = self.nodes - before
        return value

    def value(self, node: yaml.Node, path: Path) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail("limit", too_many_values(), node)
        if self.locate:
            self.pos.values.setdefault(path, self.at(node))
        kind = type(node)
        if kind is yaml.ScalarNode:
            if node.tag == STR and not self.pure:
                return node.value  # what SafeConstructor gives for a string
            return self.scalar(node)
        if kind is yaml.MappingNode:
            return self.mapping(node, path)
        if node.tag != SEQ:
            raise self.fail("syntax", _unknown_tag(node.tag, "a list"), node)
        build = self.build
        if self.locate:
            return [build(item, (*path, i)) for i, item in enumerate(node.value)]
        if not self.inline:
            return [build(item, path) for item in node.value]
        out = []
        strings = 0  # the items taken as they are (built ones count themselves)
        for item in node.value:
            if type(item) is _SCALAR and item.tag == STR:
                strings += 1
                out.append(item.value)
            else:
                out.append(build(item, path))
        self.nodes += strings
        if self.nodes > MAX_NODES:
            raise self.fail("limit", too_many_values(), node)
        return out

    def scalar(self, node: yaml.Node) -> Any:
        text = node.value
        if node.tag == STR and (not self.pure or text.isascii()):
            return text  # what SafeConstructor gives for a string
        if node.tag == INT and len(text) > MAX_INT_DIGITS:
            raise self.fail("limit", too_long_number(), node)
        value: Any
        try:
            if node.tag == TIMESTAMP and _DATE.fullmatch(text):
                # What the safe timestamp constructor makes of a date, without its regex.
                value = dt.date(int(text[:4]), int(text[5:7]), int(text[8:]))
            elif node.tag in IMPLICIT_TAGS:  # a plain value: its constructor is a function
                if node.tag == NULL and not _NULL.fullmatch(text):  # PyYAML takes any text
                    raise ValueError(text)
                value = self.loader.yaml_constructors[node.tag](self.loader, node)
            elif node.tag == BINARY:
                # PyYAML's decoder skips what is not base64 (`!!binary "@@@"` would be b"").
                value = base64.b64decode("".join(text.split()), validate=True)
            else:
                # Deep: a collection's constructor (`!!seq "x"`) then checks the node it got.
                value = self.loader.construct_object(node, deep=True)
        except _REFUSED as exc:
            raise self.refused(node, exc) from None
        if self.pure and isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise self.fail(
                    "syntax",
                    "invalid YAML: an escape such as '\\ud800' names half a character (a lone "
                    "surrogate), which text cannot hold; write the whole character",
                    node,
                ) from None
        return value

    def refused(self, node: yaml.Node, exc: BaseException) -> Problem:
        """A scalar its tag's constructor could not make a value of, as a finding at it."""
        from catalogctl.content.syntax_messages import yaml_tag, yaml_tagged, yaml_value

        text, tag = node.value, node.tag
        reason = getattr(exc, "problem", None) or str(exc)
        if reason.startswith("could not determine a constructor"):
            return self.fail("syntax", yaml_tag(tag), node)
        timestamp_form = tag == TIMESTAMP and self.loader.timestamp_regexp.match(text)
        plain_tag = self.loader.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
        if timestamp_form or plain_tag == tag:
            # The form of the type (`2024-02-30`, `0b_`), but not a value of it.
            return self.fail("syntax", yaml_value(text, tag, reason), node)
        return self.fail("syntax", yaml_tagged(text, tag), node)

    def key(self, node: yaml.Node) -> Any:
        """The value of a mapping's key node (a plain value)."""
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail("syntax", _PLAIN_KEY, node)
        key = self.scalar(node)
        try:
            hash(key)
        except TypeError:
            raise self.fail("syntax", _PLAIN_KEY, node) from None
        return key

    def mapping(self, node: yaml.Node, path: Path) -> dict[Any, Any]:
        if node.tag != MAP:
            raise self.fail("syntax", _unknown_tag(node.tag, "a mapping"), node)
        out: dict[Any, Any] = {}
        seen: dict[Any, Pos] = {}
        merges: list[yaml.Node] = []
        build = self.build
        plain = not self.pure
        inline = self.inline
        for key_node, value_node in node.value:
            tag = key_node.tag
            if tag == MERGE:
                merges.append(value_node)
                continue
            self.nodes += 1
            if plain and tag == STR and type(key_node) is yaml.ScalarNode:
                key = key_node.value
            else:
                key = self.key(key_node)
            if not self.locate:
                if key in out:
                    self.repeated = True
                if inline and type(value_node) is _SCALAR and value_node.tag == STR:
                    self.nodes += 1
                    out[key] = value_node.value
                else:
                    out[key] = build(value_node, path)
                continue
            where = self.at(key_node)
            if key in seen:
                self.pos.duplicates.append(Duplicate(path, str(key), seen[key], where))
            else:
                seen[key] = where
            sub = (*path, path_part(key))
            self.pos.keys.setdefault(sub, where)
            out[key] = build(value_node, sub)
        if merges:
            self.merged = True
            self.merge(out, merges, path)
        if inline and self.nodes > MAX_NODES:
            raise self.fail("limit", too_many_values(), node)
        return out

    def merge(self, out: dict[Any, Any], merges: list[yaml.Node], path: Path) -> None:
        """`<<: *defaults`: explicit keys win, earlier merges win."""
        for merge in merges:
            sources = merge.value if isinstance(merge, yaml.SequenceNode) else [merge]
            for source in sources:
                merged = self.build(source, path)
                if not isinstance(merged, dict):
                    raise self.fail(
                        "syntax",
                        "invalid YAML: '<<' merges a mapping (or a list of mappings) into this "
                        "one; point it at an anchored mapping: <<: *defaults",
                        merge,
                    )
                for k, v in merged.items():
                    out.setdefault(k, v)


def _unknown_tag(tag: str, on: str) -> str:
    from catalogctl.content.syntax_messages import yaml_tag

    return yaml_tag(tag, on)


def path_part(key: Any) -> str | int:
    """A key as a part of a position path."""
    return key if isinstance(key, str | int) else str(key)


class _Finder:
    """The position of a key or value, found by walking the composed nodes along its path.

    For a document whose values were built once each (no alias, no merge, no repeated key),
    this gives what `_Builder(locate=True)` would record, at the cost of one path. A mapping's
    keys are indexed the first time a path runs through it, so that a page's thousands of
    findings in one mapping cost a look-up each, not a walk of its keys each.
    """

    __slots__ = ("builder", "keys", "root")

    def __init__(self, root: yaml.Node, builder: _Builder) -> None:
        self.root = root
        self.builder = builder
        # id of a mapping node -> {key as a path part: (value node, key node)}
        self.keys: dict[int, dict[Any, tuple[yaml.Node, yaml.Node]]] = {}

    def __call__(self, path: Path, key: bool) -> Pos | None:
        node = self.root
        key_node: yaml.Node | None = None
        try:
            for part in path:
                node, key_node = self._step(node, part)
        except (LookupError, Problem):
            return None
        target = key_node if key else node
        return None if target is None else self.builder.at(target)

    def _step(self, node: yaml.Node, part: str | int) -> tuple[yaml.Node, yaml.Node | None]:
        if isinstance(node, yaml.MappingNode):
            index = self.keys.get(id(node))
            if index is None:
                index = self.keys[id(node)] = self._index(node)
            return index[part]
        if isinstance(node, yaml.SequenceNode) and type(part) is int and part >= 0:
            return node.value[part], None
        raise LookupError(part)

    def _index(self, node: yaml.MappingNode) -> dict[Any, tuple[yaml.Node, yaml.Node]]:
        """A mapping's keys as path parts, each to its value and key node (the first, as a
        walk of its keys would find it)."""
        index: dict[Any, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            tag = key_node.tag
            if tag == STR and type(key_node) is _SCALAR:  # a string key is its text
                index.setdefault(key_node.value, (value_node, key_node))
            elif tag != MERGE:
                with contextlib.suppress(Problem):  # built once already: it does not fail
                    part = path_part(self.builder.key(key_node))
                    index.setdefault(part, (value_node, key_node))
        return index


def read_yaml(text: str, file: str, line0: int, start: Pos) -> Document:
    """Parse a YAML block whose first line is line `line0` of the file."""
    loader_cls = loader_for(text)
    _check_depth(text, loader_cls, line0)
    try:
        loader = loader_cls(text)  # the pure loader checks the characters here
    except yaml.YAMLError as exc:
        raise _problem_from(exc, line0, text) from None
    pure, shared = loader_cls is PURE, "&" in text
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            raise _problem_from(exc, line0, text) from None
        except RecursionError:
            raise Problem("limit", nested_too_deep()) from None
        if node is None:
            raise Problem(
                "front-matter",
                "the front matter is empty; write the game's keys in it (name: …)",
                *start,
            )
        builder = _Builder(loader, line0, pure, shared, locate=False)
        data = builder.build(node, ())
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise Problem(
            "front-matter",
            "the front matter must be a mapping of keys to values; write 'key: value' lines",
            *builder.at(node),
        )

    def scan() -> Positions:
        located = _Builder(loader, line0, pure, shared, locate=True)
        located.build(node, ())
        return located.pos

    if shared or builder.repeated or builder.merged:  # located by a whole located build
        return Document(file, "yaml", data, start, scan=scan, may_repeat_keys=builder.repeated)
    return Document(file, "yaml", data, start, may_repeat_keys=False, find=_Finder(node, builder))
