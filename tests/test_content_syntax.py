"""Parser errors in plain words: what is wrong and what to write, at the parser's position.

A corpus of broken front matter, each run through the parser catalogctl uses (both YAML
loaders: libyaml and the pure-Python one), must give a `syntax` finding whose message is one
of catalogctl's sentences, never the parser's own wording, at the line and column the parser
named.
"""

from __future__ import annotations

import json
import re

import pytest
import tomli
import yaml

from catalogctl.content import yamldoc, yamlload
from catalogctl.content.document import Problem
from catalogctl.content.frontmatter import parse_page
from catalogctl.content.syntax_messages import YamlError, json_message, toml_message, yaml_message

# The parsers' wording, which must not reach a content author.
PARSER_WORDS = re.compile(
    r"while (parsing|scanning)|did not find|could not find|but (found|got)|expected <|"
    r"<(scalar|stream|block|document|flow)|cannot start any token|in this context|"
    r"are not allowed here|found (unexpected|undefined|unknown|character)|hexdecimal|"
    r"constructor|tag:yaml\.org|"
    r"Expecting|Unterminated|Invalid (statement|value|initial|hex|control|\\)|Unclosed|"
    r"Unescaped|Illegal|Cannot (overwrite|declare|mutate)|Extra data"
)

YAML = {
    "list not closed": (
        "name: X\nplatforms: [iOS Android\ngenres: [Puzzle]\n",
        "opened with '[' on line 3",
    ),
    "list never closed": ("platforms: [iOS, Android\n", "opened with '[' on line 2"),
    "mapping not closed": (
        "stores: {ios: https://x.example, android\n",
        "opened with '{' on line 2",
    ),
    "mapping with a colon": ("stores: {ios: a b: c}\n", "opened with '{'"),
    "colon in a value": ("name: Moon: Lander\n", 'quote the value (name: "Moon: Lander")'),
    "key indented": ("name: X\n  description: y\n", "indent it like the keys around it"),
    "tab": ("name: X\n\tdescription: y\n", "replace the tab with spaces"),
    "double quote": ('name: "Moon\n', "the quoted value that starts on line 2 is never closed"),
    "single quote": ("name: 'Moon\n", "the quoted value that starts on line 2 is never closed"),
    "escape": ('name: "Moon \\q"\n', "'\\q' is not an escape"),
    "hex escape": ('name: "\\xZZ"\n', "hexadecimal digits"),
    "alias": ("name: *nothing\n", "'*nothing' refers to an anchor '&nothing'"),
    "anchor": ("name: &\n", "must be followed by a name"),
    "list item": ("platforms:\n  - iOS\n  Android: x\n", "the list that starts on line 3"),
    "dash in a mapping": ("name: x\n- y\n", "the mapping that starts on line 2"),
    "comma": ("name: a\n, b\n", "quote a value that starts with ','"),
    "at sign": ("name: @moon\n", "cannot start with '@'"),
    "backtick": ("name: `moon`\n", "cannot start with '`'"),
    "percent line": ("name: x\n%YAML 1.1\n", "quote a value that starts with '%'"),
    "unknown tag": ("name: !!foo x\n", "the tag '!!foo' is not one catalogctl reads"),
    "tag on a mapping": ("stores: !custom {ios: x}\n", "the tag '!custom' is not one"),
    "tag on a list": ("platforms: !custom [iOS]\n", "the tag '!custom' is not one"),
    "local tag": ("name: !<x\n", "starts a YAML tag"),
    "tag handle": ("name: !e!x y\n", "starts a YAML tag"),
    "zero indentation": ("description: |0\n  x\n", "must be 1 to 9, not 0"),
    "block header": ("description: >x\n  x\n", "start the text on the next line"),
    "item after a mapping": ("- a\nb: c\n", "the list that starts on line 2"),
    "control character": ('name: "a\x07b"\n', "U+0007 is not allowed"),
    "closing bracket": ("platforms: ]\n", "']' closes a list or mapping that was never opened"),
    "closing brace": ("platforms: }\n", "'}' closes a list or mapping"),
    "no colon": ("name:\n - a\n b\n", "line 4 is neither a 'key: value' entry nor a '- ' item"),
    "impossible date": ("date: 2024-02-30\n", "cannot be read as a date"),
    # Every type's tag, given a value its constructor cannot take (PyYAML's raise AttributeError,
    # IndexError or KeyError for some of these), or given to a node of the wrong kind.
    "date tag on text": ('date: !!timestamp "garbage"\n', "'!!timestamp' asks for a date"),
    "date tag on nothing": ('date: !!timestamp ""\n', "'!!timestamp' asks for a date"),
    "date tag on a list": ("date: !!timestamp [1]\n", "asks for a date, and it is given a list"),
    "integer tag on nothing": ('weight: !!int ""\n', "'!!int' asks for an integer, and ''"),
    "integer tag on a sign": ('weight: !!int "-"\n', "'!!int' asks for an integer, and '-'"),
    "integer tag on a plus": ('weight: !!int "+"\n', "'!!int' asks for an integer"),
    "integer tag on an underscore": ('weight: !!int "_"\n', "'!!int' asks for an integer"),
    "integer tag on a prefix": ("weight: !!int 0x\n", "'!!int' asks for an integer, and '0x'"),
    "integer tag on sixty": ('weight: !!int "1:"\n', "'!!int' asks for an integer, and '1:'"),
    "integer of a base": ('weight: !!int "0b_"\n', "'0b_' cannot be read as an integer"),
    "number tag on nothing": ('weight: !!float ""\n', "'!!float' asks for a number"),
    "number tag on a dot": ('weight: !!float "."\n', "'!!float' asks for a number"),
    "boolean tag": ("draft: !!bool maybe\n", "'!!bool' asks for true or false, and 'maybe'"),
    "null tag": ("slug: !!null text\n", "'!!null' asks for nothing (null)"),
    "binary tag": ('icon: !!binary "a"\n', "'!!binary' asks for base64 data"),
    "binary tag on symbols": ('icon: !!binary "@@@"\n', "'!!binary' asks for base64 data"),
    "binary tag on a mapping": ("icon: !!binary {a: 1}\n", "and it is given a mapping"),
    "text tag on a list": ("name: !!str [a]\n", "'!!str' asks for text, and it is given a list"),
    "list tag on text": ('platforms: !!seq "iOS"\n', "'!!seq' asks for a list, and 'iOS'"),
    "mapping tag on text": ('stores: !!map "x"\n', "'!!map' asks for a mapping, and 'x'"),
    "mapping tag on a list": ("stores: !!map [x]\n", "asks for a mapping, and it is given a list"),
    "list tag on a mapping": ("genres: !!seq {a: 1}\n", "asks for a list, and it is given a"),
    "set": ("genres: !!set {Puzzle}\n", "the tag '!!set' is not one catalogctl reads"),
    "set of a list": ("genres: !!set [Puzzle]\n", "the tag '!!set' is not one"),
    "set on text": ('genres: !!set "x"\n', "'!!set' asks for a set, and 'x'"),
    "ordered mapping": ("stores: !!omap [{ios: x}]\n", "the tag '!!omap' is not one"),
    "pairs of a mapping": ("stores: !!pairs {ios: x}\n", "the tag '!!pairs' is not one"),
    "ordered mapping on text": ('stores: !!omap "x"\n', "'!!omap' asks for an ordered mapping"),
    "pairs": ("stores: !!pairs [{ios: x}]\n", "the tag '!!pairs' is not one"),
    "pairs on text": ('stores: !!pairs "x"\n', "'!!pairs' asks for a list of pairs"),
    "merge tag": ("name: !!merge x\n", "the tag '!!merge' is not one"),
    "value tag": ("name: !!value x\n", "the tag '!!value' is not one"),
    "python object": ("name: !!python/object:os.system x\n", "'!!python/object:os.system'"),
    "python name": ("name: !!python/name:os.system ''\n", "'!!python/name:os.system' is not"),
    "python tuple": ("platforms: !!python/tuple [a]\n", "'!!python/tuple' is not one"),
    "python apply": ("x: !!python/object/apply:os.system [ls]\n", "is not one catalogctl"),
    "long form tag": ("name: !<tag:yaml.org,2002:int> x\n", "'!!int' asks for an integer"),
    "tag uri": ("name: !<tag:example.com,2024:x> y\n", "'tag:example.com,2024:x' is not"),
    "merge of a scalar": ("<<: 3\n", "'<<' merges a mapping"),
    "list as a key": ("[a]: b\n", "a key must be plain text"),
    "item after a key": ("name: - x\n", "a '- ' list item cannot start here"),
}


