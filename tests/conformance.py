"""The HTTP contract of SPEC.md (§4, §7, §9) as checks that run against any base URL.

Each check takes `(base_url, site)`: the address of a running delivery (`catalogctl serve`,
nginx with the generated config, ...) and the `Site` it is expected to serve (from
`render.render()` or `build.read_build()`). A check raises AssertionError naming the request
and what differed. Requests go over a raw socket so that hostile paths (`/api/a"b\\c`,
`/api/../x`, control bytes, very long paths) reach the server exactly as written.

    @pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
    def test_conformance(check, base_url, site):
        check(base_url, site)
"""

from __future__ import annotations

import gzip
import json
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qs, urlsplit

from catalogctl.contract.routes import Site

API_V1 = "/api/v1"
API_GAMES = "/api/v1/games"
DOCUMENTS = {
    "/api/v1": "application/json",
    "/api/v1/games": "application/json",
    "/api": "text/html",
    "/openapi.json": "application/json",
    "/.well-known/api-catalog": "application/linkset+json",
    "/llms.txt": "text/plain",
    "/favicon.ico": "image/svg+xml",
}
NOT_FOUND_DETAIL = "Unknown API endpoint."
TIMEOUT = 10.0
# Headers that legitimately differ between two responses to the same request.
VOLATILE = frozenset({"date", "connection", "keep-alive", "age"})


# --- a raw HTTP/1.1 client ----------------------------------------------------------------------


@dataclass
class Reply:
    request: str  # how the request is named in messages
    status: int
    reason: str
    headers: list[tuple[str, str]]  # in order, names lower-cased
    body: bytes
    closed: bool  # the server closed the connection without a complete response

    def header(self, name: str) -> str | None:
        values = self.all(name)
        return ", ".join(values) if values else None

    def all(self, name: str) -> list[str]:
        name = name.lower()
        return [v for k, v in self.headers if k == name]

    @property
    def media_type(self) -> str:
        return (self.header("content-type") or "").split(";")[0].strip().lower()

    def json(self) -> object:
        try:
            return json.loads(self.body)
        except ValueError as exc:
            raise AssertionError(
                f"{self.request}: body is not JSON ({exc}): {self.body[:200]!r}"
            ) from None

    def stable_headers(self) -> list[tuple[str, str]]:
        return sorted((k, v) for k, v in self.headers if k not in VOLATILE)


def _address(base_url: str) -> tuple[str, int, str]:
    parts = urlsplit(base_url)
    if parts.scheme != "http":
        raise ValueError(f"conformance checks speak plain http: {base_url}")
    return parts.hostname or "127.0.0.1", parts.port or 80, parts.netloc


def raw_request(base_url: str, data: bytes, *, head: bool = False, name: str = "") -> Reply:
    """Send `data` as is on a new connection, read one response (the server may close)."""
    host, port, _ = _address(base_url)
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        sock.sendall(data)
        return _read_reply(sock, head=head, name=name or data.split(b"\r\n")[0].decode("latin-1"))


def _read_reply(sock: socket.socket, *, head: bool, name: str) -> Reply:
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = _recv(sock)
        if not chunk:
            return Reply(name, 0, "", [], buf, closed=True)
        buf += chunk
    head_bytes, _, rest = buf.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    match = re.match(r"HTTP/1\.[01] (\d{3})(?: (.*))?$", lines[0])
    assert match, f"{name}: malformed status line {lines[0]!r}"
    status = int(match.group(1))
    headers = []
    for line in lines[1:]:
        key, sep, value = line.partition(":")
        assert sep, f"{name}: malformed header line {line!r}"
        headers.append((key.strip().lower(), value.strip()))
    reply = Reply(name, status, match.group(2) or "", headers, b"", closed=False)
    if head or status in (204, 304) or 100 <= status < 200:
        return reply
    length = reply.header("content-length")
    if reply.header("transfer-encoding"):
        reply.body = _read_chunked(sock, rest)
    elif length is not None:
        n = int(length)
        while len(rest) < n:
            chunk = _recv(sock)
            assert chunk, f"{name}: connection closed after {len(rest)} of {n} body bytes"
            rest += chunk
        reply.body = rest[:n]
    else:
        while chunk := _recv(sock):
            rest += chunk
        reply.body = rest
    return reply


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def _read_chunked(sock: socket.socket, data: bytes) -> bytes:
    body = b""
    while True:
        while b"\r\n" not in data:
            data += _recv(sock)
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        while len(data) < size + 2:
            data += _recv(sock)
        if size == 0:
            return body
        body, data = body + data[:size], data[size + 2 :]


