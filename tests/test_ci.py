""".github/workflows/ci.yml runs .ci/run's test stage on Linux, macOS and Windows: the same
commands, on each Python that pyproject.toml's requires-python names. It cannot run here, so
these tests keep it to .ci/run's commands, and the README and pyproject to the systems it
tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet

from tests.conftest import ROOT
from tests.processes import run

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
CI_RUN = ROOT / ".ci" / "run"
SYSTEMS = ["ubuntu-latest", "macos-latest", "windows-latest"]


def workflow() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return doc


def job() -> dict[str, Any]:
    job: dict[str, Any] = workflow()["jobs"]["test"]
    return job


def step_named(prefix: str) -> dict[str, Any]:
    (step,) = [s for s in job()["steps"] if s.get("name", "").startswith(prefix)]
    return step


def supported_pythons() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = SpecifierSet(project["requires-python"])
    return [f"3.{minor}" for minor in range(30) if f"3.{minor}" in spec]


def ci_run_pythons() -> list[str]:
    """The Pythons .ci/run runs the suite on: python3 (3.11, asserted) and each python_at."""
    text = CI_RUN.read_text(encoding="utf-8")
    lowest = re.search(r"sys\.version_info\[:2\] == \((\d+), (\d+)\)", text)
    assert lowest is not None
    others = re.findall(r"python_at (3\.\d+)\)", text)
    return [f"{lowest[1]}.{lowest[2]}", *others]


def test_ci_workflow_runs_every_system_and_supported_python() -> None:
    matrix = job()["strategy"]["matrix"]
    assert matrix["os"] == SYSTEMS
    assert matrix["python"] == supported_pythons() == ci_run_pythons() == ["3.11", "3.12", "3.13"]
    assert job()["strategy"]["fail-fast"] is False  # one system's failure hides no other


def test_ci_workflow_runs_the_readme_test_command_as_ci_run_does() -> None:
    text = CI_RUN.read_text(encoding="utf-8")
    m = re.search(
        r"^python3 -m venv \.venv && \. \.venv/bin/activate && (pip install .*) && run_pytest$",
        text,
        re.MULTILINE,
    )
    assert m is not None, ".ci/run's test stage changed: change the workflow with it"
    install = m[1]
    assert install == "pip install -q -c requirements.lock -e '.[test]'"
    lines = [line.strip() for line in step_named("the README's test command")["run"].splitlines()]
    assert lines[0] == "python -m venv .venv"  # python3 on Windows is not the one set up
    assert install in lines
    assert lines[-1] == "pytest"  # as run_pytest runs it, with pyproject's options
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"{install.replace(' -q', '')} && pytest" in readme


def test_ci_workflow_installs_what_ci_run_installs() -> None:
    text = CI_RUN.read_text(encoding="utf-8")
    programs = re.findall(r"packages\+=\((\w+)\)", text)
    assert {"nginx", "zsh", "fish", "git", "openssl", "npm", "chromium"} <= set(programs)
    linux = step_named("system programs (apt)")
    assert linux["if"] == "runner.os == 'Linux'"
    for program in programs:
        assert re.search(rf"\b{program}\b", linux["run"]), f"{program} is not provided on Linux"
    workerd = re.search(r"^\s*(npm install --global .*workerd@.*)$", text, re.MULTILINE)
    assert workerd is not None
    assert workerd[1] in step_named("workerd")["run"]
    assert "brew install" in step_named("system programs (Homebrew)")["run"]


def test_ci_workflow_requires_system_programs_where_it_installs_them_all() -> None:
    """Linux fails on a missing program, as .ci/run does; elsewhere the test skips saying
    which program it needs (Windows has none of them)."""
    required = job()["env"]["CATALOGCTL_REQUIRE_SYSTEM_TESTS"]
    assert required == "${{ matrix.os == 'ubuntu-latest' && '1' || '' }}"
    assert "export CATALOGCTL_REQUIRE_SYSTEM_TESTS=1" in CI_RUN.read_text(encoding="utf-8")


def test_pyproject_and_readme_name_the_systems_ci_tests() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    systems = {c for c in project["classifiers"] if c.startswith("Operating System ::")}
    assert systems == {
        "Operating System :: MacOS",
        "Operating System :: Microsoft :: Windows",
        "Operating System :: POSIX :: Linux",
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "Linux, macOS and Windows" in setup
    assert ".venv\\Scripts\\activate" in setup and ".venv\\Scripts\\Activate.ps1" in setup


HARNESS = ROOT / "tests" / "posixless" / "sitecustomize.py"
# Python as Windows has it: no POSIX-only signal (the harness must not reach for one), and
# `sys.platform` as the system says; then the harness, as Python imports it at start-up.
SHIM = """
import ctypes, json, mmap, multiprocessing, os, runpy, signal, socket, sys  # imported as here
import importlib.abc, shutil, tempfile  # before the platform is faked: they look at it
for name in ("SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGSTOP", "SIGCONT"):
    if hasattr(signal, name):
        delattr(signal, name)
sys.platform = sys.argv[1]
kill = os.kill
runpy.run_path(sys.argv[2], run_name="sitecustomize")
print(json.dumps({"kill": os.kill is kill, "CTRL_C_EVENT": hasattr(signal, "CTRL_C_EVENT")}))
"""


@pytest.mark.parametrize(
    ("platform", "system", "emulated"),
    [("linux", "windows", True), ("win32", "windows", False), ("darwin", "macos", False)],
)
def test_posixless_harness_imports_where_signal_lacks_sigkill(
    platform: str, system: str, emulated: bool
) -> None:
    """CI runs the suite on the real Windows and macOS with tests/posixless on no path, but the
    harness must never break a start-up there: without SIGKILL or SIGHUP it imports cleanly,
    emulating on Linux only and leaving the real system as it is."""
    proc = run(
        [sys.executable, "-c", SHIM, platform, str(HARNESS)],
        env={**os.environ, "CATALOGCTL_TEST_SYSTEM": system},  # the shim runs the harness
        check=True,
    )
    assert json.loads(proc.stdout.splitlines()[-1]) == {
        "kill": not emulated,  # Windows' os.kill, on Linux only
        "CTRL_C_EVENT": emulated or sys.platform == "win32",
    }


def test_a_checkout_converting_line_endings_keeps_every_file_as_committed(
    tmp_path: Path,
) -> None:
    """GitHub's Windows runners check out with core.autocrlf=true: every file, the golden
    build files and the CRLF pages of real sites alike, must arrive as committed."""
    if shutil.which("git") is None:
        pytest.skip("needs git (Debian package: git)")
    if not (ROOT / ".git").exists():
        pytest.skip("the project is not a git checkout here (an unpacked release)")
    clone = tmp_path / "clone"
    run(["git", "-c", "core.autocrlf=true", "clone", "-q", str(ROOT), str(clone)], check=True)
    committed = run(["git", "ls-files", "-z"], cwd=clone, check=True).stdout.split("\0")
    samples = ["tests/golden/small/manifest.json", "README.md"] + [
        f for f in committed if f.startswith("tests/fixtures/sites/jekyll-collection-notes/")
    ]
    for name in samples:
        # The object id of the bytes on disk, taken as they are, is the committed one's.
        on_disk = run(["git", "hash-object", "--no-filters", name], cwd=clone, check=True)
        committed_id = run(["git", "rev-parse", f"HEAD:{name}"], cwd=clone, check=True)
        assert on_disk.stdout == committed_id.stdout, name
