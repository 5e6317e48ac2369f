"""nginx configuration generated from the route table: the contract of `serve`, on nginx.

`catalogctl build` writes two files beside `public/`:

- `nginx/catalog.conf`: location blocks alone, to `include` inside an existing `server {}`
  that names the build directory first: `set $catalogctl_build /srv/catalog;`;
- `nginx/nginx.conf`: a complete configuration for `nginx -p DIR -c nginx/nginx.conf` (the
  `-p` prefix is its `$catalogctl_build`). Its pid file, error log and temp directories live
  outside the build (`/run/catalogctl-nginx/`, `/var/log/catalogctl-nginx/`, or one
  `--nginx-state-dir`), so a rebuild, which replaces the build directory, never takes the pid
  file of a running nginx away: `nginx -s reload` still finds it and loads the new ETags.

Neither names the directory it was built into, so the same content builds the same bytes
wherever it is built (and a build can be moved). Both hold the same locations, generated from
the same `Site` that `serve` answers from, so nginx sends the same bytes and headers. The
choices nginx would otherwise make on its own are made in the configuration instead, because
`serve` makes them from the route table:

- Content coding: the configuration negotiates Accept-Encoding like `serve` (q-values, `*`,
  `x-gzip`, server preference br > gzip) and serves the precompressed `.br`/`.gz` file itself,
  with the manifest ETag of exactly that file. `gzip_static`/`brotli_static` decide on their own
  and cannot tell the configuration which file they sent, so the ETag could name other bytes;
  no compression module is needed (nginx-light works) and nothing is compressed on the fly.
- Routing: exact locations, plus a check on the raw request target (`$request_uri`), since
  nginx matches locations against the decoded, normalised path (`/api/%76%31`, `//api/v1`).
- Speed: the common request (GET, exact path, no If-None-Match, Accept-Encoding without
  q-values) is decided by one regex in the route's location; the rest goes on to an internal
  location with the whole logic. A plain `gzip_static` configuration is the yardstick
  (`benchmarks/bench_nginx.py`).
- 304: nginx's `return 304` sends `Content-Length: 0` and the media type (nginx 1.22). The
  route sends its file with the status set to 304 instead (`error_page … =304`), as nginx's
  own not-modified answer to a static file does: no Content-Type, no Content-Encoding, and
  the Content-Length the 200 would have (RFC 9110 §8.6 allows exactly that value).
- The SPEC §7 problem body: its `instance` is the raw path, JSON-escaped with `if`/`set`
  (quotes and backslashes); a target with bytes outside printable ASCII is a bad request (400),
  as in `serve`; nginx itself rejects control bytes in the request line.

Why one module: both files are built from the same location blocks, whose pieces (the
negotiation, the fast-path regex, the error locations) name each other's variables and must
agree with `serve` byte for byte; together they can be read against each other and against the
route table.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence

from catalogctl.contract.routes import API_PREFIX, Resource, Site, error_page
from catalogctl.errors import InputError
from catalogctl.site.manifest import PUBLIC

DEFAULT_LISTEN = "127.0.0.1:8080"
# Outside the build directory: a rebuild replaces that directory whole.
DEFAULT_RUN_DIR = "/run/catalogctl-nginx"  # pid file and temp directories
DEFAULT_LOG_DIR = "/var/log/catalogctl-nginx"  # error log
WORKER_CONNECTIONS = 4096
OPEN_FILE_CACHE = 64
# One descriptor per connection, one per cached open file, and a few for listening sockets
# and logs: nginx warns when worker_connections exceed the limit, and a worker that runs out
# of descriptors drops connections.
WORKER_RLIMIT_NOFILE = WORKER_CONNECTIONS + OPEN_FILE_CACHE + 64
NGINX_DIR = "nginx"
CATALOG_CONF = f"{NGINX_DIR}/catalog.conf"
NGINX_CONF = f"{NGINX_DIR}/nginx.conf"

HTML = "text/html; charset=utf-8"
V = "$catalogctl_"  # prefix of every variable the configuration sets
BUILD = f"{V}build"  # the build directory: set by the server that includes catalog.conf
INTERNAL = "/.catalogctl"  # prefix of the internal error locations
NOT_FOUND = "@catalogctl_not_found"
FULL = f"{INTERNAL}/full"  # internal locations holding the whole contract of each route
BAD_REQUEST = f"{INTERNAL}/bad-request"
NOT_MODIFIED = f"{INTERNAL}/not-modified"  # internal locations sending a route's 304
# The status a route's full location returns to hand a request over to its 304 location
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


_STATE_DIR = re.compile(r"/[A-Za-z0-9_./@+,=-]*\Z")


def state_dir_problem(value: str) -> str | None:
    """Why `value` cannot be the directory of nginx's pid file, error log and temp files."""
    if not value.startswith("/"):
        return "must be an absolute path (nginx would read it relative to the build)"
    if len(value) > 1024:
        return "is longer than 1024 characters"
    if not _STATE_DIR.match(value):
        return "may hold only letters, digits and _ . / @ + , = -"
    return None