def request(
    base_url: str,
    target: str | bytes,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes = b"",
) -> Reply:
    """One request with `target` sent verbatim (str targets are sent as latin-1/UTF-8 bytes)."""
    _, _, netloc = _address(base_url)
    raw_target = target if isinstance(target, bytes) else _encode(target)
    lines = [method.encode() + b" " + raw_target + b" HTTP/1.1", b"Host: " + netloc.encode()]
    for key, value in (headers or {}).items():
        lines.append(f"{key}: {value}".encode("latin-1"))
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}".encode())
    lines.append(b"Connection: close")
    data = b"\r\n".join(lines) + b"\r\n\r\n" + body
    shown = raw_target.decode("latin-1")
    shown = shown if len(shown) < 80 else shown[:60] + f"…({len(shown)} chars)"
    hdrs = "".join(f" [{k}: {v}]" for k, v in (headers or {}).items())
    return raw_request(base_url, data, head=method == "HEAD", name=f"{method} {shown!r}{hdrs}")


def _encode(target: str) -> bytes:
    try:
        return target.encode("ascii")
    except UnicodeEncodeError:
        return target.encode("utf-8")


# --- expectations -------------------------------------------------------------------------


def _fail(reply: Reply, message: str) -> AssertionError:
    return AssertionError(f"{reply.request}: {message} (got {reply.status} {reply.media_type!r})")


def expect_status(reply: Reply, status: int) -> None:
    if reply.closed:
        raise AssertionError(f"{reply.request}: connection closed without a response")
    if reply.status != status:
        raise _fail(reply, f"expected status {status}, body {reply.body[:160]!r}")


def problem_body(site: Site, instance: str) -> bytes:
    return site.not_found.body(instance)


def expect_problem(site: Site, reply: Reply, instance: str, *, head: bool = False) -> None:
    """SPEC §7: 404, application/problem+json, Cache-Control: no-store, the exact body."""
    expect_status(reply, 404)
    if reply.media_type != "application/problem+json":
        raise _fail(reply, "expected Content-Type application/problem+json")
    cache = (reply.header("cache-control") or "").lower()
    if "no-store" not in [d.strip() for d in cache.split(",")]:
        raise _fail(reply, f"expected Cache-Control: no-store, got {cache!r}")
    expected = problem_body(site, instance)
    if head:
        if reply.body:
            raise _fail(reply, "HEAD response carries a body")
        assert reply.header("content-length") in (None, str(len(expected))), (
            f"{reply.request}: Content-Length {reply.header('content-length')} != "
            f"{len(expected)} of the GET body"
        )
        return
    data = reply.json()
    _check_problem_members(reply, data, site.base_url, instance)
    if reply.body != expected:
        raise _fail(reply, f"body differs from the route table's: {reply.body[:300]!r}")


def _check_problem_members(reply: Reply, data: object, base: str, instance: str) -> None:
    want = {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": NOT_FOUND_DETAIL,
        "instance": instance,
        "error": {"code": "not_found", "message": NOT_FOUND_DETAIL, "status": 404},
        "links": {
            "documentation": f"{base}/api",
            "games": f"{base}/api/v1/games",
            "openapi": f"{base}/openapi.json",
        },
    }
    assert isinstance(data, dict), f"{reply.request}: problem body is not an object"
    for key, value in want.items():
        got = data.get(key)
        if key == "status":
            assert type(got) is int, f"{reply.request}: status must be an integer, got {got!r}"
        if isinstance(value, dict) and isinstance(got, dict):
            got = {k: got.get(k) for k in value}
        assert got == value, f"{reply.request}: member {key!r} is {got!r}, expected {value!r}"


