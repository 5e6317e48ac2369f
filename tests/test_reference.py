"""The generated references (settings, rules) and `validate --explain`: from the package's own
tables, committed as generated, and every rule's example real."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from catalogctl import docs_url
from catalogctl.content.rules.examples import EXAMPLES, NO_EXAMPLE
from catalogctl.content.rules.explain import EXPLANATIONS
from catalogctl.content.rules.registry import RULES
from catalogctl.content.settings_notes import NOTES
from catalogctl.findings import Finding, rule_docs
from catalogctl.output import reference
from tests.conftest import ROOT, example_marks, example_params
from tests.processes import run, run_cli

DOCS = ROOT / "docs"


def section(page: str, rule_id: str) -> str:
    """A rule's section of the rules page: the text below its heading, up to the next one."""
    after = page.split(reference.rule_heading(rule_id) + "\n\n", 1)[1]
    return after.split("\n## ", 1)[0].rstrip("\n") + "\n"


def test_every_rule_has_an_explanation_and_an_example() -> None:
    assert set(EXPLANATIONS) == set(RULES), "explain each rule in content/rules/explain.py"
    assert not set(EXAMPLES) & set(NO_EXAMPLE)
    assert set(EXAMPLES) | set(NO_EXAMPLE) == set(RULES), "give each rule an example"


@pytest.mark.parametrize(
    "name",
    [
        reference.SETTINGS_PAGE,
        # The rules page lays out every rule's example: each needs what its own test needs.
        pytest.param(reference.RULES_PAGE, marks=example_marks(sorted(EXAMPLES))),
    ],
)
def test_committed_reference_page_is_what_the_generator_writes(name: str) -> None:
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert committed == reference.pages()[name], (
        f"docs/{name} is out of date: run `{reference.REGENERATE}` and commit the page"
    )


def test_the_regenerate_command_writes_the_pages_into_a_docs_folder(tmp_path: Path) -> None:
    """`python -m catalogctl.output.reference DOCS` (docs/contributing.md) writes both pages
    under DOCS and names them; a DOCS that is not a folder is refused."""
    module = reference.REGENERATE.split()[-1]
    proc = run([sys.executable, "-m", module, str(tmp_path)])
    assert proc.returncode == 0, proc.stderr
    names = [reference.SETTINGS_PAGE, reference.RULES_PAGE]
    assert proc.stdout.splitlines() == [f"wrote {tmp_path / name}" for name in names]
    for name in names:
        assert (tmp_path / name).read_text(encoding="utf-8") == (DOCS / name).read_text("utf-8")
    proc = run([sys.executable, "-m", module, str(tmp_path / "nope")])
    assert proc.returncode == 2
    assert "is not a folder" in proc.stderr


@pytest.mark.parametrize("rule_id", example_params())
def test_rule_example_gives_its_rule_through_validate(tmp_path: Path, rule_id: str) -> None:
    reference.write_example(EXAMPLES[rule_id], tmp_path)
    proc = run_cli("validate", "content", "--format", "json", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    mine = [f for f in findings if f["rule"] == rule_id]
    assert mine, f"the example of {rule_id} gives {[f['rule'] for f in findings]}"
    # The page shows exactly the findings users get, file, line, field and message.
    shown = [reference.finding_line(Finding(**{k: f[k] for k in _FINDING_KEYS})) for f in mine]
    page = (DOCS / reference.RULES_PAGE).read_text(encoding="utf-8")
    assert "\n".join(shown) in section(page, rule_id)
    # Every example in this set goes to exit 1 except the warnings' (exit 0).
    errors = [f for f in findings if f["severity"] == "error"]
    assert proc.returncode == (1 if errors else 0)


_FINDING_KEYS = ("file", "line", "field", "message", "severity", "rule", "column")


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_explain_prints_the_rule_section_of_the_page(rule_id: str) -> None:
    proc = run_cli("validate", "--explain", rule_id)
    assert proc.returncode == 0, proc.stderr
    page = (DOCS / reference.RULES_PAGE).read_text(encoding="utf-8")
    docs = docs_url(rule_docs(rule_id))
    assert proc.stdout == f"{rule_id}\n\n{section(page, rule_id)}\nDocs: {docs}\n"


def test_explain_of_an_unknown_rule_exits_2_with_a_did_you_mean() -> None:
    proc = run_cli("validate", "--explain", "unknwn-key")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "did you mean 'unknown-key'?" in " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr


def test_rules_page_has_one_anchor_per_rule() -> None:
    page = (DOCS / reference.RULES_PAGE).read_text(encoding="utf-8")
    for rule_id in RULES:
        assert page.count(reference.rule_heading(rule_id) + "\n") == 1
        assert f"| [`{rule_id}`](#{rule_id}) |" in page


def test_settings_reference_lists_every_key_of_the_model() -> None:
    from catalogctl.content.settings import json_schema

    paths = [s.path for t in reference.setting_tables(json_schema("site")) for s in t.settings]
    assert sorted(paths) == sorted(NOTES)
    page = (DOCS / reference.SETTINGS_PAGE).read_text(encoding="utf-8")
    for path in paths:
        assert f"### `{path}` {{ #{reference.setting_anchor(path)} }}" in page
    for table in ("[stores.<key>]", "[api.v1]", "[content]"):
        assert f"## `{table}`" in page


def test_a_setting_without_since_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    from catalogctl.content import settings

    real = settings.json_schema

    def with_new_key(kind: Any) -> dict[str, Any]:
        schema = real(kind)
        schema["$defs"]["ContentSettings"]["properties"]["drafts"] = {"type": "boolean"}
        return schema

    monkeypatch.setattr(settings, "json_schema", with_new_key)
    with pytest.raises(SystemExit, match=r"no `since` and example for \['content.drafts'\]"):
        reference.settings_page()


def test_settings_types_and_defaults_read_as_toml() -> None:
    page = (DOCS / reference.SETTINGS_PAGE).read_text(encoding="utf-8")
    assert '| [`game_url`](#game-url) | string | `"{base_url}/games/{id}/"` | 0.1.0 |' in page
    assert "| [`platforms`](#platforms) | list of strings | none | 0.1.0 |" in page
    assert '| `"apple"`, `"google-play"`, `"other"` | none |' in page
    assert "| [`base_url`](#base-url) | string | required | 0.1.0 |" in page


def test_reference_generator_writes_each_page_into_the_docs_folder(tmp_path: Path) -> None:
    from catalogctl.output import reference

    assert reference.main([str(tmp_path)]) == 0
    for name, text in reference.pages().items():
        assert (tmp_path / name).read_text(encoding="utf-8") == text
    assert reference.main([str(tmp_path / "missing")]) == 2
