"""The Typer app, its commands, and the one error edge (`CatalogError` -> exit code).

Start-up is part of the product: `catalogctl validate` runs in pre-commit hooks on every
commit. So heavy modules (aiohttp, rendering, compression) are imported inside the commands that
use them, and `main()` registers only the command it is asked for when the first argument names
one: the other commands' modules are not imported and their signatures are not turned into
options (typer does that for every registered command, eagerly). `--help`, `--version`,
`completion`, shell completion and anything else register every command, so they see the whole
app. The command modules (and this one) do without `from __future__ import annotations`: typer
reads a command's annotations at run time, and as strings each would be compiled on every start.
"""

import contextlib
import functools
import importlib
import inspect
import os
import re
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, ParamSpec

import typer
from typer.core import TyperCommand, TyperGroup

from catalogctl import __version__, docs_url
from catalogctl.errors import CatalogError, ExitCode, InputError
from catalogctl.output.console import (
    Format,
    error_line,
    prepare_streams,
    print_text,
    use_format,
)
from catalogctl.output.reports import report_error, report_failure
from catalogctl.text import clean, undecoded, undecoded_bytes

P = ParamSpec("P")
_ARGS = "catalogctl.args"


def _option_value(args: Sequence[str], long: str, short: str | None = None) -> str | None:
    """The last value given to an option in raw arguments (`--opt V`, `--opt=V`, `-sV`)."""
    value = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == long or (short is not None and arg == short):
            value = args[i + 1] if i + 1 < len(args) else None
        elif arg.startswith(long + "="):
            value = arg[len(long) + 1 :]
        elif short is not None and arg.startswith(short) and not arg.startswith("--"):
            value = arg[len(short) :]
    return value


# --- help: the texts as written, and where the docs say more -----------------------------


def markup_escaped(text: str) -> str:
    """A help text for typer's rich help: every `[word]` shown as written (rich would take
    `[fields]` for a style and drop it), and the line `Examples` in bold."""
    from rich.markup import escape

    return _EXAMPLES.sub(r"[bold]\1[/]", escape(text))


_EXAMPLES = re.compile(r"^(Examples)\b", re.MULTILINE)


class _Shown:
    """While a command's help is printed, its texts (and its parameters') are escaped for
    rich; click keeps the texts as written for everything else (completion scripts)."""

    def __init__(self, command: Any) -> None:
        self.saved = [(command, command.help)] + [
            (p, getattr(p, "help", None)) for p in command.params
        ]

    def __enter__(self) -> None:
        for obj, text in self.saved:
            if text:
                obj.help = markup_escaped(text)

    def __exit__(self, *exc: object) -> None:
        for obj, text in self.saved:
            obj.help = text


class CatalogCommand(TyperCommand):
    """A command whose `--help` shows every word of its texts, with a link to its docs page."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _Shown(self):
            super().format_help(ctx, formatter)


# The docs page of each command (under docs/), linked at the end of its `--help`.
DOCS_PAGES = {
    "": "index.md",
    "init": "content/init.md",
    "validate": "commands/validate.md",
    "build": "commands/build.md",
    "check-links": "commands/check-links.md",
    "serve": "commands/serve.md",
    "diff": "commands/diff.md",
    "completion": "commands/completion.md",
    "schema": "commands/schema.md",
}


def docs_epilog(command: str) -> str:
    return f"Docs: {docs_url(DOCS_PAGES[command])}"


class CatalogGroup(TyperGroup):
    """The app's command group: usage errors of a command run with a machine `--format` are
    reported in that format (the JSON error envelope, …) instead of as a usage message."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        # The list of commands shows the first line of each command's help too.
        with contextlib.ExitStack() as shown:
            for command in (self, *self.commands.values()):
                shown.enter_context(_Shown(command))
            super().format_help(ctx, formatter)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_ARGS] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            # typer bundles its own click: its UsageError is recognised by name, not imported.
            if not any(c.__name__ == "UsageError" for c in type(exc).__mro__):
                raise
            said = getattr(exc, "message", None)
            if isinstance(said, str):
                # The arguments it quotes, as every message shows them: control characters
                # out, a byte that is not UTF-8 as \xe9 (before the panel is laid out).
                exc.message = clean(undecoded(undecoded_bytes(said)))  # type: ignore[attr-defined]
            failed = getattr(exc, "ctx", None)
            command = getattr(getattr(failed, "command", None), "name", None)
            args: list[str] = ctx.meta.get(_ARGS, [])
            hint = _hint(command, args)
            if hint and isinstance(getattr(exc, "message", None), str):
                exc.message = f"{exc.message.rstrip('.')}; {hint}"  # type: ignore[attr-defined]
            fmt = _option_value(args, "--format", "-f")
            if failed is ctx or command is None or fmt not in set(Format) - {"table"}:
                raise
            output = _option_value(args, "--output")
            use_format(command, str(fmt), Path(output) if output else None)
            message: str = exc.format_message()  # type: ignore[attr-defined]
            report_failure(message, code=int(ExitCode.USAGE), kind="usage")
            raise typer.Exit(int(ExitCode.USAGE)) from None


