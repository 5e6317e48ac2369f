"""What a command read from a content tree: every file of the games folder, counted once."""

from typing import NamedTuple

from catalogctl.text import plural


class ReadSummary(NamedTuple):
    """What a command read from a content tree, and what it left out.

    Each page is counted once: `pages` = published + drafts + scheduled + expired + failed +
    unchecked + outside (the pages not of `[content] category`). The other files of the games
    folder are translations, section pages, resources of leaf bundles, or ignored (counted by
    extension).
    """

    pages: int = 0  # page files read in the published language
    published: int = 0  # pages that publish a game, without an error
    drafts: int = 0  # `draft: true` (their problems are warnings)
    scheduled: int = 0  # publishDate in the future
    expired: int = 0  # expiryDate in the past
    failed: int = 0  # pages with an error (drafts aside)
    unchecked: int = 0  # pages read but not checked: site.toml or its [fields] could not be read
    translations: int = 0  # pages in other languages, skipped
    sections: int = 0  # _index.md section pages, skipped
    resources: int = 0  # files of leaf bundles besides their index.md
    excluded: int = 0  # pages that `[content] exclude` names: not read
    ignored: tuple[tuple[str, int], ...] = ()  # other files by extension (".png", "" for none)
    outside: int = 0  # pages not of `[content] category`: read, not games
    category: str | None = None  # `[content] category`

    @property
    def ignored_files(self) -> int:
        return sum(n for _, n in self.ignored)

    def describe(self) -> str:
        """One line: `read 14 pages: 12 published, 1 draft, …`."""
        parts = [f"{self.published} published"]
        for n, words in (
            (self.drafts, ("draft", "drafts")),
            (self.scheduled, ("scheduled", "scheduled")),
            (self.expired, ("expired", "expired")),
            (self.failed, ("with errors", "with errors")),
            (self.unchecked, ("not checked", "not checked")),
        ):
            if n:
                parts.append(f"{n} {words[n != 1]}")
        if self.outside:
            parts.append(f"{self.outside} outside the category {self.category!r}")
        text = f"read {plural(self.pages, 'page')}: {', '.join(parts)}"
        skipped = [
            plural(n, word)
            for n, word in (
                (self.translations, "translation"),
                (self.sections, "section page"),
                (self.resources, "bundle resource"),
                (self.excluded, "excluded page"),
            )
            if n
        ]
        if skipped:
            text += "; skipped " + (
                skipped[0] if len(skipped) == 1 else f"{', '.join(skipped[:-1])} and {skipped[-1]}"
            )
        if self.ignored:
            kinds = ", ".join(f"{n} {kind or 'without extension'}" for kind, n in self.ignored)
            text += f"; ignored {plural(self.ignored_files, 'other file')} ({kinds})"
        return text

    def to_json(self) -> dict[str, int | dict[str, int]]:
        return {
            "pages": self.pages,
            "published": self.published,
            "drafts": self.drafts,
            "scheduled": self.scheduled,
            "expired": self.expired,
            "failed": self.failed,
            "unchecked": self.unchecked,
            "outside_category": self.outside,
            "translations": self.translations,
            "sections": self.sections,
            "resources": self.resources,
            "excluded": self.excluded,
            "ignored": self.ignored_files,
            "ignored_by_extension": dict(self.ignored),
        }
