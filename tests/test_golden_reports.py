"""Golden reports: every format of validate, check-links and diff for one defect content tree.

tests/fixtures/defects has a warning of each kind a page can carry (a draft with problems,
an id that is not a slug, a genre listed twice, a platform without its store), a name with
terminal escapes (ESC, BEL; published, as its site.toml lowers control-character to a
warning) and Markdown/HTML characters; tests/fixtures/defects-next is the next release of it
(a game added, one removed, fields changed, one moved, a lost store link).
The table format is shown on a terminal (a pseudo-terminal 100 and 80 columns wide) and
piped (`*.pipe.txt`: one line per item, at 80 columns, never wrapped). The reviewed outputs
live in tests/golden/reports/. After an intended change of a format,
regenerate them with `CATALOGCTL_UPDATE_GOLDEN=1 pytest tests/test_golden_reports.py` and
review the diff.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.cells import cell_len

from catalogctl import __version__
from tests.processes import run_cli
from tests.test_output import check_envelope, check_sarif

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden" / "reports"
UPDATE = os.environ.get("CATALOGCTL_UPDATE_GOLDEN") == "1"

COMMANDS = {
    # name: (arguments, exit code)
    "validate": (["validate", "defects", "--strict"], 1),
    "check-links": (["check-links", "defects", "--offline", "--exclude", r"cdn\.example"], 0),
    "diff": (["diff", "defects", "defects-next"], 1),
}
FORMATS = {  # format: file name suffix
    "table": "table.txt",
    "json": "json",
    "github": "github.txt",
    "sarif": "sarif",
    "junit": "junit.xml",
    "markdown": "md",
}


STYLE = re.compile("\x1b\\[[0-9;]*m")


def normalize(text: str) -> str:
    """Timings and the version vary from run to run; nothing else may."""
    text = re.sub(r'"seconds": [0-9.]+', '"seconds": 0', text)
    text = re.sub(r'time="[0-9.]+"', 'time="0"', text)
    text = re.sub(r"in [0-9.]+ s\b", "in 0 s", text)
    return text.replace(f'"{__version__}"', '"VERSION"')


def report(
    args: list[str], fmt: str, columns: int, *, terminal: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "xterm"}
    env.pop("TTY_COMPATIBLE", None)
    env.pop("FORCE_COLOR", None)
    return run_cli(
        *args, "--format", fmt, cwd=FIXTURES, env=env, terminal=columns if terminal else None
    )


CASES = [(c, f, 100) for c in COMMANDS for f in FORMATS] + [
    ("validate", "table", 80),
    ("diff", "table", 80),
    *((c, "pipe", 80) for c in COMMANDS),
]


@pytest.mark.parametrize(("command", "fmt", "columns"), CASES)
def test_golden_report(command: str, fmt: str, columns: int) -> None:
    args, code = COMMANDS[command]
    piped = fmt == "pipe"
    proc = report(args, "table" if piped else fmt, columns, terminal=fmt == "table")
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    # The report and, for the formats people read on a terminal, the summary line. On the
    # terminal, rich's own styles (bold: NO_COLOR leaves no colour) are left out of the file.
    got = normalize(STYLE.sub("", proc.stdout) if fmt == "table" else proc.stdout)
    if fmt in ("table", "github", "pipe"):
        got += "--- stderr\n" + normalize(proc.stderr)
    width = "" if columns == 100 or piped else f"-{columns}"
    golden = GOLDEN / f"{command}{width}.{FORMATS.get(fmt, 'pipe.txt')}"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")
    assert "\x1b" not in got and "\x07" not in got
    if fmt == "table":
        assert all(cell_len(line) <= columns for line in STYLE.sub("", proc.stdout).splitlines())
    if piped:  # one item a line, starting with where it is: no line continues another
        assert all(re.match(r"\S+: \S", line) for line in proc.stdout.splitlines())
    # Each machine format is what its reader accepts.
    if fmt == "json":
        check_envelope(json.loads(proc.stdout))
    elif fmt == "sarif":
        check_sarif(json.loads(proc.stdout))
    elif fmt == "junit":
        assert ET.fromstring(proc.stdout).tag == "testsuites"
    elif fmt == "github":
        assert all(line.startswith("::") for line in proc.stdout.splitlines())