def check_listen(listen: str) -> str:
    from catalogctl.contract.values import listen_problem

    problem = listen_problem(listen)
    if problem is not None:
        raise InputError(f"--nginx-listen {listen!r} {problem}")
    return listen


# --- pieces shared by every location ----------------------------------------------------------


def _method_check() -> list[str]:
    return ["if ($request_method !~ ^(?:GET|HEAD)$) { return 403; }"]


def _error_pages() -> list[str]:
    return [f"error_page 403 {INTERNAL}/403;", f"error_page 404 = {NOT_FOUND};"]


def _add_headers(headers: Iterable[tuple[str, str]], *, always: bool = False) -> list[str]:
    suffix = " always" if always else ""
    return [
        f"add_header {name} {quote(value, what=f'the {name} header')}{suffix};"
        for name, value in headers
    ]


def _ref(var: str) -> str:
    """`$name` as `${name}`, safe to follow with any character."""
    return "${" + var[1:] + "}"


def _coding_regex(coding: str) -> str:
    """A coding in Accept-Encoding; `q` and its value are captured (both empty when absent)."""
    q = r"(?:;[ \t]*(?<catalogctl_qp>q)[ \t]*=[ \t]*(?<catalogctl_qv>[^ \t,;]*))?"
    return rf"(?:^|,)[ \t]*{coding}[ \t]*{q}[ \t]*(?:;[^,]*)?(?:,|$)"


# `a:b` where the q-value b is greater than a (both padded digit strings, first 4 digits count).
_GREATER = r"^(\d{0,3})(?:" + "|".join(rf"{d}\d*:\1[{d + 1}-9]" for d in range(9)) + ")"
_ACCEPTABLE = r"^(?:1|0\d{0,2}[1-9])"  # q > 0
_CODING_NAMES = {"br": "br", "gzip": "(?:x-)?gzip", "identity": "identity", "*": r"\*"}


def _negotiate(codings: Sequence[str]) -> list[str]:
    """Set `$catalogctl_v` to the coding `serve` would choose among `codings` ("" = identity).

    The q-value of each coding is normalised to a digit string (`1000…` for q=1, `0500…` for
    0.5) so that the highest can be found with a regex; ties go to the server's preference
    (br, then gzip), and identity wins only when listed with a higher q than the choice.
    """
    lines = [f'set {V}v "";']
    if not codings:
        return lines
    q = {c: f"{V}q_{c}" for c in (*codings, "identity")}
    lines += [f'set {q[c]} "";' for c in q]
    found = '"=$catalogctl_qp$catalogctl_qv"'  # "=" when listed without a q-value
    star = " ".join(f"set {q[c]} {found};" for c in codings)
    lines.append(
        f"if ($http_accept_encoding ~* {quote_regex(_coding_regex(_CODING_NAMES['*']))}) "
        f"{{ {star} }}"
    )
    for c, var in q.items():
        regex = quote_regex(_coding_regex(_CODING_NAMES[c]))
        lines.append(f"if ($http_accept_encoding ~* {regex}) {{ set {var} {found}; }}")
    one = quote_regex(r"^=(?:[qQ][1-9][0-9]*(?:\.[0-9]*)?)?$")  # no q, or q >= 1
    frac = quote_regex(r"^=[qQ]0*\.?([0-9]?)([0-9]?)([0-9]?)[0-9]*$")  # `q=` alone is 0
    for var in q.values():
        lines.append(f"if ({var} ~ {one}) {{ set {var} 1; }}")
        lines.append(f'if ({var} ~ {frac}) {{ set {var} "0$1$2$3"; }}')
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