def raw_yaml_position(text: str, loader: type) -> tuple[int, int] | None:
    """Where the parser itself puts the error (line and column of the page)."""
    try:
        yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return (mark.line + 2, mark.column + 1) if mark else None
    except (yaml.YAMLError, ValueError, LookupError, AttributeError, TypeError):
        return None  # PyYAML's own refusals of a value its tag asks for carry no position
    return None


LOADERS = [yamlload.PureLoader, *([yamlload.C_LOADER] if yamlload.C_LOADER else [])]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(("text", "words"), YAML.values(), ids=list(YAML))
def test_yaml_errors_in_plain_words_at_the_parsers_position(
    monkeypatch: pytest.MonkeyPatch, loader: type, text: str, words: str
) -> None:
    monkeypatch.setattr(yamldoc, "loader_for", lambda _text: loader)
    with pytest.raises(Problem) as caught:
        parse_page(f"---\n{text}---\n".encode(), "p.md", complete=True)
    problem = caught.value
    assert problem.rule == "syntax"
    assert problem.message.startswith("invalid YAML: "), problem.message
    assert PARSER_WORDS.search(problem.message) is None, problem.message
    assert words in problem.message
    # A fix is offered after the problem.
    assert ";" in problem.message
    where = raw_yaml_position(text, loader)
    if where is not None:
        assert (problem.line, problem.column) == where


