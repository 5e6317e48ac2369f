"""The route table of the contract: paths, media types, headers and the small documents.

Contract §4 (endpoints), §7 (errors) and §9 (lifecycle headers) live here and nowhere else: the
site layer renders a `Site` from them, and serve, nginx and the edge answer from that `Site`.
May import: catalogctl.contract, catalogctl.errors.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import json
from dataclasses import dataclass, field

from catalogctl.contract.model import (
    NOT_FOUND_DETAIL,
    ApiNotFound,
    ApiVersionIndex,
    Endpoints,
    ErrorInfo,
    ProblemLinks,
    to_json,
)
from catalogctl.contract.publication import Lifecycle, Publication

DEFAULT_CACHE_CONTROL = "public, max-age=300"
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
LINKSET = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
SVG = "image/svg+xml"

API_V1 = "/api/v1"
API_GAMES = "/api/v1/games"
API_DOCS = "/api"
OPENAPI = "/openapi.json"
API_CATALOG = "/.well-known/api-catalog"
LLMS_TXT = "/llms.txt"
# Browsers ask for /favicon.ico on every visit; an SVG answers it (and the docs page links it).
FAVICON = "/favicon.ico"
API_PREFIX = "/api/"

# Route → file under public/ (a path cannot be both a file and a directory on disk).
ROUTE_FILES = {
    API_V1: "api/v1/index.json",
    API_GAMES: "api/v1/games/index.json",
    API_DOCS: "api/index.html",
    OPENAPI: "openapi.json",
    API_CATALOG: ".well-known/api-catalog",
    LLMS_TXT: "llms.txt",
    FAVICON: "favicon.ico",
}
VERSIONED = (API_V1, API_GAMES)  # the responses contract §9 headers apply to
ENCODINGS = ("br", "gzip")  # server preference order
GZIP_LEVEL = 9
# Brotli's two slowest qualities (10 and 11) cost 2-3 s per MB for 8-13 % fewer bytes than 9:
# worth it for the usual catalog document (a few hundred KB at most), not for a 5 MB document
# of 10,000 games, which quality 11 alone takes 14 s to compress. Above BROTLI_LARGE bytes a
# document is compressed at BROTLI_LARGE_QUALITY (0.08 s per MB).
BROTLI_QUALITY = 11
BROTLI_LARGE = 1 << 20
BROTLI_LARGE_QUALITY = 9


def brotli_quality(size: int) -> int:
    """The brotli quality for a document of `size` bytes."""
    return BROTLI_QUALITY if size <= BROTLI_LARGE else BROTLI_LARGE_QUALITY


_INSTANCE_MARK = "\x00instance\x00"


@dataclass(frozen=True, slots=True)
class Variant:
    """One encoding of a resource's body."""

    encoding: str  # "identity", "gzip" or "br"
    body: bytes
    etag: str


@dataclass(frozen=True, slots=True)
class Resource:
    path: str
    file: str
    content_type: str
    headers: tuple[tuple[str, str], ...]  # every header but the per-variant ones
    identity: Variant
    encoded: tuple[Variant, ...] = ()  # in ENCODINGS order

    def variant(self, encoding: str) -> Variant | None:
        for v in self.encoded:
            if v.encoding == encoding:
                return v
        return None


@dataclass(frozen=True, slots=True)
class ErrorPage:
    status: int
    content_type: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


@dataclass(frozen=True, slots=True)
class NotFoundTemplate:
    """The contract §7 problem body: `prefix + json string of the path + suffix`."""

    content_type: str
    headers: tuple[tuple[str, str], ...]
    prefix: bytes
    suffix: bytes

    def body(self, instance: str) -> bytes:
        # ensure_ascii keeps any byte a client sends from breaking or injecting into the JSON.
        return self.prefix + json.dumps(instance).encode("ascii") + self.suffix


@dataclass(frozen=True, slots=True)
class Site:
    base_url: str
    resources: dict[str, Resource]
    not_found: NotFoundTemplate
    errors: dict[int, ErrorPage] = field(default_factory=dict)  # 403 and 404 (HTML)


# --- headers ------------------------------------------------------------------------------


# A document's ETag is nginx's own format for a static file, `"<mtime hex>-<size hex>"`, with
# a modification time taken from the bytes' SHA-256 (28 bits, a second between 1980 and 1988),
# which the build gives the file: nginx then computes, and compares If-Match and If-None-Match
# against, the very ETag that serve and the edge send (docs/deploy/nginx.md).
ETAG_EPOCH = 315532800  # 1980-01-01T00:00:00Z
ETAG_TIME_BITS = 28


