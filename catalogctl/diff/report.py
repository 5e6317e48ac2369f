"""Printing a `diff` result: rich tables, Markdown release notes (JSON is `to_json`)."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any, Literal

from catalogctl.diff.core import SET_FIELDS, DiffResult, attribution_params, plain_store_url

if TYPE_CHECKING:
    from rich.console import RenderableType

_WORD_RE = re.compile(r"\s+|[^\s]+")


def word_diff(before: str, after: str) -> list[tuple[Literal["=", "-", "+"], str]]:
    """The two texts as runs of kept, removed and added words (whitespace kept)."""
    a, b = _WORD_RE.findall(before), _WORD_RE.findall(after)
    out: list[tuple[Literal["=", "-", "+"], str]] = []
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


def _store_lines(change: dict[str, Any], code: Any = str) -> list[str]:
    """Store changes as lines; `code` formats a URL (Markdown wraps it in backticks)."""
    lines = [f"+{n}" for n in change["added"]] + [f"−{n}" for n in change["removed"]]
    for c in change["changed"]:
        a, b = c["before"], c["after"]
        if isinstance(a, str) and isinstance(b, str) and plain_store_url(a) == plain_store_url(b):
            pa, pb = attribution_params(a), attribution_params(b)
            params = [
                f"{k} {pa.get(k, '(none)')} → {pb.get(k, '(none)')}"
                for k in dict.fromkeys([*pa, *pb])
                if pa.get(k) != pb.get(k)
            ]
            lines.append(f"{c['name']}: {', '.join(params) or 'parameter order changed'}")
        else:
            lines.append(f"{c['name']}: {code(str(a))} → {code(str(b))}")
    return lines or ["order changed"]


def summary(result: DiffResult) -> str:
    from catalogctl.text import plural

    if not (result.catalog_changed or result.warnings or result.contract):
        return f"no differences ({plural(result.new_games, 'game')})"
    parts = [
        f"{len(result.added)} added",
        f"{len(result.removed)} removed",
        f"{len(result.changed)} changed",
        f"{len(result.reordered)} reordered",
        plural(len(result.warnings), "warning"),
    ]
    if result.contract_checked:
        parts.append(plural(len(result.breaking), "breaking change"))
    return ", ".join(parts)


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|#~])", r"\\\1", text)


def _md_code(text: str) -> str:
    return f"`{text.replace('`', 'ˋ')}`"


def to_markdown(result: DiffResult) -> str:
    """Release notes / PR comment."""
    lines = [f"## Catalog changes: {_md_code(result.old)} → {_md_code(result.new)}", ""]
    lines += [f"**{summary(result)}**", ""]
    if result.breaking:
        lines += ["### Breaking contract changes (need /api/v2)", ""]
        lines += [f"- {_md_code(c.where)}: {_md(c.message)}" for c in result.breaking]
        lines.append("")
    if result.warnings:
        lines += ["### Warnings", ""]
        lines += [f"- {_md_code(w.id)} ({w.kind}): {_md(w.message)}" for w in result.warnings]
        lines.append("")
    for title, refs in (("Added", result.added), ("Removed", result.removed)):
        if refs:
            lines += [f"### {title} ({len(refs)})", ""]
            lines += [f"- **{_md(g.name)}** ({_md_code(g.id)})" for g in refs]
            lines.append("")
    if result.changed:
        lines += [f"### Changed ({len(result.changed)})", ""]
        for c in result.changed:
            lines.append(f"- **{_md(c.name)}** ({_md_code(c.id)})")
            for name, change in c.fields.items():
                lines.append(f"  - {name}: {_md_field(name, change)}")
        lines.append("")
    if result.reordered:
        lines += [f"### Reordered ({len(result.reordered)})", ""]
        lines += [
            f"- **{_md(m.name)}** ({_md_code(m.id)}): position {m.before} → {m.after}"
            for m in result.reordered
        ]
        lines.append("")
    if result.compatible:
        lines += ["### Compatible contract changes", ""]
        lines += [f"- {_md_code(c.where)}: {_md(c.message)}" for c in result.compatible]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _md_field(name: str, change: dict[str, Any]) -> str:
    if name in SET_FIELDS:
        return _md(_set_change(change))
    if name == "stores":
        return "; ".join(_store_lines(change, code=_md_code))
    if name == "description":
        return "".join(
            _md(t) if op == "=" else _wrap(t, "~~" if op == "-" else "**", _md)
            for op, t in word_diff(change["before"], change["after"])
            if t.strip() or op == "="
        )
    return f"{_md(str(change['before']))} → {_md(str(change['after']))}"


def _wrap(text: str, open_: str, escape: Any = str, close: str | None = None) -> str:
    """`text` inside markers, its leading and trailing spaces outside (as Markdown needs)."""
    core = text.strip()
    lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
    return f"{lead}{open_}{escape(core)}{open_ if close is None else close}{trail}"


def to_renderables(result: DiffResult) -> list[RenderableType]:
    """Rich tables for the terminal."""
    from rich.table import Table
    from rich.text import Text

    out: list[RenderableType] = []

    def table(title: str, *columns: str) -> Table:
        t = Table(title=title, title_justify="left", title_style="bold", header_style="bold")
        for c in columns:
            t.add_column(c, overflow="fold")
        out.append(t)
        return t

    if result.breaking:
        t = table("Breaking contract changes (need /api/v2)", "Where", "Change")
        for c in result.breaking:
            t.add_row(Text(c.where), Text(c.message, style="red"))
    if result.warnings:
        t = table("Warnings", "Game", "Kind", "Message")
        for w in result.warnings:
            t.add_row(Text(w.id), Text(w.kind, style="yellow"), Text(w.message))
    for title, refs, style in (
        ("Added", result.added, "green"),
        ("Removed", result.removed, "red"),
    ):
        if refs:
            t = table(f"{title} ({len(refs)})", "Game", "Name")
            for g in refs:
                t.add_row(Text(g.id, style=style), Text(g.name))
    if result.changed:
        t = table(f"Changed ({len(result.changed)})", "Game", "Field", "Change")
        for game in result.changed:
            for i, (name, change) in enumerate(game.fields.items()):
                t.add_row(Text(game.id) if i == 0 else "", name, _text_field(name, change))
    if result.reordered:
        t = table(f"Reordered ({len(result.reordered)})", "Game", "Name", "Position")
        for m in result.reordered:
            t.add_row(Text(m.id), Text(m.name), f"{m.before} → {m.after}")
    if result.compatible:
        t = table("Compatible contract changes", "Where", "Change")
        for c in result.compatible:
            t.add_row(Text(c.where), Text(c.message, style="green"))
    return out


def _text_field(name: str, change: dict[str, Any]) -> Any:
    from rich.text import Text

    if name in SET_FIELDS:
        text = Text()
        for v in change["added"]:
            text.append(f"+{v} ", style="green")
        for v in change["removed"]:
            text.append(f"−{v} ", style="red")
        return text if text else Text(_set_change(change))
    if name == "stores":
        return Text("\n".join(_store_lines(change)))
    if name == "description":
        text = Text()
        # Markers as in `git diff --word-diff=plain`, readable without colour too.
        for op, t in word_diff(change["before"], change["after"]):
            if op == "=":
                text.append(t)
            elif t.strip():
                minus = op == "-"
                marked = _wrap(t, "[-" if minus else "{+", close="-]" if minus else "+}")
                text.append(marked, style="red" if minus else "green")
        return text
    text = Text(str(change["before"]), style="red")
    text.append(" → ", style="")
    text.append(str(change["after"]), style="green")
    return text
