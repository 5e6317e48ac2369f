"""What a link check found: a verdict per link, the rule each problem breaks, and the figures of
the run (requests, hosts, retries, rate-limited answers, time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from catalogctl.findings import Rule
from catalogctl.links.catalog import Link

State = Literal["ok", "warning", "broken", "excluded"]
Origin = Literal["network", "cache", "offline", "excluded", "syntax"]
Method = Literal["HEAD", "GET"]

# The rules of check-links, as SARIF, GitHub annotations and JUnit name them; the check-links
# page says how a link is judged.
DOCS = "commands/check-links.md#how-a-link-is-judged"
INVALID_URL = Rule(
    "invalid-url",
    "error",
    "A link cannot be requested as written.",
    "Write an absolute http(s) URL with a host and no spaces.",
    docs=DOCS,
)
UNREACHABLE = Rule(
    "unreachable",
    "error",
    "A link gets no HTTP answer (connection refused, DNS, TLS, timeout).",
    "Check the host name and that the server is up; --timeout and --retries tune the patience.",
    docs=DOCS,
)
BROKEN_LINK = Rule(
    "broken-link",
    "error",
    "A link answers with a status that is not accepted, or its redirects go wrong.",
    "Fix or replace the URL; --accept lists the status codes that mean fine (default 2xx).",
    docs=DOCS,
)
NOT_AN_IMAGE = Rule(
    "not-an-image",
    "error",
    "An icon is not served with an image/* Content-Type.",
    "Point the icon at the image itself, not at a page that shows it.",
    docs=DOCS,
)
ICON_TOO_LARGE = Rule(
    "icon-too-large",
    "error",
    "An icon's body is larger than --max-icon-size (4 MiB unless set).",
    "Serve a smaller image, or raise --max-icon-size.",
    docs=DOCS,
)
REDIRECT = Rule(
    "redirect",
    "warning",
    "A game page redirects; a canonical URL should answer itself.",
    "Use the URL the redirect ends at, or fix game_url in site.toml.",
    docs=DOCS,
)
RULES = (INVALID_URL, UNREACHABLE, BROKEN_LINK, NOT_AN_IMAGE, ICON_TOO_LARGE, REDIRECT)
_BY_ID = {r.id: r for r in RULES}


@dataclass(slots=True)
class LinkResult:
    """The verdict on one link: fine, warned, broken or excluded, and why."""

    link: Link
    state: State
    source: Origin
    status: int | None = None  # the status of the answer the verdict rests on
    error: str | None = None  # why the link is broken
    warning: str | None = None
    final_url: str | None = None  # where redirects ended, when they did
    redirects: int = 0
    method: Method | None = None  # the request method of that answer
    rule: str | None = None  # the id of the rule a broken or warned link breaks


def rule_of(r: LinkResult) -> Rule | None:
    """The rule a broken or warned link breaks (None for a fine or excluded link)."""
    return None if r.rule is None else _BY_ID[r.rule]


@dataclass(slots=True)
class LinkReport:
    """Every link's verdict, in catalog order, and the figures of the run."""

    results: list[LinkResult]
    requests: int = 0  # HTTP requests sent
    hosts: int = 0  # distinct hosts (host:port) requested
    retries: int = 0  # requests sent again after a failure worth retrying
    rate_limited: int = 0  # 429 answers, each followed by a pause for that host
    seconds: float = 0.0

    def count(self, state: State) -> int:
        return sum(r.state == state for r in self.results)

    @property
    def cached(self) -> int:
        return sum(r.source == "cache" for r in self.results)

    @property
    def problems(self) -> list[LinkResult]:
        return [r for r in self.results if r.state in ("broken", "warning")]


__all__ = [
    "RULES",
    "LinkReport",
    "LinkResult",
    "Method",
    "Origin",
    "State",
    "rule_of",
]
