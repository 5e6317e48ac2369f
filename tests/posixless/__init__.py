"""Run catalogctl with what Windows or macOS lacks taken away (see `sitecustomize.py` here).

`environment("windows")` is an environment for `run_cli(..., env=...)` or a `ServeProcess`:
every Python process started with it imports this folder's `sitecustomize` first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

HERE = Path(__file__).resolve().parent
System = Literal["windows", "macos"]
SYSTEMS: tuple[System, ...] = ("windows", "macos")


def environment(system: System, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with `system`'s facilities taken away."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env["CATALOGCTL_TEST_SYSTEM"] = system
    return env
