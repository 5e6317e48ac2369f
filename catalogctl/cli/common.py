"""Options and arguments that several commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalogctl.output.console import Format

CONTENT_HELP = (
    "Content tree (site.toml + games/*.md). Default: ./content, or the bundled sample content "
    "when there is none."
)
ContentArg = Annotated[Path | None, typer.Argument(help=CONTENT_HELP, show_default=False)]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")]


def resolve_content(path: Path | None) -> tuple[Path, str]:
    """The content tree to use and how to name it in messages."""
    from catalogctl.content.loader import sample_content

    if path is not None:
        return path, str(path)
    default = Path("content")
    if default.is_dir():
        return default, "content"
    sample = sample_content()
    return sample, str(sample)
