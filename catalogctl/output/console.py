"""Where output goes: the consoles, the report destination (stdout or --output FILE).

Core modules never print; the CLI hands their results to the modules of `catalogctl.output`,
which write them through the functions here. Every text from content or from the network
passes `catalogctl.text.clean` on its way out. May import: the base layer.

Encodings. Output never fails on one (a Windows code page in a pipe, as pre-commit runs a
hook; a C locale): `prepare_streams`, at the start of the command line, gives stdout and stderr
the `catalogctl` error handler, so a character the stream's encoding lacks is replaced
wherever it is written (our reports, rich's tables, typer's help, the server's log): the
symbols of our own layout by ASCII (`·` by `-`, `→` by `->`, `✓` by `OK`; the same symbols
in a page's own text too, the handler cannot tell them apart), any other character by its
escape (`\\u00e9`, `\\U0001f3b5`), so that a finding about it still names it; a byte that
was never text (a name or an argument the locale could not decode) by `\\xe9`, as `path_text`
shows it.
A document for another program (json, sarif, junit, markdown, github, a schema, a completion
script) is UTF-8 wherever stdout is not a terminal, whatever the locale says; `--output FILE`
is always UTF-8.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalogctl.paths import exists, inside, is_dir
from catalogctl.text import clean, json_escaped, path_text

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


class Format(StrEnum):
    """Report formats of validate, check-links and diff."""

    table = "table"
    json = "json"
    github = "github"
    sarif = "sarif"
    junit = "junit"
    markdown = "markdown"


class BasicFormat(StrEnum):
    """Report formats of a command without findings of its own (build)."""

    table = "table"
    json = "json"


# Formats whose report on stdout is for a program: no summary line beside it.
MACHINE = frozenset({"json", "sarif", "junit", "markdown"})
# Formats read by a program (GitHub reads the annotations): UTF-8 on stdout, not the locale's.
DOCUMENTS = MACHINE | {"github"}

# --- encodings ----------------------------------------------------------------------------

ERRORS = "catalogctl"  # the codec error handler every output stream gets

# ASCII for the symbols of catalogctl's own layout, where a stream's encoding lacks them.
_STAND_INS = {
    "·": "-",
    "→": "->",
    "←": "<-",
    "…": "...",
    "—": "-",
    "−": "-",
    "✓": "OK",
    "✅": "OK",
    "✗": "X",
    "❌": "X",
    "⚠": "!",
    "\ufe0f": "",  # the emoji presentation selector after ⚠ or ❌
    "§": "section ",
    "ˋ": "`",
}


def _replace(exc: UnicodeError) -> tuple[str, int]:
    """A stand-in for the characters an encoding lacks: ASCII for our symbols, else the
    character's escape."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start : exc.end]:
        stand_in = _STAND_INS.get(ch)
        if stand_in is None:
            code = ord(ch)
            stand_in = (
                # A byte the locale could not decode (an argument, a name), as path_text
                # shows one: `\xe9`, never to be read as the character é, `\u00e9`.
                f"\\x{code - 0xDC00:02x}"
                if 0xDC80 <= code <= 0xDCFF
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
        out.append(stand_in)
    return "".join(out), exc.end


codecs.register_error(ERRORS, _replace)


class ClosedOutput(io.TextIOBase):
    """stdout when the command started without one (`catalogctl validate >&-`, a daemon that
    closed it): a report written to it is an error the CLI edge reports (exit 2), never a
    traceback nor a report lost without a word; flushing it does nothing."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        from catalogctl.errors import InputError

        if not text:
            return 0
        raise InputError("standard output is closed: the report cannot be written; use --output")


class ReaderGone:
    """A standard stream whose reader may leave before the end (`catalogctl validate | true`,
    a pager quit early): what is written after it left is dropped, so that the command ends
    as it would have, with its own exit status (a broken pipe would otherwise end it with 1,
    which says "the content has errors"). Anything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def _left(self, exc: OSError) -> bool:
        # A closed pipe: EPIPE on POSIX; Windows says EINVAL when the reader has gone.
        gone = isinstance(exc, BrokenPipeError) or (os.name == "nt" and exc.errno == errno.EINVAL)
        if gone:
            # What the stream still holds goes nowhere, at its next flush and at exit.
            with contextlib.suppress(OSError, ValueError, AttributeError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.stream.fileno())
                os.close(null)
        return gone

    def write(self, text: str) -> int:
        try:
            return int(self.stream.write(text))
        except OSError as exc:
            if not self._left(exc):
                raise
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            if not self._left(exc):
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


# A terminal size from COLUMNS or LINES past this is no terminal's: rich would lay out help
# and tables that wide (2,000,000,000 columns: for minutes; more: OverflowError).
MAX_TERMINAL_SIZE = 10_000


def prepare_streams() -> None:
    """stdout and stderr replace what their encoding lacks instead of raising (see above).
    A stream the process started without (its descriptor closed) gets a stand-in: stdout
    `ClosedOutput`, stderr the null device (there is nowhere to say anything). COLUMNS and
    LINES that are not a size from 1 to MAX_TERMINAL_SIZE are ignored (removed)."""
    for name in ("COLUMNS", "LINES"):
        size = os.environ.get(name)
        if size is not None and not (
            size.isascii() and size.isdigit() and 1 <= int(size) <= MAX_TERMINAL_SIZE
        ):
            del os.environ[name]
    if sys.stdout is None:
        sys.stdout = ClosedOutput()
    if sys.stderr is None:
        sys.stderr = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 - the process's
    streams: tuple[Any, ...] = (sys.stdout, sys.stderr)
    for stream in streams:
        # Not a text stream of the interpreter's (the stand-in above, or an embedding
        # program's object): left as it is.
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors=ERRORS)
    if not isinstance(sys.stdout, ClosedOutput):
        sys.stdout = ReaderGone(sys.stdout)
    sys.stderr = ReaderGone(sys.stderr)


