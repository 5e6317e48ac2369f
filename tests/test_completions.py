"""`catalogctl completion`: installed as the docs say, each script completes in its shell."""

from __future__ import annotations

import contextlib
import os
import select
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, require_program
from tests.processes import Program, run, run_cli

CATALOGCTL = Path(sys.executable).with_name("catalogctl")


def install_lines() -> dict[str, list[str]]:
    """The docs' install lines, by shell (`# bash`, `# zsh`, `# fish` headings)."""
    page = ROOT.joinpath("docs", "commands", "completion.md").read_text(encoding="utf-8")
    section = page.split("\n## Install it for yourself", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    groups: dict[str, list[str]] = {}
    for line in block.splitlines():
        if line.startswith("# "):
            groups[line[2:].strip()] = []
        elif line.strip():
            groups[list(groups)[-1]].append(line)
    return groups


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty home directory with catalogctl on PATH, and the environment of its shells."""
    assert CATALOGCTL.exists(), f"the catalogctl script is installed beside {sys.executable}"
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ZDOTDIR", "BASH_ENV"))}
    env |= {
        "HOME": str(home),
        "PATH": f"{CATALOGCTL.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "TERM": "xterm",
    }
    return home, env


def install(shell: str, home: Path, env: dict[str, str]) -> None:
    """Run the docs' install lines for `shell`, exactly as written, in a POSIX shell."""
    lines = install_lines()[shell]
    assert lines, f"the docs give no install line for {shell}"
    sh = require_program("sh", package="dash")
    run([sh, "-ec", "\n".join(lines)], cwd=home, env=env, check=True)


def test_completion_prints_each_script() -> None:
    for shell, marker in [
        ("bash", "complete -o filenames -F _catalogctl catalogctl"),
        ("zsh", "#compdef catalogctl"),
        ("fish", "complete -c catalogctl"),
    ]:
        result = run_cli("completion", shell)
        assert result.returncode == 0, result.stderr
        assert marker in result.stdout
        for command in ("validate", "build", "check-links", "serve", "diff", "completion"):
            assert command in result.stdout


# The shipped scripts (completions/, and share/ of the wheel) by shell: what packagers install.
SHIPPED = {"bash": "catalogctl.bash", "zsh": "_catalogctl", "fish": "catalogctl.fish"}


@pytest.mark.parametrize("shell", SHIPPED)
def test_completions_folder_holds_what_the_command_prints(shell: str) -> None:
    result = run_cli("completion", shell)
    assert result.returncode == 0, result.stderr
    name = SHIPPED[shell]
    shipped = ROOT.joinpath("completions", name).read_text(encoding="utf-8")
    assert shipped == result.stdout, (
        f"completions/{name} differs from `catalogctl completion {shell}`: regenerate it with "
        f"`python -m catalogctl completion {shell} > completions/{name}`"
    )


def test_completions_are_packaged_where_shells_look() -> None:
    """The wheel installs each script under share/, where distributions keep vendor scripts."""
    import tomllib

    wheel = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8"))
    shared = wheel["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared == {
        "completions/catalogctl.bash": "share/bash-completion/completions/catalogctl",
        "completions/_catalogctl": "share/zsh/site-functions/_catalogctl",
        "completions/catalogctl.fish": "share/fish/vendor_completions.d/catalogctl.fish",
    }


def test_completion_unknown_shell_is_a_usage_error() -> None:
    result = run_cli("completion", "ksh")
    assert result.returncode == 2
    assert "ksh" in result.stdout + result.stderr
    assert "PowerShell" not in result.stderr


@pytest.mark.parametrize("shell", ["powershell", "pwsh", "cmd"])
def test_completion_for_powershell_says_what_to_use_instead(shell: str) -> None:
    """A Windows user asking for PowerShell's script is told there is none, and where the
    commands and options are listed instead."""
    result = run_cli("completion", shell, env={**os.environ, "COLUMNS": "400"})
    assert result.returncode == 2
    said = " ".join(result.stderr.split())
    assert "catalogctl prints no completion script for PowerShell or cmd" in said
    assert "`catalogctl --help` lists every command and option" in said
    assert "commands/completion/#powershell" in said


def test_completion_bash_as_installed(home: tuple[Path, dict[str, str]]) -> None:
    bash = require_program("bash", package="bash")
    folder, env = home
    install("bash", folder, env)
    cases = [
        "catalogctl va",
        "catalogctl validate --st",
        "catalogctl build --format j",
        "catalogctl completion z",
    ]
    script = "complete -p catalogctl\n" + "".join(
        f"COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=()\n"
        f'_catalogctl; echo "reply: ${{COMPREPLY[*]}}"\n'
        for words in cases
    )
    # An interactive bash reads ~/.bashrc, as a terminal would.
    proc = run([bash, "-i", "-c", script], cwd=folder, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "complete -o filenames -F _catalogctl catalogctl"
    assert lines[1:] == [
        "reply: validate",
        "reply: --strict",
        "reply: json",
        "reply: zsh",
    ]


def _type_in_zsh(zsh: str, home: Path, env: dict[str, str], typed: list[str]) -> list[str]:
    """Start an interactive zsh on a terminal, type each text and <Tab>; the command lines."""
    buffers = home / "buffers"
    # A widget on Ctrl-T writes the edited line to a file and clears it: no screen scraping.
    setup = (
        'dump() { print -r -- "$BUFFER" >> ~/buffers; BUFFER= }; zle -N dump; '
        "bindkey '^T' dump; print RE''ADY\n"
    )
    master, slave = os.openpty()
    shell = Program([zsh, "-i"], stdin=slave, stdout=slave, stderr=slave, cwd=home, env=env)
    os.close(slave)
    screen = b""

    def read_until(done: object, what: str) -> None:
        nonlocal screen
        deadline = time.monotonic() + 20
        while not callable(done) or not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"zsh: no {what} in 20 s; the terminal showed:\n{screen!r}")
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):
                    screen += os.read(master, 65536)

    try:
        os.write(master, setup.encode())
        read_until(lambda: b"READY" in screen.replace(b"RE''ADY", b""), "prompt")
        for text in typed:
            os.write(master, text.encode() + b"\t\x14")
        read_until(
            lambda: buffers.exists() and len(buffers.read_text().splitlines()) == len(typed),
            "completion",
        )
        return buffers.read_text().splitlines()
    finally:
        shell.kill()  # an interactive zsh ignores SIGTERM
        os.close(master)


