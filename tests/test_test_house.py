"""The tests' own house rules: every process starts through tests/processes.py, every wait
has a deadline, and no test sleeps in place of the event it waits for.

tests/processes.py runs `catalogctl` (`run_cli`) and other programs (`run`), starts servers
(`Program`, `Server`) and polls a state no event announces (`wait_until`); a test module that
starts a process itself, builds its own `python -m catalogctl` command line or sleeps for a
fixed time fails here, with the file, the line and what to use instead.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
HOME = "processes.py"  # the one module that starts processes and pauses between polls

# Calls that start a process, by module.
STARTS = {
    "subprocess": {
        "run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput",
    },
    "os": {
        "system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp",
        "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe",
        "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
    },
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "pty": {"spawn", "fork"},
}  # fmt: skip
SLEEPS = {("time", "sleep"), ("asyncio", "sleep")}
# Methods that wait for something: a test names the deadline (`timeout=`).
WAITS = {"wait", "join", "communicate", "result", "acquire"}

# Sleeps that ARE the behaviour under test (a slow server, a hung worker): (file, function).
# Each carries a comment on its line saying so.
BEHAVIOUR_SLEEPS = {
    ("processes.py", "wait_until_async"): "the pause between two looks at a state",
    ("test_content_hostile.py", "_boom"): "a pool worker that hangs",
    ("test_content_hostile.py", "_terminate_parent"): "a pool worker busy when SIGTERM comes",
    ("test_hostile_io.py", "drip"): "a server that sends a byte at a time",
    ("test_hostile_io.py", "huge"): "a server that stalls after its head",
    ("test_hostile_io.py", "_raw"): "a server that drips its head",
    ("test_links.py", "slow"): "a link that answers late",
    ("test_links.py", "slowish"): "a link that takes a while",
    ("test_links_answers.py", "handler"): "an icon body that drips",
    ("test_serve.py", "test_serve_slowloris_connection_closed"): "a slowloris client",
}
# Tests that run the command line in their own process, with a reason.
IN_PROCESS = {
    ("test_cli.py", "test_cli_serve_collects_garbage_at_pythons_pace"): (
        "replaces the server with a stub to read the collector's thresholds"
    ),
}


@dataclass(frozen=True)
class Finding:
    rule: str
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: [{self.rule}] {self.message}"


class _Reader(ast.NodeVisitor):
    """Walks one module, knowing the function each node is in and what names it imported."""

    def __init__(self, file: str, lines: list[str]) -> None:
        self.file = file
        self.lines = lines
        self.functions: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> module
        self.names: dict[str, tuple[str, str]] = {}  # local name -> (module, name)
        self.found: list[Finding] = []
        self.allowed_seen: set[tuple[str, str]] = set()
        self.inside_wait_for: set[int] = set()  # ids of calls wrapped in asyncio.wait_for

    def _add(self, rule: str, node: ast.AST, message: str) -> None:
        self.found.append(Finding(rule, self.file, getattr(node, "lineno", 0), message))

    def _where(self) -> tuple[str, str]:
        return self.file, self.functions[-1] if self.functions else "<module>"

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.modules[alias.asname or alias.name] = alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            self.names[alias.asname or alias.name] = (node.module or "", alias.name)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _target(self, func: ast.expr) -> tuple[str, str] | None:
        """(module, name) a call goes to, when it is a module's function."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module = self.modules.get(func.value.id)
            return (module, func.attr) if module else None
        if isinstance(func, ast.Name):
            return self.names.get(func.id)
        return None

    def visit_Call(self, node: ast.Call) -> None:
        target = self._target(node.func)
        if target == ("asyncio", "wait_for") and node.args:
            self.inside_wait_for.add(id(node.args[0]))
        if target is not None and self.file != HOME:
            module, name = target
            if name in STARTS.get(module, ()):
                self._add(
                    "process-start",
                    node,
                    f"{module}.{name}: start processes with tests/processes.py "
                    "(run_cli, run, Program or a Server)",
                )
        if target in SLEEPS and not _zero(node):
            self._sleep(node)
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in WAITS
            and not node.args
            and not node.keywords
            and id(node) not in self.inside_wait_for
            and self.file != HOME
        ):
            self._add(
                "wait-without-deadline",
                node,
                f".{node.func.attr}() waits without a deadline: pass timeout= (or wrap it in "
                "asyncio.wait_for)",
            )
        self.generic_visit(node)

    def _sleep(self, node: ast.Call) -> None:
        where = self._where()
        after = self.lines[node.lineno - 1][node.end_col_offset or 0 :]
        if where in BEHAVIOUR_SLEEPS and "#" in after:
            self.allowed_seen.add(where)
            return
        self._add(
            "sleep",
            node,
            "a fixed sleep: wait for the event itself (a line the program prints, a port, a "
            "file, a counter) with Program.wait_for_line / wait_until; a sleep that IS the "
            "behaviour under test goes in BEHAVIOUR_SLEEPS with a comment on its line",
        )

    def _display(self, node: ast.List | ast.Tuple) -> None:
        words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
        if self.file != HOME and any(
            a == "-m" and b == "catalogctl" for a, b in itertools.pairwise(words)
        ):
            self._add(
                "cli-command",
                node,
                "a `-m catalogctl` command line of its own: use tests.processes.run_cli (or "
                "cli() for a server or a measured run)",
            )
        self.generic_visit(node)

    visit_List = _display
    visit_Tuple = _display

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "CliRunner" and isinstance(node.ctx, ast.Load):
            where = self._where()
            if where in IN_PROCESS:
                self.allowed_seen.add(where)
            else:
                self._add(
                    "in-process-cli",
                    node,
                    "CliRunner runs the command in the test's process, without a deadline: "
                    "use tests.processes.run_cli (or list the test in IN_PROCESS, with why)",
                )