def expect_html(reply: Reply, status: int) -> None:
    expect_status(reply, status)
    if reply.media_type != "text/html":
        raise _fail(reply, f"expected an HTML {status}")
    if reply.body:
        assert not reply.body.lstrip().startswith((b"{", b"[")), (
            f"{reply.request}: the {status} body looks like JSON, SPEC §7 wants HTML"
        )


def expect_no_redirect(reply: Reply) -> None:
    if 300 <= reply.status < 400 and reply.status != 304:
        raise _fail(reply, f"redirect to {reply.header('location')!r}; SPEC §9.3 forbids it")
    assert reply.header("location") is None, f"{reply.request}: unexpected Location header"


def expect_document(site: Site, reply: Reply, path: str, *, encoding: str = "identity") -> None:
    """200 with the route table's content type, headers, ETag and exact bytes."""
    res = site.resources[path]
    expect_status(reply, 200)
    expect_no_redirect(reply)
    assert reply.media_type == res.content_type.split(";")[0].strip().lower(), (
        f"{reply.request}: Content-Type {reply.header('content-type')!r}, "
        f"expected {res.content_type!r}"
    )
    variant = res.identity if encoding == "identity" else res.variant(encoding)
    assert variant is not None, f"route table has no {encoding} variant of {path}"
    got_encoding = (reply.header("content-encoding") or "identity").lower()
    assert got_encoding == encoding, (
        f"{reply.request}: Content-Encoding {got_encoding!r}, expected {encoding!r}"
    )
    assert reply.header("etag") == variant.etag, (
        f"{reply.request}: ETag {reply.header('etag')!r}, expected {variant.etag!r}"
    )
    if reply.body != variant.body:
        raise _fail(reply, f"body differs from the route table's ({len(reply.body)} bytes)")
    assert reply.header("content-length") in (None, str(len(variant.body))), (
        f"{reply.request}: Content-Length {reply.header('content-length')} for "
        f"{len(variant.body)} bytes"
    )
    _expect_route_headers(site, reply, path)


def _expect_route_headers(site: Site, reply: Reply, path: str) -> None:
    for name, value in site.resources[path].headers:
        got = reply.all(name)
        if name.lower() in ("link", "vary"):
            parts = [p.strip() for v in got for p in _split_list(v)]
            for want in _split_list(value):
                assert want.strip() in parts, (
                    f"{reply.request}: {name} lacks {want.strip()!r} (got {got!r})"
                )
        else:
            assert value in got, f"{reply.request}: {name}: expected {value!r}, got {got!r}"


def _split_list(value: str) -> list[str]:
    # Split a header list on commas outside <...> and quotes.
    parts, depth, quoted, cur = [], 0, False, ""
    for ch in value:
        if ch == '"':
            quoted = not quoted
        elif ch == "<" and not quoted:
            depth += 1
        elif ch == ">" and not quoted:
            depth -= 1
        if ch == "," and not quoted and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


# --- the checks -------------------------------------------------------------------------------


def check_api_v1(base_url: str, site: Site) -> None:
    """GET /api/v1: 200 application/json, ApiVersionIndex exactly as built (SPEC §2.1, §4)."""
    reply = request(base_url, API_V1)
    expect_document(site, reply, API_V1)
    data = reply.json()
    b = site.base_url
    assert isinstance(data, dict)
    assert data.get("version") == "v1", f"version is {data.get('version')!r}"
    assert data.get("status") in ("supported", "deprecated"), f"status {data.get('status')!r}"
    assert data.get("documentation") == f"{b}/api", data.get("documentation")
    assert data.get("openapi") == f"{b}/openapi.json", data.get("openapi")
    assert data.get("endpoints", {}).get("games") == f"{b}/api/v1/games", data.get("endpoints")


