"""Shell completion scripts: generated from the Typer app, never stale, and they work."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from catalogctl.cli.completion import scripts
from tests.conftest import require_program

COMPLETIONS = Path(__file__).resolve().parent.parent / "completions"


def test_completions_are_up_to_date() -> None:
    for name, text in scripts().items():
        shipped = (COMPLETIONS / name).read_text(encoding="utf-8")
        assert shipped == text, (
            f"completions/{name} is stale: run `python -m catalogctl.cli.completion completions/`"
        )


def _bash_complete(words: str) -> list[str]:
    script = (
        f"source {COMPLETIONS / 'catalogctl.bash'}\n"
        f"COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n"
        '_catalogctl; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    bash = require_program("bash", package="bash")
    proc = subprocess.run([bash, "-c", script], capture_output=True, text=True, check=True)
    return proc.stdout.split()


def test_completions_bash_completes_commands_and_options() -> None:
    assert "build" in _bash_complete("catalogctl bu")
    assert "validate" in _bash_complete("catalogctl v")
    assert _bash_complete("catalogctl validate --f") == ["--format"]
    assert _bash_complete("catalogctl build --format j") == ["json"]


@pytest.mark.parametrize(("shell", "name"), [("zsh", "_catalogctl"), ("fish", "catalogctl.fish")])
def test_completions_scripts_parse(shell: str, name: str) -> None:
    exe = require_program(shell, package=shell)
    subprocess.run([exe, "-n", str(COMPLETIONS / name)], check=True)