def _utf8(stream: Any) -> bool:
    return codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name == "utf-8"


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # not a file, or closed
        return False


def write_document(text: str) -> None:
    """A document for another program on stdout: UTF-8 unless stdout is a terminal whose
    encoding is another (a person reads it there: what the encoding lacks is replaced), with
    its lines ended by LF on every system (Windows' text mode would write CRLF: a report's
    bytes, and a completion script bash reads, are the same everywhere)."""
    stream: Any = sys.stdout
    if not _is_terminal(stream):
        encoding = {} if _utf8(stream) else {"encoding": "utf-8", "errors": ERRORS}
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(newline="\n", **encoding)
    stream.write(text)
    stream.flush()


_out: Console | None = None
_err: Console | None = None


def out() -> Console:
    global _out  # noqa: PLW0603 - one console per process, made on first use
    if _out is None:
        from rich.console import Console

        _out = Console(highlight=False, soft_wrap=False)
    return _out


def err() -> Console:
    global _err  # noqa: PLW0603
    if _err is None:
        from rich.console import Console

        _err = Console(stderr=True, highlight=False)
    return _err


def err_is_terminal() -> bool:
    """Whether stderr is a terminal, as rich decides it; rich is imported only when stderr
    may be one (a tty, or FORCE_COLOR or TTY_COMPATIBLE set): 0.01-0.03 s of start-up less for
    a command whose output goes to a file or a pipe."""
    try:
        tty = sys.stderr.isatty()
    except ValueError:  # closed
        tty = False
    if not tty and not os.environ.get("FORCE_COLOR") and not os.environ.get("TTY_COMPATIBLE"):
        return False
    return err().is_terminal


_ANSI = {"red": "31", "yellow": "33", "green": "32"}


def status(mark: str, color: str, text: str) -> None:
    """A one-line summary on stderr, without importing rich (validate start-up matters)."""
    sys.stdout.flush()  # after any table printed on stdout
    stream = sys.stderr
    if stream.isatty() and not os.environ.get("NO_COLOR") and color in _ANSI:
        mark = f"\x1b[{_ANSI[color]}m{mark}\x1b[0m"
    stream.write(f"{mark} {clean(text)}\n")
    stream.flush()


