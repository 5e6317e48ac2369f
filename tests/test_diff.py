"""`catalogctl diff`: exact added/removed/changed/reordered sets from every kind of source,
release warnings, the SPEC §9 contract check, output formats and exit codes."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.contract.openapi import openapi_document
from catalogctl.diff.contract import contract_changes
from catalogctl.diff.core import DiffResult, compare
from catalogctl.errors import InputError
from catalogctl.output.diff import changes
from catalogctl.output.diff_views import markdown, word_diff
from catalogctl.site.build import write_site
from catalogctl.site.render import render
from catalogctl.sources.core import CatalogSnapshot, base_url_of, load_source
from tests.conftest import SITE_TOML, ContentFactory, game_yaml, needs_rlimits
from tests.processes import cli, measure, run, run_cli
from tests.serve_process import ServeProcess

KEYS = {"added", "removed", "changed", "reordered", "warnings", "breaking"}


def by_kind(envelope: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The envelope's changes grouped by kind (`added`, `removed`, `changed`, …)."""
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in (*KEYS, "compatible")}
    for change in envelope["changes"]:
        out[change["kind"] if change["kind"] != "warning" else "warnings"].append(change)
    return out


def build(content: Path, out: Path) -> Path:
    write_site(render(load_catalog(content), compress=False), out)
    return out


def diff(old: str | Path, new: str | Path) -> DiffResult:
    return compare(load_source(str(old)), load_source(str(new)))


def ids(items: list[Any]) -> list[str]:
    return [i.id for i in items]


def game(i: int, *, weight: int | None = None, name: str | None = None, **kw: Any) -> str:
    """Game `i` of `games()`, with some fields overridden."""
    kw.setdefault("ios", f"https://apps.apple.com/app/g{i}/id{i}")
    kw.setdefault("android", f"https://play.google.com/store/apps/details?id=com.example.g{i}")
    extra = f"weight: {i + 1 if weight is None else weight}\n"
    return game_yaml(name or f"Game {i}", extra=extra, **kw)


def games(n: int, **overrides: str) -> dict[str, str]:
    out = {f"g{i}": game(i) for i in range(n)}
    out.update(overrides)
    return out


@pytest.fixture
def pair(make_content: ContentFactory) -> tuple[Path, Path]:
    """Two content trees: every kind of change between them, and games that stay the same."""
    old = make_content(games(8), name="old")
    new = games(
        8,
        # renamed, new description, platform and genre swapped, store link changed
        g1=game(
            1,
            name="Game One",
            description="A brand new game.",
            platforms="[iOS]",
            genres="[Arcade]",
            ios="https://apps.apple.com/app/g1/id1001",
            android=None,
        ),
        # a new icon, and moved from position 3 to the end
        g2=game(2, icon="/icons/other.png", weight=99),
        g8=game(8),
    )
    del new["g5"]
    return old, make_content(new, name="new")


# --- what changed -----------------------------------------------------------------------------


def test_diff_reports_exact_sets(pair: tuple[Path, Path]) -> None:
    result = diff(*pair)
    assert ids(result.added) == ["g8"]
    assert ids(result.removed) == ["g5"]
    assert {c.id: sorted(c.fields) for c in result.changed} == {
        "g1": ["description", "genres", "name", "platforms", "stores"],
        "g2": ["icon"],
    }
    assert len(result.reordered) == 1
    assert (result.reordered[0].before, result.reordered[0].after) == (3, 8)


def test_diff_field_changes_before_after_and_sets(pair: tuple[Path, Path]) -> None:
    fields = {c.id: c.fields for c in diff(*pair).changed}["g1"]
    assert fields["name"] == {"before": "Game 1", "after": "Game One"}
    assert fields["platforms"]["added"] == [] and fields["platforms"]["removed"] == ["Android"]
    assert fields["genres"]["added"] == ["Arcade"] and fields["genres"]["removed"] == ["Puzzle"]
    stores = fields["stores"]
    assert stores["removed"] == ["Google Play"] and stores["added"] == []
    assert [c["name"] for c in stores["changed"]] == ["App Store"]
    assert stores["changed"][0]["after"].startswith("https://apps.apple.com/app/g1/id1001?")


