"""What people read of a `diff`: the summary line, the terminal's tables and the Markdown notes.

The tables and the Markdown share the wording of each field change (`word_diff` for a
description, set and store changes), so both say the same thing. Every text from a catalog
source (names, ids, descriptions, URLs) is cleaned of control characters (and escaped for
Markdown) before it is shown. May import: the cores and below.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from catalogctl.diff.core import SET_FIELDS, DiffResult, attribution_params, plain_store_url
from catalogctl.text import Indented, clean, md_code, md_text, plural

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text


def summary(result: DiffResult) -> str:
    """The summary line: how many changes of each kind."""
    if not (result.catalog_changed or result.warnings or result.contract or result.breaks):
        return f"no differences ({plural(result.new_games, 'game')})"
    parts = [
        f"{len(result.added)} added",
        f"{len(result.removed)} removed",
        f"{len(result.changed)} changed",
        f"{len(result.reordered)} reordered",
        plural(len(result.warnings), "warning"),
    ]
    if result.contract_checked or result.breaks:
        parts.append(plural(len(result.breaks) + len(result.breaking), "breaking change"))
    return ", ".join(parts)


# --- how a field changed ----------------------------------------------------------------------

_WORD_RE = re.compile(r"\s+|[^\s]+")
MAX_WORD_DIFF = 1_000_000  # words before x words after the matcher may compare
Op = Literal["=", "-", "+"]


def word_diff(before: str, after: str) -> list[tuple[Op, str]]:
    """The two texts as runs of kept, removed and added words (whitespace kept)."""
    a, b = _WORD_RE.findall(before), _WORD_RE.findall(after)
    out: list[tuple[Op, str]] = []
    # The common head and tail are kept as they are; the matcher (quadratic at worst) only
    # sees the middle, and a middle too large for it is shown as removed and added whole.
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    if head:
        out.append(("=", "".join(a[:head])))
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    if len(a_mid) * len(b_mid) > MAX_WORD_DIFF:
        if a_mid:
            out.append(("-", "".join(a_mid)))
        if b_mid:
            out.append(("+", "".join(b_mid)))
    else:
        out += _matched(a_mid, b_mid)
    if tail:
        out.append(("=", "".join(a[len(a) - tail :])))
    return out


def _matched(a: list[str], b: list[str]) -> list[tuple[Op, str]]:
    out: list[tuple[Op, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if op in ("replace", "delete"):
            out.append(("-", "".join(a[i1:i2])))
        if op in ("replace", "insert"):
            out.append(("+", "".join(b[j1:j2])))
    return out


def _set_change(change: dict[str, Any]) -> str:
    parts = [f"+{v}" for v in change.get("added", [])]
    parts += [f"−{v}" for v in change.get("removed", [])]
    if not parts:
        return f"order: {', '.join(change['before'])} → {', '.join(change['after'])}"
    return ", ".join(parts)


def _store_lines(
    change: dict[str, Any], code: Callable[[str], str] = str, text: Callable[[str], str] = str
) -> list[str]:
    """Store changes as lines; `code` formats a URL (Markdown wraps it in backticks), `text`
    a store's name or an attribution parameter (Markdown escapes it: a parameter value is
    percent-decoded, `%0A` is a line break)."""
    lines = [f"+{text(n)}" for n in change["added"]] + [f"−{text(n)}" for n in change["removed"]]
    for c in change["changed"]:
        a, b = c["before"], c["after"]
        name = text(str(c["name"]))
        if isinstance(a, str) and isinstance(b, str) and plain_store_url(a) == plain_store_url(b):
            pa, pb = attribution_params(a), attribution_params(b)
            params = [
                f"{text(k)} {text(pa.get(k, '(none)'))} → {text(pb.get(k, '(none)'))}"
                for k in dict.fromkeys([*pa, *pb])
                if pa.get(k) != pb.get(k)
            ]
            lines.append(f"{name}: {', '.join(params) or 'parameter order changed'}")
        else:
            lines.append(f"{name}: {code(str(a))} → {code(str(b))}")
    return lines or ["order changed"]


def _wrap(
    text: str, open_: str, escape: Callable[[str], str] = str, close: str | None = None
) -> str:
    """`text` inside markers, its leading and trailing spaces outside (as Markdown needs)."""
    core = text.strip()
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    return f"{lead}{open_}{escape(core)}{open_ if close is None else close}{trail}"


# --- Markdown -----------------------------------------------------------------------------------


def markdown(result: DiffResult) -> str:
    """Release notes / PR comment."""
    lines = [f"## Catalog changes: {md_code(result.old)} → {md_code(result.new)}", ""]
    lines += [f"**{summary(result)}**", ""]
    if result.breaks:
        lines += ["### Breaking catalog changes", ""]
        lines += [f"- {md_code(b.id)} ({b.kind}): {md_text(b.message)}" for b in result.breaks]
        lines.append("")
    if result.breaking:
        lines += ["### Breaking contract changes (need /api/v2)", ""]
        lines += [f"- {md_code(c.where)}: {md_text(c.message)}" for c in result.breaking]
        lines.append("")
    if result.warnings:
        lines += ["### Warnings", ""]
        lines += [f"- {md_code(w.id)} ({w.kind}): {md_text(w.message)}" for w in result.warnings]
        lines.append("")
    for title, refs in (("Added", result.added), ("Removed", result.removed)):
        if refs:
            lines += [f"### {title} ({len(refs)})", ""]
            lines += [f"- **{md_text(g.name)}** ({md_code(g.id)})" for g in refs]
            lines.append("")
    if result.changed:
        lines += [f"### Changed ({len(result.changed)})", ""]
        for c in result.changed:
            lines.append(f"- **{md_text(c.name)}** ({md_code(c.id)})")
            for name, change in c.fields.items():
                lines.append(f"  - {name}: {_md_field(name, change)}")
        lines.append("")
    if result.reordered:
        lines += [f"### Reordered ({len(result.reordered)})", ""]
        lines += [
            f"- **{md_text(m.name)}** ({md_code(m.id)}): position {m.before} → {m.after}"
            for m in result.reordered
        ]
        lines.append("")
    if result.compatible:
        lines += ["### Compatible contract changes", ""]
        lines += [f"- {md_code(c.where)}: {md_text(c.message)}" for c in result.compatible]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _md_field(name: str, change: dict[str, Any]) -> str:
    if name in SET_FIELDS:
        return md_text(_set_change(change))
    if name == "stores":
        return "; ".join(_store_lines(change, code=md_code, text=md_text))
    if name == "description":
        return "".join(
            md_text(t) if op == "=" else _wrap(t, "~~" if op == "-" else "**", md_text)
            for op, t in word_diff(change["before"], change["after"])
            if t.strip() or op == "="
        )
    return f"{md_text(str(change['before']))} → {md_text(str(change['after']))}"


# --- a pipe, a CI log, a file ------------------------------------------------------------------


def lines(result: DiffResult) -> list[str]:
    """One line per change, never wrapped, for grep: where (a game id or a contract member),
    then what changed, as the tables say it."""
    out = [f"{b.id}: breaking {b.kind} · {b.message}" for b in result.breaks]
    out += [f"{c.where}: breaking · {c.message}" for c in result.breaking]
    out += [f"{w.id}: warning {w.kind} · {w.message}" for w in result.warnings]
    out += [f"{g.id}: added · {g.name}" for g in result.added]
    out += [f"{g.id}: removed · {g.name}" for g in result.removed]
    for game in result.changed:
        out += [
            f"{game.id}: changed {name} · {_plain_field(name, change)}"
            for name, change in game.fields.items()
        ]
    out += [f"{m.id}: reordered · {m.name} · {m.before} → {m.after}" for m in result.reordered]
    out += [f"{c.where}: compatible · {c.message}" for c in result.compatible]
    return [clean(line) for line in out]


def _plain_field(name: str, change: dict[str, Any]) -> str:
    if name in SET_FIELDS:
        return _set_change(change)
    if name == "stores":
        return "; ".join(_store_lines(change))
    if name == "description":
        return "".join(
            t
            if op == "="
            else _wrap(t, "[-" if op == "-" else "{+", close="-]" if op == "-" else "+}")
            for op, t in word_diff(change["before"], change["after"])
            if t.strip() or op == "="
        )
    return f"{change['before']} → {change['after']}"


# --- the terminal -------------------------------------------------------------------------------

# Below this many columns tables would cut words: sections of indented lines instead.
NARROW = 100

Cell = Any  # a rich Text, or plain text


def tables(result: DiffResult, width: int = NARROW) -> list[RenderableType]:
    """Rich tables for the terminal; below `NARROW` columns, titled sections of lines."""
    from rich.text import Text

    sections: list[tuple[str, tuple[str, ...], list[list[Cell]]]] = []

    def section(title: str, *columns: str) -> list[list[Cell]]:
        rows: list[list[Cell]] = []
        sections.append((title, columns, rows))
        return rows

    if result.breaks:
        rows = section("Breaking catalog changes", "Game", "Kind", "Change")
        rows += [
            [Text(clean(b.id)), Text(clean(b.kind), style="red"), Text(clean(b.message))]
            for b in result.breaks
        ]
    if result.breaking:
        rows = section("Breaking contract changes (need /api/v2)", "Where", "Change")
        rows += [
            [Text(clean(c.where)), Text(clean(c.message), style="red")] for c in result.breaking
        ]
    if result.warnings:
        rows = section("Warnings", "Game", "Kind", "Message")
        for w in result.warnings:
            rows.append(
                [Text(clean(w.id)), Text(clean(w.kind), style="yellow"), Text(clean(w.message))]
            )
    for title, refs, style in (
        ("Added", result.added, "green"),
        ("Removed", result.removed, "red"),
    ):
        if refs:
            rows = section(f"{title} ({len(refs)})", "Game", "Name")
            rows += [[Text(clean(g.id), style=style), Text(clean(g.name))] for g in refs]
    if result.changed:
        rows = section(f"Changed ({len(result.changed)})", "Game", "Field", "Change")
        for game in result.changed:
            for i, (name, change) in enumerate(game.fields.items()):
                first = Text(clean(game.id)) if i == 0 else ""
                rows.append([first, clean(name), _text_field(name, change)])
    if result.reordered:
        rows = section(f"Reordered ({len(result.reordered)})", "Game", "Name", "Position")
        for m in result.reordered:
            rows.append([Text(clean(m.id)), Text(clean(m.name)), f"{m.before} → {m.after}"])
    if result.compatible:
        rows = section("Compatible contract changes", "Where", "Change")
        rows += [
            [Text(clean(c.where)), Text(clean(c.message), style="green")] for c in result.compatible
        ]
    render = _table if width >= NARROW else _lines
    return [render(title, columns, rows) for title, columns, rows in sections]


def _table(title: str, columns: tuple[str, ...], rows: list[list[Cell]]) -> RenderableType:
    from rich.table import Table

    t = Table(title=title, title_justify="left", title_style="bold", header_style="bold")
    for c in columns:
        t.add_column(c, overflow="fold")
    for row in rows:
        t.add_row(*row)
    return t


def _lines(title: str, columns: tuple[str, ...], rows: list[list[Cell]]) -> RenderableType:
    """A section as lines: the first cell, then the others indented, wrapped at spaces."""
    from rich.console import Group
    from rich.text import Text

    parts: list[RenderableType] = [Text(title, style="bold")]
    for first, *rest in rows:
        if first:
            parts.append(Indented(Text(first) if isinstance(first, str) else first, 2))
        line = Text(" · ").join(Text(c) if isinstance(c, str) else c for c in rest)
        parts.append(Indented(line, 4, hanging=2))
    parts.append(Text(""))
    return Group(*parts)


def _text_field(name: str, change: dict[str, Any]) -> Text:
    from rich.text import Text

    if name in SET_FIELDS:
        text = Text()
        for v in change["added"]:
            text.append(f"+{clean(str(v))} ", style="green")
        for v in change["removed"]:
            text.append(f"−{clean(str(v))} ", style="red")
        return text if text else Text(clean(_set_change(change)))
    if name == "stores":
        return Text("\n".join(clean(line) for line in _store_lines(change)))
    if name == "description":
        text = Text()
        # Markers as in `git diff --word-diff=plain`, readable without colour too.
        for op, raw in word_diff(change["before"], change["after"]):
            t = clean(raw)
            if op == "=":
                text.append(t)
            elif t.strip():
                minus = op == "-"
                marked = _wrap(t, "[-" if minus else "{+", close="-]" if minus else "+}")
                text.append(marked, style="red" if minus else "green")
        return text
    text = Text(clean(str(change["before"])), style="red")
    text.append(" → ", style="")
    text.append(clean(str(change["after"])), style="green")
    return text
