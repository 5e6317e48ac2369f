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

When a command is over, `at_exit` freezes every object (`gc.freeze()`): the interpreter's last
collections, as it shuts down, then skip them, and the cycles among them (a finished event
loop's tasks and futures, the frames an exit exception holds) are not taken apart one object
at a time: the operating system takes the memory back at once. `check-links` of 8,000 links
spent 0.03-0.06 s there, about a tenth of its CPU time with `--offline` or with servers that
answer at once (docs/commands/check-links.md). Nothing is left unwritten by it: every report
and file a command writes is closed before it returns, and the standard streams are flushed
by the interpreter whatever is frozen.
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


def at_exit() -> None:
    """The command is over: what it made is left to the operating system, not collected."""
    gc.freeze()
