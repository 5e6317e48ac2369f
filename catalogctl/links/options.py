"""What a link check may do: one typed options object, and the parsers of the option texts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalogctl import __version__
from catalogctl.errors import InputError
from catalogctl.text import quoted, undecoded_bytes

if TYPE_CHECKING:
    from catalogctl.sources.net import NetworkPolicy

USER_AGENT = (
    f"catalogctl/{__version__} (catalog link checker; +https://github.com/catalogctl/catalogctl)"
)
DEFAULT_ACCEPT = frozenset(range(200, 300))
MiB = 1024 * 1024

_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.IGNORECASE)
_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Every setting of one link check (the command line's options, checked)."""

    max_concurrency: int = 64  # requests in flight at most
    host_concurrency: int = 8  # requests in flight to one host at most
    timeout: float = 10.0  # seconds one request may take: lookup, connect, answer (and body read)
    retries: int = 3  # further attempts after connection errors and 408, 425, 5xx answers
    backoff: float = 0.25  # first retry pause; doubles each time
    max_retry_wait: float = 10.0  # bound on a retry pause (Retry-After of a 503 included)
    # How long a host answering 429 may hold one link back before the link counts as broken.
    rate_limit_wait: float = 60.0
    max_redirects: int = 10
    max_icon_size: int = 4 * MiB  # an icon's body larger than this is a finding
    accept: frozenset[int] = DEFAULT_ACCEPT
    include: tuple[re.Pattern[str], ...] = ()
    exclude: tuple[re.Pattern[str], ...] = ()
    user_agent: str = USER_AGENT
    offline: bool = False
    cache: Path | None = None
    max_cache_age: float = 86400.0
    allow_private: bool = False  # follow redirects from public hosts to private addresses
    # Where requests may go (catalogctl.sources.net); None: the default policy, with
    # `allow_private`. Tests give one that names hosts without DNS.
    policy: NetworkPolicy | None = None

    def wanted(self, url: str) -> bool:
        if self.include and not any(p.search(url) for p in self.include):
            return False
        return not any(p.search(url) for p in self.exclude)


def parse_duration(text: str) -> float:
    """Seconds of `90`, `90s`, `30m`, `12h`, `1d` or `2w`."""
    m = _DURATION_RE.match(text)
    if m is None:
        raise InputError(f"not a duration: {quoted(text)} (use e.g. 90s, 30m, 12h, 1d)")
    return float(m.group(1)) * _DURATION_UNITS[m.group(2).lower()]


def parse_accept(text: str) -> frozenset[int]:
    """Status codes from `200..299,403` (ranges with `..` or `-`)."""
    codes: set[int] = set()
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            continue
        lo, sep, hi = part.replace("..", "-").partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise InputError(f"--accept: not a status code or range: {quoted(part)}") from None
        if not (100 <= first <= last <= 999):
            raise InputError(f"--accept: status codes lie in 100..999, got {quoted(part)}")
        codes.update(range(first, last + 1))
    if not codes:
        raise InputError("--accept: give at least one status code")
    return frozenset(codes)


def compile_patterns(patterns: Sequence[str], option: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p))
        except re.error as exc:
            raise InputError(
                f"{option}: invalid regular expression {quoted(p)}: {undecoded_bytes(str(exc))}"
            ) from None
    return tuple(out)


def size_text(n: int) -> str:
    """`4 MiB`, `512 KiB` or `1,234 bytes`."""
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n:,} bytes"


__all__ = [
    "DEFAULT_ACCEPT",
    "USER_AGENT",
    "CheckOptions",
    "compile_patterns",
    "parse_accept",
    "parse_duration",
    "size_text",
]
