"""Options and arguments that several commands share."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from catalogctl.output.console import BasicFormat, Format
from catalogctl.sources.locate import CONTENT_KINDS, Kind, Located
from catalogctl.text import quoted

# Panels of `--help` beside "Options" (typer's `rich_help_panel`): the everyday options stay
# in "Options", the others go to one of these, so that every command's help fits a screen.
REPORT_PANEL = "Report"
NETWORK_PANEL = "URL sources"
ADVANCED_PANEL = "Advanced"

CONTENT_HELP = (
    "The site: the folder of site.toml, or a folder or page inside it (the nearest site.toml "
    "above is used). Default: this folder's site, else ./content."
)
ContentArg = Annotated[Path | None, typer.Argument(help=CONTENT_HELP, show_default=False)]
FormatOpt = Annotated[
    Format,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help="Report format: table, json, github (annotations), sarif, junit (JUnit XML) "
        "or markdown.",
    ),
]
BasicFormatOpt = Annotated[
    BasicFormat, typer.Option("--format", "-f", help="Output format: a summary or JSON.")
]


def path_value(value: str) -> Path:
    """A path option's value; an empty one (`--out "$DIST"` with DIST unset) is refused, where
    Python would read it as the current folder (and `build --force` would replace it)."""
    if not value:
        raise typer.BadParameter("is empty; give a path")
    return Path(value)


OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        metavar="FILE",
        parser=path_value,
        help="Write the report to FILE; the terminal gets the summary line.",
    ),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")]


def resolve_source(
    spec: str | Path | None,
    *,
    accept: frozenset[Kind] = CONTENT_KINDS,
    sample: bool = False,
) -> Located:
    """The source an argument (None: none) names for the running command (`sources.locate`).

    When the site used is not the folder named (a page, a games folder or a folder inside the
    site was named, or site.toml was found above), stderr says which one was used; so does
    `serve` when it falls back to the bundled sample content (`sample=True`).
    """
    from catalogctl.output.console import keep_from_output, settings, status
    from catalogctl.sources.locate import locate

    found = locate(spec, accept=accept, command=settings.command, sample=sample)
    if found.note:
        status("!" if found.sample else "·", "yellow" if found.sample else "", found.note)
    if settings.output is not None:
        keep_from_output(source_reads(found))
    return found


def source_reads(found: Located) -> list[tuple[Path, str]]:
    """What a command reads of a source, which its --output FILE must not replace: of a
    content tree site.toml and the games folder it names, of a build its manifest and web
    root, of a web root its API, a JSON file itself."""
    path = found.path
    if found.kind == "content":
        return [(path / "site.toml", "the site's site.toml"), (_games(path), "the games folder")]
    if found.kind == "build":
        return [(path / "manifest.json", "the build's manifest"), (path / "public", "its web root")]
    if found.kind == "web-root":
        return [(path / "api", "the catalog's API folder")]
    if found.kind == "json":
        return [(path, "a catalog")]
    return []


def _games(root: Path) -> Path:
    """The games folder site.toml names (the default one where it names none, or cannot be
    read: validate says why), as `serve --watch` finds it."""
    from catalogctl.content.loader import GAMES_DIR
    from catalogctl.sources.watch import pages_settings

    games, _ = pages_settings(str(root / "site.toml"))
    return root / (games if "\0" not in games else GAMES_DIR)  # a NUL names no folder


def resolve_content(path: Path | None) -> tuple[Path, str]:
    """The content tree to read and how to name it in messages (validate, build)."""
    found = resolve_source(path)
    return found.path, found.label


# --- option values checked when parsed (exit 2 naming the option) ----------------------------


def _shown(value: str) -> str:
    """A value as a message shows it: quoted, control characters escaped, long ones cut."""
    text = quoted(value)
    return text if len(text) <= 80 else text[:60] + "…" + text[-10:]


def checked(problem: Callable[[str], str | None]) -> Callable[..., Any]:
    """A parameter callback refusing a value for which `problem` gives a reason."""

    def callback(value: Any) -> Any:
        if value is None:
            return None
        for item in value if isinstance(value, list | tuple) else [value]:
            reason = problem(item)
            if reason is not None:
                raise typer.BadParameter(f"{_shown(item)} {reason}")
        return value

    return callback


def _regex_problem(pattern: str) -> str | None:
    if len(pattern) > 1000:
        return "is longer than 1000 characters"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"is not a valid regular expression: {exc}"
    except (RecursionError, OverflowError, MemoryError):
        return "is too complex a regular expression"
    return None


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number of seconds")
    return value


# The checks are imported when an option is given, not when `validate` starts.
def _cache_control_problem(value: str) -> str | None:
    from catalogctl.contract.values import cache_control_problem

    return cache_control_problem(value)


def _listen_problem(value: str) -> str | None:
    from catalogctl.contract.values import listen_problem

    return listen_problem(value)


def _user_agent_problem(value: str) -> str | None:
    from catalogctl.contract.values import user_agent_problem

    return user_agent_problem(value)


def _base_url_problem(value: str) -> str | None:
    from catalogctl.urls import base_url_problem

    return base_url_problem(value, loopback_http=True)


check_cache_control = checked(_cache_control_problem)
check_listen = checked(_listen_problem)
check_user_agent = checked(_user_agent_problem)
check_base_url = checked(_base_url_problem)
check_regex = checked(_regex_problem)
check_seconds = _finite

BASE_URL_HELP = (
    "Publish under this base URL: https://HOST or https://HOST/PATH, no trailing '/' "
    "(http:// only for localhost, 127.0.0.0/8 or [::1])."
)
CACHE_CONTROL_HELP = "Cache-Control of successful responses (RFC 9111 directives)."
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help=BASE_URL_HELP, callback=check_base_url)
]


_SIZE = re.compile(r"(?i)\s*([0-9]+(?:\.[0-9]+)?)\s*([kmg]i?b?|b)?\s*")
_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_size(text: str | int) -> int:
    """Bytes of `65536`, `512KiB`, `64M`, `1GiB` (binary units)."""
    if isinstance(text, int):
        return text
    m = _SIZE.fullmatch(text)
    if m is None:
        raise typer.BadParameter(f"{_shown(text)} is not a size (use e.g. 65536, 512KiB, 64MiB)")
    size = int(float(m.group(1)) * _SIZE_UNITS[(m.group(2) or "")[:1].lower()])
    if not 1024 <= size <= 1024**4:
        raise typer.BadParameter(f"{_shown(text)} must lie between 1 KiB and 1 TiB")
    return size


AllowPrivateOpt = Annotated[
    bool,
    typer.Option(
        "--allow-private",
        rich_help_panel=NETWORK_PANEL,
        help="Follow redirects from public hosts to loopback and private addresses (an "
        "intranet). Link-local, multicast and unspecified addresses stay refused.",
    ),
]
