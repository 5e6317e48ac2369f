"""The prepared responses of one `Site`: every answer serialized once, at load time.

A `Prepared` holds the status line and headers of one response as bytes (Date aside) and its
body. The protocol writes it with one `transport.write` (or one `sendfile`, `memfile`): the
head and body are joined once a second (when the Date header changes), so a request costs a
dictionary lookup and a write.
The only answers built per request are the 404 problem documents, whose `instance` member
is the requested path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from http import HTTPStatus

from multidict import CIMultiDict, CIMultiDictProxy

from catalogctl.contract.routes import (
    API_GAMES,
    API_PREFIX,
    ERROR_HEADERS,
    HTML,
    PROBLEM_JSON,
    ErrorPage,
    Site,
    error_page,
)
from catalogctl.errors import CatalogError
from catalogctl.serve.clock import CLOCK
from catalogctl.serve.memfile import SENDFILE_MIN
from catalogctl.serve.negotiation import choose_encoding, etag_matches, if_match_passes
from catalogctl.site.problem import PROBLEMS

SERVER_NAME = "catalogctl"  # the Server header: no version numbers
GET, HEAD = b"GET", b"HEAD"

KEEP_ALIVE = b""  # HTTP/1.1: persistent by default, nothing to say
KEEP_ALIVE_10 = b"Connection: keep-alive\r\n"  # HTTP/1.0 keep-alive must be confirmed
CLOSE = b"Connection: close\r\n"

_UNSAFE_HEADER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")

# Headers a 304 repeats (RFC 9110 §15.4.5): those a 200 would send, bar the body's own.
_NOT_304 = frozenset({"content-type", "content-encoding", "content-length"})


def _count_games(site: Site) -> int:
    """Games in the site's catalog document (for the log and metrics); 0 when unreadable."""
    from catalogctl.content.limits import json_depth_problem

    games = site.resources.get(API_GAMES)
    if games is None or json_depth_problem(games.identity.body) is not None:
        return 0  # a build's file is served as it is; counting it never fails the server
    try:
        return len(json.loads(games.identity.body)["games"])
    except (ValueError, KeyError, TypeError):
        return 0


def reason(status: int) -> str:
    """The reason phrase of RFC 9110 §15: the errors' titles are those every delivery path
    sends (`site.problem`); Python's HTTPStatus has RFC 9110's names only from 3.13 on."""
    known = PROBLEMS.get(status)
    return known[0] if known is not None else HTTPStatus(status).phrase


