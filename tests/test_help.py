"""Every `--help` reads well in an 80-column terminal: nothing cut, nothing orphaned."""

from __future__ import annotations

import itertools
import os
import re
from functools import cache
from pathlib import Path

import pytest
import typer.main

from catalogctl.cli.app import app
from tests.conftest import SAMPLE
from tests.processes import Program, cli, run_cli

ROOT_COMMAND = typer.main.get_command(app)
COMMANDS = ["", *ROOT_COMMAND.list_commands(ROOT_COMMAND.context_class(ROOT_COMMAND))]  # type: ignore[attr-defined]
BOX = "│╭╮╰╯─┃━┏┓┗┛"


@cache
def render(command: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("TERMINAL_WIDTH", None)
    args = [command, "--help"] if command else ["--help"]
    proc = run_cli(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def tokens(text: str) -> set[str]:
    return set(re.split(rf"[\s{BOX}]+", text)) - {""}


@pytest.mark.parametrize("command", COMMANDS)
def test_help_fits_80_columns(command: str) -> None:
    lines = render(command, 80).splitlines()
    assert lines
    too_long = [line for line in lines if len(line) > 80]
    assert too_long == []


@pytest.mark.parametrize("command", COMMANDS)
def test_help_cuts_no_word(command: str) -> None:
    """Each word at 80 columns is a word of the same help at 250: none is split across lines."""
    cut = tokens(render(command, 80)) - tokens(render(command, 250))
    assert cut == set()


def description(command: str) -> list[str]:
    """The free text above the option panels."""
    lines = render(command, 80).splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    return [line.rstrip() for line in lines[:end]]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_wraps_no_example_and_no_phrase_early(command: str) -> None:
    text = description(command)
    for line, after in itertools.pairwise(text):
        indent = len(line) - len(line.lstrip())
        after_indent = len(after) - len(after.lstrip())
        if not line.strip() or not after.strip():
            continue
        # An example (indented) continued on an unindented line was wrapped by the terminal.
        assert not (indent > after_indent), f"an example wraps:\n{line}\n{after}"
        if indent == after_indent == 1:
            # Running text breaks only where the next word would not fit.
            first_word = after.split()[0]
            assert len(line) + 1 + len(first_word) > 78, f"a line breaks early:\n{line}\n{after}"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_keeps_each_option_beside_its_help(command: str) -> None:
    cmd = ROOT_COMMAND.get_command(None, command) if command else ROOT_COMMAND  # type: ignore[attr-defined]
    lines = render(command, 80).splitlines()
    for param in cmd.params:
        if param.param_type_name != "option" or not param.help:
            continue
        name = max(param.opts, key=len)
        (row,) = [line for line in lines if line.startswith("│") and name in line.split()[1:3]]
        first_word = re.sub(r"\[[^\]]*\]", "", param.help).split()[0]
        assert first_word in row.split(), f"{name} is not beside its help:\n{row}"


def test_serve_hint_for_a_build_names_the_build_option(tmp_path: Path) -> None:
    """A build keeps its base URL (serve refuses --base-url for it): the hint names build's."""
    dist = tmp_path / "dist"
    assert run_cli("build", SAMPLE, "--out", dist).returncode == 0
    with Program(cli("serve", dist, "--port", "0", "--quiet")) as proc:
        lines = [proc.next_line() or "", proc.next_line() or ""]
    assert lines[0].startswith("✓ serving 13 games"), lines
    url = lines[0].split(" at ", 1)[1].split()[0]
    assert f"catalogctl build --base-url {url} makes them local" in lines[1], lines