def test_diff_content_vs_its_own_build_is_no_difference(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    content = make_content(games(5))
    dist = build(content, tmp_path / "dist")
    for other in (dist, dist / "public", dist / "public/api/v1/games/index.json"):
        result = diff(content, other)
        assert changes(result) == [], other
    proc = run_cli("diff", content, dist)
    assert proc.returncode == 0, proc.stderr
    assert "no differences" in proc.stderr


def test_diff_single_move_lists_only_that_game(make_content: ContentFactory) -> None:
    old = make_content(games(10))
    new = make_content(games(10, g9=game(9, weight=-1)))
    result = diff(old, new)
    assert [(m.id, m.before, m.after) for m in result.reordered] == [("g9", 10, 1)]
    assert not result.changed and not result.added and not result.removed


def test_diff_reorder_ignores_added_and_removed_games(make_content: ContentFactory) -> None:
    old = make_content(games(6))
    changed = games(6, new=game(100, name="New", weight=0))
    del changed["g0"]
    assert diff(old, make_content(changed)).reordered == []


def test_diff_description_word_diff() -> None:
    assert word_diff("build the largest reef", "build the biggest reef") == [
        ("=", "build the "),
        ("-", "largest"),
        ("+", "biggest"),
        ("=", " reef"),
    ]


# --- release warnings -------------------------------------------------------------------------


def test_diff_id_rename_is_breaking(make_content: ContentFactory) -> None:
    old = make_content(games(3))
    by_name = games(3, renamed=games(3)["g1"])
    del by_name["g1"]
    by_url = games(
        3, other=game_yaml("Other", ios="https://apps.apple.com/app/g2/id2", android=None)
    )
    del by_url["g2"]
    for tree, old_id, new_id, why in (
        (by_name, "g1", "renamed", "name and store URL"),
        (by_url, "g2", "other", "store URL"),
    ):
        result = diff(old, make_content(tree))
        breaks = [c for c in changes(result) if c["kind"] == "breaking"]
        # One break, the rename: the removed id is not reported a second time.
        assert breaks == [
            {
                "kind": "breaking",
                "rule": "id-rename",
                "severity": "error",
                "where": f"games.{new_id}",
                "id": new_id,
                "old_id": old_id,
                "matched_on": why,
                "message": breaks[0]["message"],
            }
        ]
        assert result.warnings == [] and result.failed("breaking")


def test_diff_removed_game_is_breaking(make_content: ContentFactory) -> None:
    old = make_content(games(3))
    fewer = games(3)
    del fewer["g2"]
    result = diff(old, make_content(fewer))
    assert [(b.kind, b.id) for b in result.breaks] == [("game-removed", "g2")]
    assert result.failed("breaking")
    assert changes(result)[0]["where"] == "games.g2"


@pytest.mark.parametrize(
    ("store", "url", "breaking"),
    [
        ("ios", "https://apps.apple.com/app/g1/id999", True),
        ("android", "https://play.google.com/store/apps/details?id=com.other.app", True),
        # the same app under another slug, or with other parameters: not another app
        ("ios", "https://apps.apple.com/app/a-new-slug/id1", False),
        ("android", "https://play.google.com/store/apps/details?id=com.example.g1&hl=de", False),
    ],
)
def test_diff_store_app_change_is_breaking(
    make_content: ContentFactory, store: str, url: str, breaking: bool
) -> None:
    old = make_content(games(3))
    new = make_content(games(3, g1=game(1, **{store: url})))
    result = diff(old, new)
    assert [c.id for c in result.changed] == ["g1"]
    assert [(b.kind, b.id) for b in result.breaks] == (
        [("store-app-changed", "g1")] if breaking else []
    )
    assert result.failed("breaking") is breaking


def test_diff_additions_and_edits_are_not_breaking(make_content: ContentFactory) -> None:
    old = make_content(games(3))
    new = make_content(
        games(4, g0=game(0, description="Now with more levels."), g1=game(1, weight=99))
    )
    result = diff(old, new)
    assert ids(result.added) == ["g3"] and [c.id for c in result.changed] == ["g0"]
    assert len(result.reordered) == 1
    assert result.breaks == [] and not result.failed("breaking")
    assert run_cli("diff", old, new, "--fail-on", "breaking", "--format", "json").returncode == 0
    assert run_cli("diff", old, new, "--format", "json").returncode == 1


def test_diff_warns_about_attribution_parameters(make_content: ContentFactory) -> None:
    old = make_content(games(2))
    dropped = SITE_TOML.replace('params = { pt = "123456", ct = "service_api_game_catalog", ', "")
    dropped = dropped.replace('mt = "8" }\n', "")
    result = diff(old, make_content(games(2), site=dropped))
    assert [(w.kind, w.id, w.details["store"]) for w in result.warnings] == [
        ("attribution", "g0", "App Store"),
        ("attribution", "g1", "App Store"),
    ]
    assert result.warnings[0].details["params"]["pt"] == {"before": "123456", "after": None}
    assert "dropped" in result.warnings[0].message


def test_diff_warns_when_a_listed_platform_lost_its_store(make_content: ContentFactory) -> None:
    old = make_content(games(3))
    new = make_content(games(3, g0=game(0, android=None)))
    result = diff(old, new)
    assert [(w.kind, w.id, w.details) for w in result.warnings] == [
        ("platform-store", "g0", {"platform": "Android", "store": "Google Play"})
    ]
    # Dropping the platform with its store is a change, not a warning.
    new = make_content(games(3, g0=game(0, platforms="[iOS]", android=None)))
    assert diff(old, new).warnings == []


# --- contract check (SPEC §9) -----------------------------------------------------------------


@pytest.fixture
def spec() -> dict[str, Any]:
    return openapi_document(load_catalog(Path(__file__).parent.parent / "content").publication)


def _messages(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str]]:
    changes = contract_changes(old, new)
    return (
        [f"{c.where}: {c.message}" for c in changes if c.breaking],
        [f"{c.where}: {c.message}" for c in changes if not c.breaking],
    )


