"""build's report: what it published and wrote, as lines on the terminal or the JSON envelope.

The content's warnings are listed too, so that what validate would warn about is not lost in
a build log. May import: the cores and below.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from catalogctl.output import console
from catalogctl.output.envelope import envelope, finding_json
from catalogctl.paths import BUSY_SECONDS
from catalogctl.text import path_text, plural

if TYPE_CHECKING:
    from catalogctl.content.loader import Catalog
    from catalogctl.site.build import BuildResult


class BuildOutcome(NamedTuple):
    """What `build` made: the catalog it published, the files it wrote, the time it took."""

    catalog: Catalog
    written: BuildResult
    routes: list[str]
    out_dir: Path  # as the command line names it
    seconds: float


def busy_note(out_dir: Path) -> Callable[[Path], None]:
    """What build tells, once, when Windows keeps it from swapping `out_dir` (as the command
    line names it) into place while another program holds a file there open."""
    told: list[Path] = []

    def tell(path: Path) -> None:
        if not told:
            told.append(path)
            console.status(
                "·",
                "",
                f"waiting to replace {path_text(out_dir)}: Windows refuses it, as it does "
                "while another program has a file in it open (a server, an editor, a virus "
                f"scanner) or where the folder may not be changed; trying again for up to "
                f"{BUSY_SECONDS:g} s",
            )

    return tell


def write_build(outcome: BuildOutcome, fmt: str) -> None:
    """`outcome` as the JSON envelope on stdout (or --output), or as lines on stderr."""
    catalog, written = outcome.catalog, outcome.written
    warnings = sorted(catalog.warnings, key=lambda f: (f.file, f.line or 0, f.column or 0))
    if fmt == "json":
        summary = {
            "out": path_text(written.out),
            "games": len(catalog.games),
            "files": written.files,
            "bytes": written.bytes,
            "routes": sorted(outcome.routes),
            "seconds": round(outcome.seconds, 3),
            "read": catalog.summary.to_json(),
            "warnings": len(warnings),
            "kept": list(written.kept),
            "stranded": [path_text(left) for left in written.stranded],
        }
        items = [finding_json(f) for f in warnings]
        console.print_json(envelope("build", ok=True, summary=summary, items=items))
        return
    for f in warnings:
        where = f.file + "".join(f":{n}" for n in (f.line, f.column) if n is not None)
        field = f"{f.field}: " if f.field else ""
        console.status("!", "yellow", f"{where}: warning {f.rule} · {field}{f.message}")
    # The folder name is text, never markup: status() prints it cleaned, without rich.
    console.status(
        "✓",
        "green",
        f"built {plural(len(catalog.games), 'game')} into {path_text(outcome.out_dir)} "
        f"({plural(written.files, 'file')}, {written.bytes / 1024:,.0f} KiB) "
        f"in {outcome.seconds:.2f} s",
    )
    console.status("·", "", catalog.summary.describe())
    if written.kept:
        console.status(
            "·",
            "",
            f"kept from the previous build, not the build's own: {', '.join(written.kept)}",
        )
    for left in written.stranded:
        console.status(
            "!",
            "yellow",
            f"{path_text(left)} was left by an interrupted build and holds entries kept from "
            f"{path_text(outcome.out_dir)} that could not go back into it (the same name is "
            "there now): move back what you need, then remove it",
        )
