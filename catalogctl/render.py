"""Catalog → Site: the route table every delivery path answers from.

A `Site` maps each public path to a `Resource`: the exact bytes (identity, gzip, brotli), the
content type and every response header. `build` writes it to disk with a manifest, `serve`
answers from it in memory and the generated web-server configs are derived from it, so all
of them send the same bytes and the same headers.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from catalogctl import __version__
from catalogctl.content import Catalog
from catalogctl.model import NOT_FOUND_DETAIL
from catalogctl.source import ApiVersionConfig, SiteConfig

DEFAULT_CACHE_CONTROL = "public, max-age=300"
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"
HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
LINKSET = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'

API_V1 = "/api/v1"
API_GAMES = "/api/v1/games"
API_DOCS = "/api"
OPENAPI = "/openapi.json"
API_CATALOG = "/.well-known/api-catalog"
LLMS_TXT = "/llms.txt"
API_PREFIX = "/api/"

# Route → file under public/ (a path cannot be both a file and a directory on disk).
ROUTE_FILES = {
    API_V1: "api/v1/index.json",
    API_GAMES: "api/v1/games/index.json",
    API_DOCS: "api/index.html",
    OPENAPI: "openapi.json",
    API_CATALOG: ".well-known/api-catalog",
    LLMS_TXT: "llms.txt",
}
VERSIONED = (API_V1, API_GAMES)  # the responses SPEC §9 headers apply to
ENCODINGS = ("br", "gzip")  # server preference order
GZIP_LEVEL = 9
BROTLI_QUALITY = 11
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
    """SPEC §7 problem body: `prefix + json string of the path + suffix`."""

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


def etag_for(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def encoded_etag(etag: str, encoding: str) -> str:
    """Strong ETags differ per representation: `"<hash>-gzip"`, `"<hash>-br"`."""
    return etag if encoding == "identity" else f'{etag[:-1]}-{encoding}"'


def _http_date(value: dt.date | dt.datetime) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)


def lifecycle_headers(v1: ApiVersionConfig) -> list[tuple[str, str]]:
    """SPEC §9: Deprecation (RFC 9745), Link rel=deprecation, Sunset (RFC 8594)."""
    if v1.status != "deprecated":
        return []
    out: list[tuple[str, str]] = []
    if v1.deprecation is not None:
        out.append(("Deprecation", f"@{int(_http_date(v1.deprecation).timestamp())}"))
    if v1.sunset is not None:
        out.append(("Sunset", email.utils.format_datetime(_http_date(v1.sunset), usegmt=True)))
    return out


def _link_header(path: str, v1: ApiVersionConfig) -> str:
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


def to_json(data: Any) -> bytes:
    """Compact UTF-8 JSON: smaller to send and much faster to compress at brotli quality 11."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def api_index(site: SiteConfig) -> dict[str, Any]:
    b = site.base_url
    return {
        "version": "v1",
        "status": site.api.v1.status,
        "documentation": f"{b}{API_DOCS}",
        "openapi": f"{b}{OPENAPI}",
        "endpoints": {"games": f"{b}{API_GAMES}"},
    }


def not_found_problem(site: SiteConfig, instance: str) -> dict[str, Any]:
    b = site.base_url
    return {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": NOT_FOUND_DETAIL,
        "instance": instance,
        "error": {"code": "not_found", "message": NOT_FOUND_DETAIL, "status": 404},
        "links": {
            "documentation": f"{b}{API_DOCS}",
            "games": f"{b}{API_GAMES}",
            "openapi": f"{b}{OPENAPI}",
        },
    }


def api_catalog(site: SiteConfig) -> dict[str, Any]:
    """RFC 9727 linkset: the catalog lists the API, the API links its description and docs."""
    b = site.base_url
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


def documents(catalog: Catalog) -> Iterator[tuple[str, str, bytes]]:
    """Every public document as (path, content type, identity bytes), the largest first.

    A generator, so that compressing the games document (the long pole of a big build) starts
    while the other documents are still being rendered.
    """
    from catalogctl.docs import docs_page, llms_txt
    from catalogctl.openapi import openapi_document

    site = catalog.site
    yield API_GAMES, JSON, to_json({"schemaVersion": 1, "games": catalog.games})
    yield API_V1, JSON, to_json(api_index(site))
    yield API_DOCS, HTML, docs_page(catalog).encode("utf-8")
    yield OPENAPI, JSON, to_json(openapi_document(site))
    yield API_CATALOG, LINKSET, to_json(api_catalog(site))
    yield LLMS_TXT, TEXT, llms_txt(catalog).encode("utf-8")


def error_page(status: int, title: str, text: str) -> bytes:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{status} {title}</title></head>\n<body><h1>{status} {title}</h1>\n"
        f"<p>{text}</p></body></html>\n"
    ).encode()


# --- compression --------------------------------------------------------------------------


def _compress(encoding: str, body: bytes) -> bytes:
    if encoding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    import brotli

    return bytes(brotli.compress(body, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT))


def compress_all(
    docs: Iterable[tuple[str, str, bytes]], *, jobs: int | None = None, compress: bool = True
) -> tuple[dict[str, tuple[str, bytes]], dict[tuple[str, str], bytes]]:
    """Every document, and its encodings compressed on every core as soon as it is rendered.

    zlib and brotli release the GIL, so threads use all cores.
    """
    bodies: dict[str, tuple[str, bytes]] = {}
    if not compress:
        return {path: (ctype, body) for path, ctype, body in docs}, {}
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        futures = {}
        for path, ctype, body in docs:
            bodies[path] = (ctype, body)
            for enc in ENCODINGS:
                futures[(path, enc)] = pool.submit(_compress, enc, body)
        return bodies, {key: future.result() for key, future in futures.items()}