def test_diff_contract_same_document_has_no_changes(spec: dict[str, Any]) -> None:
    assert contract_changes(spec, copy.deepcopy(spec)) == []


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("remove-field", "schemas.Game.icon: field 'icon' removed"),
        ("rename-field", "schemas.Store.url: field 'url' removed (renamed to 'href'?)"),
        ("change-type", "schemas.GameCatalog.schemaVersion: type changed"),
        ("required-param", "paths./api/v1/games.get.parameters.page: new required query"),
        ("remove-path", "paths./api/v1: endpoint removed"),
        ("remove-method", "paths./api/v1/games.head: method HEAD removed"),
        ("remove-response", "paths./api/v1/games.get.responses.404: response 404 removed"),
        ("optional-to-required", "schemas.Game.genres: field 'genres' is now optional"),
        ("content-type", "paths./api/v1/games.get.responses.200.content: no longer returns"),
        ("auth", "paths./api/v1/games.get.security: now requires authentication"),
    ],
)
def test_diff_contract_breaking_changes(spec: dict[str, Any], case: str, expected: str) -> None:
    new = copy.deepcopy(spec)
    schemas = new["components"]["schemas"]
    games_get = new["paths"]["/api/v1/games"]["get"]
    if case == "remove-field":
        del schemas["Game"]["properties"]["icon"]
        schemas["Game"]["required"].remove("icon")
    elif case == "rename-field":
        schemas["Store"]["properties"]["href"] = schemas["Store"]["properties"].pop("url")
        schemas["Store"]["required"] = ["name", "href"]
    elif case == "change-type":
        schemas["GameCatalog"]["properties"]["schemaVersion"] = {"type": "string"}
    elif case == "required-param":
        games_get["parameters"] = [
            {"name": "page", "in": "query", "required": True, "schema": {"type": "integer"}}
        ]
    elif case == "remove-path":
        del new["paths"]["/api/v1"]
    elif case == "remove-method":
        del new["paths"]["/api/v1/games"]["head"]
    elif case == "remove-response":
        del games_get["responses"]["404"]
    elif case == "optional-to-required":
        schemas["Game"]["required"].remove("genres")
    elif case == "content-type":
        games_get["responses"]["200"]["content"] = {
            "application/xml": games_get["responses"]["200"]["content"]["application/json"]
        }
    elif case == "auth":
        games_get["security"] = [{"apiKey": []}]
    breaking, _ = _messages(spec, new)
    assert any(m.startswith(expected) for m in breaking), breaking


def test_diff_contract_compatible_changes(spec: dict[str, Any]) -> None:
    new = copy.deepcopy(spec)
    new["components"]["schemas"]["Game"]["properties"]["trailer"] = {"type": "string"}
    new["paths"]["/api/v1/games"]["get"]["parameters"] = [
        {"name": "lang", "in": "query", "required": False, "schema": {"type": "string"}}
    ]
    new["paths"]["/api/v1/news"] = copy.deepcopy(new["paths"]["/api/v1/games"])
    breaking, compatible = _messages(spec, new)
    assert breaking == []
    assert sorted(compatible) == [
        "paths./api/v1/games.get.parameters.lang: new optional query parameter 'lang'",
        "paths./api/v1/news: new endpoint",
        "schemas.Game.trailer: new optional field 'trailer'",
    ]


