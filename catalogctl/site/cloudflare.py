"""A Cloudflare Workers project generated from the route table: the contract at the edge.

`catalogctl build --target cloudflare` writes, beside `public/`:

- `wrangler.toml`: the Worker, with `public/` as its static assets and the Worker running
  first on every request (`run_worker_first`), so that the contract is decided by the Worker
  and never by the asset server (which would answer 405, redirect `/api/index.html`, or send
  its own ETag);
- `cloudflare/worker.js`: the Worker module, the same for every build (shipped in the package
  as `cloudflare_worker.js`); it holds no route, header or page of its own;
- `cloudflare/routes.json`: the route table as data, derived from the same `Site` that serve
  answers from and nginx is generated from: per path and encoding the asset file (with its
  size and SHA-256, checked when the Worker first reads it), the exact headers of the 200 and
  of the 304, the problem template of contract §7, the HTML pages (403, 404) and the problem
  documents of the other errors (400, 412, 413, 417, 500);
- `cloudflare/workerd.capnp`: the same Worker for a local `workerd serve`, with the files of
  `public/` behind the same `ASSETS` binding (no account and no network);
- `package.json`: pins wrangler for `npx wrangler deploy` / `npx wrangler dev`.

No file names the directory it was built into, so a build can be moved or committed as is.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from catalogctl import __version__
from catalogctl.contract.routes import (
    ERROR_HEADERS,
    HTML,
    ErrorPage,
    Resource,
    Site,
    Variant,
    error_page,
)
from catalogctl.errors import InputError
from catalogctl.site.manifest import PUBLIC
from catalogctl.site.problem import PROBLEM_JSON, problem_body

WRANGLER_TOML = "wrangler.toml"
PACKAGE_JSON = "package.json"
CLOUDFLARE_DIR = "cloudflare"
WORKER_JS = f"{CLOUDFLARE_DIR}/worker.js"
ROUTES_JSON = f"{CLOUDFLARE_DIR}/routes.json"
WORKERD_CAPNP = f"{CLOUDFLARE_DIR}/workerd.capnp"
ROUTES_FORMAT = 1

# wrangler, and the workerd release that this wrangler runs (`wrangler dev`); the tests run the
# same workerd. The compatibility date is one both know (workerd refuses a later one).
WRANGLER_VERSION = "4.164.0"
WORKERD_VERSION = "1.20261117.1"
COMPATIBILITY_DATE = "2026-11-01"
LOCAL_ADDRESS = "127.0.0.1:8787"  # wrangler dev's default port

# Workers Static Assets refuses files above 25 MiB at deploy time; say so at build time.
MAX_ASSET_SIZE = 25 * 1024 * 1024
# Headers a 304 repeats (RFC 9110 §15.4.5): those a 200 would send, bar the body's own.
_NOT_304 = frozenset({"content-type", "content-encoding", "content-length"})
_SUFFIX = {"identity": "", "gzip": ".gz", "br": ".br"}
_NAME = re.compile(r"[^a-z0-9-]+")


def worker_name(base_url: str) -> str:
    """The Worker's name from the published host: `games.example.com` → `games-example-com`."""
    host = (urlsplit(base_url).hostname or "").lower()
    name = _NAME.sub("-", host).strip("-")[:63].strip("-")
    return name or "catalog"


def worker_module() -> bytes:
    """The Worker module (the same for every build)."""
    return resources.files("catalogctl.site").joinpath("cloudflare_worker.js").read_bytes()


def _pairs(headers: list[tuple[str, str]]) -> list[list[str]]:
    return [[name, value] for name, value in headers]