def check_api_v1_games(base_url: str, site: Site) -> None:
    """GET /api/v1/games: 200, GameCatalog with every game and the SPEC §2.3/§2.4 rules."""
    reply = request(base_url, API_GAMES)
    expect_document(site, reply, API_GAMES)
    data = reply.json()
    assert isinstance(data, dict)
    assert data.get("schemaVersion") == 1, f"schemaVersion {data.get('schemaVersion')!r}"
    assert type(data.get("schemaVersion")) is int
    games = data.get("games")
    assert isinstance(games, list), "games is not an array"
    ids = [g.get("id") for g in games]
    assert len(ids) == len(set(ids)), "duplicate game ids"
    for g in games:
        where = f"game {g.get('id')!r}"
        for key in ("id", "name", "description", "url", "icon"):
            assert isinstance(g.get(key), str) and g[key], f"{where}: {key} missing or empty"
        for key in ("url", "icon"):
            assert urlsplit(g[key]).scheme in ("http", "https"), f"{where}: {key} not absolute"
        for key in ("platforms", "genres", "stores"):
            assert isinstance(g.get(key), list) and g[key], f"{where}: {key} needs >= 1 item"
        assert all(isinstance(p, str) for p in g["platforms"] + g["genres"]), where
        for store in g["stores"]:
            assert isinstance(store.get("name"), str) and store["name"], f"{where}: store name"
            assert urlsplit(store.get("url", "")).scheme in ("http", "https"), f"{where}: url"
            _check_attribution(where, store["url"])


def _check_attribution(where: str, url: str) -> None:
    query = parse_qs(urlsplit(url).query)
    host = (urlsplit(url).hostname or "").lower()
    if "apple.com" in host:
        assert query.get("ct") == ["service_api_game_catalog"], f"{where}: ct in {url}"
        assert query.get("mt") == ["8"], f"{where}: mt in {url}"
        assert re.fullmatch(r"\d+", (query.get("pt") or [""])[0]), f"{where}: pt in {url}"
    elif "play.google.com" in host:
        assert query.get("utm_source") == ["service_api"], f"{where}: utm_source in {url}"
        assert query.get("utm_campaign") == ["game_catalog"], f"{where}: utm_campaign in {url}"


def check_documents(base_url: str, site: Site) -> None:
    """/api, /openapi.json, /.well-known/api-catalog, /llms.txt, /favicon.ico: 200, exact bytes."""
    for path, media in DOCUMENTS.items():
        assert path in site.resources, f"route table lacks {path}"
        reply = request(base_url, path)
        expect_document(site, reply, path)
        assert reply.media_type == media, f"{reply.request}: {reply.media_type!r} != {media!r}"
    spec = request(base_url, "/openapi.json").json()
    assert isinstance(spec, dict) and str(spec.get("openapi", "")).startswith("3."), "openapi"
    assert {"/api/v1", "/api/v1/games"} <= set(spec.get("paths", {})), "openapi paths"
    linkset = request(base_url, "/.well-known/api-catalog").json()
    assert isinstance(linkset, dict) and isinstance(linkset.get("linkset"), list), "linkset"


def check_head_parity(base_url: str, site: Site) -> None:
    """HEAD: the same status and headers as GET, no body — documents, 404s and encodings."""
    cases: list[tuple[str, dict[str, str]]] = [(p, {}) for p in site.resources]
    cases += [(p, {"Accept-Encoding": "gzip"}) for p in site.resources]
    cases += [(p, {"Accept-Encoding": "br"}) for p in site.resources]
    cases += [("/api/nope", {}), ("/api/v1/", {}), ("/nope", {}), ("/api/v1?x=1", {})]
    for path, headers in cases:
        get = request(base_url, path, "GET", headers)
        head = request(base_url, path, "HEAD", headers)
        assert head.status == get.status, f"{head.request}: {head.status}, GET gave {get.status}"
        assert head.stable_headers() == get.stable_headers(), (
            f"{head.request}: headers differ from GET:\n  HEAD {head.stable_headers()}\n"
            f"  GET  {get.stable_headers()}"
        )
        _expect_nothing_after_head(base_url, path)


def _expect_nothing_after_head(base_url: str, path: str) -> None:
    host, port, netloc = _address(base_url)
    data = f"HEAD {path} HTTP/1.1\r\nHost: {netloc}\r\nConnection: close\r\n\r\n".encode()
    received = b""
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        sock.sendall(data)
        while chunk := _recv(sock):
            received += chunk
    _, sep, rest = received.partition(b"\r\n\r\n")
    assert sep, f"HEAD {path}: no complete response"
    assert rest == b"", f"HEAD {path}: {len(rest)} bytes after the response head"


