"""The Typer app, its commands, and the one error edge (`CatalogError` -> exit code).

Heavy modules (aiohttp, rendering, compression) are imported inside the commands that use
them, so `catalogctl validate` in a pre-commit hook starts as fast as typer, rich and pydantic
allow.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Annotated, ParamSpec

import typer

from catalogctl import __version__
from catalogctl.cli import build, check_links, completion, diff, schema, serve, validate
from catalogctl.errors import CatalogError
from catalogctl.output.console import out, report_error

P = ParamSpec("P")

app = typer.Typer(
    name="catalogctl",
    help="Build, validate and serve a public, read-only game catalog API from content files.",
    no_args_is_help=True,
    add_completion=False,  # `catalogctl completion SHELL` prints static scripts instead
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        out().print(f"catalogctl {__version__}")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Build, validate and serve a public, read-only game catalog API from content files."""


def error_edge(command: Callable[P, None]) -> Callable[P, None]:
    """The one place a `CatalogError` becomes its report and its exit code."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except CatalogError as exc:
            report_error(exc)
            raise typer.Exit(int(exc.exit_code)) from None

    return run


app.command()(error_edge(validate.validate))
app.command()(error_edge(build.build))
app.command("check-links")(error_edge(check_links.check_links))
app.command()(error_edge(serve.serve))
app.command()(error_edge(diff.diff))
app.command()(error_edge(completion.completion))
app.command()(error_edge(schema.schema))


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
