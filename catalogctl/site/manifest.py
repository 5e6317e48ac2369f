"""The build directory's manifest: the route table on disk, read back by serve and diff.

May import: catalogctl.contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from catalogctl import __version__
from catalogctl.contract.routes import (
    API_PREFIX,
    ENCODINGS,
    ErrorPage,
    NotFoundTemplate,
    Resource,
    Site,
    Variant,
)

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
