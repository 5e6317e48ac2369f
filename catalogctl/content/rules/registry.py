"""Every rule `validate` applies: its stable id, default severity and what it checks.

This table is the one list of rules: findings name their rule by id, `[rules]` in site.toml
changes the severity of the configurable ones, and `catalogctl validate --list-rules` prints it.
A rule that is not configurable guards what the catalog can publish at all (a file that cannot
be parsed, a URL that is not a URL); turning it off would publish something broken.
"""

from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from catalogctl.findings import ERROR, WARNING, Finding, Severity, report_order

Level = Literal["error", "warning", "off"]
OFF: Level = "off"


class Rule(NamedTuple):
    id: str
    severity: Severity
    configurable: bool
    summary: str


def _r(rule_id: str, severity: Severity, configurable: bool, summary: str) -> Rule:
    return Rule(rule_id, severity, configurable, summary)


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        # files and the content tree
        _r("site-missing", ERROR, False, "site.toml is missing from the content tree"),
        _r("games-folder", ERROR, False, "the games folder is missing or outside the tree"),
        _r("not-a-file", ERROR, False, "a page is not a regular file (FIFO, socket, device)"),
        _r("broken-symlink", ERROR, False, "a symlink is dangling or loops"),
        _r("symlink-outside", ERROR, False, "a symlink leads out of the content tree"),
        _r("file-name", ERROR, False, "a file name is not valid UTF-8"),
        _r("portable-name", ERROR, True, "a file or folder name Windows cannot hold"),
        _r("unreadable-file", ERROR, False, "a file cannot be read"),
        _r("encoding", ERROR, False, "a file is not UTF-8"),
        _r("parser-crash", ERROR, False, "the parser process died or hung on a file"),
        # front matter
        _r("front-matter", ERROR, False, "no front matter, never closed, empty or not a mapping"),
        _r("syntax", ERROR, False, "YAML, TOML or JSON syntax error"),
        _r("limit", ERROR, False, "input over a limit: size, nesting depth, number length, keys"),
        _r("duplicate-key", ERROR, True, "a key given twice in one mapping"),
        _r("unknown-key", WARNING, True, "a front-matter key close to a catalog key (a typo?)"),
        _r(
            "misspelled-key",
            ERROR,
            True,
            "a key close to draft, slug or a date key: the page would publish when or where "
            "it should not",
        ),
        # values of a game page
        _r("missing-field", ERROR, False, "a required catalog key is missing"),
        _r("wrong-type", ERROR, False, "a value has the wrong type"),
        _r("empty-value", ERROR, False, "a required value is blank or an empty list"),
        _r("invalid-id", ERROR, False, "an id that cannot be a URL path segment"),
        _r("id-style", WARNING, True, "an id that is not a lowercase slug"),
        _r("invalid-date", ERROR, False, "a date that is not an ISO 8601 date or date-time"),
        _r("vocabulary", ERROR, True, "a platform or genre outside the lists in site.toml"),
        _r(
            "duplicate-value",
            WARNING,
            True,
            "a platform or genre listed twice, in a page or in site.toml (there in any case)",
        ),
        _r(
            "control-character",
            ERROR,
            True,
            "published text holding a control character: ESC, NUL, U+202E, a line break in a name",
        ),
        _r(
            "invisible-character",
            WARNING,
            True,
            "published text holding an invisible character: U+200B, a direction mark, a "
            "joiner with nothing to join",
        ),
        _r("invalid-url", ERROR, False, "not an absolute https URL (RFC 3986), or a bad site path"),
        _r("unknown-store", ERROR, False, "a store key that site.toml does not define"),
        _r(
            "store-url",
            ERROR,
            True,
            "a store URL that does not fit its store's kind, or that is another known store's",
        ),
        _r(
            "store-host",
            WARNING,
            True,
            "a store link on none of its store's hosts, or to a page there that is no game's",
        ),
        _r("store-platform", WARNING, True, "a platform without its store link, or the reverse"),
        _r(
            "body-links",
            WARNING,
            True,
            "a store link that cannot be read from page bodies: a store without known hosts, "
            "a host two stores share, a body past the size read",
        ),
        # site.toml
        _r("base-url", ERROR, False, "base_url ends with '/' or carries a query or fragment"),
        _r("game-url", ERROR, False, "game_url does not contain {id}"),
        _r("store-params", ERROR, False, "an attribution parameter that cannot be published"),
        _r("store-hosts", ERROR, False, "a [stores] hosts entry that is not a host name"),
        _r(
            "spec-params",
            WARNING,
            True,
            "attribution parameters differ from those the API contract names",
        ),
        _r("api-lifecycle", ERROR, False, "inconsistent deprecation and sunset settings"),
        _r("migration-link", WARNING, True, "a deprecated version without a migration guide"),
        _r("unknown-setting", ERROR, False, "a key of site.toml that catalogctl does not know"),
        _r("unused-exclude", WARNING, True, "an exclude pattern that names no page"),
        _r(
            "field-mapping",
            ERROR,
            False,
            "a [fields] entry that is not a key path, a required key's entry that no page has, "
            "or one that runs through a list without picking an item",
        ),
        _r(
            "unused-mapping",
            WARNING,
            True,
            "a [fields] entry of an optional key or of a store that no page has yet",
        ),
        _r("unlinked-store", WARNING, True, "a store of site.toml that no page links yet"),
        _r("rule-config", ERROR, False, "a [rules] entry that cannot be applied"),
        # the catalog
        _r("duplicate-id", ERROR, False, "two pages publish the same id"),
        _r("id-case", ERROR, True, "two ids equal but for case (one on macOS and Windows)"),
        _r("empty-catalog", ERROR, True, "no game is published"),
    )
}