def _hint(command: str | None, args: list[str]) -> str | None:
    """What to do instead, for a usage error whose value asks for what catalogctl has not:
    a completion script for PowerShell (or cmd)."""
    if command == "completion" and any(a.lower() in ("powershell", "pwsh", "cmd") for a in args):
        return (
            "catalogctl prints no completion script for PowerShell or cmd: `catalogctl "
            f"--help` lists every command and option (see {docs_url('commands/completion.md')}"
            "#powershell)"
        )
    return None


# command name -> module under catalogctl.cli, whose function of the same name (with `_` for
# `-`) is the command. In the order `--help` lists them.
COMMANDS = {
    "init": "init",
    "validate": "validate",
    "build": "build",
    "check-links": "check_links",
    "serve": "serve",
    "diff": "diff",
    "completion": "completion",
    "schema": "schema",
}


def _version(value: bool) -> None:
    if value:
        print_text(f"catalogctl {__version__}\n")
        raise typer.Exit


def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Build, validate and serve a public, read-only game catalog API from content files."""


def reflow(doc: str | None) -> str | None:
    """Each paragraph of a docstring on one line, so `--help` wraps at the terminal's width.

    Indented lines (examples) and blank lines stay as written.
    """
    if not doc:
        return doc
    lines: list[str] = []
    joining = False
    for line in inspect.cleandoc(doc).splitlines():
        if line and not line[0].isspace():
            if joining:
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.strip())
            joining = True
        else:
            lines.append(line)
            joining = False
    return "\n".join(lines)


def system_error_text(exc: OSError) -> str:
    """An `OSError` as a user reads it: what the system said, and about which file."""
    from catalogctl.text import path_text

    said = clean(exc.strerror or str(exc) or type(exc).__name__)
    if not isinstance(exc.filename, str | bytes | os.PathLike):
        return f"the system refused: {said}"
    return f"{clean(path_text(os.fsdecode(exc.filename)))}: {said}"


def error_edge(command: Callable[P, None]) -> Callable[P, None]:
    """The one place a `CatalogError` becomes its report and its exit code (and an `OSError`
    no step gave a message of its own, exit 2)."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except CatalogError as exc:
            report_error(exc)
            raise typer.Exit(int(exc.exit_code)) from None
        except BrokenPipeError:
            raise
        except OSError as exc:
            # A file the system refused where no step gave a message of its own (a name too
            # long, a full disk): said in the system's words, with the file, never a traceback.
            report_error(InputError(system_error_text(exc)))
            raise typer.Exit(int(ExitCode.USAGE)) from None

    run.__doc__ = reflow(command.__doc__)
    return run


def make_app(only: str | None = None) -> typer.Typer:
    """The Typer app with every command, or with the one command `only` names."""
    new = typer.Typer(
        name="catalogctl",
        cls=CatalogGroup,
        help="Build, validate and serve a public, read-only game catalog API from content files.",
        no_args_is_help=True,
        add_completion=False,  # `catalogctl completion SHELL` prints static scripts instead
        rich_markup_mode="rich",  # for the panels; every text is escaped (`CatalogCommand`)
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    new.callback(epilog=docs_epilog(""))(_root)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            command = getattr(importlib.import_module(f"catalogctl.cli.{module}"), module)
            new.command(name, cls=CatalogCommand, epilog=docs_epilog(name))(error_edge(command))
    return new


def requested(args: Sequence[str]) -> str | None:
    """The command the arguments name, when they start with one and ask for no completion.

    `completion` describes every command, so it always gets the whole app.
    """
    if not args or args[0] not in COMMANDS or args[0] == "completion":
        return None
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):
        return None
    return args[0]


def __getattr__(name: str) -> Any:
    # `app`, the whole app, is built on first use: importing this module for `main` must not
    # import every command.
    if name == "app":
        whole = make_app()
        globals()["app"] = whole
        return whole
    raise AttributeError(name)


def main() -> None:
    """The command line, as the console script (`cli.entry`) runs it."""
    prepare_streams()  # before anything is written: typer's help and usage errors too
    try:
        make_app(requested(sys.argv[1:]))()
    except KeyboardInterrupt:
        sys.exit(130)
    except CatalogError as exc:
        # Outside every command (`--help`, `--version` with stdout closed): said as a command
        # says it, never a traceback.
        error_line(exc.message)
        sys.exit(int(exc.exit_code))
    finally:
        # The command is over: a Ctrl-C that arrives while the interpreter shuts down (joining
        # the threads of a parallel parse) ends the process as the signal does, not with a
        # KeyboardInterrupt traceback from the threading module.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