def check_query_ignored(base_url: str, site: Site) -> None:
    """SPEC §1, §4: query parameters are ignored; 404 instance excludes the query string."""
    for path in (API_V1, API_GAMES):
        for query in ("?platform=iOS", "?page=2&limit=1", "?", "?x=%22%5C", "?a=1?b=2"):
            expect_document(site, request(base_url, path + query), path)
    for target, instance in (
        ("/api/nope?x=1", "/api/nope"),
        ("/api/v2/games?format=json", "/api/v2/games"),
        ("/api/?", "/api/"),
    ):
        expect_problem(site, request(base_url, target), instance)


def check_no_alias_or_redirect(base_url: str, site: Site) -> None:
    """SPEC §4.3, §9.3: no trailing-slash, case, latest or file-name variants, no redirects."""
    for path in (
        "/api/v1/",
        "/api/v1/games/",
        "/api/latest",
        "/api/latest/games",
        "/api/v1/latest",
        "/api/games",
        "/api/v2",
        "/api/v2/games",
        "/api/v1/games/1",
        "/api/v1/index.json",
        "/api/v1/games/index.json",
        "/api/v1/GAMES",
        "/api/V1/games",
        "/api/v1/games.json",
        "/api/index.html",
        "/api/",
        "/api//v1",
        "/api/v1//games",
    ):
        reply = request(base_url, path)
        expect_no_redirect(reply)
        expect_problem(site, reply, path)
    for path in ("/API/v1", "/Api/v1/games", "/v1/games", "/games", "//api/v1", "/api.json"):
        reply = request(base_url, path)
        expect_no_redirect(reply)
        expect_html(reply, 404)


def check_not_found_problem(base_url: str, site: Site) -> None:
    """SPEC §7: unknown path under /api/ → 404 problem+json, no-store, every member exact."""
    for path in ("/api/nope", "/api/v1/games/lighthouse", "/api/v1/x/y/z", "/api/%E2%9C%93"):
        expect_problem(site, request(base_url, path), path)
        expect_problem(site, request(base_url, path, "HEAD"), path, head=True)


def check_hostile_paths(base_url: str, site: Site) -> None:
    """Quotes, backslashes, markup and escapes stay inside the JSON string, byte for byte."""
    for path in (
        '/api/a"b\\c',
        "/api/%22%5C%0A",
        '/api/"},"status":200,"x":{"',
        "/api/<script>alert(1)</script>",
        "/api/%00",
        "/api/%0d%0aSet-Cookie:%20x=1",
        "/api/\\u0000",
        "/api/'",
        "/api/{}[]|^`",
        "/api/;a=b",
        "/api/a%2Fb",
        "/api/" + "a" * 3000,
    ):
        reply = request(base_url, path)
        expect_problem(site, reply, path)
        assert reply.header("set-cookie") is None, f"{reply.request}: header injection"
    # Bytes no request-target may carry: a 400 is a fine answer; a 404 must still be exact.
    for raw in (b"/api/\x01x", b"/api/a\x7fb", "/api/é".encode(), b"/api/\tx"):
        reply = request(base_url, raw)
        if reply.closed or reply.status == 400:
            continue
        expect_problem(site, reply, raw.decode("utf-8", "replace"))
    _expect_alive(base_url, site)


def check_dot_segments(base_url: str, site: Site) -> None:
    """`..` and `.` segments never reach another document; a problem body keeps the path as sent."""
    for path in (
        "/api/../x",
        "/api/../openapi.json",
        "/api/v1/../v1",
        "/api/v1/games/..",
        "/api/./v1",
        "/api/%2e%2e/x",
        "/api/%2E%2E/openapi.json",
        "/api/v1/%2e%2e/v1/games",
        "/api/..%2f..%2f..%2fetc/passwd",
        "/api/v1/games/../../../../etc/passwd",
    ):
        reply = request(base_url, path)
        expect_no_redirect(reply)
        assert reply.status in (400, 404), (
            f"{reply.request}: status {reply.status}; a dot-segment path must not be served"
        )
        if reply.media_type == "application/problem+json":
            expect_problem(site, reply, path)
        assert b"root:" not in reply.body, f"{reply.request}: path escaped the web root"


