"""`catalogctl build --target cloudflare`: the Workers project, and the Worker answering like serve.

The Worker runs on workerd from the build directory (`tests/edge_process.py`). The reference
for every answer is serve's own request handler (`Table.answer`) on the same route table:
status, every header but Date/Server/Connection, and the body, byte for byte, for every
document and encoding.
"""

from __future__ import annotations

import json
import random
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.contract.routes import Resource, Site, Variant
from catalogctl.errors import InputError
from catalogctl.serve.server import Table
from catalogctl.site.cloudflare import (
    COMPATIBILITY_DATE,
    MAX_ASSET_SIZE,
    ROUTES_JSON,
    WORKER_JS,
    WORKERD_CAPNP,
    WRANGLER_VERSION,
    cloudflare_files,
    route_table,
    worker_module,
    worker_name,
)
from catalogctl.site.readback import read_build
from catalogctl.site.render import render
from tests.conformance import Reply, raw_request, request
from tests.conftest import SAMPLE, ContentFactory
from tests.edge_process import WorkerdProcess, build_project
from tests.http_cases import choose_coding
from tests.processes import run_cli

IGNORED = frozenset({"date", "server", "connection", "content-length"})
TARGETS = [
    "/api/v1",
    "/api/v1/games",
    "/api",
    "/openapi.json",
    "/.well-known/api-catalog",
    "/llms.txt",
    "/api/v1?x=1&y",
    "/api/v1?a|b",
    "/api/v1/games?|",
    "/api/v1/",
    "/api/v1/games/",
    "/api/",
    "/api/v2",
    "/api//v1",
    "//api/v1",
    "/api/%76%31",
    "/%61pi/v1",
    "/api/v1/../v1",
    "/api/./v1",
    "/api/%00",
    "/api/../../etc/passwd",
    "/api/%zz",
    "/api/%22",
    "/api/a'b{}|^",
    '/api/x"y\\z',
    "/api/__proto__",
    "/__proto__",
    "/nope",
    "/",
    "/index.html",
    "/api/index.html",
    "/api/v1/index.json",
    "/cloudflare/routes.json",
    "/wrangler.toml",
]
ENCODINGS = [
    None,
    "gzip",
    "br",
    "gzip, deflate, br",
    "br;q=0.5, gzip",
    "gzip;q=0.5, br;q=0.5",
    "gzip;q=1.0, br;q=0.999",
    "gzip ; q=0.8 , br;q=0.9",
    "gzip;q=0, br;q=0",
    "*",
    "*;q=0",
    "br;q=0, *",
    "x-gzip",
    "GZIP",
    "identity",
    "identity;q=1, gzip;q=0.5",
    "deflate",
    "br, gzip, deflate",
    "*, gzip",
    "brotli, gzip",
    "gzip,br",
    " gzip ,\tbr ",
    "gzip,,br",
    "gzip br",
    "gzip;q",
    "gzip;q=abc, br;q=0.1",
    "gzip, deflate, br, zstd",
    "",
]


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`catalogctl build content --out DIST --target cloudflare`, once for the module."""
    return build_project(SAMPLE, tmp_path_factory.mktemp("edge") / "dist")


@pytest.fixture
def own_build(sample_build: Path, tmp_path: Path) -> Path:
    """A copy of the sample build that a test may change."""
    return Path(shutil.copytree(sample_build, tmp_path / "dist"))


@pytest.fixture(scope="module")
def sample_edge(sample_build: Path) -> Iterator[tuple[WorkerdProcess, Table]]:
    out = sample_build
    server = WorkerdProcess(out)
    try:
        yield server, Table(read_build(out))
    finally:
        assert server.stop() == 0


def _same_as_serve(
    reply: Reply, table: Table, method: str, target: str, ae: str | None, inm: str | None = None
) -> None:
    want = table.answer(method, target, ae, inm)
    got_headers = sorted((k, v) for k, v in reply.headers if k not in IGNORED)
    want_headers = sorted(
        (k.lower(), v) for k, v in want.headers.items() if k.lower() not in IGNORED
    )
    assert (reply.status, got_headers) == (want.status, want_headers), reply.request
    assert reply.body == (b"" if method == "HEAD" else want.body), reply.request
    if want.status != 304:  # the exact length, for HEAD too, and never chunked
        assert reply.header("content-length") == str(len(want.body)), reply.request


# --- the Worker answers like serve -------------------------------------------------------------


def _decided(table: Table, target: str, ae: str | None) -> str | None:
    """The coding the decisions choose (tests/http_cases.py), as the Accept-Encoding that
    makes serve's table send that variant (serve's own parser follows on its branch)."""
    res = table.site.resources.get(target)
    if res is None:
        return ae
    return choose_coding(ae, tuple(v.encoding for v in res.encoded))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "OPTIONS"])
def test_edge_answers_like_serve(
    sample_edge: tuple[WorkerdProcess, Table], method: str, target: str
) -> None:
    server, table = sample_edge
    _same_as_serve(request(server.url, target, method), table, method, target, None)


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_edge_every_document_and_encoding_is_byte_identical_to_serve(
    sample_edge: tuple[WorkerdProcess, Table], method: str
) -> None:
    """Each variant goes out exactly as built: the runtime compresses nothing a second time."""
    server, table = sample_edge
    site = table.site
    for path, res in site.resources.items():
        for variant in (res.identity, *res.encoded):
            ae = None if variant.encoding == "identity" else variant.encoding
            reply = request(server.url, path, method, {"Accept-Encoding": ae} if ae else {})
            _same_as_serve(reply, table, method, path, ae)
            assert reply.header("etag") == variant.etag, reply.request
            assert reply.header("transfer-encoding") is None, reply.request
            if method == "GET":
                assert reply.body == variant.body, reply.request


@pytest.mark.parametrize("ae", ENCODINGS)
@pytest.mark.parametrize("target", ["/api/v1", "/api/v1/games", "/openapi.json", "/api/v9"])
def test_edge_negotiates_like_serve(
    sample_edge: tuple[WorkerdProcess, Table], target: str, ae: str | None
) -> None:
    server, table = sample_edge
    reply = request(server.url, target, headers={} if ae is None else {"Accept-Encoding": ae})
    _same_as_serve(reply, table, "GET", target, _decided(table, target, ae))


def test_edge_negotiates_like_serve_on_random_headers(
    sample_edge: tuple[WorkerdProcess, Table],
) -> None:
    """Accept-Encoding values built from codings, q-values and separators, fixed seed."""
    server, table = sample_edge
    rng = random.Random(7)
    codings = [["gzip", "x-gzip", "GZip"], ["br", "Br"], ["*"], ["identity"], ["deflate"]]
    codings += [["brotli"], [""], [""], ["gzip"], ["br"]]  # a coding may come twice
    qs = ["", ";q=0", ";q=1", ";q=0.5", ";q=0.001", ";q=1.0", ";q=0.999", ";q=.5", ";Q=0.7"]
    qs += [";q=2", ";q=-1", ";q=x", ";q", "; level=1", ";q=0.5;x=y"]
    seps = [",", ", ", " , ", ",\t"]
    for _ in range(300):
        chosen = rng.sample(codings, rng.randint(1, 5))
        parts = [rng.choice(names) + rng.choice(qs) for names in chosen]
        ae = "".join(part + rng.choice(seps) for part in parts)[: -rng.randint(1, 2)]
        reply = request(server.url, "/api/v1", headers={"Accept-Encoding": ae})
        _same_as_serve(reply, table, "GET", "/api/v1", _decided(table, "/api/v1", ae))


@pytest.mark.parametrize("ae", [None, "gzip", "br"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_edge_if_none_match_like_serve(
    sample_edge: tuple[WorkerdProcess, Table], ae: str | None, method: str
) -> None:
    server, table = sample_edge
    etag = table.answer("GET", "/api/v1/games", ae, None).etag
    other = table.answer("GET", "/api/v1/games", "gzip" if ae != "gzip" else None, None).etag
    for inm in [
        etag,
        f"W/{etag}",
        f'"x", {etag}',
        f'"a,b", {etag}',
        "*",
        " * ",
        '"nope"',
        other,
        etag.strip('"'),
        f"{etag[:-1]}",
        f"junk, {etag}",
    ]:
        headers = {"If-None-Match": inm, **({"Accept-Encoding": ae} if ae else {})}
        reply = request(server.url, "/api/v1/games", method, headers)
        _same_as_serve(reply, table, method, "/api/v1/games", ae, inm)
    assert request(server.url, "/api/v1/games", headers={"If-None-Match": etag}).status == (
        304 if ae is None else 200
    )


@pytest.mark.parametrize(
    "path",
    [
        '/api/"',
        "/api/\\",
        '/api/\\"',
        '/api/"},"status":200,"x":"',
        "/api/" + '"\\' * 400,
        "/api/" + "a" * 3000 + '"' * 100 + "b" * 3000,
    ],
    ids=["quote", "backslash", "escaped-quote", "injection", "mixed-800", "long"],
)
def test_edge_not_found_instance_is_json_safe(
    sample_edge: tuple[WorkerdProcess, Table], path: str
) -> None:
    server, table = sample_edge
    reply = request(server.url, path + "?q=1")
    assert reply.status == 404
    body = json.loads(reply.body)
    assert body["instance"] == path and body["status"] == 404
    assert reply.body == table.site.not_found.body(path)


@pytest.mark.parametrize("host", ["EXAMPLE.com:1", "games.example", "[::1]:8787", "x"])
def test_edge_instance_ignores_the_host_header(
    sample_edge: tuple[WorkerdProcess, Table], host: str
) -> None:
    """The path is taken from the request target; another Host cannot shift it."""
    server, table = sample_edge
    data = f"GET /api/nope HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    reply = raw_request(server.url, data.encode())
    assert reply.body == table.site.not_found.body("/api/nope"), reply.request


@pytest.mark.parametrize("host", ["x/api/v1", "x?y", "a b", "/api/v1", "a@b", "a:1x", '"'])
def test_edge_invalid_host_is_a_bad_request(
    sample_edge: tuple[WorkerdProcess, Table], host: str
) -> None:
    """RFC 9110 §7.2: Host is uri-host [":" port]; anything else is a 400 (RFC 9112 §3.2)."""
    server, _ = sample_edge
    data = f"GET /api/v1 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    reply = raw_request(server.url, data.encode())
    assert (reply.status, reply.media_type) == (400, "application/problem+json"), host
    assert reply.header("cache-control") == "no-store", reply.headers


def test_edge_many_requests_on_one_isolate_keep_the_same_bytes(
    sample_edge: tuple[WorkerdProcess, Table],
) -> None:
    """The documents the Worker keeps in memory are sent again and again, unchanged."""
    server, table = sample_edge
    games = table.site.resources["/api/v1/games"]
    for i in range(30):
        ae = ["br", "gzip", None][i % 3]
        reply = request(server.url, "/api/v1/games", headers={"Accept-Encoding": ae} if ae else {})
        want = games.identity if ae is None else games.variant(ae)
        assert want is not None and reply.body == want.body, reply.request


# --- what the edge adds: the client's own Accept-Encoding, a stale asset ------------------------


def test_edge_negotiates_on_the_clients_accept_encoding(own_build: Path) -> None:
    """Cloudflare replaces Accept-Encoding with "br, gzip" and keeps the client's own in
    `request.cf.clientAcceptEncoding`; workerd's `cfBlobHeader` delivers such a `cf` here."""
    out = own_build
    capnp = out / WORKERD_CAPNP
    config = capnp.read_text()
    assert "http = ()" in config
    capnp.write_text(config.replace("http = ()", 'http = (cfBlobHeader = "x-cf-blob")'))
    site = read_build(out)
    games = site.resources["/api/v1/games"]
    server = WorkerdProcess(out)
    try:
        for client, want in [
            ("gzip", games.variant("gzip")),
            ("", games.identity),
            ("deflate", games.identity),
            ("gzip, deflate, br", games.variant("br")),
        ]:
            blob = json.dumps({"clientAcceptEncoding": client})
            headers = {"Accept-Encoding": "br, gzip", "X-CF-Blob": blob}
            reply = request(server.url, "/api/v1/games", headers=headers)
            assert want is not None and reply.header("etag") == want.etag, reply.request
            assert reply.body == want.body, reply.request
        reply = request(server.url, "/api/v1/games", headers={"Accept-Encoding": "gzip"})
        assert reply.header("content-encoding") == "gzip"  # no cf: the header as sent
    finally:
        assert server.stop() == 0