class Prepared:
    """One response as bytes: `head` (status line and headers but Date) and `body`."""

    __slots__ = (
        "_forms",
        "_forms_second",
        "_full",
        "_head_only",
        "_second",
        "body",
        "body_len",
        "encoding",
        "etag",
        "head",
        "headers",
        "status",
    )

    def __init__(
        self,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        *,
        encoding: str = "identity",
        etag: str = "",
        length: bool = True,
    ) -> None:
        for name, value in headers:
            if _UNSAFE_HEADER.search(name + value):
                raise CatalogError(f"a response header cannot hold control characters: {name}")
        lines = [f"HTTP/1.1 {status} {reason(status)}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if length:  # 304s have none (RFC 9110 §8.6: it would describe the selected body)
            lines.append(f"Content-Length: {len(body)}")
        self.head = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        self.status = status
        self.headers = CIMultiDictProxy(CIMultiDict(headers))  # as sent, Date aside
        self.etag = etag
        self.body = body
        self.body_len = len(body)
        self.encoding = encoding
        self._second = -1
        self._full = b""
        self._head_only = b""
        self._forms: dict[bytes, bytes] = {}  # a large answer's other forms, this second's
        self._forms_second = -1

    def message(self, with_body: bool, connection: bytes) -> bytes:
        """The whole response; the keep-alive forms are joined at most once a second."""
        second = CLOCK.tick()
        date = CLOCK.date_line
        if connection is KEEP_ALIVE:
            if second != self._second:
                self._head_only = self.head + date + b"\r\n"
                self._full = self._head_only + self.body
                self._second = second
            return self._full if with_body else self._head_only
        if with_body and self.body_len >= SENDFILE_MIN:
            # Joined once a second too: the memory file is sent from holds each answer once.
            if second != self._forms_second:
                self._forms.clear()
                self._forms_second = second
            joined = self._forms.get(connection)
            if joined is None:
                joined = self._forms[connection] = (
                    self.head + date + connection + b"\r\n" + self.body
                )
            return joined
        head = self.head + date + connection + b"\r\n"
        return head + self.body if with_body else head


@dataclass(frozen=True, slots=True)
class Route:
    full: dict[str, Prepared]  # encoding → 200
    not_modified: dict[str, Prepared]  # encoding → 304
    etags: dict[str, str]  # encoding → ETag
    encodings: tuple[str, ...]  # the encoded variants on offer, in preference order


def _with_server(
    *groups: list[tuple[str, str]] | tuple[tuple[str, str], ...],
) -> list[tuple[str, str]]:
    merged = [("Server", SERVER_NAME)]
    for group in groups:
        merged.extend(group)
    return merged


def problem(status: int, detail: str) -> Prepared:
    """An error we produce: RFC 9457 problem details with the project's error headers."""
    title = reason(status)
    doc = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    body = (json.dumps(doc, separators=(",", ":")) + "\n").encode("ascii")
    return Prepared(status, _with_server([("Content-Type", PROBLEM_JSON)], ERROR_HEADERS), body)


PRECONDITION_FAILED = problem(412, "No current representation of the resource matches If-Match.")


class Table:
    """The precomputed responses of one `Site`, and the route-level decision: method, path,
    content coding, If-Match, If-None-Match (see `semantics` for what comes before)."""

    CACHED = 1024  # distinct (method, target, Accept-Encoding, If-Match, If-None-Match) remembered

    def __init__(self, site: Site) -> None:
        self.site = site
        self.routes: dict[str, Route] = {}
        for path, res in site.resources.items():
            full: dict[str, Prepared] = {}
            not_modified: dict[str, Prepared] = {}
            etags: dict[str, str] = {}
            for variant in (res.identity, *res.encoded):
                own = [("Content-Type", res.content_type), ("ETag", variant.etag)]
                if variant.encoding != "identity":
                    own.append(("Content-Encoding", variant.encoding))
                headers = _with_server(own, res.headers)
                full[variant.encoding] = Prepared(
                    200, headers, variant.body, encoding=variant.encoding, etag=variant.etag
                )
                kept = [(k, v) for k, v in headers if k.lower() not in _NOT_304]
                not_modified[variant.encoding] = Prepared(
                    304, kept, b"", etag=variant.etag, length=False
                )
                etags[variant.encoding] = variant.etag
            self.routes[path] = Route(
                full, not_modified, etags, tuple(v.encoding for v in res.encoded)
            )
        nf = site.not_found
        self._not_found_headers = _with_server([("Content-Type", nf.content_type)], nf.headers)
        self.not_found_html = _page(site.errors.get(404), 404, "Not Found", "Nothing here.")
        self.forbidden = _page(
            site.errors.get(403), 403, "Forbidden", "This service is read-only: use GET or HEAD."
        )
        self.games = _count_games(site)
        self.etag = site.resources[API_GAMES].identity.etag if API_GAMES in site.resources else ""
        self._cache: dict[Key, Prepared] = {}

    def answer(
        self,
        method: str,
        target: str,
        accept_encoding: str | None,
        if_none_match: str | None,
        if_match: str | None = None,
    ) -> Prepared:
        """`respond` for text arguments (tests and comparisons with other deliveries)."""

        def raw(value: str | None) -> bytes | None:
            return None if value is None else value.encode("latin-1")

        return self.respond(
            method.encode("latin-1"),
            target.encode("latin-1"),
            raw(accept_encoding),
            raw(if_match),
            raw(if_none_match),
        )

    def respond(
        self,
        method: bytes,
        target: bytes,
        accept_encoding: bytes | None,
        if_match: bytes | None,
        if_none_match: bytes | None,
        prefix: bytes = b"",
    ) -> Prepared:
        """The response to a well-formed request for `target` (origin-form, as sent; under
        `prefix` when the routes are mounted there); remembered for routes. Preconditions
        count only where the answer would be a 200 (RFC 9110 §13.2.1): If-Match first, then
        If-None-Match (§13.2.2)."""
        key = (method, target, accept_encoding, if_match, if_none_match)
        found = self._cache.get(key)
        if found is not None:
            return found
        if method not in (GET, HEAD):
            return self.forbidden
        path = request_path(target.decode("latin-1"))
        route_path = path
        if prefix:
            mount = prefix.decode("latin-1")
            route_path = path[len(mount) :] if path.startswith(mount + "/") else ""
        route = self.routes.get(route_path)
        if route is None:
            if route_path.startswith(API_PREFIX):  # the instance is the path as requested
                body = self.site.not_found.body(path)
                return Prepared(404, self._not_found_headers, body)
            return self.not_found_html
        ae = None if accept_encoding is None else accept_encoding.decode("latin-1")
        encoding = choose_encoding(ae, route.encodings) if route.encodings else "identity"
        etag = route.etags[encoding]
        if if_match is not None and not if_match_passes(if_match.decode("latin-1"), etag):
            found = PRECONDITION_FAILED
        elif if_none_match is not None and etag_matches(if_none_match.decode("latin-1"), etag):
            found = route.not_modified[encoding]
        else:
            found = route.full[encoding]
        if len(self._cache) < self.CACHED:
            self._cache[key] = found
        return found


Key = tuple[bytes, bytes, bytes | None, bytes | None, bytes | None]


def _page(page: ErrorPage | None, status: int, title: str, text: str) -> Prepared:
    if page is None:
        headers = _with_server([("Content-Type", HTML)], ERROR_HEADERS)
        return Prepared(status, headers, error_page(status, title, text))
    return Prepared(
        status, _with_server([("Content-Type", page.content_type)], page.headers), page.body
    )


def request_path(target: str) -> str:
    """The path of a request target as sent: origin-form up to `?`; absolute-form's path."""
    if not target.startswith("/") and "://" in target:
        rest = target.split("://", 1)[1]
        slash = rest.find("/")
        target = rest[slash:] if slash >= 0 else "/"
    return target.partition("?")[0]