def rules_table() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.id)


class Severities:
    """The severity of each rule: its default, or what `[rules]` in site.toml says."""

    __slots__ = ("_levels",)

    def __init__(self, overrides: Mapping[str, Level] | None = None) -> None:
        levels: dict[str, Level] = {r.id: r.severity for r in RULES.values()}
        for rule_id, level in (overrides or {}).items():
            rule = RULES.get(rule_id)
            if rule is not None and rule.configurable:
                levels[rule_id] = level
        self._levels = levels

    def level(self, rule_id: str) -> Level:
        return self._levels.get(rule_id, ERROR)


DEFAULT_SEVERITIES = Severities()


# Findings of one rule kept for one file: past it, one more says how many were left out. A
# page's report grows with what a person can read and fix, not with a file of 99,000
# repeated keys (a 300 MB report).
MAX_PER_RULE = 200
# Findings of one rule kept for a whole run, the same way: 2,000 pages of 200 findings each
# made a 140 MB report that took a gigabyte to write. 5,000 is what GitHub code scanning keeps
# of one upload, and 25 files' worth at the cap of a file: findings of one rule that many
# times over have one cause to fix, not one each to read.
MAX_PER_RULE_RUN = 5_000


class Findings:
    """Collects the findings of one file: severity from the rule, lowered for drafts; at most
    MAX_PER_RULE of a rule, and then one that counts the others."""

    __slots__ = ("_items", "draft", "file", "left_out", "severities")

    def __init__(self, file: str, severities: Severities, *, draft: bool = False) -> None:
        self.file = file
        self.severities = severities
        self.draft = draft
        self._items: list[Finding] = []
        # (file, rule) -> [findings of it kept, findings of it left out, their severity]
        self.left_out: dict[tuple[str, str], list[Any]] = {}

    @property
    def items(self) -> list[Finding]:
        """The findings kept, then one a rule that had more, saying how many more."""
        more = [
            Finding(
                file,
                None,
                None,
                f"and {n:,} more {rule} findings in this file, not listed; fix those above "
                "and run validate again",
                severity,
                rule=rule,
                tally=n,
            )
            for (file, rule), (_, n, severity) in self.left_out.items()
            if n
        ]
        return self._items + more if more else self._items

    def keeps(self, rule: str, file: str | None = None) -> bool:
        """Whether a finding of `rule` added now would be listed, not only counted: the work
        of placing one (its line and column, its did-you-mean) is for those listed."""
        if self.severities.level(rule) == OFF:
            return False
        counted = self.left_out.get((file or self.file, rule))
        return counted is None or counted[0] < MAX_PER_RULE

    def count(self, rule: str, file: str | None = None) -> None:
        """A finding of `rule` that `keeps` said would not be listed: counted only."""
        self.add(rule, "", file=file)

    def add(
        self,
        rule: str,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
        file: str | None = None,
    ) -> None:
        level = self.severities.level(rule)
        if level == OFF:
            return
        severity: Severity = WARNING if self.draft or level == WARNING else ERROR
        counted = self.left_out.setdefault((file or self.file, rule), [0, 0, severity])
        if counted[0] >= MAX_PER_RULE:
            counted[1] += 1
            return
        counted[0] += 1
        self._items.append(
            Finding(file or self.file, line, field, message, severity, rule=rule, column=column)
        )


def cap_run(findings: list[Finding]) -> list[Finding]:
    """At most MAX_PER_RULE_RUN findings of a rule in a run: the first in the order the report
    lists them, then, for each severity of those left out, one finding that counts them, in
    the first file they are in (the summary counts them all the same)."""
    per_rule = Counter(f.rule for f in findings)
    over = {rule for rule, n in per_rule.items() if n > MAX_PER_RULE_RUN}
    if not over:
        return findings
    kept: list[Finding] = []
    by_rule: dict[str, list[Finding]] = {rule: [] for rule in sorted(over)}
    for f in findings:
        (by_rule[f.rule] if f.rule in over else kept).append(f)
    for rule, found in by_rule.items():
        found.sort(key=report_order)
        kept += found[:MAX_PER_RULE_RUN]
        left: dict[Severity, tuple[int, dict[str, None]]] = {}
        for f in found[MAX_PER_RULE_RUN:]:
            n, files = left.get(f.severity, (0, {}))
            files[f.file] = None
            left[f.severity] = (n + f.tally, files)
        for severity, (n, files) in left.items():
            first = next(iter(files))
            after = f" and {len(files) - 1:,} files after it" if len(files) > 1 else ""
            kept.append(
                Finding(
                    first,
                    None,
                    None,
                    f"and {n:,} more {rule} findings in this file{after}, not listed (a run "
                    f"lists {MAX_PER_RULE_RUN:,} findings of a rule); fix those listed and run "
                    "validate again",
                    severity,
                    rule=rule,
                    tally=n,
                )
            )
    return kept