def test_edge_stale_asset_is_a_server_error_not_wrong_bytes(own_build: Path) -> None:
    """An asset whose bytes differ from the route table (assets and Worker out of step) is
    never sent: the Worker answers 500 for it, and says why in its log."""
    out = own_build
    index = out / "public" / "api" / "v1" / "index.json"
    index.write_bytes(index.read_bytes().replace(b'"v1"', b'"v0"'))  # same size, other bytes
    llms = out / "public" / "llms.txt.gz"
    llms.write_bytes(llms.read_bytes()[:-1])
    server = WorkerdProcess(out)
    try:
        for target, ae in [("/api/v1", None), ("/llms.txt", "gzip")]:
            reply = request(server.url, target, headers={"Accept-Encoding": ae} if ae else {})
            assert (reply.status, reply.media_type) == (500, "application/problem+json"), (
                reply.request
            )
            assert reply.header("cache-control") == "no-store", reply.request
        assert request(server.url, "/api/v1", headers={"Accept-Encoding": "br"}).status == 200
        assert request(server.url, "/llms.txt").status == 200
    finally:
        assert server.stop() == 0
    log = server.printed()
    assert "api/v1/index.json: Error: its SHA-256 differs" in log, log
    assert "llms.txt.gz: Error: " in log and "bytes, the route table says" in log, log


