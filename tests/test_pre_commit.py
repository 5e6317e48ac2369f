"""The pre-commit hooks, run by pre-commit itself from a tagged release, without the network.

pre-commit installs the hooks' environment with `pip install .` from a release tag of a
copy of this checkout; pip finds the dependencies in a wheelhouse packed from the test
environment (tests/wheelhouse.py), never on an index.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalogctl import __version__
from tests.conftest import ROOT, SAMPLE, require_program
from tests.wheelhouse import build_wheelhouse

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


def readme_config() -> dict[str, Any]:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Pre-commit hooks\n")[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    config: dict[str, Any] = yaml.safe_load(block)
    return config


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    exe = require_program("git", package="git")
    proc = subprocess.run(
        [exe, "-c", "user.name=catalogctl tests", "-c", "user.email=tests@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout


def test_pre_commit_hooks_run_catalogctl_on_content_files() -> None:
    found = hooks()
    assert set(found) == {"catalogctl-validate", "catalogctl-check-links"}
    assert found["catalogctl-validate"]["entry"] == "catalogctl validate"
    assert found["catalogctl-check-links"]["entry"] == "catalogctl check-links"
    assert found["catalogctl-check-links"]["stages"] == ["manual"]
    assert "stages" not in found["catalogctl-validate"]
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        pattern = re.compile(hook["files"])
        for path in ("content/games/tidal-drift.md", "content/site.toml", "site.toml",
                     "content/games/puzzle/tidal-drift.md", "games/kelp/index.md"):  # fmt: skip
            assert pattern.search(path), path
        for path in ("src/app.py", "content/about.md", "README.md"):
            assert not pattern.search(path), path


def test_pre_commit_readme_pins_the_release_tag_of_this_version() -> None:
    (repo,) = readme_config()["repos"]
    assert repo["rev"] == f"v{__version__}"
    assert [h["id"] for h in repo["hooks"]] == ["catalogctl-validate", "catalogctl-check-links"]


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's environment: its own cache, pip on a local wheelhouse and nothing else."""
    assert PRE_COMMIT.exists(), "pre-commit is a test dependency (pip install -e '.[test]')"
    tmp = tmp_path_factory.mktemp("pre-commit")
    wheels = build_wheelhouse(tmp / "wheels", ["catalogctl", "hatchling"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUALENV_"))}
    return env | {
        "PRE_COMMIT_HOME": str(tmp / "cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_NO_COMPILE": "1",  # a faster install; the hook runs once or twice
        "VIRTUALENV_NO_PERIODIC_UPDATE": "1",
        "COLUMNS": "200",  # file names in the findings table are not folded
        "PATH": f"{PRE_COMMIT.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout, as committed and tagged `v<version>` for a release."""
    out = tmp_path_factory.mktemp("release") / "catalogctl"
    files = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet committed is listed too
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, out / name)
    git(out, "init", "-q")
    git(out, "add", "-A")
    git(out, "commit", "-q", "-m", "release")
    git(out, "tag", f"v{__version__}")
    return out


@pytest.fixture
def website(tmp_path: Path) -> Path:
    """A website repository holding the sample content."""
    repo = tmp_path / "website"
    shutil.copytree(SAMPLE, repo / "content")
    (repo / "README.md").write_text("The website.\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "content")
    return repo


def run(env: dict[str, str], cwd: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PRE_COMMIT), *args], cwd=cwd, env=env, capture_output=True, text=True,
            check=False, timeout=600,
        )  # fmt: skip

    return pre_commit


def test_pre_commit_try_repo_reports_the_findings(
    offline: dict[str, str], release: Path, website: Path
) -> None:
    """`pre-commit try-repo` of the release tag (each try-repo installs the hook anew)."""
    page = website / "content" / "games" / "kelp-garden.md"
    page.write_text(page.read_text().replace("genres: [", "genres: [Casul, "), encoding="utf-8")
    proc = run(offline, website)(
        "try-repo", str(release), "catalogctl-validate", "--ref", f"v{__version__}", "--all-files"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Failed", proc.stdout), proc.stdout
    assert "content/games/kelp-garden.md" in proc.stdout
    assert "'Casul'" in proc.stdout  # the finding reaches the committer


def test_pre_commit_config_of_the_readme(
    offline: dict[str, str], release: Path, website: Path
) -> None:
    """The README's configuration, with the release's path for its URL, on commit and on demand."""
    config = readme_config()
    (repo,) = config["repos"]
    repo["repo"] = str(release)
    # Tests stay off the network: the links are checked for their syntax only.
    (links,) = [h for h in repo["hooks"] if h["id"] == "catalogctl-check-links"]
    links["args"] = [*links.get("args", []), "--offline"]
    (website / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    pre_commit = run(offline, website)

    proc = pre_commit("run", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Passed", proc.stdout), proc.stdout
    assert "check-links" not in proc.stdout  # manual stage only

    proc = pre_commit("run", "--hook-stage", "manual", "catalogctl-check-links", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl check-links\.+Passed", proc.stdout), proc.stdout

    # A commit that breaks a page is stopped by the installed hook.
    proc = pre_commit("install")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = website / "content" / "games" / "tidal-drift.md"
    page.write_text(page.read_text().replace("name", "nmae", 1), encoding="utf-8")
    git(website, "add", "-A")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        git(website, "commit", "-q", "-m", "typo", env=offline)
    assert "tidal-drift.md" in failed.value.stdout + failed.value.stderr
