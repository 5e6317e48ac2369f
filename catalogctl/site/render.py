"""Catalog → Site: the route table every delivery path answers from.

A `Site` maps each public path to a `Resource`: the exact bytes (identity, gzip, brotli), the
content type and every response header. `build` writes it to disk with a manifest, `serve`
answers from it in memory and the generated web-server configs are derived from it, so all
of them send the same bytes and the same headers.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from catalogctl.content.loader import Catalog
from catalogctl.contract.model import GameCatalog, to_json
from catalogctl.contract.routes import (
    API_CATALOG,
    API_DOCS,
    API_GAMES,
    API_V1,
    DEFAULT_CACHE_CONTROL,
    ENCODINGS,
    ERROR_HEADERS,
    FAVICON,
    FAVICON_SVG,
    GZIP_LEVEL,
    HTML,
    JSON,
    LINKSET,
    LLMS_TXT,
    OPENAPI,
    ROUTE_FILES,
    SVG,
    TEXT,
    VERSIONED,
    ErrorPage,
    Resource,
    Site,
    Variant,
    api_catalog,
    api_index,
    brotli_quality,
    common_headers,
    error_page,
    etag_for,
    lifecycle_headers,
    link_header,
    not_found_template,
)


def documents(catalog: Catalog) -> Iterator[tuple[str, str, bytes]]:
    """Every public document as (path, content type, identity bytes), the largest first.

    A generator, so that compressing the games document (the long pole of a big build) starts
    while the other documents are still being rendered.
    """
    from catalogctl.contract.docs import docs_page, llms_txt
    from catalogctl.contract.openapi import openapi_document

    pub = catalog.publication
    games = GameCatalog.model_validate({"schemaVersion": 1, "games": catalog.games})
    yield API_GAMES, JSON, to_json(games)
    yield API_V1, JSON, to_json(api_index(pub))
    yield API_DOCS, HTML, docs_page(pub, catalog.games).encode("utf-8")
    yield OPENAPI, JSON, to_json(openapi_document(pub, catalog.games))
    yield API_CATALOG, LINKSET, to_json(api_catalog(pub))
    yield LLMS_TXT, TEXT, llms_txt(pub, catalog.games).encode("utf-8")
    yield FAVICON, SVG, FAVICON_SVG.encode("utf-8")


# --- compression --------------------------------------------------------------------------


def gzip_member(body: bytes) -> bytes:
    """`body` as one gzip member (RFC 1952) that is the same bytes on every Python: no name,
    no time, the operating system "unknown" (255). `gzip.compress` writes that byte as 3
    (Unix) before Python 3.13 and 255 from it, which would change the build's ETags with the
    Python that made it."""
    deflate = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = deflate.compress(body) + deflate.flush()
    flags = 2 if GZIP_LEVEL == 9 else 4 if GZIP_LEVEL == 1 else 0  # XFL: slowest / fastest
    head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + bytes((flags, 255))
    return head + data + struct.pack("<II", zlib.crc32(body), len(body) & 0xFFFFFFFF)


def _compress(encoding: str, body: bytes) -> bytes:
    if encoding == "gzip":
        return gzip_member(body)
    import brotli

    return bytes(brotli.compress(body, quality=brotli_quality(len(body)), mode=brotli.MODE_TEXT))


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
    pub = catalog.publication
    docs, packed = compress_all(documents(catalog), jobs=jobs, compress=compress)
    common = common_headers(cache_control)
    lifecycle = lifecycle_headers(pub.lifecycle)
    resources: dict[str, Resource] = {}
    for path, file in ROUTE_FILES.items():
        ctype, body = docs[path]
        etag = etag_for(body)
        encoded = tuple(
            Variant(enc, packed[(path, enc)], etag_for(packed[(path, enc)]))
            for enc in ENCODINGS
            if (path, enc) in packed and len(packed[(path, enc)]) < len(body)
        )
        headers = [*common, ("Link", link_header(path, pub.lifecycle))]
        if path in VERSIONED:
            headers.extend(lifecycle)
        if encoded:
            headers.append(("Vary", "Accept-Encoding"))
        resources[path] = Resource(
            path, file, ctype, tuple(headers), Variant("identity", body, etag), encoded
        )
    return Site(
        pub.base_url,
        resources,
        not_found_template(pub),
        {
            403: ErrorPage(
                403,
                HTML,
                ERROR_HEADERS,
                error_page(403, "Forbidden", "This service is read-only: use GET or HEAD."),
            ),
            404: ErrorPage(
                404,
                HTML,
                ERROR_HEADERS,
                error_page(
                    404, "Not Found", f'Nothing here. See <a href="{API_DOCS}">the API</a>.'
                ),
            ),
        },
    )
