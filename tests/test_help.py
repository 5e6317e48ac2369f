"""Every `--help` reads well: on one screen (60 lines at 100 columns), with an example and a
link to its docs page, every word of its texts shown; and in an 80-column terminal nothing is
cut, nothing orphaned."""

from __future__ import annotations

import itertools
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer.main

from catalogctl import docs_url
from catalogctl.cli.app import DOCS_PAGES, app
from tests.conftest import ROOT, SAMPLE
from tests.processes import Program, cli, run_cli

ROOT_COMMAND = typer.main.get_command(app)
COMMANDS = ["", *ROOT_COMMAND.list_commands(ROOT_COMMAND.context_class(ROOT_COMMAND))]  # type: ignore[attr-defined]
BOX = "│╭╮╰╯─┃━┏┓┗┛"
SCREEN = 60  # lines at 100 columns


@cache
def render(command: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("TERMINAL_WIDTH", None)
    args = [command, "--help"] if command else ["--help"]
    proc = run_cli(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def click_command(command: str) -> Any:
    return ROOT_COMMAND.get_command(None, command) if command else ROOT_COMMAND  # type: ignore[attr-defined]


def tokens(text: str) -> set[str]:
    return set(re.split(rf"[\s{BOX}]+", text)) - {""}


@pytest.mark.parametrize("command", COMMANDS)
def test_help_fits_a_screen_at_100_columns(command: str) -> None:
    lines = render(command, 100).splitlines()
    assert len(lines) <= SCREEN, f"`catalogctl {command} --help` is {len(lines)} lines"


@pytest.mark.parametrize("command", COMMANDS[1:])
def test_help_shows_an_example(command: str) -> None:
    text = render(command, 100)
    assert re.search(r"^ Examples\b", text, re.M), text
    assert re.search(rf"^ {{3,}}catalogctl {command}\b", text, re.M), text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_links_its_docs_page(command: str) -> None:
    page = ROOT / "docs" / DOCS_PAGES[command]
    assert page.is_file(), f"{command}: no docs page {page.relative_to(ROOT)}"
    lines = [line.rstrip() for line in render(command, 100).splitlines()]
    assert f" Docs: {docs_url(DOCS_PAGES[command])}" in lines


def written_texts(command: str) -> list[str]:
    """The texts the help is made of, as the code writes them: the command's docstring, each
    parameter's help, and for the whole app each command's first line."""
    cmd = click_command(command)
    texts = [cmd.help or "", *(p.help or "" for p in cmd.params if getattr(p, "help", None))]
    if not command:
        texts += [(c.help or "").split("\n")[0] for c in map(click_command, COMMANDS[1:])]
    return texts


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_every_bracketed_word_of_its_texts(command: str) -> None:
    """Rich markup would take `[fields]` for a style and drop it: every `[word]` written in a
    text is shown as written, and no escape is left over."""
    shown = " ".join(tokens(render(command, 100)))
    words = {w for text in written_texts(command) for w in re.findall(r"\[[^\]\s]*\]", text)}
    missing = {w for w in words if w not in shown}
    assert missing == set(), f"`catalogctl {command} --help` drops {missing}"
    assert "\\[" not in shown


def test_help_keeps_brackets_that_look_like_markup() -> None:
    text = render("schema", 100)
    assert "follows the [fields] of the content tree's site.toml" in " ".join(text.split())


@pytest.mark.parametrize("command", COMMANDS)
def test_help_puts_advanced_options_in_their_own_panel(command: str) -> None:
    """A command with many options shows the everyday ones under Options, the others in
    panels of their own."""
    options = [p for p in click_command(command).params if p.param_type_name == "option"]
    panels = set(re.findall(r"^╭─ (.+?) ─", render(command, 100), re.M)) - {"Arguments"}
    if len(options) > 6:
        assert len(panels) >= 2, panels


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
    cmd = click_command(command)
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
