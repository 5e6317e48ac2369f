"""Text laid out for a terminal: lines broken at spaces within a width of cells.

May import: the base layer.
"""

from __future__ import annotations


def wrap_cells(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` terminal cells, broken at spaces, without trailing
    spaces; a word longer than a line is folded. Like rich's wrapping of a plain line, at a
    fraction of its cost for long reports (thousands of findings)."""
    from rich.cells import cell_len

    width = max(1, width)
    if cell_len(text) <= width:
        return [text.rstrip(" ")]
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        size = cell_len(word)
        if line and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line:
            lines.append(line.rstrip(" "))
        rest = word
        while size > width:
            cut = _fit(rest, width)
            lines.append(rest[:cut])
            rest = rest[cut:]
            size = cell_len(rest)
        line, used = rest, size
    if line or not lines:
        lines.append(line.rstrip(" "))
    return lines


def _fit(word: str, width: int) -> int:
    """How many characters of `word` fill at most `width` cells (at least one)."""
    from rich.cells import cell_len

    used = 0
    for i, char in enumerate(word):
        used += cell_len(char)
        if used > width:
            return max(1, i)
    return len(word)