# --- the project files -------------------------------------------------------------------------


def test_build_target_cloudflare_writes_a_workers_project(sample_build: Path) -> None:
    out = sample_build
    config = tomllib.loads((out / "wrangler.toml").read_text())
    assert config["name"] == "games-tidewater-example"
    assert config["main"] == WORKER_JS and (out / WORKER_JS).is_file()
    assert config["compatibility_date"] == COMPATIBILITY_DATE
    assert config["send_metrics"] is False
    assert config["assets"] == {
        "directory": "public",
        "binding": "ASSETS",
        "run_worker_first": True,
        "html_handling": "none",
        "not_found_handling": "none",
    }
    assert (out / WORKER_JS).read_bytes() == worker_module()
    assert b'import table from "./routes.json";' in worker_module()
    package = json.loads((out / "package.json").read_text())
    assert package["devDependencies"] == {"wrangler": WRANGLER_VERSION}
    # the static output is all there too
    assert (out / "manifest.json").is_file() and (out / "nginx" / "nginx.conf").is_file()
    assert str(out) not in "".join(
        (out / rel).read_text() for rel in ("wrangler.toml", "package.json", ROUTES_JSON)
    )


def test_build_default_target_writes_no_workers_project(tmp_path: Path) -> None:
    assert run_cli("build", SAMPLE, "--out", tmp_path / "d").returncode == 0
    assert not (tmp_path / "d" / "wrangler.toml").exists()
    assert not (tmp_path / "d" / "cloudflare").exists()