def _variant(res: Resource, variant: Variant) -> dict[str, Any]:
    own = [("Content-Type", res.content_type), ("ETag", variant.etag)]
    if variant.encoding != "identity":
        own.append(("Content-Encoding", variant.encoding))
    headers = [*own, *res.headers]
    if len(variant.body) > MAX_ASSET_SIZE:
        raise InputError(
            f"{res.path} ({variant.encoding}) is {len(variant.body) / 2**20:.1f} MiB; "
            f"Workers Static Assets takes files up to {MAX_ASSET_SIZE // 2**20} MiB"
        )
    return {
        "file": f"{res.file}{_SUFFIX[variant.encoding]}",
        "size": len(variant.body),
        "sha256": hashlib.sha256(variant.body).hexdigest(),
        "etag": variant.etag,
        "headers": _pairs(headers),
        "not_modified": _pairs([(k, v) for k, v in headers if k.lower() not in _NOT_304]),
    }


def _page(page: ErrorPage | None, status: int, title: str, text: str) -> dict[str, Any]:
    """An HTML error answer, with the same defaults as serve for the pages a Site lacks."""
    if page is None:
        page = ErrorPage(status, HTML, ERROR_HEADERS, error_page(status, title, text))
    return {
        "status": status,
        "headers": _pairs([("Content-Type", page.content_type), *page.headers]),
        "body": page.body.decode("utf-8"),
    }


# The errors the Worker answers itself (workerd's own HTTP server answers the others).
WORKER_PROBLEMS = (400, 412, 413, 417, 500)


def _problem(status: int) -> dict[str, Any]:
    """An RFC 9457 problem answer with the contract's error headers."""
    return {
        "status": status,
        "headers": _pairs([("Content-Type", PROBLEM_JSON), *ERROR_HEADERS]),
        "body": problem_body(status).decode("ascii"),
    }


def route_table(site: Site) -> dict[str, Any]:
    """`cloudflare/routes.json`: every decision the Worker makes, as data."""
    routes = {
        path: {
            "encodings": [v.encoding for v in res.encoded],  # offered, server preference first
            "variants": {v.encoding: _variant(res, v) for v in (res.identity, *res.encoded)},
        }
        for path, res in site.resources.items()
    }
    nf = site.not_found
    errors = site.errors
    return {
        "format": ROUTES_FORMAT,
        "generator": f"catalogctl {__version__}",
        "base_url": site.base_url,
        "methods": ["GET", "HEAD"],
        "routes": routes,
        "not_found": {
            "prefix": "/api/",
            "status": 404,
            "headers": _pairs([("Content-Type", nf.content_type), *nf.headers]),
            "body_prefix": nf.prefix.decode("utf-8"),
            "body_suffix": nf.suffix.decode("utf-8"),
        },
        "pages": {
            "403": _page(
                errors.get(403), 403, "Forbidden", "This service is read-only: use GET or HEAD."
            ),
            "404": _page(errors.get(404), 404, "Not Found", "Nothing here."),
        },
        "problems": {str(status): _problem(status) for status in WORKER_PROBLEMS},
    }


def _toml_string(value: str) -> str:
    # json.dumps writes a valid TOML basic string (escapes quotes, backslashes, controls).
    return json.dumps(value)


def wrangler_toml(site: Site) -> str:
    return "\n".join(
        [
            f"# Generated by catalogctl from the build of {site.base_url}; regenerated by every",
            "# `catalogctl build --target cloudflare`. Do not edit: change the content or the",
            "# build options instead.",
            "#",
            "#   npx wrangler deploy     publish (asks for a Cloudflare login the first time)",
            "#   npx wrangler dev        a local look, without an account",
            "",
            f"name = {_toml_string(worker_name(site.base_url))}",
            f'main = "{WORKER_JS}"',
            f'compatibility_date = "{COMPATIBILITY_DATE}"',
            "send_metrics = false",
            "",
            "[assets]",
            f'directory = "{PUBLIC}"',
            'binding = "ASSETS"',
            "# Every request reaches the Worker: it answers from cloudflare/routes.json and reads",
            "# the documents through the binding, so the asset server never answers on its own.",
            "run_worker_first = true",
            'html_handling = "none"',
            'not_found_handling = "none"',
            "",
        ]
    )


