"""Checks of option values that end up in response headers, request headers and host configs.

Each check returns the reason a value is refused, or None; the command line turns a reason into
a usage error (exit 2) naming the option, before anything is rendered, written or served.
Values are checked against their grammar (RFC 9110/9111), not just for bad characters, so a
value that passes cannot add header lines, end a configuration directive or open a variable.

May import: catalogctl.contract and the base layer.
"""

from __future__ import annotations

import re

from catalogctl.urls import url_problem

MAX_HEADER_VALUE = 1024  # longest option value written into a header
MAX_UNIX_PATH = 107  # sun_path holds 108 bytes with the terminating NUL

_TOKEN_TEXT = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"  # noqa: S105 - a grammar, not a secret
_TOKEN = re.compile(_TOKEN_TEXT)
_QUOTED = r'"(?:[\t !#-\[\]-~]|\\[\t -~])*"'
_DIRECTIVE = re.compile(rf"({_TOKEN_TEXT})(?:=({_TOKEN_TEXT}|{_QUOTED}))?\Z")
_SECONDS = re.compile(r"[0-9]{1,10}\Z")
# Directives whose argument is delta-seconds (RFC 9111 §5.2, RFC 5861).
_SECONDS_DIRECTIVES = frozenset(
    {"max-age", "s-maxage", "stale-while-revalidate", "stale-if-error", "min-fresh", "max-stale"}
)
_BARE_DIRECTIVES = frozenset(
    {
        "public",
        "no-store",
        "no-transform",
        "must-revalidate",
        "proxy-revalidate",
        "must-understand",
        "immutable",
        "only-if-cached",
    }
)
_PORT = re.compile(r"[0-9]{1,5}\Z")
_UNIX_PATH = re.compile(r"[A-Za-z0-9_./@+,=-]+\Z")


def _control(value: str) -> str | None:
    for ch in value:
        if ch in "\r\n":
            return "contains a line break (CR or LF)"
        if (ord(ch) < 0x20 and ch != "\t") or ord(ch) == 0x7F:
            return f"contains the control character U+{ord(ch):04X}"
        if ord(ch) > 0x7E:
            return f"contains the non-ASCII character {ch!r}"
    return None


def header_value_problem(value: str) -> str | None:
    """Why `value` cannot be a header field value (RFC 9110 §5.5), or None."""
    if not value.strip():
        return "is empty"
    if len(value) > MAX_HEADER_VALUE:
        return f"is longer than {MAX_HEADER_VALUE} characters"
    problem = _control(value)
    if problem is not None:
        return problem
    if value != value.strip(" \t"):
        return "starts or ends with whitespace"
    return None


def _split_list(value: str) -> list[str]:
    """Elements of a comma-separated header list; commas inside quoted strings stay."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in value:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(current).strip(" \t"))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current).strip(" \t"))
    return parts


def cache_control_problem(value: str) -> str | None:
    """Why `value` is not a Cache-Control value (RFC 9111 §5.2) catalogctl can emit, or None.

    Directives are `token` or `token=token|quoted-string`, separated by commas; the arguments
    of max-age and its kin are seconds. `$` is refused: the value is written into the nginx
    configuration too, where `$` always starts a variable.
    """
    problem = header_value_problem(value)
    if problem is not None:
        return problem
    if "$" in value:
        return "contains '$', which an nginx configuration reads as a variable"
    for element in _split_list(value):
        if not element:
            return "has an empty directive (a stray comma)"
        m = _DIRECTIVE.match(element)
        if m is None:
            return (
                f"has an invalid directive {element!r}: use name or name=value, "
                'with a token or a "quoted string" as value'
            )
        name, arg = m.group(1).lower(), m.group(2)
        if name in _SECONDS_DIRECTIVES and arg is not None and not _SECONDS.match(arg):
            return f"{name} takes whole seconds, not {arg!r}"
        if name in _SECONDS_DIRECTIVES - {"max-stale"} and arg is None:
            return f"{name} needs a value in seconds ({name}=300)"
        if name in _BARE_DIRECTIVES and arg is not None:
            return f"{name} takes no value"
    return None


def user_agent_problem(value: str) -> str | None:
    """Why `value` cannot be sent as a User-Agent header, or None."""
    problem = header_value_problem(value)
    if problem is not None:
        return problem
    if not _TOKEN.match(value):
        return "must start with a product name (e.g. mybot/1.0)"
    return None


def listen_problem(value: str) -> str | None:
    """Why `value` is not a listen address: PORT, ADDRESS:PORT, [IPv6]:PORT or unix:PATH."""
    if not value:
        return "is empty"
    if value.startswith("unix:"):
        path = value[5:]
        if not path:
            return "names no socket path after unix:"
        if not _UNIX_PATH.match(path):
            return (
                "has a socket path with characters other than letters, digits and _ . / @ + , = -"
            )
        if len(path.encode()) > MAX_UNIX_PATH:
            return f"has a socket path longer than {MAX_UNIX_PATH} bytes"
        return None
    if _PORT.match(value):
        return None if 1 <= int(value) <= 65535 else f"has a port {value} outside 1..65535"
    if value.startswith("["):
        end = value.find("]:")
        if end < 0:
            return "must be [IPv6]:PORT for an IPv6 address"
        port = value[end + 2 :]
    else:
        _, sep, port = value.rpartition(":")
        if not sep:
            return "must be PORT, ADDRESS:PORT, [IPv6]:PORT or unix:PATH"
    if not _PORT.match(port) or not 1 <= int(port) <= 65535:
        return f"has an invalid port {port!r} (1..65535)"
    if value.startswith("*:"):
        return None
    # The address is checked as the host of a URL: a DNS name, IPv4 or [IPv6] address.
    problem = url_problem(f"https://{value}/")
    return None if problem is None else problem.replace("has an invalid", "has an invalid address")


__all__ = [
    "MAX_HEADER_VALUE",
    "cache_control_problem",
    "header_value_problem",
    "listen_problem",
    "user_agent_problem",
]
