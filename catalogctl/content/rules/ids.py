"""Checks across the pages' ids: ids equal but for case (`id-case`).

Two ids that differ only in case are two games on Linux, but one on the file systems of macOS
and Windows, which ignore case: a checkout there holds one of the two page files (the other
overwrites it, and `git status` shows it changed), and the games' page URLs (`/games/{id}/`)
collide wherever the website is built on such a disk.
"""

from collections import Counter

from catalogctl.content.rules.page import DRAFT, Entry
from catalogctl.content.rules.registry import Findings, Severities
from catalogctl.findings import Finding


def named(files: list[str]) -> str:
    """Files as a message lists them: the first three, then how many more."""
    return ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")


def _first_other_ids(same: list[Entry], game_id: str, n: int) -> list[Entry]:
    """The first `n` entries of `same` whose id is not `game_id`."""
    out: list[Entry] = []
    for o in same:
        if o.id != game_id:
            out.append(o)
            if len(out) == n:
                break
    return out


def check_id_case(entries: list[Entry], severities: Severities) -> list[Finding]:
    """An `id-case` finding on each page whose id differs from another's only in case."""
    out: list[Finding] = []
    by_lower: dict[str, list[Entry]] = {}
    for e in entries:
        if e.id:  # "": an invalid slug, reported already
            by_lower.setdefault(e.id.lower(), []).append(e)
    if len(by_lower) == len({e.id for e in entries if e.id}):
        return out  # no two ids differ only in case (the common case: one pass)
    for same in by_lower.values():
        if len({e.id for e in same}) < 2:
            continue  # one id, or the same id twice: that is duplicate-id's finding
        published = sum(e.state != DRAFT for e in same)
        # Per page, in constant time: the first few other spellings and files it names
        # (thousands of pages may share one).
        spellings = sorted({e.id for e in same})
        count = Counter(e.id for e in same)
        for e in same:
            ids = [i for i in spellings[:4] if i != e.id][:3]
            more_ids = len(spellings) - 1 - len(ids)
            said = ", ".join(map(repr, ids)) + (f" and {more_ids} more" if more_ids else "")
            others = _first_other_ids(same, e.id, 4)
            files = named([o.file for o in others[:3]]) + (
                f" and {len(same) - count[e.id] - 3} more" if len(others) > 3 else ""
            )
            found = Findings(e.file, severities, draft=published < 2)
            found.add(
                "id-case",
                f"id {e.id!r} differs only in case from {said} "
                f"({files}): macOS and Windows ignore case in file "
                "names, so there the two games share one file or one page folder; give one of "
                "them another slug, or rename its file",
                line=e.id_pos[0],
                column=e.id_pos[1],
                field=e.id_field,
            )
            out.extend(found.items)
    return out