def test_completion_zsh_as_installed(home: tuple[Path, dict[str, str]]) -> None:
    zsh = require_program("zsh", package="zsh")
    folder, env = home
    install("zsh", folder, env)
    typed = [
        "catalogctl va",
        "catalogctl validate --st",
        "catalogctl build --format j",
        "catalogctl completion z",
    ]
    assert _type_in_zsh(zsh, folder, env, typed) == [
        "catalogctl validate ",
        "catalogctl validate --strict ",
        "catalogctl build --format json ",
        "catalogctl completion zsh ",
    ]


def test_completion_zsh_sourced_after_compinit(home: tuple[Path, dict[str, str]]) -> None:
    zsh = require_program("zsh", package="zsh")
    folder, env = home
    (folder / ".zshrc").write_text(
        "autoload -Uz compinit && compinit\nsource <(catalogctl completion zsh)\n"
    )
    assert _type_in_zsh(zsh, folder, env, ["catalogctl check-l"]) == [
        "catalogctl check-links ",
    ]


def test_completion_fish_as_installed(home: tuple[Path, dict[str, str]]) -> None:
    fish = require_program("fish", package="fish")
    folder, env = home
    install("fish", folder, env)

    def complete(line: str) -> list[str]:
        proc = run([fish, "-c", f"complete -C '{line}'"], cwd=folder, env=env, check=True)
        return [row.split("\t")[0] for row in proc.stdout.splitlines()]

    assert complete("catalogctl va") == ["validate"]
    assert complete("catalogctl validate --st") == ["--strict"]
    assert complete("catalogctl build --format j") == ["json"]
    assert complete("catalogctl completion z") == ["zsh"]
