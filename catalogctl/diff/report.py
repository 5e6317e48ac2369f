"""A `diff` result for people and tools: its rules, change items, rich tables, Markdown.

Every text from a catalog source (names, ids, descriptions, URLs) is passed through
`catalogctl.text.clean` before it reaches a table or a document.

Why one module: the change items (what the machine formats read), the
tables and the Markdown are renderings of one `DiffResult` that share the wording of each
change (`warning_rule`, `change_message`, `word_diff`), so every format says the same thing.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any, Literal

from catalogctl.diff.core import SET_FIELDS, DiffResult, attribution_params, plain_store_url
from catalogctl.findings import Rule
from catalogctl.text import Indented, clean, md_code, md_text

if TYPE_CHECKING:
    from rich.console import RenderableType

# The rules of diff, as SARIF, GitHub annotations and JUnit name them.
BREAKING = Rule(
    "breaking-change",
    "error",
    "The published contract changes in a way that breaks existing clients.",
    "Keep the field or parameter in /api/v1 and make the change in a new version (/api/v2).",
)
COMPATIBLE = Rule(
    "compatible-change", "note", "The published contract changes in a way clients can ignore."
)
ADDED = Rule("added-game", "note", "A game is added to the catalog.")
REMOVED = Rule(
    "removed-game",
    "note",
    "A game is removed from the catalog.",
    "Clients that kept its id lose it; say so in the release notes.",
)
CHANGED = Rule("changed-game", "note", "A game's published fields change.")
REORDERED = Rule("reordered-game", "note", "A game moves in the catalog order.")
ID_RENAME = Rule(
    "id-rename",
    "error",
    "A game looks renamed: one id removed, another with the same name or store link added.",
    "Clients key games by id: keep the old id (slug) unless the rename is intended.",
)
GAME_REMOVED = Rule(
    "game-removed",
    "error",
    "A game is removed: clients that kept its id will not find it again.",
    "Keep the game (as a draft page it stays out), or announce the removal.",
)
STORE_APP_CHANGED = Rule(
    "store-app-changed",
    "error",
    "A store link now opens another app (another App Store id or Google Play package).",
    "Check the store URL: clients that match the app by its link lose it.",
)
ATTRIBUTION = Rule(
    "attribution",
    "warning",
    "A store link's attribution parameters change.",
    "Check the store parameters in site.toml: install attribution depends on them.",
)
PLATFORM_STORE = Rule(
    "platform-store",
    "warning",
    "A platform loses its store link.",
    "Add the store link back, or remove the platform from the game.",
)
_OTHER_WARNING = Rule("release-warning", "warning", "A change that needs a second look.")
RULES = (
    BREAKING,
    GAME_REMOVED,
    ID_RENAME,
    STORE_APP_CHANGED,
    ATTRIBUTION,
    PLATFORM_STORE,
    REMOVED,
    ADDED,
    CHANGED,
    REORDERED,
    COMPATIBLE,
)
_WARNING_RULES = {r.id: r for r in (ATTRIBUTION, PLATFORM_STORE)}
_BREAK_RULES = {r.id: r for r in (GAME_REMOVED, ID_RENAME, STORE_APP_CHANGED)}


def warning_rule(kind: str) -> Rule:
    return _WARNING_RULES.get(kind, _OTHER_WARNING)


def changes(result: DiffResult) -> list[dict[str, Any]]:
    """Every difference as one item with its kind and rule (the JSON envelope's `changes`)."""
    out: list[dict[str, Any]] = []

    def add(kind: str, rule: Rule, **data: Any) -> None:
        out.append({"kind": kind, "rule": rule.id, "severity": rule.severity, **data})

    for b in result.breaks:
        data = b.to_json()
        del data["kind"]  # the rule names it
        add("breaking", _BREAK_RULES[b.kind], **data)
    for c in result.breaking:
        add("breaking", BREAKING, where=c.where, message=c.message)
    for w in result.warnings:
        data = w.to_json()
        del data["kind"]  # the rule names it
        add("warning", warning_rule(w.kind), **data)
    for g in result.removed:
        add("removed", REMOVED, id=g.id, name=g.name)
    for g in result.added:
        add("added", ADDED, id=g.id, name=g.name)
    for ch in result.changed:
        add("changed", CHANGED, id=ch.id, name=ch.name, fields=ch.fields)
    for m in result.reordered:
        add("reordered", REORDERED, id=m.id, name=m.name, before=m.before, after=m.after)
    for c in result.compatible:
        add("compatible", COMPATIBLE, where=c.where, message=c.message)
    return out


def change_message(item: dict[str, Any]) -> str:
    """One line for an annotation or a test case (cleaned of control characters)."""
    kind = item["kind"]
    if kind in ("breaking", "compatible", "warning"):
        text = item["message"]  # the game or contract member is the result's location
    elif kind == "changed":
        text = f"{item['name']} changed: {', '.join(item['fields'])}"
    elif kind == "reordered":
        text = f"{item['name']} moved from position {item['before']} to {item['after']}"
    else:
        text = f"{item['name']} {kind}"
    return clean(text)


_WORD_RE = re.compile(r"\s+|[^\s]+")
MAX_WORD_DIFF = 1_000_000  # words before x words after the matcher may compare


def word_diff(before: str, after: str) -> list[tuple[Literal["=", "-", "+"], str]]:
    """The two texts as runs of kept, removed and added words (whitespace kept)."""
    a, b = _WORD_RE.findall(before), _WORD_RE.findall(after)
    out: list[tuple[Literal["=", "-", "+"], str]] = []
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


def _matched(a: list[str], b: list[str]) -> list[tuple[Literal["=", "-", "+"], str]]:
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


_md = md_text
_md_code = md_code


def to_markdown(result: DiffResult) -> str:
    """Release notes / PR comment."""
    lines = [f"## Catalog changes: {_md_code(result.old)} → {_md_code(result.new)}", ""]
    lines += [f"**{summary(result)}**", ""]
    if result.breaks:
        lines += ["### Breaking catalog changes", ""]
        lines += [f"- {_md_code(b.id)} ({b.kind}): {_md(b.message)}" for b in result.breaks]
        lines.append("")
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


# Below this many columns tables would cut words: sections of indented lines instead.
NARROW = 100

Cell = Any  # a rich Text, or plain text


def to_renderables(result: DiffResult, width: int = NARROW) -> list[RenderableType]:
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


def _text_field(name: str, change: dict[str, Any]) -> Any:
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
