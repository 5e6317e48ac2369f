"""`catalogctl schema page|site`: JSON Schemas that editors check content with, as validate does."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from catalogctl.content.loader import load
from tests.conftest import (
    ROOT,
    SAMPLE,
    SITE_TOML,
    ContentFactory,
    game_yaml,
    needs_fifos,
    needs_symlinks,
    require_program,
)
from tests.processes import run, run_cli


@cache  # the same text every time: printed once per run
def printed_schema(document: str) -> dict[str, Any]:
    result = run_cli("schema", document)
    assert result.returncode == 0, result.stderr
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema


def as_editor_sees(value: Any) -> Any:
    """YAML and TOML values as JSON: dates are text to an editor's schema checker."""
    if isinstance(value, dict):
        return {str(k): as_editor_sees(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_editor_sees(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return value


def front_matter(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if text.startswith("---"):
        return as_editor_sees(yaml.safe_load(text.split("---", 2)[1]))
    if text.startswith("+++"):
        return as_editor_sees(tomllib.loads(text.split("+++", 2)[1]))
    raise AssertionError(f"{path}: no front matter")


def validator(document: str) -> jsonschema.Draft202012Validator:
    schema = printed_schema(document)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def descriptions_missing(schema: Any, where: str = "") -> list[str]:
    """Every property of every object must tell an editor's user what it is."""
    missing = []
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if not prop.get("description") and "$ref" not in prop:
                missing.append(f"{where}.{name}")
        for key, value in schema.items():
            missing += descriptions_missing(value, f"{where}.{key}")
    elif isinstance(schema, list):
        for item in schema:
            missing += descriptions_missing(item, where)
    return missing


@pytest.mark.parametrize("document", ["page", "site"])
def test_schema_is_draft_2020_12_with_descriptions(document: str) -> None:
    schema = printed_schema(document)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["description"]
    assert descriptions_missing(schema) == []


def test_schema_page_names_the_catalog_keys() -> None:
    schema = printed_schema("page")
    assert set(schema["required"]) == {
        "name",
        "description",
        "platforms",
        "genres",
        "icon",
        "stores",
    }
    assert {"weight", "slug", "draft"} <= set(schema["properties"])


def test_schema_accepts_the_sample_content() -> None:
    site = validator("site")
    errors = [
        e.message
        for e in site.iter_errors(
            as_editor_sees(tomllib.loads((SAMPLE / "site.toml").read_text(encoding="utf-8")))
        )
    ]
    assert errors == []
    page = validator("page")
    pages = sorted((SAMPLE / "games").glob("*.md"))
    assert len(pages) >= 10
    for path in pages:
        assert [e.message for e in page.iter_errors(front_matter(path))] == [], path.name


@pytest.mark.parametrize(
    ("case", "text"),
    [
        (
            "no name",
            "---\ndescription: A game.\nplatforms: [iOS]\ngenres: [Puzzle]\n"
            "icon: /i.png\nstores:\n  ios: https://apps.apple.com/app/x/id1\n---\n",
        ),
        ("empty platforms", game_yaml(platforms="[]")),
        ("weight is text", game_yaml(extra="weight: heavy\n")),
        ("draft is text", game_yaml(extra="draft: maybe\n")),
        ("no stores", game_yaml(ios=None, android=None).replace("stores:\n", "stores: {}\n")),
        ("genres is text", game_yaml(genres="Puzzle")),
    ],
)
def test_schema_rejects_what_validate_rejects_in_a_page(
    make_content: ContentFactory, case: str, text: str
) -> None:
    root = make_content({"bad": text, "good": game_yaml("Good")})
    assert load(root).errors, f"validate accepts a page with {case}"
    errors = list(validator("page").iter_errors(front_matter(root / "games" / "bad.md")))
    assert errors, f"the schema accepts a page with {case}"


@pytest.mark.parametrize(
    ("case", "site"),
    [
        ("no title", SITE_TOML.replace('title = "Example Games"\n', "")),
        ("no stores", SITE_TOML.split("[stores.ios]")[0] + '[api.v1]\nstatus = "supported"\n'),
        ("a store without a name", SITE_TOML.replace('name = "App Store"\n', "")),
        (
            "an unknown store key",
            SITE_TOML.replace('name = "App Store"\n', 'name = "A"\nurl = 1\n'),
        ),
        ("an unknown status", SITE_TOML.replace('status = "supported"', 'status = "retired"')),
    ],
)
def test_schema_rejects_what_validate_rejects_in_site_toml(
    make_content: ContentFactory, case: str, site: str
) -> None:
    root = make_content(site=site)
    assert load(root).errors, f"validate accepts site.toml with {case}"
    data = as_editor_sees(tomllib.loads(site))
    assert list(validator("site").iter_errors(data)), f"the schema accepts site.toml with {case}"


def test_schema_unknown_document_is_a_usage_error() -> None:
    result = run_cli("schema", "games")
    assert result.returncode == 2


def docs_block(page: str, language: str) -> str:
    """The first code block of a docs page in `language` (its info string may go on)."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    after = text.split(f"\n```{language}", 1)[1].split("\n", 1)[1]
    return after.split("\n```", 1)[0] + "\n"


def test_schema_site_in_taplo_as_the_readme_configures_it(tmp_path: Path) -> None:
    """`taplo lint`, configured by the docs' .taplo.toml, checks site.toml with the schema."""
    taplo = Path(sys.executable).with_name("taplo")
    assert taplo.exists(), "taplo is a test dependency (pip install -e '.[test]')"
    page = "commands/schema.md"
    repo = tmp_path / "website"
    shutil.copytree(SAMPLE, repo / "content")
    env = {**os.environ, "PATH": f"{taplo.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    sh = require_program("sh", package="dash")
    run([sh, "-ec", docs_block(page, "sh")], cwd=repo, env=env, check=True)
    (repo / ".taplo.toml").write_text(docs_block(page, "toml"), encoding="utf-8")

    def lint() -> subprocess.CompletedProcess[str]:
        return run([taplo, "lint", "--colors", "never", "content/site.toml"], cwd=repo)

    assert lint().returncode == 0, lint().stderr
    site = repo / "content" / "site.toml"
    site.write_text(
        site.read_text(encoding="utf-8").replace('status = "supported"', 'status = "retired"'),
        encoding="utf-8",
    )
    proc = lint()
    assert proc.returncode == 1
    assert "retired" in proc.stderr


HUGO_SITE = (
    SITE_TOML
    + """
[fields]
name = "title"
icon = "params.icon"
[fields.stores]
ios = "params.appstore"
"""
)

HUGO_PAGE = """---
title: Reef
description: A game.
platforms: [iOS, Android]
genres: [Puzzle]
params:
  icon: /icons/reef.png
  appstore: https://apps.apple.com/app/reef/id1
stores:
  android: https://play.google.com/store/apps/details?id=com.example.reef
---
"""


def test_schema_page_follows_the_fields_of_site_toml(make_content: ContentFactory) -> None:
    root = make_content({"reef": HUGO_PAGE}, site=HUGO_SITE)
    assert load(root).errors == []
    result = run_cli("schema", "page", root)
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    page = jsonschema.Draft202012Validator(schema)
    assert list(page.iter_errors(front_matter(root / "games" / "reef.md"))) == []
    assert "title" in schema["required"]
    assert "name" not in schema["properties"]
    assert schema["properties"]["params"]["properties"]["icon"]["description"]
    assert descriptions_missing(schema) == []

    # The page as the plain format writes it lacks what this site's [fields] reads.
    plain = make_content({"reef": game_yaml("Reef")}, site=HUGO_SITE)
    assert load(plain).errors
    assert list(page.iter_errors(front_matter(plain / "games" / "reef.md")))


@pytest.mark.parametrize("args", [["site", "content"], ["page", "no-such-folder"]])
def test_schema_bad_content_argument_is_a_usage_error(args: list[str]) -> None:
    result = run_cli("schema", *args)
    assert result.returncode == 2


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("x = " + "[" * 500 + "]" * 500, "nested deeper than 64 levels"),
        ("[" + ".".join(["k"] * 1200) + "]", "nested deeper than 64 levels"),
        ("x = 1" + "0" * 5000, "a number longer than"),
        ("[fields]\nname = '" + ".".join(["a"] * 1000) + "'", "longer than 200 characters"),
    ],
    ids=["deep-array", "deep-table", "long-number", "deep-field-path"],
)
def test_schema_page_reads_site_toml_within_validates_limits(
    tmp_path: Path, extra: str, said: str
) -> None:
    """A site.toml validate reports a limit in (nesting, numbers, a key path of a thousand
    keys) is that error for `schema page` too, never a RecursionError."""
    root = tmp_path / "content"
    shutil.copytree(SAMPLE, root)
    with (root / "site.toml").open("a", encoding="utf-8") as f:
        f.write("\n" + extra + "\n")
    result = run_cli("schema", "page", root)
    assert result.returncode == 2, result.stderr
    assert said in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "kind",
    [
        "large",
        pytest.param("outside", marks=needs_symlinks),
        pytest.param("fifo", marks=needs_fifos),
        "many-values",
    ],
)
def test_schema_page_reads_site_toml_as_validate_does(tmp_path: Path, kind: str) -> None:
    """A site.toml validate does not read (over its size limit, a symlink out of the tree, a
    FIFO) is not read by `schema page` either: exit 2 with validate's message."""
    root = tmp_path / "content"
    shutil.copytree(SAMPLE, root)
    site = root / "site.toml"
    text = site.read_text(encoding="utf-8")
    if kind == "large":  # valid TOML, but more than validate reads
        site.write_text(text + "\n# " + "x" * (1 << 20) + "\n", encoding="utf-8")
        said = "site.toml is larger than 1,024 KiB, the limit"
    elif kind == "outside":
        outside = tmp_path / "outside.toml"
        outside.write_text(text + "\n[fields]\nname = 'secret-key-name'\n", encoding="utf-8")
        site.unlink()
        site.symlink_to(outside)
        said = "site.toml is a symlink out of the content tree, so it is not read"
    elif kind == "fifo":
        site.unlink()
        os.mkfifo(site)
        said = "site.toml cannot be read (not a regular file)"
    else:
        site.write_text(text + "\nx = [" + ",".join(["1"] * 210_000) + "]\n", encoding="utf-8")
        said = "the limit of one document; site.toml holds settings only"
    validated = load(root)
    assert any(said in f.message for f in validated.errors), validated.errors
    result = run_cli("schema", "page", root, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "front matter" not in result.stderr
    assert said in " ".join(result.stderr.split())
    assert "secret-key-name" not in result.stdout + result.stderr