def test_build_unknown_target_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("build", SAMPLE, "--out", tmp_path / "d", "--target", "fastly")
    assert proc.returncode == 2
    assert "--target" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "d").exists()


def test_route_table_is_the_sites(sample_build: Path) -> None:
    """routes.json holds the Site's routes, files, ETags and headers: nothing of its own."""
    out = sample_build
    site = read_build(out)
    table = json.loads((out / ROUTES_JSON).read_text())
    assert table == route_table(site)
    assert set(table["routes"]) == set(site.resources)
    for path, res in site.resources.items():
        route = table["routes"][path]
        assert route["encodings"] == [v.encoding for v in res.encoded]
        for variant in (res.identity, *res.encoded):
            entry = route["variants"][variant.encoding]
            assert (out / "public" / entry["file"]).read_bytes() == variant.body
            assert entry["etag"] == variant.etag and entry["size"] == len(variant.body)
            own = 2 if variant.encoding == "identity" else 3  # type, ETag, Content-Encoding
            assert [tuple(h) for h in entry["headers"]][own:] == list(res.headers)
            names = {name.lower() for name, _ in entry["not_modified"]}
            assert "content-type" not in names and "etag" in names
    assert table["not_found"]["body_prefix"].encode() == site.not_found.prefix
    assert table["pages"]["403"]["body"].encode() == site.errors[403].body


def test_cloudflare_files_do_not_depend_on_the_build_directory(
    sample_build: Path, tmp_path: Path
) -> None:
    a, b = sample_build, tmp_path / "b" / "elsewhere"
    assert run_cli("build", SAMPLE, "--out", b, "--target", "cloudflare").returncode == 0
    for rel, _ in cloudflare_files(read_build(a)):
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


@pytest.mark.parametrize(
    ("base_url", "name"),
    [
        ("https://games.example.com", "games-example-com"),
        ("https://Games.Example.COM:8443/x", "games-example-com"),
        ("https://" + "a" * 70 + ".example", "a" * 63),
        ("https://xn--bcher-kva.example", "xn--bcher-kva-example"),
    ],
)
def test_worker_name_from_the_base_url(base_url: str, name: str) -> None:
    assert worker_name(base_url) == name


def test_cloudflare_refuses_a_document_over_the_asset_limit(make_content: ContentFactory) -> None:
    site = render(load_catalog(make_content()), compress=False)
    res = site.resources["/api/v1/games"]
    big = Variant("identity", b" " * (MAX_ASSET_SIZE + 1), res.identity.etag)
    huge = Resource(res.path, res.file, res.content_type, res.headers, big, ())
    site = Site(site.base_url, {**site.resources, res.path: huge}, site.not_found, site.errors)
    with pytest.raises(InputError, match="25 MiB"):
        cloudflare_files(site)
