"""Did-you-mean: the known name closest to a misspelled one, compared case-insensitively.

A key is a typo of a known one when it is within one edit (a letter added, dropped, changed, or
two swapped) of a name of up to five letters, or two edits of a longer one. Candidates are
indexed by their deletion variants (symmetric-delete), so each lookup costs a few dictionary
probes whatever the number of candidates, and answers are cached: a file with 10,000 unknown
keys or 100,000 unknown platforms stays linear.

A name's variants number about the square of its length, each about as long as the name: only
names of up to `MAX_SUGGEST_LENGTH` characters are indexed (a longer one is still found when
written in another case), and a word that could not be two edits from one is not looked up.
The index and each lookup are then linear in the names and the word, whatever they hold:
a word whose length is more than two from every indexed name's, or with more than two letters
that no indexed name holds, is not looked up at all, and
a lookup measures the distance to at most `MAX_CANDIDATES` names (names built to share their
variants, `aaaa…ab`, `aaaa…ac`, …, would otherwise each be measured against every word), and
a suggester at most `MAX_MEASURED` in all; a distance is measured only within two edits of
the diagonal.
"""

from __future__ import annotations

from collections.abc import Iterable

from catalogctl.content.limits import MAX_SUGGEST_LENGTH

MAX_CANDIDATES = 16  # names a lookup measures its word against, at most
# Distances one suggester measures in all: past it, a word gets no suggestion (its finding
# still comes). A site's typos take a few each; only names and words built to share their
# variants reach it, and they then cost a second at most.
MAX_MEASURED = 20_000


def _limit(name: str) -> int:
    return 1 if len(name) <= 5 else 2


def _deletes(word: str, depth: int) -> set[str]:
    out = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


def osa_distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of `a` and `b` (Levenshtein plus adjacent
    swaps) where it is at most `limit`, else `limit + 1`. Only the cells within `limit` of
    the diagonal are computed: a step per letter and band cell, however long the words."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    over = limit + 1
    n = len(b)
    prev2: list[int] = []
    prev = [j if j <= limit else over for j in range(n + 1)]
    for i in range(1, len(a) + 1):
        cur = [over] * (n + 1)
        if i <= limit:
            cur[0] = i
        low, high = max(1, i - limit), min(n, i + limit)
        for j in range(low, high + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, prev2[j - 2] + 1)
            cur[j] = min(best, over)
        if min(cur[low - 1 : high + 1]) > limit:
            return over  # every alignment is past the limit already
        prev2, prev = prev, cur
    return min(prev[-1], over)


class Suggester:
    """Finds the closest of a fixed set of names."""

    __slots__ = (
        "_budget",
        "_cache",
        "_exact",
        "_index",
        "_lengths",
        "_letters",
        "_names",
        "min_length",
    )

    def __init__(self, names: Iterable[str], *, min_length: int = 3) -> None:
        self._names = tuple(names)
        self._exact: dict[str, str] | None = None
        # variant -> the name it comes from, or a tuple of the names when several share it:
        # most variants have one, and a list for each would double the index's memory.
        self._index: dict[str, str | tuple[str, ...]] = {}
        self._cache: dict[str, str | None] = {}
        self._lengths = (0, -1)  # the shortest and longest indexed name (none: empty)
        self._letters: frozenset[str] = frozenset()  # every character of an indexed name
        self._budget = MAX_MEASURED  # distances left to measure
        self.min_length = min_length

    def _build(self) -> dict[str, str]:
        # On first use: most suggesters (one per vocabulary and key level) are never asked.
        exact: dict[str, str] = {}
        for name in self._names:
            low = name.lower()
            exact.setdefault(low, name)
            if len(low) > MAX_SUGGEST_LENGTH:
                continue
            shortest, longest = self._lengths
            self._lengths = (
                len(low) if longest < 0 else min(shortest, len(low)),
                max(longest, len(low)),
            )
            self._letters |= frozenset(low)
            index = self._index
            for variant in _deletes(low, _limit(low)):
                have = index.setdefault(variant, name)
                if have is not name:
                    index[variant] = (have, name) if isinstance(have, str) else (*have, name)
        self._exact = exact
        return exact

    def __call__(self, word: str) -> str | None:
        """The known name `word` is probably a misspelling of, or None."""
        if word in self._cache:
            return self._cache[word]
        found = self._find(word)
        if len(self._cache) < 100_000:
            self._cache[word] = found
        return found

    def _find(self, word: str) -> str | None:
        low = word.lower()
        exact = (self._exact if self._exact is not None else self._build()).get(low)
        if exact is not None:
            return exact if exact != word else None
        shortest, longest = self._lengths
        if len(word) < self.min_length or not shortest - 2 <= len(low) <= longest + 2:
            return None  # no indexed name is within two edits of a word this long or short
        letters = self._letters
        if sum(ch not in letters for ch in low) > 2:
            # Each edit takes away at most one of the word's letters that no name holds
            # (`platfrm0123`): more than two of them, and no name is within two edits.
            return None
        best: tuple[int, str] | None = None
        measured: set[str] = set()
        for variant in _deletes(low, 2 if len(low) > 5 else 1):
            found = self._index.get(variant, ())
            for name in (found,) if isinstance(found, str) else found:
                lname = name.lower()
                if name in measured or abs(len(lname) - len(low)) > _limit(lname):
                    continue
                if len(measured) >= MAX_CANDIDATES or self._budget <= 0:
                    return None if best is None else best[1]
                measured.add(name)
                self._budget -= 1
                d = osa_distance(low, lname, _limit(lname))
                if d <= _limit(lname) and (best is None or (d, name) < best):
                    best = (d, name)
        return None if best is None else best[1]