def check_long_paths(base_url: str, site: Site) -> None:
    """A very long path is rejected (400/414/431) or answered as SPEC §7; the server lives on."""
    path = "/api/" + "x" * 100_000
    reply = request(base_url, path)
    if not reply.closed and reply.status not in (400, 414, 431):
        expect_problem(site, reply, path)
    huge_header = request(base_url, API_V1, headers={"X-Filler": "y" * 100_000})
    assert huge_header.closed or huge_header.status in (200, 400, 413, 431, 494), (
        f"{huge_header.request[:40]}: status {huge_header.status} for a 100 kB header"
    )
    _expect_alive(base_url, site)


def _expect_alive(base_url: str, site: Site) -> None:
    expect_document(site, request(base_url, API_V1), API_V1)


def check_methods_forbidden(base_url: str, site: Site) -> None:
    """SPEC §7: any method but GET/HEAD, on any path → 403 with an HTML body."""
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"):
        for path in (API_V1, API_GAMES, "/api/nope", "/openapi.json", "/nope", "/"):
            body = b'{"x":1}' if method in ("POST", "PUT", "PATCH") else b""
            reply = request(base_url, path, method, {"Content-Type": "application/json"}, body)
            expect_html(reply, 403)
            assert reply.header("www-authenticate") is None, (
                f"{reply.request}: a 403 here does not ask for credentials (SPEC §5)"
            )


def check_unknown_outside_api(base_url: str, site: Site) -> None:
    """Unknown paths outside /api/ → 404 HTML (not problem JSON)."""
    for path in ("/", "/index.html", "/favicon.ico", "/robots.txt", "/apis/v1", "/x/api/v1"):
        if path in site.resources:
            continue
        reply = request(base_url, path)
        expect_no_redirect(reply)
        expect_html(reply, 404)
        head = request(base_url, path, "HEAD")
        assert head.status == 404 and not head.body, f"{head.request}: {head.status}"


def check_common_headers(base_url: str, site: Site) -> None:
    """CORS *, nosniff, Cache-Control, RFC 9727 Link, a strong ETag, no version in Server."""
    for path in site.resources:
        reply = request(base_url, path)
        assert reply.header("access-control-allow-origin") == "*", f"{reply.request}: CORS"
        assert (reply.header("x-content-type-options") or "").lower() == "nosniff", reply.request
        assert reply.header("cache-control"), f"{reply.request}: no Cache-Control"
        links = _split_list(reply.header("link") or "")
        assert any(
            re.fullmatch(r'<[^>]*/\.well-known/api-catalog>\s*;\s*rel="?api-catalog"?', link)
            for link in links
        ), f"{reply.request}: no Link rel=api-catalog (got {reply.header('link')!r})"
        etag = reply.header("etag") or ""
        assert re.fullmatch(r'"[\x21\x23-\x7e]+"', etag), f"{reply.request}: ETag {etag!r}"
        server = reply.header("server")
        if server is not None:
            assert not re.search(r"\d", server), f"{reply.request}: Server {server!r} has a version"
    problem = request(base_url, "/api/nope")
    server = problem.header("server")
    assert server is None or not re.search(r"\d", server), f"{problem.request}: Server {server!r}"


def check_lifecycle_headers(base_url: str, site: Site) -> None:
    """SPEC §9: Deprecation/Sunset/Link rel=deprecation exactly when the route table has them."""
    index = json.loads(site.resources[API_V1].identity.body)
    for path in (API_V1, API_GAMES):
        reply = request(base_url, path)
        expected = {k.lower(): v for k, v in site.resources[path].headers}
        links = _split_list(reply.header("link") or "")
        dep_links = [link for link in links if re.search(r'rel="?deprecation"?', link)]
        if index["status"] == "supported":
            assert reply.header("deprecation") is None, f"{reply.request}: Deprecation sent"
            assert reply.header("sunset") is None, f"{reply.request}: Sunset sent"
            assert not dep_links, f"{reply.request}: rel=deprecation sent while supported"
            continue
        assert reply.header("deprecation") == expected.get("deprecation"), reply.request
        dep = reply.header("deprecation")
        assert dep and re.fullmatch(r"@-?\d+", dep), f"{reply.request}: Deprecation {dep!r}"
        sunset = reply.header("sunset")
        assert sunset == expected.get("sunset"), f"{reply.request}: Sunset {sunset!r}"
        if sunset is not None:
            assert sunset.endswith(" GMT"), f"{reply.request}: Sunset {sunset!r} not in GMT"
            assert parsedate_to_datetime(sunset).timestamp() > int(dep[1:]), reply.request
        if "deprecation" in (reply.header("link") or ""):
            assert dep_links, f"{reply.request}: Link rel=deprecation"