def etag_mtime(body: bytes) -> int:
    """The modification time (seconds since 1970) the build gives a file of these bytes."""
    digest = hashlib.sha256(body).digest()
    return ETAG_EPOCH + (int.from_bytes(digest[:4], "big") >> (32 - ETAG_TIME_BITS))


def etag_for(body: bytes) -> str:
    """A strong ETag of exactly these bytes (each encoding of a document has its own)."""
    return f'"{etag_mtime(body):x}-{len(body):x}"'


def _http_date(value: dt.date | dt.datetime) -> dt.datetime:
    """In UTC, as HTTP dates are (site.toml's rules keep it within the years a date holds)."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC) if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)


def lifecycle_headers(v1: Lifecycle) -> list[tuple[str, str]]:
    """Contract §9: Deprecation (RFC 9745), Link rel=deprecation, Sunset (RFC 8594)."""
    if v1.status != "deprecated":
        return []
    out: list[tuple[str, str]] = []
    if v1.deprecation is not None:
        out.append(("Deprecation", f"@{int(_http_date(v1.deprecation).timestamp())}"))
    if v1.sunset is not None:
        out.append(("Sunset", email.utils.format_datetime(_http_date(v1.sunset), usegmt=True)))
    return out


# Headers of the error answers (404 problem, 403 and 404 pages): never cached.
ERROR_HEADERS: tuple[tuple[str, str], ...] = (
    ("Cache-Control", "no-store"),
    ("Access-Control-Allow-Origin", "*"),
    ("X-Content-Type-Options", "nosniff"),
)


def link_header(path: str, v1: Lifecycle) -> str:
    links = [f'<{API_CATALOG}>; rel="api-catalog"']
    if path in VERSIONED and v1.status == "deprecated" and v1.migration:
        links.append(f'<{v1.migration}>; rel="deprecation"; type="text/html"')
    return ", ".join(links)


def common_headers(cache_control: str) -> list[tuple[str, str]]:
    return [
        ("Cache-Control", cache_control),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", "ETag, Link, Deprecation, Sunset"),
        ("X-Content-Type-Options", "nosniff"),
    ]


# --- documents ----------------------------------------------------------------------------


def api_index(pub: Publication) -> ApiVersionIndex:
    b = pub.base_url
    return ApiVersionIndex(
        version="v1",
        status=pub.lifecycle.status,
        documentation=f"{b}{API_DOCS}",
        openapi=f"{b}{OPENAPI}",
        endpoints=Endpoints(games=f"{b}{API_GAMES}"),
    )


def not_found_problem(pub: Publication, instance: str) -> ApiNotFound:
    b = pub.base_url
    return ApiNotFound(
        type="about:blank",
        title="Not Found",
        status=404,
        detail=NOT_FOUND_DETAIL,
        instance=instance,
        error=ErrorInfo(code="not_found", message=NOT_FOUND_DETAIL, status=404),
        links=ProblemLinks(
            documentation=f"{b}{API_DOCS}", games=f"{b}{API_GAMES}", openapi=f"{b}{OPENAPI}"
        ),
    )


def not_found_template(pub: Publication) -> NotFoundTemplate:
    """The contract §7 body split around its `instance`, so a request only fills in the path."""
    problem = to_json(not_found_problem(pub, _INSTANCE_MARK)).decode("utf-8")
    prefix, suffix = problem.split(json.dumps(_INSTANCE_MARK))
    return NotFoundTemplate(PROBLEM_JSON, ERROR_HEADERS, prefix.encode(), suffix.encode())


def api_catalog(pub: Publication) -> dict[str, object]:
    """RFC 9727 linkset: the catalog lists the API, the API links its description and docs."""
    b = pub.base_url
    return {
        "linkset": [
            {
                "anchor": f"{b}{API_CATALOG}",
                "item": [{"href": f"{b}{API_V1}", "type": JSON}],
            },
            {
                "anchor": f"{b}{API_V1}",
                "service-desc": [{"href": f"{b}{OPENAPI}", "type": JSON}],
                "service-doc": [{"href": f"{b}{API_DOCS}", "type": "text/html"}],
                "describedby": [{"href": f"{b}{LLMS_TXT}", "type": "text/plain"}],
            },
        ]
    }


# A catalog card with a play mark, in the docs page's accent colour; a fixed document.
FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="7" fill="#0b62c4"/>'
    '<path d="M12 9.5v13l10.5-6.5z" fill="#fff"/>'
    "</svg>\n"
)


def error_page(status: int, title: str, text: str) -> bytes:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{status} {title}</title></head>\n<body><h1>{status} {title}</h1>\n"
        f"<p>{text}</p></body></html>\n"
    ).encode()