def _with_request_body(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(spec)
    doc["paths"]["/api/v1/games"]["post"] = {
        "requestBody": {"content": {"application/json": {"schema": schema}}},
        "responses": {"201": {"description": "Created."}},
    }
    return doc


def test_diff_contract_response_fields_follow_oasdiff(spec: dict[str, Any]) -> None:
    """A response may gain fields, required or not; it may not lose one or make one optional."""
    new = copy.deepcopy(spec)
    game = new["components"]["schemas"]["Game"]
    game["properties"]["trailer"] = {"type": "string", "format": "uri"}
    game["properties"]["rating"] = {"type": "number"}
    game["required"].append("rating")
    breaking, compatible = _messages(spec, new)
    assert breaking == []
    assert sorted(compatible) == [
        "schemas.Game.rating: new required field 'rating'",
        "schemas.Game.trailer: new optional field 'trailer'",
    ]
    # Taking an optional field away again breaks the clients that read it.
    breaking, _ = _messages(new, spec)
    assert sorted(breaking) == [
        "schemas.Game.rating: field 'rating' removed",
        "schemas.Game.trailer: field 'trailer' removed",
    ]


def test_diff_contract_request_fields_are_the_other_way_round(spec: dict[str, Any]) -> None:
    base = {"type": "object", "properties": {"name": {"type": "string"}}, "required": []}
    old = _with_request_body(spec, base)
    required = copy.deepcopy(base)
    required["properties"]["note"] = {"type": "string"}
    required["required"] = ["name", "note"]
    breaking, _ = _messages(old, _with_request_body(spec, required))
    assert sorted(breaking) == [
        "paths./api/v1/games.post.requestBody.content.application/json.name: "
        "field 'name' is now required",
        "paths./api/v1/games.post.requestBody.content.application/json.note: "
        "new required field 'note'",
    ]
    optional = copy.deepcopy(base)
    optional["properties"]["note"] = {"type": "string"}
    breaking, compatible = _messages(old, _with_request_body(spec, optional))
    assert breaking == [] and compatible == [
        "paths./api/v1/games.post.requestBody.content.application/json.note: "
        "new optional field 'note'"
    ]


def test_diff_contract_values_and_bounds_by_direction(spec: dict[str, Any]) -> None:
    new = copy.deepcopy(spec)
    schemas = new["components"]["schemas"]
    schemas["ApiVersionIndex"]["properties"]["status"]["enum"].append("retired")
    schemas["Game"]["properties"]["platforms"]["minItems"] = 0
    schemas["Game"]["properties"]["genres"]["minItems"] = 2
    breaking, compatible = _messages(spec, new)
    assert sorted(breaking) == [
        "schemas.ApiVersionIndex.status: new allowed value ['retired']",
        "schemas.Game.platforms: minItems changed from 1 to 0",
    ]
    assert compatible == ["schemas.Game.genres: minItems changed from 1 to 2"]
    # In a request, the same edits break the other way.
    body = {"type": "string", "enum": ["a", "b"], "minLength": 1}
    narrower = {"type": "string", "enum": ["a"], "minLength": 2}
    breaking, compatible = _messages(
        _with_request_body(spec, body), _with_request_body(spec, narrower)
    )
    where = "paths./api/v1/games.post.requestBody.content.application/json"
    assert sorted(breaking) == [
        f"{where}: minLength changed from 1 to 2",
        f"{where}: no longer accepts ['b']",
    ]
    assert compatible == []


def test_diff_contract_deprecation_is_compatible(spec: dict[str, Any]) -> None:
    new = copy.deepcopy(spec)
    for item in new["paths"].values():
        for op in item.values():
            op["deprecated"] = True
    breaking, compatible = _messages(spec, new)
    assert breaking == []
    assert "paths./api/v1/games.get: deprecated" in compatible


def _web_root(root: Path, doc: dict[str, Any]) -> Path:
    """A web root with no games and `doc` for its openapi.json."""
    (root / "api/v1/games").mkdir(parents=True)
    (root / "api/v1/games/index.json").write_text('{"schemaVersion": 1, "games": []}', "utf-8")
    (root / "openapi.json").write_text(json.dumps(doc), "utf-8")
    return root


def _one_path(path: str, schema: dict[str, Any], **schemas: Any) -> dict[str, Any]:
    ok = {"200": {"content": {"application/json": {"schema": schema}}}}
    return {
        "openapi": "3.1.0",
        "components": {"schemas": schemas},
        "paths": {path: {"get": {"responses": ok}}},
    }


def test_diff_contract_long_names_are_shown_bounded(tmp_path: Path) -> None:
    """A path of 100,000 characters, 300 new fields under it: each change used to carry the
    whole path (30 MB of report); now its ends, what was left out and a digest."""
    path = "/" + "a" * 100_000
    old = _web_root(tmp_path / "old", _one_path(path, {"type": "object", "properties": {}}))
    fields = {f"p{i}": {} for i in range(300)}
    new = _web_root(tmp_path / "new", _one_path(path, {"type": "object", "properties": fields}))
    proc = run_cli("diff", old, new, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    compatible = by_kind(json.loads(proc.stdout))["compatible"]
    assert len(compatible) == 300
    assert len(proc.stdout) < 300 * 1000
    first = compatible[0]
    assert first["where"].startswith("paths./aaaa") and first["where"].endswith(".p0")
    assert "99,9" in first["where"] and "characters left out" in first["where"]
    assert first["message"] == "new optional field 'p0'"
    # Two long paths that share their ends stay apart.
    twins = ["/" + "a" * 50_000 + x + "a" * 50_000 for x in "bc"]
    doc = _one_path(twins[0], {})
    doc["paths"][twins[1]] = doc["paths"][twins[0]]
    wheres = [c.where for c in contract_changes({"paths": {}}, doc)]
    assert len(wheres) == len(set(wheres)) == 2 and all(len(w) < 300 for w in wheres)


def test_diff_contract_a_shared_enum_is_listed_bounded() -> None:
    """100 properties that each referred to one schema of 20,000 values, now inline with one:
    each change used to print the whole enum (20 MB); now a count, the schema and ten values."""
    values = [f"v{j}" for j in range(20_000)]
    props = {f"p{i}": {"$ref": "#/components/schemas/Kind"} for i in range(100)}
    old = _one_path("/g", {"type": "object", "properties": props}, Kind={"enum": values})
    inline = {f"p{i}": {"enum": ["v0"]} for i in range(100)}
    new = _one_path("/g", {"type": "object", "properties": inline})
    changes = contract_changes(old, new)
    assert [c.breaking for c in changes] == [False] * 100  # a response may return fewer values
    assert sum(len(c.where) + len(c.message) for c in changes) < 100 * 300
    assert changes[0].message == (
        "no longer returns 19,999 values of schemas.Kind: "
        "['v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9', 'v10', …] and 19,989 more"
    )
    # The other way round, each property has 19,999 new values: breaking, told as briefly.
    changes = contract_changes(new, old)
    assert [c.breaking for c in changes] == [True] * 100
    assert changes[99].message.startswith("19,999 new allowed values of schemas.Kind: ['v1', ")
    # Equal values of other types stay apart from strings; duplicates count once.
    old = _one_path("/g", {"enum": ["1", 1, True, 1.0, [1], {"a": 1}, "1"]})
    new = _one_path("/g", {"enum": [1, "x"]})
    assert _messages(old, new) == (
        ["paths./g.get.responses.200.content.application/json: new allowed value ['x']"],
        [
            "paths./g.get.responses.200.content.application/json: "
            "no longer returns ['1', True, 1.0, [1], {'a': 1}]"
        ],
    )


def test_diff_contract_a_shared_schema_of_many_fields_is_told_once_a_place() -> None:
    """100 properties that each referred to one schema of 2,000 fields, now inline and empty:
    each place used to list every field (200,000 changes, 1 GB resident for 5,000 fields);
    now one change a place that counts them, names the schema and shows ten."""
    fields = {f"f{j}": {"type": "string"} for j in range(2_000)}
    shared = {"type": "object", "properties": fields, "required": ["f3", "f1999"]}
    props = {f"p{i}": {"$ref": "#/components/schemas/S"} for i in range(100)}
    old = _one_path("/g", {"type": "object", "properties": props}, S=shared)
    inline = {f"p{i}": {"type": "object"} for i in range(100)}
    new = _one_path("/g", {"type": "object", "properties": inline})
    breaking, compatible = _messages(old, new)
    where = "paths./g.get.responses.200.content.application/json"
    assert compatible == [] and len(breaking) == 100
    assert breaking[0] == (
        f"{where}.p0: 2,000 removed fields of schemas.S: "
        "['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', …] and 1,990 more"
    )
    # In a request body, the new required fields break it and the optional ones do not.
    body = {"requestBody": {"content": {"application/json": {"schema": {}}}}}
    old, new = copy.deepcopy(new), copy.deepcopy(old)
    for doc in (old, new):
        body["requestBody"]["content"]["application/json"]["schema"] = doc["paths"]["/g"]["get"][
            "responses"
        ]["200"]["content"]["application/json"]["schema"]
        doc["paths"]["/g"]["post"] = copy.deepcopy(body)
    breaking, compatible = _messages(old, new)
    at = "paths./g.post.requestBody.content.application/json.p7"
    assert f"{at}: 2 new required fields of schemas.S: ['f3', …] and 1 more" in breaking
    assert f"{at}: 1,998 new optional fields of schemas.S: " in "".join(compatible)
    assert (len(breaking), len(compatible)) == (100, 100 + 100)  # the request; the response too
    # A few fields are still told one by one.
    few = {"type": "object", "properties": {"a": {}, "b": {}}}
    old = _one_path("/g", {"type": "object", "properties": props}, S=few)
    breaking, _ = _messages(old, _one_path("/g", {"type": "object", "properties": inline}))
    assert breaking[:2] == [f"{where}.p0.a: field 'a' removed", f"{where}.p0.b: field 'b' removed"]


def test_diff_contract_between_build_directories(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    content = make_content(games(3))
    old = build(content, tmp_path / "old")
    new = build(content, tmp_path / "new")
    doc_path = new / "public/openapi.json"
    doc = json.loads(doc_path.read_text("utf-8"))
    del doc["components"]["schemas"]["Game"]["properties"]["description"]
    doc_path.write_text(json.dumps(doc), "utf-8")

    proc = run_cli("diff", old, new, "--format", "json", "--fail-on", "breaking")
    assert proc.returncode == 1, proc.stderr
    data = by_kind(json.loads(proc.stdout))
    assert [b["where"] for b in data["breaking"]] == ["schemas.Game.description"]
    assert data["added"] == data["removed"] == data["changed"] == []
    # Content trees carry no OpenAPI document: no contract check, no breaking change.
    assert diff(content, new).breaking == []


def test_diff_contract_changes_in_the_table_and_the_markdown(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    content = make_content(games(3))
    old = build(content, tmp_path / "old")
    new = build(content, tmp_path / "new")
    doc_path = new / "public/openapi.json"
    doc = json.loads(doc_path.read_text("utf-8"))
    del doc["components"]["schemas"]["Game"]["properties"]["description"]
    doc["paths"]["/api/v1/new"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    doc_path.write_text(json.dumps(doc), "utf-8")

    md = markdown(diff(old, new))
    assert "### Breaking contract changes (need /api/v2)" in md
    assert "- `schemas.Game.description`: field 'description' removed" in md
    assert "### Compatible contract changes" in md and "- `paths./api/v1/new`: new endpoint" in md
    # Piped: one change a line.
    proc = run_cli("diff", old, new, env={**os.environ, "COLUMNS": "120"})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert "schemas.Game.description: breaking · field 'description' removed" in lines
    assert "paths./api/v1/new: compatible · new endpoint" in lines
    assert "0 added, 0 removed, 0 changed, 0 reordered, 0 warnings, 1 breaking change" in (
        proc.stderr
    )
    # A content tree carries no OpenAPI document: the summary says the contract was not checked.
    proc = run_cli("diff", content, new)
    assert proc.returncode == 0, proc.stderr
    assert "(contract not checked: only one side has an OpenAPI document)" in proc.stderr


def test_diff_store_and_set_changes_are_worded_for_people(make_content: ContentFactory) -> None:
    old = make_content(games(3))
    site = SITE_TOML.replace('pt = "123456"', 'pt = "654321"')
    new = make_content(
        games(
            3,
            g0=game(0, genres="[Puzzle, Arcade]"),
            g1=game(1, ios="https://apps.apple.com/app/g1/id999"),
        ),
        site=site,
    )
    old_genres = make_content(games(3, g0=game(0, genres="[Puzzle, Arcade]")))
    md = markdown(diff(old, new))
    # Only the attribution changed: the parameters are named, not the whole URL.
    assert "  - stores: App Store: pt 123456 → 654321" in md
    # Another app: both URLs, as code.
    assert "App Store: `https://apps.apple.com/app/g1/id1?" in md
    assert "→ `https://apps.apple.com/app/g1/id999?" in md
    assert "  - genres: +Arcade" in md
    swapped = diff(old_genres, make_content(games(3, g0=game(0, genres="[Arcade, Puzzle]"))))
    assert "  - genres: order: Puzzle, Arcade → Arcade, Puzzle" in markdown(swapped)


def test_diff_word_diff_of_texts_too_long_to_match_word_by_word() -> None:
    before = " ".join(f"a{i}" for i in range(1500))
    after = " ".join(f"b{i}" for i in range(1500))
    assert word_diff(f"Same {before} end", f"Same {after} end") == [
        ("=", "Same "),
        ("-", before),
        ("+", after),
        ("=", " end"),
    ]


# --- sources ----------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, pair: tuple[Path, Path]) -> Iterator[str]:
    with ServeProcess(str(build(pair[1], tmp_path / "served"))) as server:
        yield server.url


def test_diff_against_a_live_server(served: str, pair: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = pair
    assert changes(diff(new, served)) == []
    assert changes(diff(served + "/api/v1/games", tmp_path / "served")) == []

    source = load_source(served)
    assert source.kind == "url" and source.openapi is not None

    proc = run_cli("diff", old, served + "/", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["schema"] == "catalogctl/diff/v1" and envelope["ok"] is False
    data = by_kind(envelope)
    assert [g["id"] for g in data["added"]] == ["g8"]
    assert [g["id"] for g in data["removed"]] == ["g5"]
    assert [c["id"] for c in data["changed"]] == ["g1", "g2"]
    assert [m["id"] for m in data["reordered"]] == ["g2"]


def test_diff_url_without_a_catalog_is_an_input_error(served: str) -> None:
    proc = run_cli("diff", served + "/nothing", served)
    assert proc.returncode == 2
    assert "answered 404" in proc.stderr and "Traceback" not in proc.stderr


def test_diff_base_url_of() -> None:
    assert base_url_of("https://x.example/") == "https://x.example"
    assert base_url_of("https://x.example/cat/api/v1/games/") == "https://x.example/cat"
    assert base_url_of("http://127.0.0.1:8000/api/v1") == "http://127.0.0.1:8000"


# --- invalid sources and exit codes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("not-json.json", "{not json", "is not a valid game catalog: Invalid JSON"),
        ("wrong-shape.json", '{"games": []}', "schemaVersion: Field required"),
        (
            "no-stores.json",
            json.dumps(
                {
                    "schemaVersion": 1,
                    "games": [
                        {
                            "id": "a",
                            "name": "A",
                            "description": "d",
                            "url": "https://x/a",
                            "platforms": ["iOS"],
                            "genres": ["Puzzle"],
                            "icon": "https://x/a.png",
                            "stores": [],
                        }
                    ],
                }
            ),
            "games[0].stores: List should have at least 1 item",
        ),
    ],
)
def test_diff_invalid_json_source(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        load_source(str(path))


@needs_rlimits
def test_diff_of_a_catalog_of_invalid_games_stops_at_the_first(tmp_path: Path) -> None:
    """200,000 games that all lack their fields (5 MB): every error of every game took 2 GB
    and 7 s to collect; the games are now checked up to the first invalid one, which the
    message names, saying that those after it are not checked."""
    path = tmp_path / "invalid.json"
    games = ",".join(json.dumps({"id": str(i), "name": "x"}) for i in range(200_000))
    path.write_text('{"schemaVersion": 1, "games": [' + games + "]}", "utf-8")
    done = measure(cli("diff", path, path))
    assert done.proc.returncode == 2, done.proc.stderr
    said = " ".join(done.proc.stderr.split())
    assert "games[0].description: Field required" in said, said
    assert "games after games[0] are not checked" in said and "Traceback" not in said
    assert done.peak_mib < 600, done.peak_mib


def test_diff_duplicate_ids_are_invalid(make_content: ContentFactory, tmp_path: Path) -> None:
    data = json.loads(
        (
            build(make_content(games(2)), tmp_path / "d") / "public/api/v1/games/index.json"
        ).read_text("utf-8")
    )
    data["games"].append(data["games"][0])
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(InputError, match=r"games\[0\] and games\[2\] have the same id 'g0'"):
        load_source(str(path))


def test_diff_bad_sources_exit_2_without_traceback(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    content = make_content(games(1))
    invalid = make_content({"bad": game_yaml("Bad", genres="[]")})
    (tmp_path / "empty").mkdir()
    cases = {
        str(tmp_path / "missing"): "source not found",
        "http://127.0.0.1:9": "connection refused",
        str(invalid): "is invalid (1 error); first:",
        str(tmp_path / "empty"): "not a catalog source",
    }
    for source, message in cases.items():
        proc = run_cli("diff", content, source)
        assert proc.returncode == 2, (source, proc.stderr)
        stderr = " ".join(proc.stderr.split())  # rich wraps long messages
        assert message in stderr and "Traceback" not in stderr, stderr


def test_diff_fail_on_levels(pair: tuple[Path, Path], make_content: ContentFactory) -> None:
    old, new = pair
    # g5 removed and g1's App Store link opens another app: breaking at every level.
    for level in ("any", "warning", "breaking"):
        proc = run_cli("diff", old, new, "--fail-on", level, "--format", "json")
        assert proc.returncode == 1, level
    report = json.loads(proc.stdout)
    assert [(c["rule"], c["where"]) for c in report["changes"] if c["kind"] == "breaking"] == [
        ("game-removed", "games.g5"),
        ("store-app-changed", "games.g1"),
    ]
    assert report["summary"]["breaking"] == 2
    unchanged = make_content(games(8))
    assert (
        run_cli("diff", old, unchanged, "--fail-on", "warning", "--format", "json").returncode == 0
    )
    lost_store = make_content(games(8, g0=game(0, android=None)))
    assert (
        run_cli("diff", old, lost_store, "--fail-on", "warning", "--format", "json").returncode == 1
    )
    assert (
        run_cli("diff", old, lost_store, "--fail-on", "breaking", "--format", "json").returncode
        == 0
    )


def test_diff_markdown_and_table_output(pair: tuple[Path, Path]) -> None:
    md = markdown(diff(*pair))
    assert "### Added (1)" in md and "### Removed (1)" in md and "### Reordered (1)" in md
    assert "- description: A **brand new** game." in md
    assert "- platforms: −Android" in md
    proc = run_cli("diff", *pair)  # piped: one change a line
    assert proc.returncode == 1
    assert any(": changed genres · +Arcade" in line for line in proc.stdout.splitlines())
    assert ": breaking game-removed · " in proc.stdout
    assert "1 added, 1 removed, 2 changed, 1 reordered" in proc.stderr


def test_diff_source_kinds(make_content: ContentFactory, tmp_path: Path) -> None:
    content = make_content(games(2))
    dist = build(content, tmp_path / "dist")
    kinds: dict[str, CatalogSnapshot] = {
        "content": load_source(str(content)),
        "build": load_source(str(dist)),
        "json": load_source(str(dist / "public/api/v1/games/index.json")),
    }
    assert {k: s.kind for k, s in kinds.items()} == {k: k for k in kinds}
    assert kinds["build"].openapi is not None and kinds["content"].openapi is None
    assert all(s.games == kinds["content"].games for s in kinds.values())


@pytest.mark.parametrize("seed", range(20))
def test_diff_reordered_moves_are_minimal(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from catalogctl.diff import core

    rng = random.Random(seed)
    old = [f"g{i}" for i in range(rng.randrange(1, 300))]
    new = old[:]
    for _ in range(rng.randrange(0, 12)):  # a few moves, sometimes a shuffle
        new.insert(rng.randrange(len(new)), new.pop(rng.randrange(len(new))))
    if seed % 5 == 0:
        rng.shuffle(new)
    by_blocks = core.reordered(old, new)
    monkeypatch.setattr(core, "_MAX_BLOCKS", 0)
    by_elements = core.reordered(old, new)
    assert len(by_blocks) == len(by_elements)
    for moved in (by_blocks, by_elements):
        stayed = [old.index(g) for g in new if g not in set(moved)]
        assert stayed == sorted(stayed)  # what stayed keeps its relative order


def test_diff_benchmark_checks_what_it_times() -> None:
    """benchmarks/bench_diff.py reads the JSON envelope and finds exactly the generated sets."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_diff.py"
    proc = run([sys.executable, script, "--games", "1000", "--runs", "1"], timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "reported exactly: 4 changed, 3 removed, 3 added" in proc.stdout


# --- JSON nested past the depth limit, in every kind of source ------------------------------

LIMIT = 64  # the documented limit (catalogctl.content.limits.MAX_DEPTH)
LIMIT_TEXT = f"deeper than {LIMIT} levels (limit: {LIMIT})"


def _nested(levels: int) -> str:
    """JSON text: `levels` arrays and objects, alternating, one inside the other."""
    opening = "".join('{"x": ' if i % 2 else "[" for i in range(levels))
    closing = "".join("}" if i % 2 else "]" for i in reversed(range(levels)))
    return opening + "1" + closing


def _one_game(extra: str) -> str:
    """A valid one-game catalog document whose top level also holds `"extra": <extra>`."""
    game_doc = {
        "id": "a",
        "name": "A",
        "description": "d",
        "url": "https://x.example/a",
        "platforms": ["iOS"],
        "genres": ["Puzzle"],
        "icon": "https://x.example/a.png",
        "stores": [{"name": "App Store", "url": "https://apps.apple.com/app/a/id1"}],
    }
    text = json.dumps({"schemaVersion": 1, "games": [game_doc]})
    return text[:-1] + f', "extra": {extra}}}'


def _assert_limit(proc: subprocess.CompletedProcess[str], *names: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    stderr = " ".join(proc.stderr.split())  # rich wraps long messages
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert LIMIT_TEXT in stderr, stderr
    for name in names:
        assert name in stderr.replace(" ", ""), (name, stderr)


def test_diff_games_json_within_and_past_the_depth_limit(tmp_path: Path) -> None:
    """The limit is catalogctl's own: one level past it is refused, though every JSON parser
    reads that far; at the limit the (ignored) member is read."""
    at_limit = tmp_path / "at.json"
    at_limit.write_text(_one_game(_nested(LIMIT - 1)), "utf-8")  # the document's {} is one
    assert [g["id"] for g in load_source(str(at_limit)).games] == ["a"]
    for levels in (LIMIT, 100_000):
        past = tmp_path / f"past-{levels}.json"
        past.write_text(_one_game(_nested(levels)), "utf-8")
        _assert_limit(run_cli("diff", at_limit, past), f"past-{levels}.json")


def test_diff_build_with_a_deep_manifest_or_documents(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    content = make_content(games(2))
    cases = {
        "manifest.json": "manifest.json",
        "public/api/v1/games/index.json": "/api/v1/games",
        "public/openapi.json": "OpenAPI",
    }
    for file, named in cases.items():
        dist = build(content, tmp_path / file.replace("/", "-"))
        path = dist / file
        text = path.read_text("utf-8")
        # The deep value goes where the document's reader sees it: a member of its top level.
        path.write_text(text.rstrip()[:-1] + f', "extra": {_nested(50_000)}}}', "utf-8")
        _assert_limit(run_cli("diff", content, dist), named)


def test_diff_web_root_with_deep_documents(make_content: ContentFactory, tmp_path: Path) -> None:
    content = make_content(games(2))
    for file in ("api/v1/games/index.json", "openapi.json"):
        root = build(content, tmp_path / file.replace("/", "-")) / "public"
        path = root / file
        text = path.read_text("utf-8")
        path.write_text(text.rstrip()[:-1] + f', "extra": {_nested(LIMIT + 1)}}}', "utf-8")
        _assert_limit(run_cli("diff", root, content), file)


def _json_server(bodies: dict[str, bytes], encoding: str | None = None) -> Iterator[str]:
    """A server on 127.0.0.1 answering each path of `bodies` with its JSON body (sent with
    Content-Encoding `encoding`, if given), any other with 404; yields its base URL."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = bodies.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            if body is not None and encoding is not None:
                self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture
def deep_server() -> Iterator[str]:
    """127.0.0.1: /games/ answers a deep games document; /openapi/ a good catalog and a deep
    OpenAPI document."""
    good = _one_game("null").encode()
    deep = _one_game(_nested(LIMIT + 1)).encode()
    bodies = {
        "/games/api/v1/games": deep,
        "/openapi/api/v1/games": good,
        "/openapi/openapi.json": b'{"openapi": "3.1.0", "paths": {}, "x": '
        + _nested(100_000).encode()
        + b"}",
    }

    yield from _json_server(bodies)


def test_diff_url_with_deep_documents(deep_server: str, make_content: ContentFactory) -> None:
    content = make_content(games(2))
    _assert_limit(
        run_cli("diff", content, f"{deep_server}/games", "--timeout", "20"), "/api/v1/games"
    )
    _assert_limit(
        run_cli("diff", f"{deep_server}/openapi", content, "--timeout", "20"), "openapi.json"
    )


@pytest.fixture
def gzip_server() -> Iterator[str]:
    """127.0.0.1: /whole/ answers a gzip-encoded catalog, /cut/ the same cut short."""
    import gzip

    packed = gzip.compress(_one_game("null").encode(), mtime=0)
    bodies = {"/whole/api/v1/games": packed, "/cut/api/v1/games": packed[: len(packed) // 2]}

    yield from _json_server(bodies, encoding="gzip")


def test_diff_url_with_a_gzip_body(gzip_server: str) -> None:
    whole = f"{gzip_server}/whole"
    same = run_cli("diff", whole, whole, "--timeout", "20")
    assert same.returncode == 0, same.stderr
    cut = run_cli("diff", f"{gzip_server}/cut", whole, "--timeout", "20")
    assert cut.returncode == 2, cut.stdout
    assert "ends in the middle of its compressed data" in cut.stderr
    assert "Traceback" not in cut.stderr


@pytest.mark.parametrize("part", ["parameter", "name"])
def test_diff_markdown_store_change_cannot_inject_lines(tmp_path: Path, part: str) -> None:
    """A store's name, or an attribution parameter (percent-decoded: `%0A` is a line break),
    is Markdown text of one line: a catalog cannot start a workflow command (`::error`) or
    raw HTML in release notes."""
    game = {
        "id": "reef",
        "name": "Reef",
        "description": "A puzzle.",
        "url": "https://games.example.com/games/reef/",
        "platforms": ["Android"],
        "genres": ["Puzzle"],
        "icon": "https://games.example.com/icons/reef.png",
        "stores": [
            {
                "name": "Google Play",
                "url": "https://play.google.com/store/apps/details?id=com.example.reef"
                "&utm_source=api",
            }
        ],
    }
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schemaVersion": 1, "games": [game]}))
    hostile = "\r\n::error file=README.md,line=1::Injected\n<img src=x onerror=alert(1)>\x1b[2J"
    store = game["stores"][0]  # type: ignore[index]
    if part == "parameter":
        store["url"] += "%0D%0A::error%20file=README.md,line=1::Injected%0A%3Cimg%20src=x%3E"
    else:
        store["name"] = "Google Play" + hostile
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"schemaVersion": 1, "games": [game]}))
    proc = run_cli("diff", old, new, "--format", "markdown")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line for line in lines if line.startswith("::")] == []
    assert re.search(r"(?<!\\)<img", proc.stdout) is None and "\x1b" not in proc.stdout
    assert any("stores:" in line and "Injected" in line for line in lines)