def check_conditional_requests(base_url: str, site: Site) -> None:
    """If-None-Match (exact, list, `*`, weak) → 304 with ETag and cache headers, no body."""
    for path, res in site.resources.items():
        etag = res.identity.etag
        for inm in (etag, f'"nope", {etag}', "*", f"W/{etag}", f'{etag}, "x"'):
            for method in ("GET", "HEAD"):
                reply = request(base_url, path, method, {"If-None-Match": inm})
                expect_status(reply, 304)
                assert reply.body == b"", f"{reply.request}: 304 carries a body"
                _expect_no_body_headers(reply, len(res.identity.body))
                assert reply.header("etag") == etag, f"{reply.request}: ETag {reply.header('etag')}"
                cache = {k.lower(): v for k, v in res.headers}
                assert reply.header("cache-control") == cache["cache-control"], reply.request
                if "vary" in cache:
                    assert "accept-encoding" in (reply.header("vary") or "").lower(), reply.request
        for inm in ('"nope"', '"' + etag.strip('"')[::-1] + '"', etag.strip('"')):
            expect_document(site, request(base_url, path, "GET", {"If-None-Match": inm}), path)
        for variant in res.encoded:
            reply = request(
                base_url,
                path,
                "GET",
                {"Accept-Encoding": variant.encoding, "If-None-Match": variant.etag},
            )
            expect_status(reply, 304)
            assert reply.header("etag") == variant.etag, reply.request
            _expect_no_body_headers(reply, len(variant.body))


def _expect_no_body_headers(reply: Reply, length: int) -> None:
    """A 304 describes no body of its own (RFC 9110 §15.4.5, §8.6): no Content-Type or
    Content-Encoding, and a Content-Length only if it is that of the 200 (never 0)."""
    for name in ("content-type", "content-encoding"):
        assert reply.header(name) is None, f"{reply.request}: 304 with {name}"
    sent = reply.header("content-length")
    assert sent is None or sent == str(length), f"{reply.request}: 304 Content-Length {sent}"


def check_content_negotiation(base_url: str, site: Site) -> None:
    """Accept-Encoding picks the precompressed variant, honours q=0, sends Vary; bytes exact."""
    for path, res in site.resources.items():
        have = {v.encoding for v in res.encoded}
        if have:
            assert "accept-encoding" in (request(base_url, path).header("vary") or "").lower(), (
                f"GET {path}: Vary: Accept-Encoding missing"
            )
        cases = {
            "": "identity",
            "identity": "identity",
            "gzip": "gzip",
            "br": "br",
            "GZIP": "gzip",
            "gzip, deflate, br": "br" if "br" in have else "gzip",
            "br;q=0, gzip": "gzip",
            "gzip;q=0": "identity",
            "gzip;q=0, br;q=0": "identity",
            "deflate, compress": "identity",
            "*": "br" if "br" in have else "gzip",
            "*;q=0, gzip": "gzip",
            "br;q=0, *": "gzip",
        }
        for accept, preferred in cases.items():
            want = preferred if preferred in have else "identity"
            headers = {"Accept-Encoding": accept} if accept else {}
            reply = request(base_url, path, "GET", headers)
            expect_document(site, reply, path, encoding=want)
            if want == "gzip":
                assert gzip.decompress(reply.body) == res.identity.body, reply.request
        # weights: a client preferring gzip over br gets neither refused nor an unlisted coding
        reply = request(base_url, path, "GET", {"Accept-Encoding": "gzip;q=1, br;q=0.1"})
        got = (reply.header("content-encoding") or "identity").lower()
        assert got in {"gzip", "br", "identity"} & (have | {"identity"}), reply.request


