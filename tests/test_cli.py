"""The command line as a whole: help, version, entry points, pre-commit hook."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from catalogctl import __version__
from catalogctl.cli.app import app
from catalogctl.cli.collector import COMMAND_THRESHOLDS, PYTHON_THRESHOLDS, for_command
from catalogctl.cli.completion import describe
from tests.conftest import needs_posix_signals
from tests.processes import cli, run, run_cli

ROOT = Path(__file__).resolve().parent.parent


def test_cli_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"catalogctl {__version__}"


def test_cli_every_command_has_help_with_examples_and_is_documented() -> None:
    """Each command: `--help` with examples, a section of the README that links its docs page,
    and that page, headed with the command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (.+)$", readme, re.MULTILINE)
    _, commands = describe(typer.main.get_command(app))
    assert {c.name for c in commands} >= {"validate", "build"}
    for cmd in commands:
        proc = run_cli(cmd.name, "--help")
        assert proc.returncode == 0, cmd.name
        assert "Examples" in proc.stdout, cmd.name
        page = "docs/content/init.md" if cmd.name == "init" else f"docs/commands/{cmd.name}.md"
        title = (ROOT / page).read_text(encoding="utf-8").splitlines()[0]
        assert re.match(rf"# `?catalogctl {cmd.name}\b", title), (page, title)
        assert any(f"catalogctl {cmd.name}" in h for h in headings), (
            f"{cmd.name}: no README section"
        )
        assert f"({page})" in readme, f"the README does not link {page}"


def test_cli_unknown_option_is_usage_error() -> None:
    proc = run_cli("validate", "--no-such-option")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_cli_commands_collect_garbage_seldom_from_before_their_imports(sample: Path) -> None:
    # The console script sets the collector's pace before typer (the first heavy import) loads,
    # and the command runs at that pace.
    code = f"""
import gc, sys
seen = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "typer" and not seen:
            seen.append(gc.get_threshold())
sys.meta_path.insert(0, Spy())
sys.argv = ["catalogctl", "validate", {str(sample)!r}]
from catalogctl.cli.entry import main
try:
    main()
except SystemExit as exc:
    print(exc.code)
print(seen, gc.get_threshold())
"""
    proc = run([sys.executable, "-c", code])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-2:] == [
        "0",
        f"[{COMMAND_THRESHOLDS!r}] {COMMAND_THRESHOLDS!r}",
    ]


