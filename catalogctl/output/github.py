"""GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=<rule>::<message>`.

Each result becomes an annotation that GitHub shows on the pull request's diff (when the file
is in it) and in the run's summary; its title is the rule id, and its message ends with the
address of the rule's section of the docs when the rule has one. Escaping follows GitHub's
runner (actions/toolkit `command.ts`): in the message `%`, CR and LF are percent-encoded; in a
property also `:` and `,`. Text from content or from the network is cleaned of control
characters first, so it cannot end the line and start a workflow command of its own. May
import: the base layer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from catalogctl.output.model import Result
from catalogctl.text import clean

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    return clean(text, newlines=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(result: Result, *, title: str | None = None, docs: str | None = None) -> str:
    loc = result.location
    props: list[tuple[str, str]] = []
    if loc.file:
        props.append(("file", loc.file))
        if loc.line is not None:
            props.append(("line", str(loc.line)))
            if loc.column is not None:
                props.append(("col", str(loc.column)))
    props.append(("title", title or result.rule))
    message = result.message
    if loc.logical and not loc.file:
        message = f"{loc.logical}: {message}"
    if docs:
        message = f"{message} · {docs}"
    level = _COMMAND[result.level]
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{level} {head}::{escape_data(message)}"


def workflow_commands(results: Iterable[Result], docs: Mapping[str, str] | None = None) -> str:
    """One annotation a line; `docs`: the docs address of each rule id that has one."""
    docs = docs or {}
    return "".join(annotation(r, docs=docs.get(r.rule)) + "\n" for r in results)


def error_command(command: str, message: str) -> str:
    return f"::error title={escape_property(f'catalogctl {command}')}::{escape_data(message)}\n"