def _block(head: str, body: Iterable[str], indent: str = "") -> list[str]:
    return [f"{indent}{head} {{", *(f"{indent}    {line}" for line in body), f"{indent}}}", ""]


_SUFFIX = {"gzip": ".gz", "br": ".br"}


def _send(res: Resource) -> list[str]:
    """Send the file chosen by `$catalogctl_sfx`, with `$catalogctl_etag` and the headers."""
    return [
        "types { }",
        f"default_type {quote(res.content_type, what='a content type')};",
        "etag off;",
        "if_modified_since off;",
        "max_ranges 0;",
        f"alias {_file(res.file, V + 'sfx')};",
        'add_header Last-Modified "";',
        f"add_header ETag {V}etag;",
        f"add_header Content-Encoding {V}ce;",
        *_add_headers(res.headers),
    ]


def _choose(res: Resource, chosen: Callable[[str], str]) -> list[str]:
    """Identity, unless `chosen(coding)` holds for a coding: its file suffix, ETag and name."""
    lines = [f'set {V}sfx "";', f"set {V}etag {quote(res.identity.etag)};", f'set {V}ce "";']
    for v in reversed(res.encoded):  # least preferred first: a preferred coding overrides it
        lines.append(
            f"if ({chosen(v.encoding)}) {{ set {V}sfx {_SUFFIX[v.encoding]}; "
            f"set {V}etag {quote(v.etag)}; set {V}ce {v.encoding}; }}"
        )
    return lines


# What the fast path reads of a request, in one string (`|` cannot occur in what it accepts
# before the target).
FAST_KEY = '"$request_method $http_accept_encoding|$request_uri|$http_if_none_match"'


def _fast_regex(res: Resource) -> str:
    """The `FAST_KEY` of the requests the fast path answers exactly as `serve` would.

    GET or HEAD; an Accept-Encoding made of plain tokens (no q-values or other parameters),
    so every coding listed has q=1 and serve sends the most preferred one listed, or the
    most preferred of all for `*`; the exact path (a query without `|`); no If-None-Match.
    A named group captures each coding listed (PCRE keeps it through later repetitions).
    """
    tokens = [
        f"(?<{V[1:]}f_{v.encoding}>(?i:{_CODING_NAMES[v.encoding]}){'|[*]' if i == 0 else ''})"
        for i, v in enumerate(res.encoded)
    ]
    token = "|".join([*tokens, "[-0-9A-Za-z_*]*"])
    ae = rf"(?:[ \t]*(?:{token})[ \t]*(?:,|(?=\|)))*"
    return rf"^(?:GET|HEAD) {ae}\|{re.escape(res.path)}(?:\?[^|]*)?\|$"