TOML = {
    "unquoted text": ("name = Moon Lander\n", 'quote text (name = "Moon Lander")'),
    "text after a value": ('name = "Moon" Lander\n', "on a line of its own"),
    "table header": ('[stores\nios = "x"\n', "must end with ']'"),
    "array of tables": ("[[games]\n", "must end with ']]'"),
    "no equals sign": ('name "x"\n', "followed by '=' and its value"),
    "no key": ('= "x"\n', "not a TOML statement"),
    "array not closed": ('platforms = ["iOS", "Android"\n', "end it with ']'"),
    "array without comma": ('platforms = ["iOS" "Android"]\n', "separate its items with ','"),
    "inline table": ('stores = { ios = "x"\n', "end it with '}' on the same line"),
    "backslash": ('name = "C:\\Games"\n', "write '\\\\' for a backslash"),
    "string not closed": ('name = "Moon\n', "never closed on its line"),
    "multi-line string": ('name = """Moon\n', "never closed"),
    "control character": ('name = "a\x07b"\n', "a control character is not allowed"),
    "unicode escape": ('name = "\\uZZZZ"\n', "4 or 8 hexadecimal digits"),
    "impossible date": ("date = 2024-02-30\n", "not a valid date"),
    "statement": ("!!!\n", "not a TOML statement"),
}


@pytest.mark.parametrize(("text", "words"), TOML.values(), ids=list(TOML))
def test_toml_errors_in_plain_words_at_the_parsers_position(text: str, words: str) -> None:
    with pytest.raises(Problem) as caught:
        parse_page(f"+++\n{text}+++\n".encode(), "p.md", complete=True)
    problem = caught.value
    assert problem.rule == "syntax"
    assert problem.message.startswith("invalid TOML: "), problem.message
    assert PARSER_WORDS.search(problem.message) is None, problem.message
    assert words in problem.message
    with pytest.raises(tomli.TOMLDecodeError) as raw:
        tomli.loads(text)
    assert (problem.line, problem.column) == (raw.value.lineno + 1, raw.value.colno)


def test_toml_key_given_twice_names_both_lines() -> None:
    with pytest.raises(Problem) as caught:
        parse_page(b'+++\nname = "a"\nname = "b"\n+++\n', "p.md", complete=True)
    assert caught.value.rule == "duplicate-key"
    assert caught.value.message == "key 'name' is given twice, on lines 2 and 3; keep one"
    assert (caught.value.line, caught.value.column) == (3, 1)


JSON = {
    "value missing": ('{"name": }\n', "a value is missing here"),
    "comma missing": ('{"name": "x" "a": 1}\n', "a ',' is missing"),
    "colon missing": ('{"name" "x"}\n', "followed by ':'"),
    "trailing comma": ('{"name": "x",}\n', "remove the ',' after the last entry"),
    "trailing comma in a list": ('{"tags": [1, 2 ,\n]}\n', "remove the ',' after the last item"),
    "single quotes": ("{'name': 'x'}\n", "in double quotes"),
    "tab in a string": ('{"name": "a\tb"}\n', "write it as an escape"),
    "escape": ('{"name": "a\\qb"}\n', "not a JSON escape"),
    "unicode escape": ('{"name": "\\uZZ"}\n', "4 hexadecimal digits"),
    "NaN": ('{"n": NaN}\n', "NaN is not a JSON number"),
}


@pytest.mark.parametrize(("text", "words"), JSON.values(), ids=list(JSON))
def test_json_errors_in_plain_words_at_the_parsers_position(text: str, words: str) -> None:
    with pytest.raises(Problem) as caught:
        parse_page(text.encode(), "p.md", complete=True)
    problem = caught.value
    assert problem.rule == "syntax"
    assert problem.message.startswith("invalid JSON: "), problem.message
    assert PARSER_WORDS.search(problem.message) is None, problem.message
    assert words in problem.message
    if "after the last" in problem.message:
        # At the comma, with the same words, whichever Python (3.13's json says so itself).
        line = text.splitlines()[problem.line - 1]
        assert line[problem.column - 1] == ",", (problem.line, problem.column)
        return
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        assert (problem.line, problem.column) == (exc.lineno, exc.colno)


def test_a_message_no_entry_knows_is_passed_on_with_its_language() -> None:
    # Nothing is hidden: a new parser text still reaches the author, named as what it is.
    err = YamlError("found something new", "while parsing a thing", 3, "x", "x")
    assert yaml_message(err) == "invalid YAML: found something new; while parsing a thing"
    assert toml_message("Something new") == "invalid TOML: Something new"
    assert json_message("Something new") == "invalid JSON: Something new"
