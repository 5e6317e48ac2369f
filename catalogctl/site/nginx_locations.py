"""The location blocks of the generated nginx configuration (`nginx` writes the two files).

Each route has three exact locations: the route itself, which answers the common request (GET,
a plain `Accept-Encoding`, no precondition, nothing to refuse) after one regex; an internal one
for every other request, which checks it step by step (the parts nginx's own parser lets
through, docs/reference/http.md), negotiates q-values and answers If-None-Match; and an internal
one that sends the route's 304. Unknown paths end in the contract's §7 problem or the 404 page, and
every status nginx itself can send ends in a problem document with the contract's error
headers.

Conditional requests are nginx's own: `etag on` computes the ETag the build publishes (the
build gives each file the modification time its ETag encodes, contract/routes.py), and nginx's
not-modified filter evaluates If-Match (strong comparison), If-None-Match and
If-Unmodified-Since against it. The configuration only answers an If-None-Match naming exactly
the ETag of the variant it sends with its own 304 (no Content-Encoding, which nginx's 304
would repeat from `add_header`).

Regular expressions and client headers: nginx's configuration language can read a header only
whole or with a regular expression, so the configuration does use them, but each one repeats
single characters only, never a group (tests/test_nginx.py holds it to that): PCRE runs it in
constant stack and linear time, so any header nginx accepts (up to its 8 KB line) is read,
however long. The regex this replaced repeated a group per list element of Accept-Encoding and
ran out of PCRE's JIT stack at a few KB (500 on every route).

Why one module: the pieces (checks, negotiation, the not-found escaping, the error locations)
name each other's variables and locations and must agree with `serve` byte for byte; together
they can be read against each other and against the route table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from catalogctl.contract.routes import (
    API_PREFIX,
    ERROR_HEADERS,
    HTML,
    Resource,
    Site,
    error_page,
)
from catalogctl.errors import InputError
from catalogctl.site.manifest import PUBLIC
from catalogctl.site.problem import PROBLEM_JSON, PROBLEMS, problem_body

V = "$catalogctl_"  # prefix of every variable the configuration sets
BUILD = f"{V}build"  # the build directory: set by the server that includes catalog.conf
INTERNAL = "/.catalogctl"  # prefix of the internal locations
NOT_FOUND = "@catalogctl_not_found"
FULL = f"{INTERNAL}/full"  # internal locations negotiating q-values
BAD_REQUEST = f"{INTERNAL}/bad-request"
NOT_MODIFIED = f"{INTERNAL}/not-modified"  # internal locations sending a route's 304
# The status a route returns to hand a request over to its 304 location
# (`error_page 418 =304 …`); never sent to a client.
HAND_OVER_304 = 418
ESCAPED = f"{INTERNAL}/not-found-escaped"

# Quotes and backslashes are the only bytes of a request target that need escaping in JSON
# once non-ASCII bytes are refused; each stage escapes a fixed number of them. Each one is
# two captures of a regex, and every request pays for the widest regex of the configuration
# (nginx allocates and copies that many captures on every match, and one variable per name),
# so stages stay narrow.
ESCAPE_STAGES = (8,) * 35 + (4, 2, 1)
MAX_ESCAPED = sum(ESCAPE_STAGES)

# The statuses nginx itself can send here, each answered by /.catalogctl/<status>.
# (502, 503 and 504 cannot occur: no upstream, no request limits.)
PROBLEM_STATUSES = (400, 408, 411, 412, 413, 414, 416, 417, 431, 500, 501, 505)


# --- nginx string literals ----------------------------------------------------------------------


def quote(value: str, *, what: str = "value") -> str:
    """A double-quoted nginx string holding exactly `value`.

    nginx has no escape for `$` (it always starts a variable), so a value holding one is
    refused rather than silently changed.
    """
    if "$" in value:
        raise InputError(f"cannot write {what} into an nginx configuration: it contains '$'")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_regex(regex: str) -> str:
    """A regex as an nginx string (`$` is an anchor there, not a variable)."""
    return '"' + regex.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ref(var: str) -> str:
    """`$name` as `${name}`, safe to follow with any character."""
    return "${" + var[1:] + "}"


def block(head: str, body: Iterable[str], indent: str = "") -> list[str]:
    return [f"{indent}{head} {{", *(f"{indent}    {line}" for line in body), f"{indent}}}", ""]


def _add_headers(headers: Iterable[tuple[str, str]], *, always: bool = False) -> list[str]:
    suffix = " always" if always else ""
    return [
        f"add_header {name} {quote(value, what=f'the {name} header')}{suffix};"
        for name, value in headers
    ]


# --- what every location of the catalog checks ------------------------------------------------


def error_pages(*, document: bool = False) -> list[str]:
    """Where each status nginx itself can send ends (errors inside a location, and parser
    errors when written at server level). In a route's locations (`document`), nginx's 404 is
    a document missing from the build: a 500."""
    codes = " ".join(str(s) for s in PROBLEM_STATUSES if s not in (400, 431))
    return [
        f"error_page 400 = {BAD_REQUEST};",
        f"error_page 403 405 =403 {INTERNAL}/403;",
        f"error_page 404 = {INTERNAL}/500;" if document else f"error_page 404 = {NOT_FOUND};",
        f"error_page {codes} {INTERNAL}/$status;",
        # nginx's own code for a request head over its buffers (sent as 400 by default)
        f"error_page 494 =431 {INTERNAL}/431;",
    ]


# RFC 9112 §3: method SP request-target SP HTTP-version, one space each; an absolute-form
# target for http and https only (RFC 9110 §4.2). nginx accepts extra spaces and any scheme.
_REQUEST_LINE = r"^[^ ]+ (?:/|[hH][tT][tT][pP][sS]?://)[^ ]* HTTP/[0-9]\.[0-9]+$"
# RFC 9110 §7.2: Host = uri-host [ ":" port ] (RFC 3986: IP-literal, or a reg-name, which
# covers IPv4; a `%` starts two hex digits). nginx accepts `@`, quotes and ports with letters.
_HOST = (
    r"^(?!.*%(?![0-9A-Fa-f]{2}))"
    r"(?:\[[0-9A-Fa-f:.]+\]|[-0-9A-Za-z._~!$&'()*+,;=%]*)(?::[0-9]*)?$"
)


def request_checks() -> list[str]:
    """The checks of a request nginx's parser accepted, in the order `serve` makes them:
    request line (400), Host (400), Expect (417), method (403), content with GET/HEAD (413)."""
    return [
        f"if ($request !~ {quote_regex(_REQUEST_LINE)}) {{ return 400; }}",
        f"if ($http_host !~ {quote_regex(_HOST)}) {{ return 400; }}",
        f"if ($http_expect !~* {quote_regex('^(?:100-continue)?$')}) {{ return 417; }}",
        "if ($request_method !~ ^(?:GET|HEAD)$) { return 403; }",
        # nginx has checked both: a Content-Length is digits, a Transfer-Encoding "chunked"
        f'set {V}content "$http_transfer_encoding$http_content_length";',
        f'if ({V}content !~ "^0*$") {{ return 413; }}',
    ]


# --- content negotiation ------------------------------------------------------------------------

_CODING_NAMES = {"br": "br", "gzip": "(?:x-)?gzip", "identity": "identity", "*": r"\*"}
_SUFFIX = {"gzip": ".gz", "br": ".br"}


def _listed(names: str, params: str = "") -> str:
    """An element of Accept-Encoding naming one of `names` (case-insensitive with `~*`),
    followed by `params` (the leftmost such element: a coding listed twice counts once)."""
    return rf"(?:^|,)[ \t]*(?:{names})[ \t]*{params}(?:,|$)"


def _choose(res: Resource, chosen: Callable[[str], str]) -> list[str]:
    """Identity, unless `chosen(coding)` holds for a coding: its file suffix, ETag and name."""
    lines = [f'set {V}sfx "";', f"set {V}etag {quote(res.identity.etag)};", f'set {V}ce "";']
    for v in reversed(res.encoded):  # least preferred first: a preferred coding overrides it
        lines.append(
            f"if ({chosen(v.encoding)}) {{ set {V}sfx {_SUFFIX[v.encoding]}; "
            f"set {V}etag {quote(v.etag)}; set {V}ce {v.encoding}; }}"
        )
    return lines


def _plain_negotiation(res: Resource) -> list[str]:
    """Accept-Encoding without parameters: every coding listed has q=1, so the most preferred
    coding listed is sent (`*` stands for the most preferred of all)."""
    regexes = {
        v.encoding: _listed(_CODING_NAMES[v.encoding] + (r"|\*" if i == 0 else ""))
        for i, v in enumerate(res.encoded)
    }
    return _choose(res, lambda coding: f"$http_accept_encoding ~* {quote_regex(regexes[coding])}")


# `a:b` where the q-value b is greater than a (both padded digit strings, first 4 digits count).
_GREATER = r"^(\d{0,3})(?:" + "|".join(rf"{d}\d*:\1[{d + 1}-9]" for d in range(9)) + ")"
_ACCEPTABLE = r"^(?:1|0\d{0,2}[1-9])"  # q > 0
# The parameters of an element (`=` and what follows the coding): none or q=1, q=0.ddd,
# anything else (`q=2`, `q=inf`, `q = 1`, other parameters) counts as q=0 (RFC 9110 §12.4.2).
_Q_ONE = r"^=(?:;[ \t]*[qQ]=1(?:\.0{0,3})?[ \t]*)?$"
_Q_FRACTION = r"^=;[ \t]*[qQ]=0(?:\.([0-9]?)([0-9]?)([0-9]?))?[ \t]*$"


def _negotiate(codings: Sequence[str]) -> list[str]:
    """Set `$catalogctl_v` to the coding chosen among `codings` ("" = identity).

    The q-value of each coding is normalised to a digit string (`1000` for q=1, `0500` for
    0.5) so that the highest can be found with a regex; ties go to the server's preference
    (br, then gzip), and identity wins only when listed with a higher q than the choice.
    """
    lines = [f'set {V}v "";']
    if not codings:
        return lines
    q = {c: f"{V}q_{c}" for c in (*codings, "identity")}
    lines += [f'set {q[c]} "";' for c in q]
    found = f'"={V}p"'  # "=" and the element's parameters: listed
    params = f"(?<{V[1:]}p>;[^,]*)?"
    star = " ".join(f"set {q[c]} {found};" for c in codings)
    lines.append(
        f"if ($http_accept_encoding ~* {quote_regex(_listed(_CODING_NAMES['*'], params))}) "
        f"{{ {star} }}"
    )
    for c, var in q.items():
        regex = quote_regex(_listed(_CODING_NAMES[c], params))
        lines.append(f"if ($http_accept_encoding ~* {regex}) {{ set {var} {found}; }}")
    for var in q.values():
        lines.append(f"if ({var} ~ {quote_regex(_Q_ONE)}) {{ set {var} 1; }}")
        lines.append(f'if ({var} ~ {quote_regex(_Q_FRACTION)}) {{ set {var} "0$1$2$3"; }}')
        lines.append(f"if ({var} ~ ^=) {{ set {var} 0; }}")
        lines.append(f'set {var} "{_ref(var)}000";')
    best = f"{V}q_best"
    lines.append(f'set {best} "";')
    # Least preferred first: a preferred coding overrides it unless its q-value is lower.
    preferred = list(codings)
    last = preferred[-1]
    lines.append(
        f"if ({q[last]} ~ {quote_regex(_ACCEPTABLE)}) {{ set {V}v {last}; set {best} {q[last]}; }}"
    )
    for c in reversed(preferred[:-1]):
        lines.append(f'set {V}cmp "{_ref(q[c])}:{_ref(best)}";')
        lines.append(
            f"if ({V}cmp ~ {quote_regex('^(?!' + _GREATER[1:] + ')' + _ACCEPTABLE[1:])}) "
            f"{{ set {V}v {c}; set {best} {q[c]}; }}"
        )
    lines.append(f'set {V}cmp "{_ref(best)}:{_ref(q["identity"])}";')
    lines.append(f'if ({V}cmp ~ {quote_regex(_GREATER)}) {{ set {V}v ""; }}')
    return lines


# --- locations ----------------------------------------------------------------------------------


def _file(rel: str, suffix: str) -> str:
    """`$catalogctl_build/public/<rel><$suffix>`: a file of the build, as an nginx string."""
    return (
        '"' + _ref(BUILD) + quote(f"/{PUBLIC}/{rel}", what="a file name")[1:-1] + _ref(suffix) + '"'
    )


def _static(res: Resource, content_type: str) -> list[str]:
    """Send the file chosen by `$catalogctl_sfx`; nginx computes its ETag (`etag on`) and
    evaluates If-Match, If-None-Match and If-Unmodified-Since against it."""
    return [
        "types { }",
        f"default_type {quote(content_type, what='a content type')};",
        "etag on;",
        "if_modified_since off;",
        "max_ranges 0;",
        f"alias {_file(res.file, V + 'sfx')};",
        'add_header Last-Modified "";',
    ]


def _send(res: Resource, *, own_304: bool) -> list[str]:
    """The 200; with `own_304`, the 304 of an If-None-Match naming exactly the variant's ETag
    and no other precondition (nginx's filter evaluates those, and never sees this 304)."""
    cond = [
        f'set {V}cond "$http_if_match|$http_if_unmodified_since|$http_if_none_match";',
        f"error_page {HAND_OVER_304} =304 {NOT_MODIFIED}{res.path};",
        f'if ({V}cond = "||{_ref(V + "etag")}") {{ return {HAND_OVER_304}; }}',
    ]
    return [
        *(cond if own_304 else []),
        *_static(res, res.content_type),
        f"add_header Content-Encoding {V}ce;",
        *_add_headers(res.headers),
    ]


# What the route's own location reads of a request, one field a line (no field can hold a
# line feed: nginx refuses one in the request line and in header values). If-Match and
# If-Unmodified-Since need no field: nginx's filter evaluates them on the fast path too.
FAST_KEY = (
    '"$request_method\\n$request\\n$http_host\\n$request_uri\\n'
    "$http_expect$http_transfer_encoding$content_length$http_if_none_match\\n"
    '$http_accept_encoding"'
)


def _fast_regex(res: Resource) -> str:
    """The `FAST_KEY` of the requests the route's location answers itself: GET or HEAD, a
    request line and Host that pass `request_checks`, the exact path (a query aside), no
    Expect, content or If-None-Match, and an Accept-Encoding without parameters. Anchored, one
    field a line, single characters repeated: constant stack and linear time."""
    request_line = _REQUEST_LINE[1:-1].replace("[^ ]", "[^ \\n]")
    host = _HOST[1:-1].replace(".*%", "[^\\n]*%")
    target = re.escape(res.path) + r"(?:\?[^\n]*)?"
    return rf"^(?:GET|HEAD)\n{request_line}\n{host}\n{target}\n0*\n[^;\n]*$"


# The contract §7 answer for the request's own target (what the named location does).
_NOT_FOUND_HERE = (
    f"set {V}target $request_uri; set {V}method $request_method; "
    f"rewrite ^ {INTERNAL}/not-found last;"
)


def _route(res: Resource) -> list[str]:
    """The route, the internal location of every other request for it, and its 304.

    Most requests are a GET of the exact path with a plain Accept-Encoding (`gzip, deflate,
    br`) and no precondition: one regex checks them and two pick the file. Everything else
    (q-values, If-None-Match, other methods, a %-encoded or `//` path, a request to refuse)
    goes on to `/.catalogctl/full/PATH`, which decides step by step, as `serve` does.
    """
    raw = quote_regex("^" + re.escape(res.path) + r"(?:\?|$)")
    plain = [
        *error_pages(document=True),
        f"set {V}key {FAST_KEY};",
        f"if ({V}key !~ {quote_regex(_fast_regex(res))}) {{ rewrite ^ {FULL}{res.path} last; }}",
        *_plain_negotiation(res),
        *_send(res, own_304=False),
    ]
    full = [
        "internal;",
        *error_pages(document=True),
        *request_checks(),
        # nginx matches locations against the decoded, normalised path (/api/%76%31, //api/v1)
        f"if ($request_uri !~ {raw}) {{ {_NOT_FOUND_HERE} }}",
        *_negotiate([v.encoding for v in res.encoded]),
        *_choose(res, lambda coding: f"{V}v = {coding}"),
        *_send(res, own_304=True),
    ]
    # The same file, sent with the status 304: nginx sends its headers and no body.
    not_modified = [
        "internal;",
        *error_pages(document=True),
        *_static(res, ""),
        *_add_headers(res.headers),
    ]
    return [
        *block(f"location = {res.path}", plain),
        *block(f"location = {FULL}{res.path}", full),
        *block(f"location = {NOT_MODIFIED}{res.path}", not_modified),
    ]


def _escape_stage(n: int) -> str:
    """Escape the next `n` quotes or backslashes of `$catalogctl_rest` (none if fewer remain)."""
    names = [(f"{V}s{i}", f"{V}u{i}") for i in range(1, n + 1)]
    # PCRE: a run without quotes and backslashes, then one of them; n times; then the rest.
    regex = "^" + "".join(f'(?<{s[1:]}>[^"\\\\]*)(?<{u[1:]}>["\\\\])' for s, u in names)
    regex += f"(?<{V[1:]}r>.*)$"
    # nginx string: each one preceded by a backslash (written `\\` inside the quotes).
    parts = "".join(f"{_ref(s)}\\\\{_ref(u)}" for s, u in names)
    value = f'"{_ref(V + "instance")}{parts}"'
    return (
        f"if ({V}rest ~ {quote_regex(regex)}) "
        f"{{ set {V}instance {value}; set {V}rest {_ref(V + 'r')}; }}"
    )


_QUOTE_OR_BACKSLASH = quote_regex('["\\\\]')


def _not_found(site: Site) -> list[str]:
    """Every 404 ends here: the contract's §7 problem under /api/, the HTML page elsewhere.

    The named location takes the request target from `$request_uri`; the bad-request
    location from the request line, when nginx refused a target such as `/api/%00` or
    `/api/../../x` before any location ran (a 400 with a well-formed request line and no
    `$request_uri`). Both hand over to one internal location that checks the method and the
    bytes, then escapes the path into the JSON.
    """
    nf = site.not_found
    prefix = quote(nf.prefix.decode("utf-8"), what="the base URL")
    suffix = quote(nf.suffix.decode("utf-8"), what="the base URL")
    target, method = f"{V}target", f"{V}method"
    handover = f"rewrite ^ {INTERNAL}/not-found last;"
    named = [f"set {target} $request_uri;", f"set {method} $request_method;", handover]
    line = quote_regex(r"^(?<catalogctl_m>[!-~]+) (?<catalogctl_t>/[!-~]*) HTTP/1\.[0-9]+$")
    bad_request = [
        "internal;",
        f'set {target} "";',
        f'set {method} "";',
        # the HTTP/2 connection preface (what an h2 client sends first): version 2.0 (505)
        f'if ($request = "PRI * HTTP/2.0") {{ rewrite ^ {INTERNAL}/505 last; }}',
        f"if ($request ~ {line}) {{ set {target} $catalogctl_t; set {method} $catalogctl_m; }}",
        # nginx sets $request_uri only for a target it accepted: then the 400 is genuine
        f'if ($request_uri != "") {{ set {target} ""; }}',
        f'if ({target} = "") {{ rewrite ^ {INTERNAL}/400 last; }}',
        handover,
    ]
    problem = [
        "internal;",
        f"error_page 404 = {NOT_FOUND};  # asked for from outside",
        "types { }",
        f"default_type {quote(nf.content_type)};",
        *_add_headers(nf.headers, always=True),
    ]
    respond = f'return 404 {prefix[:-1]}\\"{_ref(V + "instance")}\\"{suffix[1:]};'
    body = [
        *problem,
        f"if ({method} !~ ^(?:GET|HEAD)$) {{ rewrite ^ {INTERNAL}/403 last; }}",
        # serve refuses request targets with bytes outside printable ASCII (RFC 9112 §3.2)
        f"if ({target} ~ {quote_regex('[^!-~]')}) {{ rewrite ^ {INTERNAL}/400 last; }}",
        f"if ({target} !~ ^{API_PREFIX}) {{ rewrite ^ {INTERNAL}/404 last; }}",
        f'set {V}instance "";',
        # named captures: nginx would %-escape numbered ones in a %-encoded request target
        f"if ({target} ~ ^(?<{V[1:]}path>[^?]*)) {{ set {V}instance {V}path; }}",
        # Only a path holding quotes or backslashes goes through the escaping stages.
        f"if ({V}instance ~ {_QUOTE_OR_BACKSLASH}) {{ rewrite ^ {ESCAPED} last; }}",
        respond,
    ]
    escaped = [
        *problem,
        f"set {V}rest {V}instance;",
        f'set {V}instance "";',
        *(_escape_stage(n) for n in ESCAPE_STAGES),
        f"if ({V}rest ~ {_QUOTE_OR_BACKSLASH}) {{ rewrite ^ {INTERNAL}/400 last; }}",
        f'set {V}instance "{_ref(V + "instance")}{_ref(V + "rest")}";',
        respond,
    ]
    return [
        *block(f"location {NOT_FOUND}", named),
        *block(f"location = {BAD_REQUEST}", bad_request),
        *block(f"location = {INTERNAL}/not-found", body),
        *block(f"location = {ESCAPED}", escaped),
    ]


def _error_location(
    status: int, content_type: str, headers: Iterable[tuple[str, str]], body: bytes
) -> list[str]:
    lines = [
        "internal;",
        f"error_page 404 = {NOT_FOUND};  # asked for from outside",
        "types { }",
        f"default_type {quote(content_type)};",
        *_add_headers(headers, always=True),
        f"return {status} {quote(body.decode('utf-8'), what=f'the {status} page')};",
    ]
    return block(f"location = {INTERNAL}/{status}", lines)


def _error_locations(site: Site) -> list[str]:
    """The HTML pages (403 for methods, 404 outside /api/) and a problem per other status."""
    pages = {status: (p.content_type, p.headers, p.body) for status, p in site.errors.items()}
    forbidden = error_page(403, "Forbidden", "This service is read-only: use GET or HEAD.")
    pages.setdefault(403, (HTML, ERROR_HEADERS, forbidden))
    pages.setdefault(404, (HTML, ERROR_HEADERS, error_page(404, "Not Found", "Nothing here.")))
    for status in PROBLEM_STATUSES:
        pages[status] = (PROBLEM_JSON, ERROR_HEADERS, problem_body(status))
    out: list[str] = []
    for status in sorted(pages):
        out += _error_location(status, *pages[status])
    return out


def locations(site: Site) -> list[str]:
    """Every location of the catalog; files are named under `$catalogctl_build`."""
    out: list[str] = []
    for res in site.resources.values():
        out += _route(res)
    out += block(f"location {API_PREFIX}", [*error_pages(), *request_checks(), "return 404;"])
    out += _not_found(site)
    out += _error_locations(site)
    return out


__all__ = ["MAX_ESCAPED", "PROBLEMS", "locations"]