def _route(res: Resource) -> list[str]:
    """Two exact locations: the route, and the internal one with the whole contract.

    Most requests are a GET of the exact path with no If-None-Match and a plain
    Accept-Encoding (`gzip, deflate, br`): one regex decides them and picks the file.
    Everything else (other methods, a %-encoded or `//` path, q-values, If-None-Match) goes
    on to `/.catalogctl/full/PATH`, which decides step by step, as `serve` does.
    """
    fast = [
        *_error_pages(),
        f"set {V}key {FAST_KEY};",
        f"if ({V}key !~ {quote_regex(_fast_regex(res))}) {{ rewrite ^ {FULL}{res.path} last; }}",
        *_choose(res, lambda coding: f"{V}f_{coding}"),
        *_send(res),
    ]
    raw = quote_regex("^" + re.escape(res.path) + r"(?:\?|$)")
    # If-None-Match: `*`, or the sent variant's ETag in the list (weak comparison).
    inm = quote_regex(r'^("[^"]*") (?:[ \t]*\*[ \t]*$|(?:.*[ \t,])?(?:W/)?\1)')
    full = [
        "internal;",
        *_error_pages(),
        *_method_check(),
        f"if ($request_uri !~ {raw}) {{ return 404; }}",
        *_negotiate([v.encoding for v in res.encoded]),
        *_choose(res, lambda coding: f"{V}v = {coding}"),
        f'set {V}inm "{_ref(V + "etag")} $http_if_none_match";',
        f"error_page {HAND_OVER_304} =304 {NOT_MODIFIED}{res.path};",
        f"if ({V}inm ~ {inm}) {{ return {HAND_OVER_304}; }}",
        *_send(res),
    ]
    # The same file, sent with the status 304: nginx sends its headers and no body.
    not_modified = [
        "internal;",
        "types { }",
        'default_type "";',
        "etag off;",
        "if_modified_since off;",
        "max_ranges 0;",
        f"alias {_file(res.file, V + 'sfx')};",
        'add_header Last-Modified "";',
        f"add_header ETag {V}etag;",
        *_add_headers(res.headers),
    ]
    return [
        *_block(f"location = {res.path}", fast),
        *_block(f"location = {FULL}{res.path}", full),
        *_block(f"location = {NOT_MODIFIED}{res.path}", not_modified),
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
    """Every 404 ends here: the SPEC §7 problem under /api/, the HTML page elsewhere.

    The named location takes the request target from `$request_uri`; the bad-request
    location (nginx.conf only) from the request line, when nginx refused a target such as
    `/api/%00` or `/api/../../x` before any location ran. Both hand over to one internal
    location that checks the method and the bytes, then escapes the path into the JSON.
    """
    nf = site.not_found
    prefix = quote(nf.prefix.decode("utf-8"), what="the base URL")
    suffix = quote(nf.suffix.decode("utf-8"), what="the base URL")
    target, method = f"{V}target", f"{V}method"
    handover = f"rewrite ^ {INTERNAL}/not-found last;"
    named = [f"set {target} $request_uri;", f"set {method} $request_method;", handover]
    line = quote_regex(r"^(?<catalogctl_m>[!-~]+) (?<catalogctl_t>/[!-~]*) HTTP/[0-9.]+$")
    bad_request = [
        "internal;",
        f'set {target} "";',
        f'set {method} "";',
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
        *_block(f"location {NOT_FOUND}", named),
        *_block(f"location = {BAD_REQUEST}", bad_request),
        *_block(f"location = {INTERNAL}/not-found", body),
        *_block(f"location = {ESCAPED}", escaped),
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
    return _block(f"location = {INTERNAL}/{status}", lines)


def _error_locations(site: Site) -> list[str]:
    no_store = (("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"))
    pages = {status: (p.content_type, p.headers, p.body) for status, p in site.errors.items()}
    pages.setdefault(403, (HTML, no_store, error_page(403, "Forbidden", "Use GET or HEAD.")))
    pages.setdefault(404, (HTML, no_store, error_page(404, "Not Found", "Nothing here.")))
    pages.setdefault(
        400,
        (HTML, no_store, error_page(400, "Bad Request", "The request could not be understood.")),
    )
    out: list[str] = []
    for status in sorted(pages):
        out += _error_location(status, *pages[status])
    return out


def locations(site: Site) -> list[str]:
    """Every location of the catalog; files are named under `$catalogctl_build`."""
    out: list[str] = []
    for res in site.resources.values():
        out += _route(res)
    out += _block(f"location {API_PREFIX}", [*_error_pages(), *_method_check(), "return 404;"])
    out += _not_found(site)
    out += _error_locations(site)
    return out


def _header(site: Site, *what: str) -> list[str]:
    return [
        *(f"# {line}".rstrip() for line in what),
        f"# Generated by catalogctl from the build of {site.base_url}; regenerated by every",
        "# `catalogctl build`. Do not edit: change the content or the build options instead.",
        "",
    ]


def catalog_conf(site: Site) -> str:
    """`nginx/catalog.conf`: the locations alone, for `include` inside an existing server."""
    lines = [
        *_header(
            site,
            "catalog.conf: include inside a server { } block, after naming the build directory:",
            "",
            f"    set {BUILD} /srv/catalog;   # catalogctl build --out /srv/catalog",
            f"    include /srv/catalog/{CATALOG_CONF};",
            "",
        ),
        *locations(site),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _worker_user() -> list[str]:
    # Started as root, nginx runs its workers as `nobody`, who cannot read a build in a private
    # directory (such as root's temp dirs). A build made by root is served by root's workers.
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    return ["user root;"]


def _state_paths(state_dir: str | None) -> tuple[str, str]:
    """(run directory, log directory): one `--nginx-state-dir`, or the defaults."""
    if state_dir is None:
        return DEFAULT_RUN_DIR, DEFAULT_LOG_DIR
    problem = state_dir_problem(state_dir)
    if problem is not None:
        raise InputError(f"--nginx-state-dir {state_dir!r} {problem}")
    state_dir = state_dir.rstrip("/") or "/"
    return state_dir, state_dir


def nginx_conf(site: Site, listen: str = DEFAULT_LISTEN, state_dir: str | None = None) -> str:
    """`nginx/nginx.conf`: a complete configuration; files under the `-p` prefix, state
    (pid file, error log, temp files) under `state_dir` or the defaults."""
    listen = check_listen(listen)
    run_dir, log_dir = _state_paths(state_dir)
    server = [
        f"listen {listen} reuseport backlog=4096;",
        "server_name _;",
        "absolute_redirect off;",
        "server_tokens off;",
        # nginx answers TRACE with 405 before any location; the contract says 403.
        f"error_page 405 =403 {INTERNAL}/403;",
        # nginx refuses targets like /api/%00 before any location: answer them like serve
        f"error_page 400 = {BAD_REQUEST};",
        f"set {BUILD} .;  # the build directory: the -p prefix",
        "",
        *locations(site),
        *_block("location /", [*_error_pages(), *_method_check(), "return 404;"]),
    ]
    http = [
        "sendfile on;",
        "tcp_nopush on;",
        "tcp_nodelay on;",
        "keepalive_timeout 65s;",
        "keepalive_requests 100000;",
        f"open_file_cache max={OPEN_FILE_CACHE} inactive=60s;",
        "open_file_cache_valid 60s;",
        "open_file_cache_errors on;",
        "gzip off;  # every compressed file is precompressed by the build",
        "charset off;",
        "variables_hash_max_size 2048;  # the escaping stages name many captures",
        "variables_hash_bucket_size 128;",
        f"access_log off;  # or: access_log {log_dir}/access.log;",
        f"client_body_temp_path {run_dir}/client_body_temp;",
        f"proxy_temp_path {run_dir}/proxy_temp;",
        f"fastcgi_temp_path {run_dir}/fastcgi_temp;",
        f"uwsgi_temp_path {run_dir}/uwsgi_temp;",
        f"scgi_temp_path {run_dir}/scgi_temp;",
        "",
        *_block("server", server)[:-1],
    ]
    lines = [
        *_header(
            site,
            "nginx.conf: run with  nginx -p DIR -c nginx/nginx.conf -g 'daemon off;'",
            f"(the directories {', '.join(sorted({run_dir, log_dir}))} must exist)",
        ),
        *_worker_user(),
        "worker_processes auto;",
        f"worker_rlimit_nofile {WORKER_RLIMIT_NOFILE};",
        f"pid {run_dir}/nginx.pid;",
        f"error_log {log_dir}/error.log warn;",
        "pcre_jit on;",
        "",
        *_block("events", [f"worker_connections {WORKER_CONNECTIONS};"]),
        *_block("http", http),
    ]
    return "\n".join(lines).rstrip() + "\n"


def nginx_files(
    site: Site, *, listen: str = DEFAULT_LISTEN, state_dir: str | None = None
) -> list[tuple[str, bytes]]:
    """The files `build` writes under `OUT/nginx/`, relative to OUT (the same for any OUT)."""
    return [
        (CATALOG_CONF, catalog_conf(site).encode("utf-8")),
        (NGINX_CONF, nginx_conf(site, listen, state_dir).encode("utf-8")),
    ]