# --- the site -----------------------------------------------------------------------------


def render(
    catalog: Catalog,
    *,
    cache_control: str = DEFAULT_CACHE_CONTROL,
    compress: bool = True,
    jobs: int | None = None,
) -> Site:
    """Render every public document and response of the catalog."""
    site = catalog.site
    docs, packed = compress_all(documents(catalog), jobs=jobs, compress=compress)
    common = common_headers(cache_control)
    lifecycle = lifecycle_headers(site.api.v1)
    resources: dict[str, Resource] = {}
    for path, file in ROUTE_FILES.items():
        ctype, body = docs[path]
        etag = etag_for(body)
        encoded = tuple(
            Variant(enc, packed[(path, enc)], encoded_etag(etag, enc))
            for enc in ENCODINGS
            if (path, enc) in packed and len(packed[(path, enc)]) < len(body)
        )
        headers = [*common, ("Link", _link_header(path, site.api.v1))]
        if path in VERSIONED:
            headers.extend(lifecycle)
        if encoded:
            headers.append(("Vary", "Accept-Encoding"))
        resources[path] = Resource(
            path, file, ctype, tuple(headers), Variant("identity", body, etag), encoded
        )
    problem = to_json(not_found_problem(site, _INSTANCE_MARK)).decode("utf-8")
    prefix, suffix = problem.split(json.dumps(_INSTANCE_MARK))
    error_headers = (
        ("Cache-Control", "no-store"),
        ("Access-Control-Allow-Origin", "*"),
        ("X-Content-Type-Options", "nosniff"),
    )
    return Site(
        site.base_url,
        resources,
        NotFoundTemplate(PROBLEM_JSON, error_headers, prefix.encode(), suffix.encode()),
        {
            403: ErrorPage(
                403,
                HTML,
                error_headers,
                error_page(403, "Forbidden", "This service is read-only: use GET or HEAD."),
            ),
            404: ErrorPage(
                404,
                HTML,
                error_headers,
                error_page(
                    404, "Not Found", f'Nothing here. See <a href="{API_DOCS}">the API</a>.'
                ),
            ),
        },
    )


# --- manifest (the route table on disk) -----------------------------------------------------

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
PUBLIC = "public"
ERRORS = "errors"


def _suffix(encoding: str) -> str:
    return {"gzip": ".gz", "br": ".br"}[encoding]


def site_files(site: Site) -> Iterable[tuple[str, bytes]]:
    """Every file of a build, relative to the build directory."""
    for res in site.resources.values():
        yield f"{PUBLIC}/{res.file}", res.identity.body
        for v in res.encoded:
            yield f"{PUBLIC}/{res.file}{_suffix(v.encoding)}", v.body
    for status, page in site.errors.items():
        yield f"{ERRORS}/{status}.html", page.body


def manifest(site: Site) -> dict[str, Any]:
    routes = {}
    for path, res in site.resources.items():
        routes[path] = {
            "file": f"{PUBLIC}/{res.file}",
            "status": 200,
            "content_type": res.content_type,
            "etag": res.identity.etag,
            "headers": [list(h) for h in res.headers],
            "variants": {
                v.encoding: {"file": f"{PUBLIC}/{res.file}{_suffix(v.encoding)}", "etag": v.etag}
                for v in res.encoded
            },
        }
    nf = site.not_found
    return {
        "format": MANIFEST_FORMAT,
        "generator": f"catalogctl {__version__}",
        "base_url": site.base_url,
        "methods": ["GET", "HEAD"],
        "routes": routes,
        "not_found": {
            "prefix": API_PREFIX,
            "status": 404,
            "content_type": nf.content_type,
            "headers": [list(h) for h in nf.headers],
            "body_prefix": nf.prefix.decode("utf-8"),
            "body_suffix": nf.suffix.decode("utf-8"),
        },
        "errors": {
            str(status): {
                "file": f"{ERRORS}/{status}.html",
                "content_type": page.content_type,
                "headers": [list(h) for h in page.headers],
            }
            for status, page in site.errors.items()
        },
    }


def site_from_manifest(data: dict[str, Any], read: Callable[[str], bytes]) -> Site:
    """Rebuild a Site from a manifest; `read(relative_file)` returns a file's bytes."""
    if data.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"unsupported manifest format {data.get('format')!r}")
    resources = {}
    for path, r in data["routes"].items():
        encoded = tuple(
            Variant(enc, read(v["file"]), v["etag"])
            for enc in ENCODINGS
            if (v := r["variants"].get(enc)) is not None
        )
        resources[path] = Resource(
            path,
            r["file"].removeprefix(f"{PUBLIC}/"),
            r["content_type"],
            tuple((k, v) for k, v in r["headers"]),
            Variant("identity", read(r["file"]), r["etag"]),
            encoded,
        )
    nf = data["not_found"]
    errors = {
        int(status): ErrorPage(
            int(status), e["content_type"], tuple((k, v) for k, v in e["headers"]), read(e["file"])
        )
        for status, e in data["errors"].items()
    }
    return Site(
        data["base_url"],
        resources,
        NotFoundTemplate(
            nf["content_type"],
            tuple((k, v) for k, v in nf["headers"]),
            nf["body_prefix"].encode("utf-8"),
            nf["body_suffix"].encode("utf-8"),
        ),
        errors,
    )
