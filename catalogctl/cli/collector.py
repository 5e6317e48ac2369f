"""How often Python's cyclic garbage collector runs: seldom in a command, as usual in a server.

A command (`validate`, `build`, `check-links`, `diff`) is a short process that keeps nearly
everything it makes until it exits: its imports, and then per page a parsed document, a
finding, an entry. With Python's default thresholds the collector starts every 700 new
objects, and every so often walks all of them again: `validate` of 10,000 pages with a
finding each spent about a tenth of its time there, for no garbage at all, and the start-up
on a small site about a twentieth. Commands therefore start the collector every 200,000 new
objects, as mypy does for the same reason; cycles are still collected, and at most that many
objects' worth of them wait for it. This is set before anything is imported, since imports
make objects too.

`serve` runs for days and makes garbage cycles with every request: it goes back to Python's
own thresholds before it starts.
"""

from __future__ import annotations

import gc
import sys

# Python's own thresholds, as the interpreter started with them.
PYTHON_THRESHOLDS = gc.get_threshold()
COMMAND_THRESHOLDS = (200_000, 30, 30)


def for_command() -> None:
    """Collect seldom (CPython; other interpreters keep their own collector's pace)."""
    if sys.implementation.name == "cpython":
        gc.set_threshold(*COMMAND_THRESHOLDS)


def for_server() -> None:
    """Collect at Python's own pace."""
    gc.set_threshold(*PYTHON_THRESHOLDS)
