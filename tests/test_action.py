"""action.yml, the composite GitHub Action: its inputs, and its script run as the runner would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalogctl import __version__
from tests.conftest import ROOT, SAMPLE, ContentFactory, game_yaml, require_program
from tests.processes import run

ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
CATALOGCTL = Path(sys.executable).with_name("catalogctl")


def test_action_is_composite_with_its_inputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    inputs = ACTION["inputs"]
    assert {"command", "content", "args"} <= set(inputs)
    for name, spec in inputs.items():
        assert spec.get("description"), name
        assert spec.get("required") is False, name
    assert inputs["command"]["default"] == "validate"
    assert inputs["content"]["default"] == "content"


def test_action_never_pastes_an_expression_into_a_script() -> None:
    """Inputs go through `env:`; `${{ }}` inside `run:` would let an input run commands."""
    scripts = [step for step in STEPS if "run" in step]
    assert scripts
    for step in scripts:
        assert "${{" not in step["run"], step.get("name")
        assert step["shell"] == "bash", step.get("name")
    env = scripts[-1]["env"]
    assert env == {
        "COMMAND": "${{ inputs.command }}",
        "CONTENT": "${{ inputs.content }}",
        "ARGS": "${{ inputs.args }}",
    }
    assert "--format github" in scripts[-1]["run"]


def test_action_installs_the_release_it_is_pinned_to() -> None:
    (install,) = [step for step in STEPS if step.get("name") == "Install catalogctl"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    command = " ".join(install["run"].replace("\\\n", " ").split())
    assert (
        'pip install --quiet --disable-pip-version-check -c "$ACTION_PATH/requirements.lock" '
        '"$ACTION_PATH"'
    ) in command
    assert (ROOT / "requirements.lock").is_file()
    assert '"$GITHUB_PATH"' in install["run"]


def test_action_docs_workflow_uses_this_release() -> None:
    section = (ROOT / "docs" / "ci" / "github-action.md").read_text(encoding="utf-8")
    workflow = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    ours = [s for s in steps if s["uses"].startswith("catalogctl/catalogctl@")]
    assert ours
    for step in ours:
        assert step["uses"] == f"catalogctl/catalogctl@v{__version__}"
        assert set(step.get("with", {})) <= set(ACTION["inputs"])
        assert step["with"]["command"] in ("validate", "check-links", "diff")


def run_step(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    """The action's command step, as the runner runs it: `bash -e` with the inputs in env."""
    bash = require_program("bash", package="bash")
    script = tmp_path / "step.sh"
    script.write_text(STEPS[-1]["run"], encoding="utf-8")
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    values = defaults | inputs
    env = {
        **os.environ,
        "PATH": f"{CATALOGCTL.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COMMAND": values["command"],
        "CONTENT": values["content"],
        "ARGS": values["args"],
    }
    # GitHub runs a `shell: bash` step as `bash --noprofile --norc -eo pipefail {0}`.
    return run([bash, "--noprofile", "--norc", "-eo", "pipefail", script], cwd=tmp_path, env=env)


def test_action_step_passes_valid_content(tmp_path: Path) -> None:
    proc = run_step(tmp_path, content=str(SAMPLE), args="--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "::error" not in proc.stdout


def test_action_step_annotates_findings(tmp_path: Path, make_content: ContentFactory) -> None:
    root = make_content({"alpha": game_yaml("Alpha", genres="[Puzzel]")})
    proc = run_step(tmp_path, content=str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "::error file=" in proc.stdout
    assert "alpha.md" in proc.stdout


def test_action_step_diff_takes_the_old_side_from_args(tmp_path: Path) -> None:
    proc = run_step(
        tmp_path, command="diff", content=str(SAMPLE), args=f"{SAMPLE}  --fail-on\n any"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "inputs",
    [
        {"args": "$(touch pwned) `touch pwned` ; touch pwned"},
        {"content": "content; touch pwned"},
        {"content": "$(touch pwned)"},
        {"command": "validate; touch pwned"},
        {"command": "serve"},
    ],
)
def test_action_step_inputs_cannot_run_commands(tmp_path: Path, inputs: dict[str, str]) -> None:
    proc = run_step(tmp_path, **inputs)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert not (tmp_path / "pwned").exists()
    assert "Traceback" not in proc.stderr
