"""YAML as Jekyll and Hugo read it: libyaml's answer, on every machine.

One corpus runs through both loaders (libyaml and the pure-Python one) and through the page
reader with each of them: the same values, or a `syntax` finding from both.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from catalogctl.content import yamldoc, yamlload
from catalogctl.content.document import Problem

REFUSED = None

# (case id, YAML text, what libyaml makes of it: a mapping, or REFUSED)
CORPUS: list[tuple[str, str, Any]] = [
    # The Godot showcase pages: a flow sequence whose items are indented with tabs.
    (
        "tab-indented-flow-items",
        'gallery: [\n\t"/assets/showcase/a1.jpg",\n\t"/assets/showcase/a2.jpg"\n]\n',
        {"gallery": ["/assets/showcase/a1.jpg", "/assets/showcase/a2.jpg"]},
    ),
    ("tab-in-flow-mapping", "a: {x: 1,\ty: 2}\n", {"a": {"x": 1, "y": 2}}),
    ("tab-after-key", "name:\tTidal Drift\n", {"name": "Tidal Drift"}),
    ("tab-before-flow", "platforms:\t[iOS, Android]\n", {"platforms": ["iOS", "Android"]}),
    ("tab-inside-plain", "name: Tidal\tDrift\n", {"name": "Tidal\tDrift"}),
    (
        "tab-before-comment",
        "name: Tidal # the name\t\nweight: 2\t# x\n",
        {"name": "Tidal", "weight": 2},
    ),
    ("trailing-tab", "name: Tidal\t\nweight: 1\n", {"name": "Tidal", "weight": 1}),
    ("tab-after-quoted", 'name: "Tidal"\t\n', {"name": "Tidal"}),
    ("tab-after-anchor", "a: &x\t[b]\nc: *x\n", {"a": ["b"], "c": ["b"]}),
    ("tab-after-tag", "a: !!str\t1\n", {"a": "1"}),
    ("tab-in-quoted", 'a: "x\ty"\n', {"a": "x\ty"}),
    ("tab-in-block-scalar-text", "a: |\n  x\n  \ty\n", {"a": "x\n\ty\n"}),
    # A `?` inside a plain scalar of a flow collection: a URL with a query in a flow list.
    (
        "url-query-in-flow-list",
        "stores: [https://play.google.com/store/apps/details?id=com.example.game]\n",
        {"stores": ["https://play.google.com/store/apps/details?id=com.example.game"]},
    ),
    ("question-in-flow", "tags: [what?, why?]\n", {"tags": ["what?", "why?"]}),
    ("empty-with-non-specific-tag", "a: !\nb: ! 1\n", {"a": "", "b": 1}),
    (
        "block-indentation-indicator",
        "a: |2\n   x\n  y\nb: >-2\n   z\n",
        {"a": " x\ny\n", "b": " z"},
    ),
    (
        "flow-sequence-explicit-key",
        "a: [? b : c]\nd: [?, , e]\n",
        {"a": [{"b": "c"}], "d": [{None: None}, "e"]},
    ),
    (
        "comment-glued-to-block-header",
        "description: >#\n  Folded text.\n",
        {"description": "Folded text.\n"},
    ),
    ("tab-after-block-header", "description: |\t# c\n  Text.\n", {"description": "Text.\n"}),
    ("yaml-1.2-directive", "%YAML 1.2\n---\na: b\n", {"a": "b"}),
    # Refused by libyaml, so refused here on every machine.
    ("tab-indents-a-key", "a: 1\n\tb: 2\n", REFUSED),
    ("tab-indents-a-list", "a:\n\t- x\n", REFUSED),
    ("tab-after-dash", "a:\n  - b\n  -\tc\n", REFUSED),
    ("tab-indents-plain-continuation", "a: b\n\tc\n", REFUSED),
    ("tab-indents-block-scalar", "a: |\n  x\n\ty\n", REFUSED),
    ("tab-before-block-scalar-text", "a: |\n  \tx\n", REFUSED),
    ("colon-before-comma-in-flow", "a: [b:, c]\n", REFUSED),
    ("yaml-1.3-directive", "%YAML 1.3\n---\na: b\n", REFUSED),
    ("yaml-2.0-directive", "%YAML 2.0\n---\na: b\n", REFUSED),
]

LOADERS = [yamlload.PureLoader, *([yamlload.C_LOADER] if yamlload.C_LOADER else [])]


def _libyaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return REFUSED


@pytest.mark.skipif(yamlload.C_LOADER is None, reason="PyYAML without libyaml: no reference")
@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, e, id=i) for i, t, e in CORPUS])
def test_corpus_is_what_libyaml_reads(text: str, expected: Any) -> None:
    assert _libyaml(text) == expected


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, e, id=i) for i, t, e in CORPUS])
def test_both_loaders_read_the_corpus_alike(
    monkeypatch: pytest.MonkeyPatch, loader: type, text: str, expected: Any
) -> None:
    monkeypatch.setattr(yamldoc, "loader_for", lambda _text: loader)
    try:
        got: Any = yamldoc.read_yaml(text, "x.md", 2, (1, 1)).data
    except Problem as p:
        assert p.rule == "syntax", p.message
        assert p.line is not None and p.line >= 2
        got = REFUSED
    assert got == expected


def test_every_text_is_read_by_libyaml_where_it_is_installed() -> None:
    texts = [t for _, t, _ in CORPUS]
    assert {yamlload.loader_for(t) for t in texts} == {yamlload.FAST}
    assert yamlload.FAST is (yamlload.C_LOADER or yamlload.PureLoader)


def test_a_tab_that_indents_names_tabs_in_its_message() -> None:
    with pytest.raises(Problem) as raised:
        yamldoc.read_yaml("name: A\n\tgenres: [x]\n", "x.md", 2, (1, 1))
    assert "tab" in raised.value.message
    assert raised.value.line == 3
