"""Strict checks of every URL the catalog publishes or a user names (RFC 3986).

A URL reaches HTML attributes, JSON documents, `Link` headers and nginx configurations, so
it is checked once, strictly, where it enters: an absolute URI with a host, in ASCII, with
no whitespace, quotes, angle brackets, backslashes or control characters, no credentials,
every `%` followed by two hex digits, a DNS name or an IP address as host, and a port in
1..65535. Each check returns the reason a URL is refused (for a finding or an option error)
or None.

May import: nothing of catalogctl (the contract's base).
"""

from __future__ import annotations

import ipaddress
import re

MAX_URL_LENGTH = 2048  # longer URLs are refused: no real page, icon or store link needs more
MAX_HOST_LENGTH = 253  # RFC 1035

# RFC 3986 Appendix B: scheme, authority, path, query, fragment.
_URI = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?\Z", re.S)
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*\Z")
# Characters a URI may hold (unreserved, reserved, '%'), less the single quote, which RFC 3986
# allows but which ends a quoted attribute: percent-encode it as %27.
_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]*\Z")
_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)\Z")
_PORT = re.compile(r"[0-9]{1,5}\Z")
LOOPBACK_NAMES = frozenset({"localhost"})

_EXPLAINED = {
    " ": "a space",
    '"': "a double quote",
    "'": "a single quote (percent-encode it as %27)",
    "<": "'<'",
    ">": "'>'",
    "\\": "a backslash",
    "`": "a backquote",
    "{": "'{'",
    "}": "'}'",
    "|": "'|'",
    "^": "'^'",
}


def _bad_char(url: str) -> str | None:
    for ch in url:
        if _URI_CHARS.match(ch):
            continue
        if ch in _EXPLAINED:
            return f"contains {_EXPLAINED[ch]}"
        if ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            return f"contains the control or whitespace character U+{ord(ch):04X}"
        if ord(ch) > 0x7F:
            return (
                f"contains the non-ASCII character {ch!r}: percent-encode it "
                "(and write an international host name in its xn-- form)"
            )
        return f"contains {ch!r}, which a URL may not hold unencoded"
    return None


def host_problem(host: str) -> str | None:
    """Why `host` (the host part of an authority, brackets included) is not a valid host."""
    if not host:
        return "has no host"
    if host.startswith("["):
        if not host.endswith("]"):
            return f"has an unclosed IPv6 address {host!r}"
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"has an invalid IPv6 address {host!r}"
        return None
    if "%" in host:
        return f"has a percent-encoded host {host!r}; write the host name as it is"
    if len(host) > MAX_HOST_LENGTH:
        return f"has a host name longer than {MAX_HOST_LENGTH} characters"
    labels = host.removesuffix(".").split(".")
    if labels[-1].isdigit():
        # All-numeric last label: only a dotted-quad IPv4 address (no 0x, octal or 32-bit forms
        # that browsers and resolvers read differently).
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"has a host {host!r} that is neither a DNS name nor a dotted IPv4 address"
        return None
    for label in labels:
        if not _LABEL.match(label):
            return f"has an invalid host name {host!r}"
    return None


def split_authority(authority: str) -> tuple[str, str | None]:
    """(host, port) of an authority without credentials; port None when absent."""
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            return authority, None
        rest = authority[end + 1 :]
        return authority[: end + 1], rest[1:] if rest.startswith(":") else (rest or None)
    host, sep, port = authority.rpartition(":")
    return (host, port) if sep else (authority, None)


def is_loopback_host(host: str) -> bool:
    """`localhost`, a name under .localhost, 127.0.0.0/8 or [::1]."""
    name = host.lower().removesuffix(".")
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def url_problem(
    url: str,
    *,
    schemes: tuple[str, ...] = ("https",),
    loopback_http: bool = False,
    base: bool = False,
) -> str | None:
    """Why `url` is not an absolute URI of one of `schemes` with a host, or None.

    `loopback_http` also accepts http for a loopback host (a catalog served locally).
    `base` asks for a base URL: no query, no fragment and no trailing slash.
    """
    if not isinstance(url, str):  # values from parsed documents may be anything
        return "is not a string"
    if not url:
        return "is empty"
    if len(url) > MAX_URL_LENGTH:
        return f"is longer than {MAX_URL_LENGTH} characters"
    bad = _bad_char(url)
    if bad is not None:
        return bad
    if _PCT.search(url):
        return "has a '%' that is not followed by two hex digits"
    m = _URI.match(url)
    if m is None:  # pragma: no cover - the pattern matches every string
        return "is not a URI"
    scheme, authority, path, query, fragment = m.groups()
    if scheme is None:
        return "is not absolute (it has no scheme such as https:)"
    if not _SCHEME.match(scheme):
        if _SCHEME.match(scheme.lower()):
            return f"must write its scheme in lower case ({scheme.lower()}:)"
        return f"has an invalid scheme {scheme!r}"
    if authority is None:
        return "has no host (it must start with " + f"{scheme}://)"
    if "@" in authority:
        return "carries credentials (user@host); a published URL may not"
    host, port = split_authority(authority)
    problem = host_problem(host)
    if problem is not None:
        return problem
    if port is not None and not (_PORT.match(port) and 1 <= int(port) <= 65535):
        return f"has an invalid port {port!r} (1..65535)"
    allowed = schemes
    if loopback_http and is_loopback_host(host):
        allowed = (*schemes, "http")
    if scheme not in allowed:
        wanted = " or ".join(f"{s}://" for s in schemes)
        local = " (http:// only for a loopback host)" if loopback_http else ""
        return f"must be an absolute {wanted} URL{local}, not {scheme}:"
    rest = path + (query or "") + (fragment or "")
    if "[" in rest or "]" in rest:
        return "has '[' or ']' outside an IPv6 host"
    if fragment is not None and "#" in fragment:
        return "has more than one '#'"
    if base:
        if query is not None:
            return "must not carry a query ('?')"
        if fragment is not None:
            return "must not carry a fragment ('#')"
        if url.endswith("/"):
            return f"must not end with '/': use {url.rstrip('/')!r}"
    return None


def https_url_problem(url: str) -> str | None:
    """Why `url` is not an absolute https URL fit to publish, or None."""
    return url_problem(url)


def base_url_problem(url: str, *, loopback_http: bool = True) -> str | None:
    """Why `url` is not a base URL (https, or http on a loopback host), or None."""
    return url_problem(url, loopback_http=loopback_http, base=True)


__all__ = [
    "MAX_URL_LENGTH",
    "base_url_problem",
    "host_problem",
    "https_url_problem",
    "is_loopback_host",
    "split_authority",
    "url_problem",
]