def check_http10_and_keepalive(base_url: str, site: Site) -> None:
    """HTTP/1.0 without Host works; two requests on one keep-alive connection both answer."""
    reply = raw_request(base_url, b"GET /api/v1 HTTP/1.0\r\n\r\n", name="GET /api/v1 HTTP/1.0")
    expect_document(site, reply, API_V1)
    host, port, netloc = _address(base_url)
    req = f"GET /api/v1 HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode()
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        for i in range(2):
            sock.sendall(req)
            reply = _read_reply(sock, head=False, name=f"keep-alive request {i + 1}")
            expect_document(site, reply, API_V1)


def check_cors_on_errors(base_url: str, site: Site) -> None:
    """Browsers read the problem body too: the 404 under /api/ allows any origin."""
    reply = request(base_url, "/api/nope", headers={"Origin": "https://example.org"})
    expect_problem(site, reply, "/api/nope")
    assert reply.header("access-control-allow-origin") == "*", f"{reply.request}: CORS"


def check_if_match(base_url: str, site: Site) -> None:
    """RFC 9110 §13.1.1: If-Match holds for `*` or a strong match in a list (a weak tag, the
    ETag of another encoding or another tag fail with 412), and comes before If-None-Match."""
    for path, res in site.resources.items():
        for variant in (res.identity, *res.encoded):
            coding = {} if variant.encoding == "identity" else {"Accept-Encoding": variant.encoding}
            etag = variant.etag
            for holds in (etag, "*", f'"x", {etag}'):
                reply = request(base_url, path, "GET", {**coding, "If-Match": holds})
                expect_document(site, reply, path, encoding=variant.encoding)
            others = [v.etag for v in (res.identity, *res.encoded) if v is not variant]
            for fails in (f"W/{etag}", '"nope"', *others):
                _expect_412(request(base_url, path, "GET", {**coding, "If-Match": fails}))
            both = {**coding, "If-Match": '"nope"', "If-None-Match": etag}
            _expect_412(request(base_url, path, "GET", both))


def _expect_412(reply: Reply) -> None:
    expect_status(reply, 412)
    if reply.media_type != "application/problem+json":
        raise _fail(reply, "expected an application/problem+json 412")
    assert reply.header("cache-control") == "no-store", f"{reply.request}: {reply.headers}"


_IMF_FIXDATE = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT")


def check_date_and_error_headers(base_url: str, site: Site) -> None:
    """RFC 9110 §6.6.1: every answer carries Date; every error the contract's error headers
    (no-store, nosniff, CORS)."""
    path, res = next(iter(site.resources.items()))
    answers = [
        (request(base_url, path), False),
        (request(base_url, path, "GET", {"If-None-Match": res.identity.etag}), False),
        (request(base_url, "/api/nope"), True),
        (request(base_url, "/nope"), True),
        (request(base_url, path, "DELETE"), True),
        (request(base_url, path, "GET", {"If-Match": '"nope"'}), True),
    ]
    for reply, error in answers:
        date = reply.header("date") or ""
        assert _IMF_FIXDATE.fullmatch(date), f"{reply.request}: Date {date!r}"
        if error:
            assert reply.header("cache-control") == "no-store", f"{reply.request}: Cache-Control"
            assert reply.header("x-content-type-options") == "nosniff", reply.request
            assert reply.header("access-control-allow-origin") == "*", reply.request


Check = Callable[[str, Site], None]

ALL_CHECKS: list[Check] = [
    check_api_v1,
    check_api_v1_games,
    check_documents,
    check_head_parity,
    check_query_ignored,
    check_no_alias_or_redirect,
    check_not_found_problem,
    check_hostile_paths,
    check_dot_segments,
    check_long_paths,
    check_methods_forbidden,
    check_unknown_outside_api,
    check_common_headers,
    check_lifecycle_headers,
    check_conditional_requests,
    check_content_negotiation,
    check_http10_and_keepalive,
    check_cors_on_errors,
    check_if_match,
    check_date_and_error_headers,
]


def check_unknown_method_forbidden(base_url: str, site: Site) -> None:
    """SPEC §7: a method no parser has heard of is still a method: 403 HTML, not 400."""
    for method in ("FOO", "BREW"):
        for path in (API_V1, "/api/nope", "/nope"):
            expect_html(request(base_url, path, method), 403)


ALL_CHECKS.append(check_unknown_method_forbidden)
