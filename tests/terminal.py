"""What a terminal shows: the environment that makes a command run in this process take its
output for a terminal, and the text without style sequences.

A program run with its standard output on a real terminal (the operating system's pty) is
`tests.processes.run_cli(..., terminal=COLUMNS)`.
"""

from __future__ import annotations

import re

# For a command run with its output on a pipe (`run_cli`) or in this process (typer's
# CliRunner): rich takes stdout for a terminal (its documented TTY_COMPATIBLE), without
# colours; `shown` drops the bold it still writes.
ON_A_TERMINAL = {"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
_STYLE = re.compile("\x1b\\[[0-9;]*m")


def shown(text: str) -> str:
    """Terminal output without rich's style sequences."""
    return _STYLE.sub("", text)
