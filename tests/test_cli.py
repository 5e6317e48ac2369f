"""The command line as a whole: help, version, entry points, pre-commit hook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import typer.main

from catalogctl import __version__
from catalogctl.cli.app import app
from catalogctl.cli.completion import describe

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "catalogctl", *args], capture_output=True, text=True, check=False
    )


def test_cli_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"catalogctl {__version__}"


def test_cli_every_command_has_help_with_examples_and_is_documented() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    _, commands = describe(typer.main.get_command(app))
    assert {c.name for c in commands} >= {"validate", "build"}
    for cmd in commands:
        proc = run(cmd.name, "--help")
        assert proc.returncode == 0, cmd.name
        assert "Examples" in proc.stdout, cmd.name
        assert f"### `catalogctl {cmd.name}" in readme, f"README does not document {cmd.name}"


def test_cli_unknown_option_is_usage_error() -> None:
    proc = run("validate", "--no-such-option")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
