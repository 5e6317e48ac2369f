"""The table format: tables on a terminal, one line per item everywhere else.

A terminal keeps its tables (a pseudo-terminal of the width asked for); a pipe, a CI log or
`--output FILE` gets each finding, link or change on one line of its own, never wrapped,
whatever COLUMNS says: grep finds a whole finding.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ContentFactory, game_yaml, needs_pty
from tests.processes import run_cli

STYLE = re.compile("\x1b\\[[0-9;]*m")
LONG = (
    "A much longer description of the game that now says something entirely different "
    "about the gameplay, its seventeen modes and its cooperative campaign."
)


def piped(*args: str | Path, columns: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        env.pop(name, None)
    return run_cli(*args, env=env, timeout=120)


def shown(proc: subprocess.CompletedProcess[str]) -> str:
    return STYLE.sub("", proc.stdout)


@pytest.mark.parametrize("columns", [40, 80, 250])
def test_validate_piped_is_one_finding_a_line_at_any_width(
    defective: Path,
    columns: int,
) -> None:
    proc = piped("validate", defective, columns=columns)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    # One line per finding, each starting with file:line:column, none a continuation.
    assert len(lines) == 4, proc.stdout
    assert all(re.match(r"\S+\.md:\d+:\d+: (error|warning) [a-z-]+ · ", line) for line in lines)
    typo = next(line for line in lines if "Puzzel" in line)
    assert typo.endswith(
        "genres.0: 'Puzzel' is not in the genres of site.toml; did you mean 'Puzzle'?"
    )
    assert "┃" not in proc.stdout and "\x1b" not in proc.stdout


@needs_pty
def test_validate_on_a_terminal_keeps_its_table(defective: Path) -> None:
    proc = run_cli("validate", defective, terminal=120)
    assert proc.returncode == 1
    text = shown(proc)
    assert "┃ File" in text and "Puzzel" in text
    assert max(len(line) for line in text.splitlines()) <= 120


@needs_pty
def test_validate_on_a_narrow_terminal_wraps_each_finding_at_spaces(
    defective: Path,
) -> None:
    # A location is never folded (it stays one string to open): a short one here.
    proc = run_cli("validate", defective.name, cwd=defective.parent, terminal=60)
    text = shown(proc)
    assert "┃" not in text and max(len(line) for line in text.splitlines()) <= 60
    # Wrapped at spaces: each finding's text is all there, no word cut.
    joined = " ".join(text.split())
    for line in piped("validate", defective, columns=60).stdout.splitlines():
        assert " ".join(line.split(" · ", 1)[1].split()) in joined


def test_output_file_of_the_table_format_is_one_finding_a_line(
    defective: Path,
    tmp_path: Path,
) -> None:
    target = tmp_path / "report.txt"
    proc = run_cli("validate", defective, "--output", target)
    assert proc.returncode == 1
    assert proc.stdout == "" and "error" in proc.stderr
    text = target.read_text()
    assert "┃" not in text and "\x1b" not in text
    assert text == piped("validate", defective, columns=80).stdout


def test_diff_piped_is_one_change_a_line(make_content: ContentFactory) -> None:
    old = make_content({"a": game_yaml("A"), "b": game_yaml("Bee"), "c": game_yaml("C")})
    new = make_content(
        {
            "a": game_yaml("A", description=LONG),
            "c": game_yaml("C", genres="[Arcade, Strategy]", android=None),
            "d": game_yaml("A game with a rather long name that needs two lines at most"),
        }
    )
    lines = piped("diff", old, new, columns=40).stdout.splitlines()
    assert "d: added · A game with a rather long name that needs two lines at most" in lines
    assert "b: removed · Bee" in lines
    (description,) = [line for line in lines if line.startswith("a: changed description · ")]
    assert "{+" in description and "cooperative campaign.+}" in description
    assert all(re.match(r"[a-z]+: (breaking|warning|added|removed|changed|reordered)", line)
               for line in lines)  # fmt: skip


@needs_pty
def test_diff_tables_fold_to_a_narrow_layout_at_80_columns(make_content: ContentFactory) -> None:
    old = make_content({"a": game_yaml("A"), "b": game_yaml("Bee"), "c": game_yaml("C")})
    new = make_content(
        {
            "a": game_yaml("A", description=LONG),
            "c": game_yaml("C", genres="[Arcade, Strategy]", android=None),
            "d": game_yaml("A game with a rather long name that needs two lines at most"),
        }
    )
    narrow = shown(run_cli("diff", old, new, terminal=80))
    wide = shown(run_cli("diff", old, new, terminal=250))
    assert "┃" in wide and "┃" not in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 80
    # No word is cut: every word of the narrow layout is a word of the unwrapped table.
    assert set(narrow.split()) - {"·"} <= set(wide.split())
    for text in ("seventeen", "cooperative", "campaign.+}", "Strategy", "two lines at most"):
        assert text in narrow


@needs_pty
def test_validate_lists_many_findings_instead_of_a_table(make_content: ContentFactory) -> None:
    """Past 200 findings even a wide terminal gets the list (a table that long helps nobody
    and takes rich seconds to lay out), and every finding is in it."""
    pages = {f"g{i:03d}": game_yaml(f"Game {i}", platforms="[ios]") for i in range(210)}
    content = make_content(pages)
    proc = run_cli("validate", content, terminal=200)
    assert proc.returncode == 1
    text = shown(proc)
    assert "┃" not in text
    located = [line for line in text.splitlines() if line.endswith(".md:4:13")]
    assert len(located) == 210
    assert text.count("error vocabulary · platforms.0: 'ios'") == 210