def print_text(text: str) -> None:
    """Text for a person on stdout, exactly as given (but what its encoding lacks)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def error_line(message: str) -> None:
    """`error: <message>` on stderr, on one line (a path in it stays whole for a log or a
    terminal to show); the message is text, never rich markup."""
    from rich.text import Text

    sys.stdout.flush()
    line = Text.assemble(("error:", "bold red"), " ", clean(message))
    err().print(line, highlight=False, soft_wrap=True)


def json_text(data: Any) -> str:
    """A JSON document as every command writes it: indented by two, UTF-8 text unescaped."""
    import json

    return json_escaped(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


def print_json(data: Any) -> None:
    """A JSON document on stdout (or --output FILE)."""
    text = json_text(data)
    if settings.output is None:
        write_document(text)
    else:
        emit(text)


# --- the command's report settings -------------------------------------------------------


class _Settings:
    command: str = "catalogctl"
    format: str = "table"
    output: Path | None = None


settings = _Settings()


def use_format(command: str, fmt: str, output: Path | None = None) -> None:
    """Remember the running command, its format and --output FILE (for reports and errors).

    A command starts with consoles of its own, made on first use for the terminal it runs on
    (its width, `COLUMNS`, `NO_COLOR`): a second command run in the same process (a test, a
    program that embeds the command line) does not lay out for the first one's terminal."""
    global _out, _err  # noqa: PLW0603
    _out = _err = None
    settings.command, settings.format, settings.output = command, str(fmt), output
    if output is not None:
        from catalogctl.errors import InputError

        if is_dir(output):
            settings.output = None
            raise InputError(f"--output {path_text(output)}: is a directory")
        if not is_dir(output.parent):
            settings.output = None
            state = "is not a folder" if exists(output.parent) else "does not exist"
            raise InputError(
                f"--output {path_text(output)}: folder {path_text(output.parent)} {state}"
            )


def keep_from_output(reads: list[tuple[Path, str]]) -> None:
    """Refuse an --output FILE that would replace what the command reads (exit 2, before it
    reads it): each of `reads` is a file (site.toml, a catalog's JSON) or a folder whose
    files are read (the games folder), with how a message names it. A report written over
    site.toml or a page would lose it; one inside the games folder would be read as a page."""
    output = settings.output
    if output is None:
        return
    for path, what in reads:
        read = os.path.realpath(path)
        if inside(output, read):
            from catalogctl.errors import InputError

            settings.output = None  # the error goes where errors go
            same = os.path.realpath(output) == read
            where = f"is {what}," if same else f"is inside {what}, {path_text(path)},"
            raise InputError(
                f"--output {path_text(output)} {where} which {settings.command} reads; nothing "
                "was written. Choose a file outside it "
                f"(e.g. --output report.{_SUFFIXES.get(settings.format, 'txt')})"
            )


_SUFFIXES = {"json": "json", "sarif": "sarif", "junit": "xml", "markdown": "md"}


def emit(text: str) -> None:
    """Write the report: to --output FILE when given, else to stdout."""
    if settings.output is None:
        if settings.format in DOCUMENTS:
            write_document(text)
        else:
            print_text(text)
        return
    from catalogctl.errors import InputError

    try:
        settings.output.write_text(text, encoding="utf-8", newline="\n")  # LF everywhere
    except OSError as exc:
        shown = settings.output
        settings.output = None  # the error report goes to stdout instead
        raise InputError(f"--output {path_text(shown)}: {exc.strerror or exc}") from None


def to_terminal() -> bool:
    """Whether the report is shown on a terminal: stdout is one (as rich sees it, so
    `TTY_COMPATIBLE=1` or `FORCE_COLOR` make a pipe one) and there is no --output FILE."""
    return settings.output is None and out().is_terminal


def emit_renderables(make: Callable[[int], list[RenderableType]]) -> None:
    """Rich tables on the terminal, made for its width."""
    console = out()
    for r in make(console.width):
        # Not cropped: a file location longer than the terminal stays whole (the terminal
        # wraps it); everything else is laid out within the width.
        console.print(r, crop=False)


def wants_summary() -> bool:
    """Whether the terminal gets the summary line (not beside a machine report on stdout)."""
    return settings.output is not None or settings.format not in MACHINE