def _zero(call: ast.Call) -> bool:
    """`asyncio.sleep(0)`: a turn of the event loop, not a wait."""
    return bool(call.args) and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0


def read(source: str, file: str) -> tuple[list[Finding], set[tuple[str, str]]]:
    """The findings in one module, and the allowed places it used."""
    reader = _Reader(file, source.splitlines())
    reader.visit(ast.parse(source))
    return reader.found, reader.allowed_seen


def _modules() -> Iterator[Path]:
    yield from sorted(TESTS.rglob("*.py"))


def test_tests_start_processes_wait_and_sleep_only_the_house_way() -> None:
    found: list[Finding] = []
    used: set[tuple[str, str]] = set()
    for path in _modules():
        file = str(path.relative_to(TESTS))
        more, seen = read(path.read_text(encoding="utf-8"), file)
        found += more
        used |= seen
    assert not found, "\n".join(map(str, found))
    # The allowed places are exactly those in use: a removed sleep leaves no stale entry.
    assert set(BEHAVIOUR_SLEEPS) | set(IN_PROCESS) == used


def test_the_house_rules_find_each_kind_of_breach() -> None:
    source = """
import asyncio
import subprocess as sp
import sys
import time
from subprocess import Popen
from typer.testing import CliRunner

def run(*args):
    return sp.run([sys.executable, "-m", "catalogctl", *args], capture_output=True)

def serve():
    proc = Popen(["catalogctl", "serve"])
    time.sleep(0.5)
    proc.wait()
    return proc

async def fine(event):
    await asyncio.sleep(0)
    await asyncio.wait_for(event.wait(), 10)

async def late():
    await asyncio.sleep(1)  # the server needs a moment

def in_process():
    return CliRunner().invoke(None, ["validate"])
"""
    found, _ = read(source, "test_example.py")
    assert sorted((f.rule, f.line) for f in found) == [
        ("cli-command", 10),
        ("in-process-cli", 26),
        ("process-start", 10),
        ("process-start", 13),
        ("sleep", 14),
        ("sleep", 23),
        ("wait-without-deadline", 15),
    ]
    assert str(found[0]).startswith("test_example.py:10: [process-start] subprocess.run:")
