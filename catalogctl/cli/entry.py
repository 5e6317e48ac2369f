"""The `catalogctl` console script: the collector's pace for a command, then the command line.

This module imports nothing heavy, so that the pace is set before typer, pydantic-core and
the rest are imported (see `collector`).
"""

from __future__ import annotations

import sys

from catalogctl.cli.collector import at_exit, for_command


def main() -> None:
    """Console-script entry point (and `python -m catalogctl`)."""
    try:
        for_command()
        from catalogctl.cli.app import main as run
    except KeyboardInterrupt:  # Ctrl+C while Python loads the command: as during it
        sys.exit(130)
    try:
        run()
    finally:
        at_exit()
