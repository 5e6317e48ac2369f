"""Small text helpers shared by every layer (no catalogctl imports)."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