def test_cli_serve_collects_garbage_at_pythons_pace(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server runs for days: whatever the console script set, serve goes back to Python's own
    # thresholds before it serves.
    import gc

    from catalogctl.serve import server

    seen: list[tuple[int, ...]] = []
    monkeypatch.setattr(server, "serve", lambda *_a, **_k: seen.append(gc.get_threshold()))
    monkeypatch.setattr(server, "configure_logging", lambda _format: None)
    before = gc.get_threshold()
    try:
        for_command()
        assert gc.get_threshold() == COMMAND_THRESHOLDS
        result = CliRunner().invoke(app, ["serve", str(sample), "--port", "0"])
    finally:
        gc.set_threshold(*before)
    assert result.exit_code == 0, result.output
    assert seen == [PYTHON_THRESHOLDS]


@needs_posix_signals
def test_cli_ctrl_c_while_the_interpreter_shuts_down_is_quiet() -> None:
    """A SIGINT after the command returned, while Python joins a thread at exit (as after a
    parallel parse), ends the process by the signal, with no traceback."""
    # The signal is sent once main() is over, however long the command takes on a loaded machine,
    # by a thread that then keeps running: the interpreter is joining it when the signal lands.
    code = """
import os, signal, sys, threading, time
from catalogctl.cli.app import main
over = threading.Event()
def late():
    over.wait(30)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
threading.Thread(target=late).start()  # joined at exit
sys.argv = ["catalogctl", "--version"]
try:
    main()
finally:
    over.set()
"""
    done = run([sys.executable, "-c", code], timeout=30)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == -signal.SIGINT, (done.returncode, done.stderr)


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(28, "No space left on device", "dist/public/api/v1/games"), "dist/public/api/v1"),
        (OSError(5, "Input/output error"), "the system refused: Input/output error"),
    ],
)
def test_a_system_error_no_step_expected_is_a_message_not_a_traceback(
    error: OSError, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the system refuses where no step has a message of its own (a disk that fills up
    midway) ends as `error: <file>: <the system's words>` and exit 2."""
    from catalogctl.cli.app import error_edge
    from catalogctl.output.console import use_format

    def command() -> None:
        raise error

    use_format("build", "table")
    with pytest.raises(typer.Exit) as exited:
        error_edge(command)()
    assert exited.value.exit_code == 2
    err = capsys.readouterr().err
    assert said in err and str(error.strerror) in err and "Traceback" not in err


# Runs the command after closing its own standard output, so the command starts without one.
_STDOUT_CLOSED = "import os, subprocess, sys; os.close(1); sys.exit(subprocess.call(sys.argv[1:]))"


def _sample_and_broken(sample: Path, tmp_path: Path) -> dict[str, str]:
    """The sample, and a copy of it with one page's name misspelled (a finding): the places
    `{sample}` and `{broken}` of the arguments below."""
    broken = tmp_path / "content"
    shutil.copytree(sample, broken)
    page = broken / "games" / "2048-reef.md"
    page.write_text(page.read_text(encoding="utf-8").replace("name = ", "nom = ", 1), "utf-8")
    return {"sample": str(sample), "broken": str(broken)}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("validate", "{sample}"), 0),  # nothing for stdout: the summary is on stderr
        (("validate", "{sample}", "--format", "json"), 2),
        (("validate", "{broken}"), 2),
        (("schema", "page"), 2),
        (("--version",), 2),
        (("--help",), 2),
        (("validate", "--help"), 2),
    ],
    ids=["nothing-to-write", "json", "findings", "schema", "version", "help", "command-help"],
)
def test_a_command_started_without_stdout_says_so_instead_of_a_traceback(
    sample: Path, tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    """`catalogctl validate >&-` (or a daemon that closed it): a report that cannot be
    written is an error, exit 2, never a traceback nor a report lost without a word."""
    places = _sample_and_broken(sample, tmp_path)
    argv = [sys.executable, "-c", _STDOUT_CLOSED, *cli(*(a.format(**places) for a in args))]
    proc = run(argv)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    if code:
        assert "error: standard output is closed" in proc.stderr
    else:
        assert "✓" in proc.stderr


# stdout a pipe whose reader has left before anything was written (`catalogctl … | true`).
_READER_GONE = (
    "import os, subprocess, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); os.close(w); "
    "sys.exit(subprocess.call(sys.argv[1:]))"
)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("validate", "{sample}", "--format", "json"), 0),
        (("validate", "{sample}", "--format", "sarif"), 0),
        (("validate", "{broken}", "--format", "json"), 1),
        (("validate", "{broken}"), 1),
        (("schema", "page"), 0),
        (("--version",), 0),
        (("validate", "--help"), 0),
    ],
    ids=["json", "sarif", "findings-json", "findings-table", "schema", "version", "help"],
)
def test_a_reader_that_left_early_does_not_change_the_exit_status(
    sample: Path, tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    """`catalogctl validate --format json | true`: the report goes nowhere, and the exit
    status is still the content's (a broken pipe must not say "errors found")."""
    places = _sample_and_broken(sample, tmp_path)
    argv = [sys.executable, "-c", _READER_GONE, *cli(*(a.format(**places) for a in args))]
    proc = run(argv)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("columns", ["99999999999999999999", "2000000000", "-5", "abc", "0"])
@pytest.mark.parametrize(
    ("args", "code"), [(("validate", "--help"), 0), (("build", "--jobs", "0"), 2)]
)
def test_a_terminal_size_no_terminal_has_is_ignored(
    columns: str, args: tuple[str, ...], code: int
) -> None:
    """COLUMNS past any terminal (a typo, a script's arithmetic) is ignored, as an unset one:
    help and usage errors lay out as usual instead of an OverflowError or minutes of layout."""
    proc = run_cli(*args, env={**os.environ, "COLUMNS": columns, "LINES": columns}, timeout=30)
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    assert max(len(line) for line in (proc.stdout + proc.stderr).splitlines()) <= 200


def test_ctrl_c_while_the_command_loads_is_quiet() -> None:
    """Ctrl+C in the first tenths of a second, while Python imports the command (typer,
    rich): exit 130 as at any other moment, no KeyboardInterrupt traceback."""
    code = (
        "import catalogctl.cli.collector as collector\n"
        "def interrupted():\n"
        "    raise KeyboardInterrupt\n"
        "collector.for_command = interrupted\n"
        "from catalogctl.cli.entry import main\n"
        "main()\n"
    )
    proc = run([sys.executable, "-c", code, "validate"])
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""
