"""The one URL checker: absolute http(s) URIs as RFC 3986 defines them (base layer).

Every URL that catalogctl publishes, puts in a header or writes into a host config is checked
here first (content, site.toml and command-line options alike), so a value that passes can be
placed in HTML, a `Link` header or an nginx config without changing its meaning:

- ASCII only, from RFC 3986's character set, minus the single quote; no white space, quotes,
  angle brackets, backslashes or control characters; every `%` starts a `%XX` escape;
- `https://` (or a scheme the caller allows), then a host: a DNS name, IPv4 address or
  `[IPv6]` literal, with an optional port; no `user@` part (`https://bank.example@evil.example`);
- `[` and `]` only around an IPv6 host; at most one `#`.

`url_problem()` says what is wrong in words an author can act on; `is_url()` only answers.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from functools import lru_cache

MAX_URL_LENGTH = 4096

_HEX = frozenset("0123456789abcdefABCDEF")
# RFC 3986 unreserved + gen-delims + sub-delims + "%", without "'" (quotes are refused).
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ALLOWED = frozenset(_LETTERS + "0123456789" + "-._~" + ":/?#[]@" + "!$&()*+,;=%")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_LABEL_RE = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")
_IPV4_LIKE_RE = re.compile(r"[0-9.]+")
_PORT_RE = re.compile(r"[0-9]{1,5}")
_NUMERIC_RE = re.compile(r"0[xX][0-9A-Fa-f]*|[0-9]+")
LOOPBACK_NAMES = frozenset({"localhost"})
# The common link: https, a host name in lower case with no port or user, then a path and a
# query without '%', '[', ']' or '#'. Each check of `_full_check` but the host's passes such a
# URL, so `url_problem` answers it with this match and the (cached) host check; a test
# compares the two on generated URLs.
_PLAIN_HTTPS = re.compile(
    r"https://([a-z0-9._-]+)(?:/[A-Za-z0-9\-._~!$&()*+,;=:@/]*)?(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*)?"
)


def shown(value: str, limit: int = 80) -> str:
    """A value quoted for a message: control and invisible characters escaped, long ones cut."""
    cut = value if len(value) <= limit else value[:limit] + "…"
    return repr(cut)


_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]")


def _char_problem(value: str) -> str | None:
    m = _NOT_ALLOWED.search(value)
    if m is None:
        return None
    for i, ch in enumerate(value[m.start() :], m.start()):
        if ch in _ALLOWED:
            continue
        where = f"at position {i + 1}"
        if ch.isspace():
            return f"contains white space {where}; encode it as %20 or remove it"
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            return f"contains the control character {ch!r} {where}"
        if ch in "\"'":
            code = "%22" if ch == '"' else "%27"
            return f"contains a quote {where}; encode it as {code}"
        if ch in "<>":
            code = "%3C" if ch == "<" else "%3E"
            return f"contains an angle bracket {where}; encode it as {code}"
        if 0xDC80 <= ord(ch) <= 0xDCFF:
            return _byte_problem(ch, i)
        if ord(ch) > 0x7F:
            encoded = "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
            return (
                f"contains the non-ASCII character {ch!r} {where}; encode it as {encoded} "
                "(a host name: its xn-- form)"
            )
        return f"contains {ch!r} {where}, which a URL cannot carry; percent-encode it"
    return None


def _byte_problem(ch: str, i: int) -> str:
    # A byte of an argument the locale could not decode (Python's surrogate escape).
    byte = ord(ch) - 0xDC00
    return (
        f"contains the byte \\x{byte:02x} at position {i + 1}, which is not UTF-8 text; "
        f"encode it as %{byte:02X}, or write the character it was meant to be"
    )


_UNDECODED = re.compile("[\udc80-\udcff]")


def undecoded_byte_problem(value: str) -> str | None:
    """What is wrong with a URL given as an argument that holds a byte the locale could not
    decode (it cannot be sent), as `url_problem` words it; None when it holds none."""
    m = _UNDECODED.search(value)
    return None if m is None else _byte_problem(m.group(), m.start())


@lru_cache(maxsize=1024)  # the few hosts of a catalog's links, checked once each
def _host_problem(host: str) -> str | None:
    if not host:
        return "has no host"
    if host.startswith("["):
        if not host.endswith("]"):
            return "has an unclosed '[' in its host"
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"has an invalid IPv6 host {shown(host)}"
        return None
    if "[" in host or "]" in host:
        return "has '[' or ']' outside an IPv6 host"
    if "%" in host:
        return "has a percent-encoded host; write the host name as it is"
    name = host.removesuffix(".")
    if _IPV4_LIKE_RE.fullmatch(name) or _NUMERIC_RE.fullmatch(name.rpartition(".")[2]):
        # A numeric last label makes browsers and resolvers read the whole host as an IPv4
        # address (0x7f.1 and 2130706433 are 127.0.0.1): only the dotted-decimal form passes.
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return f"has an invalid IPv4 host {shown(host)}"
        return None
    if len(name) > 253 or not all(_LABEL_RE.fullmatch(label) for label in name.split(".")):
        return (
            f"has an invalid host name {shown(host)} "
            "(letters, digits, '-' and '_' in dot-separated labels)"
        )
    return None


def url_problem(
    value: object, *, schemes: Collection[str] = ("https",), loopback_http: bool = False
) -> str | None:
    """None when `value` is an absolute URI with one of `schemes` and a host, else the reason.

    `loopback_http` also accepts `http://` for a loopback host (localhost, 127.0.0.0/8, ::1):
    a catalog under test, served and checked on this machine only.
    """
    if not isinstance(value, str):
        return "must be a string"
    if not value:
        return "is empty"
    if len(value) > MAX_URL_LENGTH:
        return f"is {len(value):,} characters long; the limit is {MAX_URL_LENGTH:,}"
    if "https" in schemes:
        plain = _PLAIN_HTTPS.fullmatch(value)
        if plain is not None:
            return _host_problem(plain.group(1))
    return _full_check(value, schemes, loopback_http)


def _full_check(value: str, schemes: Collection[str], loopback_http: bool) -> str | None:
    """`url_problem` for a string of at most `MAX_URL_LENGTH` characters."""
    problem = _char_problem(value)
    if problem:
        return problem
    m = _SCHEME_RE.match(value)
    wanted = " or ".join(f"{s}://" for s in schemes)
    if m is None:
        return f"must be an absolute URL starting with {wanted}"
    scheme = m.group()[:-1].lower()
    local_only = loopback_http and scheme == "http" and scheme not in schemes
    if scheme not in schemes and not local_only:
        return f"must start with {wanted}, not {scheme}:"
    rest = value[m.end() :]
    if not rest.startswith("//"):
        return f"must have a host after {scheme}://"
    authority, tail = _split_authority(rest[2:])
    host, problem = _authority_problem(authority)
    if problem:
        return problem
    if local_only and not is_loopback_host(host):
        return f"must start with {wanted}, not http: (plain http only for a loopback host)"
    return _tail_problem(tail)


def _split_authority(rest: str) -> tuple[str, str]:
    """What follows `scheme://`, split into the authority and the path-query-fragment."""
    end = len(rest)
    for sep in "/?#":
        i = rest.find(sep)
        if i >= 0:
            end = min(end, i)
    return rest[:end], rest[end:]


def _authority_problem(authority: str) -> tuple[str, str | None]:
    """The host of an authority, and what is wrong with the authority (or None)."""
    if "@" in authority:
        return "", "must not carry a user name or password before '@'"
    host, port = authority, ""
    if authority.startswith("["):
        close = authority.find("]")
        if close >= 0:
            host, after = authority[: close + 1], authority[close + 1 :]
            if after and not after.startswith(":"):
                return host, "has characters after its IPv6 host"
            port = after[1:] if after else ""
    elif ":" in authority:
        host, _, port = authority.rpartition(":")
    if ":" in authority and not authority.startswith("[") and not port:
        return host, "has an empty port after ':'"
    if port and (not _PORT_RE.fullmatch(port) or int(port) > 65535):
        return host, f"has an invalid port {shown(port)}"
    return host, _host_problem(host)


def _tail_problem(tail: str) -> str | None:
    """What is wrong with the path, query and fragment of a URL (or None)."""
    if "[" in tail or "]" in tail:
        return "has '[' or ']' outside an IPv6 host; encode them as %5B and %5D"
    if tail.count("#") > 1:
        return "has more than one '#'; encode the others as %23"
    i = tail.find("%")
    while i >= 0:
        if not set(tail[i + 1 : i + 3]) <= _HEX or i + 3 > len(tail):
            return "has a '%' that does not start a %XX escape; encode it as %25"
        i = tail.find("%", i + 3)
    return None


def is_url(
    value: object, *, schemes: Collection[str] = ("https",), loopback_http: bool = False
) -> bool:
    return url_problem(value, schemes=schemes, loopback_http=loopback_http) is None


def is_loopback_host(host: str) -> bool:
    """`localhost`, a name under .localhost, 127.0.0.0/8 or [::1]."""
    name = host.lower().removesuffix(".")
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def host_of(url: str) -> str:
    """The host of a URL that passed `url_problem` (brackets kept around IPv6)."""
    authority = url.partition("://")[2]
    for sep in "/?#":
        authority = authority.partition(sep)[0]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1]
    return authority.rpartition(":")[0] if ":" in authority else authority


def base_url_problem(value: object, *, loopback_http: bool = True) -> str | None:
    """None when `value` can be a catalog's base URL, else the reason.

    https, or http for a loopback host (a catalog served or built for local use) when
    `loopback_http`; an optional path; no query, fragment or trailing '/'.
    """
    problem = url_problem(value, schemes=("http", "https") if loopback_http else ("https",))
    if problem is not None:
        return problem
    assert isinstance(value, str)
    if value[:5].lower() == "http:" and not is_loopback_host(host_of(value)):
        return "must start with https:// (http:// only for localhost, 127.0.0.0/8 or [::1])"
    if "?" in value:
        return "must not carry a query ('?')"
    if "#" in value:
        return "must not carry a fragment ('#')"
    if value.endswith("/"):
        return f"must not end with '/': use {shown(value.rstrip('/'))}"
    return None