# The asset server of a local workerd: the bytes of the file at the request's path, or 404
# (what Cloudflare's asset server gives the Worker for a file of public/ with html_handling
# and not_found_handling "none"). The files are embedded by the configuration, so it runs
# from any working directory.
_LOCAL_ASSETS = (
    "export default { fetch(request, env) { "
    "const path = new URL(request.url).pathname; "
    "const bytes = Object.hasOwn(env, path) ? env[path] : undefined; "
    "return bytes === undefined ? new Response(null, { status: 404 }) : new Response(bytes); "
    "} };"
)


def _asset_files(site: Site) -> list[str]:
    return [
        f"{res.file}{_SUFFIX[v.encoding]}"
        for res in site.resources.values()
        for v in (res.identity, *res.encoded)
    ]


def workerd_capnp(site: Site) -> str:
    """`cloudflare/workerd.capnp`: the Worker of wrangler.toml on a local workerd."""
    bindings = [
        f"    (name = {json.dumps('/' + rel)}, data = embed {json.dumps(f'../{PUBLIC}/{rel}')}),"
        for rel in _asset_files(site)
    ]
    return "\n".join(
        [
            f"# Generated by catalogctl from the build of {site.base_url}.",
            "# The Worker of wrangler.toml on a local workerd, with the files of public/ as its",
            "# static assets (ASSETS), from any working directory:",
            "#",
            f"#   npx workerd@{WORKERD_VERSION} serve {WORKERD_CAPNP}",
            "#",
            f"# It listens on {LOCAL_ADDRESS}, or where `--socket-addr http=ADDR:PORT` says.",
            'using Workerd = import "/workerd/workerd.capnp";',
            "",
            "const config :Workerd.Config = (",
            "  services = [",
            '    (name = "catalog", worker = .catalogWorker),',
            '    (name = "assets", worker = .assets),',
            "  ],",
            f'  sockets = [(name = "http", address = "{LOCAL_ADDRESS}", http = (), '
            'service = "catalog")],',
            ");",
            "",
            "const catalogWorker :Workerd.Worker = (",
            "  modules = [",
            '    (name = "worker.js", esModule = embed "worker.js"),',
            '    (name = "routes.json", json = embed "routes.json"),',
            "  ],",
            f'  compatibilityDate = "{COMPATIBILITY_DATE}",',
            '  bindings = [(name = "ASSETS", service = "assets")],',
            ");",
            "",
            "# The asset server: the bytes of the file at the request's path, or a 404.",
            "const assets :Workerd.Worker = (",
            f'  modules = [(name = "assets.js", esModule = {json.dumps(_LOCAL_ASSETS)})],',
            f'  compatibilityDate = "{COMPATIBILITY_DATE}",',
            "  bindings = [",
            *bindings,
            "  ],",
            ");",
            "",
        ]
    )


def package_json(site: Site) -> str:
    data = {
        "name": worker_name(site.base_url),
        "private": True,
        "description": f"The game catalog API of {site.base_url} on Cloudflare Workers",
        "scripts": {"deploy": "wrangler deploy", "dev": "wrangler dev"},
        "devDependencies": {"wrangler": WRANGLER_VERSION},
    }
    return json.dumps(data, indent=2) + "\n"


def cloudflare_files(site: Site) -> list[tuple[str, bytes]]:
    """The files `build --target cloudflare` writes beside public/, relative to OUT."""
    table = json.dumps(route_table(site), indent=1, ensure_ascii=False) + "\n"
    return [
        (WRANGLER_TOML, wrangler_toml(site).encode("utf-8")),
        (PACKAGE_JSON, package_json(site).encode("utf-8")),
        (WORKER_JS, worker_module()),
        (ROUTES_JSON, table.encode("utf-8")),
        (WORKERD_CAPNP, workerd_capnp(site).encode("utf-8")),
    ]
