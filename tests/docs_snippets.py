"""Reading the docs' snippets: fenced blocks, the catalogctl commands of a shell line, front
matter, shown output. tests/test_docs.py runs and checks what this module finds; the
conventions are docs/contributing.md's ("Docs that are tested")."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from tests.conftest import ROOT

SHELLS = {"sh", "bash", "shell", "console"}
NEEDS = re.compile(r"\bneeds:\s*\S")
URL = re.compile(r"https?://", re.IGNORECASE)


class Block(NamedTuple):
    file: str
    line: int  # of the opening fence, 1-based
    language: str
    title: str
    lines: list[tuple[int, str]]  # (line number, text) of the content


_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>.*)$")
_TITLE = re.compile(r'title="([^"]*)"')


def blocks(path: Path) -> Iterator[Block]:
    """The fenced code blocks of a Markdown file (indented ones, in admonitions, too)."""
    shown = str(path.relative_to(ROOT))
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append((i + 1, lines[i][len(indent) :]))
            i += 1
        i += 1
        language = info.split()[0].strip("{}.") if info else ""
        title = _TITLE.search(info)
        yield Block(shown, start, language, title.group(1) if title else "", body)


# --- command lines ----------------------------------------------------------------------------


class Command(NamedTuple):
    where: str  # file:line
    line: str  # as written, without its comment
    comment: str
    output: list[str]  # the output a console block shows after it


def _split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing `# comment`, quotes respected."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip()
    return line.rstrip(), ""


def commands(block: Block) -> Iterator[Command]:
    console = block.language == "console"
    pending: Command | None = None
    joined, first = "", 0
    for number, raw in block.lines:
        text = raw.rstrip()
        if console and not joined:
            if not text.startswith("$ "):
                if pending is not None:
                    pending.output.append(text)
                continue
            text = text[2:]
        if text.endswith("\\"):
            joined, first = joined + text[:-1] + " ", first or number
            continue
        text, joined = joined + text, ""
        line, comment = _split_comment(text.strip())
        if pending is not None:
            yield pending
            pending = None
        if line:
            pending = Command(f"{block.file}:{first or number}", line, comment, [])
        first = 0
    if pending is not None:
        yield pending


def _expand(token: str, env: dict[str, str]) -> str:
    """`~` and `$VAR` as the shell expands them; an absolute path (`/srv/catalog`) moved
    under the scratch folder's `root/`, so that no command writes outside it."""
    if token.startswith("~/") or token == "~":
        token = env["HOME"] + token[1:]
    token = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), token)
    if token.startswith("/") and not token.startswith(env["PWD"]):
        token = env["PWD"] + "/root" + token
    return token


def catalogctl_runs(line: str, env: dict[str, str]) -> list[tuple[dict[str, str], list[str]]]:
    """Each `catalogctl` command of a shell line: its environment assignments and arguments.

    Segments are split at `|`, `&&`, `||` and `;`; redirections are dropped (the output is
    captured); segments of other programs are left out.
    """
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    tokens = list(lexer)
    runs: list[tuple[dict[str, str], list[str]]] = []
    segment: list[str] = []
    for token in [*tokens, ";"]:
        if token in ("|", "&&", "||", ";", "&"):
            assign: dict[str, str] = {}
            while segment and re.fullmatch(r"[A-Za-z_]\w*=.*", segment[0]):
                name, _, value = segment.pop(0).partition("=")
                assign[name] = value
            if segment and segment[0] == "catalogctl":
                runs.append((assign, [_expand(t, env) for t in segment[1:]]))
            segment = []
        else:
            segment.append(token)
    for _, args in runs:  # redirections: an operator and its target
        i = 0
        while i < len(args):
            if set(args[i]) <= set("<>&") and args[i]:
                del args[i : i + 2]
                if i and args[i - 1].isdigit():
                    del args[i - 1]
                    i -= 1
            else:
                i += 1
    return runs


def reaches_network(args: list[str]) -> str | None:
    """Why a command would talk to another machine, or None."""
    if not args:
        return None
    command = args[0]
    if command == "check-links" and "--offline" not in args:
        return "check-links requests every link of the catalog"
    if command in ("check-links", "diff"):
        sources = [a for a in args[1:] if URL.match(a)]
        if sources:
            return f"it reads {sources[0]}"
    return None


def parse_only(args: list[str]) -> str | None:
    """Parse a command line as catalogctl's parser does, without running it: an error, or None."""
    import typer

    from catalogctl.cli.app import make_app

    group = typer.main.get_command(make_app())
    try:
        if not args or args[0].startswith("-"):  # the app's own options: --version, --help
            group.make_context("catalogctl", list(args)).close()
        else:
            parent = group.context_class(group, info_name="catalogctl")
            command = group.get_command(parent, args[0])  # type: ignore[attr-defined]
            if command is None:
                return f"no command {args[0]!r}"
            command.make_context(args[0], list(args[1:]), parent=parent).close()
    except Exception as exc:  # typer bundles its own click: its UsageError is known by name
        if not any(c.__name__ == "UsageError" for c in type(exc).__mro__):
            raise
        return f"{type(exc).__name__}: {exc.format_message()}"  # type: ignore[attr-defined]
    return None


# --- snippets ---------------------------------------------------------------------------------


def json_ready(value: Any) -> Any:
    """TOML and YAML values as an editor's JSON sees them (dates as ISO strings)."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_ready(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return value


def merged(base: dict[str, Any], piece: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in piece.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def front_matter(text: str) -> dict[str, Any] | None:
    """The front matter of a page as written in a snippet, or None when it has none."""
    first = text.split("\n", 1)[0].strip()
    if first in ("---", "+++"):
        body = text.split("\n", 1)[1] if "\n" in text else ""
        end = re.search(rf"^(?:{re.escape(first)}|\.\.\.)\s*$", body, re.MULTILINE)
        head = body[: end.start()] if end else body
        data = yaml.safe_load(head) if first == "---" else tomllib.loads(head)
        return data if isinstance(data, dict) else {}
    if first.startswith("{"):
        decoded, _ = json.JSONDecoder().raw_decode(text.lstrip())
        return decoded if isinstance(decoded, dict) else {}
    return None


def matches(shown: list[str], actual: list[str]) -> str | None:
    """Whether the shown lines are the actual ones, a `…` line standing for any lines left out."""
    i = 0
    for n, want in enumerate(shown):
        if want.strip() == "…":
            continue
        skipping = n > 0 and shown[n - 1].strip() == "…"
        while i < len(actual) and actual[i] != want:
            if not skipping:
                return f"expected {want!r}, got {actual[i]!r}"
            i += 1
        if i == len(actual):
            return f"expected {want!r}, got the end of the output"
        i += 1
    return None
