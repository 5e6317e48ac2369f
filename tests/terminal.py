"""Run catalogctl with its standard output on a terminal: a pseudo-terminal of a given width.

What a user sees in a terminal is tested on a real one (the operating system's pty), not on a
pipe told to pass for one. Standard error stays a pipe, so the summary line is read apart.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Mapping
from pathlib import Path

TIMEOUT = 60


def run_on_terminal(
    args: list[str], *, columns: int, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m catalogctl ARGS` with stdout on a terminal `columns` wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # lines end in "\n" as written, not "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    environ = {**(env if env is not None else os.environ), "COLUMNS": str(columns)}
    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        environ.pop(name, None)
    with subprocess.Popen(
        [sys.executable, "-m", "catalogctl", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=environ,
    ) as proc:
        os.close(slave)
        chunks: list[bytes] = []
        deadline = time.monotonic() + TIMEOUT
        try:
            while True:
                ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
                if not ready:
                    proc.kill()
                    raise TimeoutError(f"catalogctl {' '.join(args)} did not finish")
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the last writer closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            _, stderr = proc.communicate(timeout=TIMEOUT)
        finally:
            os.close(master)
    stdout = b"".join(chunks).decode("utf-8")
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr.decode("utf-8"))


# For a command run in this process (typer's CliRunner): rich takes stdout for a terminal
# (its documented TTY_COMPATIBLE), without colours; `shown` drops the bold it still writes.
ON_A_TERMINAL = {"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
_STYLE = re.compile("\x1b\\[[0-9;]*m")


def shown(text: str) -> str:
    """Terminal output without rich's style sequences."""
    return _STYLE.sub("", text)
