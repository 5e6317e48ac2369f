"""The build directory's manifest: the route table on disk, read back by serve and diff.

May import: catalogctl.contract (and pydantic, to check a manifest read back).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints

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


# What a manifest read back may hold, checked before anything is served from it: a build's
# manifest can be edited by hand or damaged, and its values become response headers.
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 §5.1
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")  # §5.5, no control characters


def _header_name(value: str) -> str:
    if _HEADER_NAME.fullmatch(value) is None:
        raise ValueError("not a header name (letters, digits and !#$%&'*+-.^_`|~)")
    return value


def _header_value(value: str) -> str:
    if _FIELD_VALUE.fullmatch(value) is None:
        raise ValueError("a header value with a control character or one outside Latin-1")
    return value


HeaderName = Annotated[str, AfterValidator(_header_name)]
HeaderValue = Annotated[str, AfterValidator(_header_value)]
Headers = list[tuple[HeaderName, HeaderValue]]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True)


class _VariantEntry(_Strict):
    file: str
    etag: HeaderValue


class _RouteEntry(_Strict):
    file: str
    content_type: HeaderValue
    etag: HeaderValue
    headers: Headers
    variants: dict[str, _VariantEntry] = {}


class _ErrorEntry(_Strict):
    file: str
    content_type: HeaderValue
    headers: Headers


class _NotFoundEntry(_Strict):
    content_type: HeaderValue
    headers: Headers
    body_prefix: str
    body_suffix: str


class ManifestData(_Strict):
    """A manifest as `read_manifest` accepts it (other members are ignored)."""

    format: int
    base_url: str
    routes: dict[Annotated[str, StringConstraints(pattern=r"^/")], _RouteEntry]
    not_found: _NotFoundEntry
    errors: dict[Annotated[str, StringConstraints(pattern=r"^[1-5][0-9][0-9]$")], _ErrorEntry]


def read_manifest(raw: bytes) -> ManifestData:
    """A manifest's JSON, checked: raises ValueError naming what is wrong (pydantic's
    ValidationError is one) or that its format is not this version's."""
    data = ManifestData.model_validate_json(raw.removeprefix(b"\xef\xbb\xbf"))  # a BOM too
    if data.format != MANIFEST_FORMAT:
        raise ValueError(f"unsupported manifest format {data.format!r}")
    return data


def site_from_manifest(data: ManifestData, read: Callable[[str], bytes]) -> Site:
    """Rebuild a Site from a manifest; `read(relative_file)` returns a file's bytes."""
    resources = {}
    for path, r in data.routes.items():
        encoded = tuple(
            Variant(enc, read(v.file), v.etag)
            for enc in ENCODINGS
            if (v := r.variants.get(enc)) is not None
        )
        resources[path] = Resource(
            path,
            r.file.removeprefix(f"{PUBLIC}/"),
            r.content_type,
            tuple(r.headers),
            Variant("identity", read(r.file), r.etag),
            encoded,
        )
    nf = data.not_found
    errors = {
        int(status): ErrorPage(int(status), e.content_type, tuple(e.headers), read(e.file))
        for status, e in data.errors.items()
    }
    return Site(
        data.base_url,
        resources,
        NotFoundTemplate(
            nf.content_type,
            tuple(nf.headers),
            nf.body_prefix.encode("utf-8"),
            nf.body_suffix.encode("utf-8"),
        ),
        errors,
    )
