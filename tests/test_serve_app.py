"""`catalog_app()`: the contract as an aiohttp application, on its own or mounted in a studio's
own aiohttp service (pytest-aiohttp's `aiohttp_client` runs it in the test's loop)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from catalogctl.content.loader import load_catalog
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.serve.app import CATALOG, catalog_app
from catalogctl.serve.responses import Table
from catalogctl.site.build import write_site
from catalogctl.site.render import render
from tests.conftest import SAMPLE, ContentFactory, game_yaml

Client = Callable[..., Awaitable[TestClient[Any, Any]]]
SITE = render(load_catalog(SAMPLE))


async def test_serve_app_on_its_own(aiohttp_client: Client) -> None:
    client = await aiohttp_client(catalog_app(SITE))
    res = SITE.resources["/api/v1/games"]
    resp = await client.get("/api/v1/games", headers={"Accept-Encoding": "identity"})
    assert resp.status == 200
    assert await resp.read() == res.identity.body
    assert resp.headers["ETag"] == res.identity.etag
    assert resp.headers["Server"] == "catalogctl"
    assert resp.headers["Date"]
    for name, value in res.headers:
        assert resp.headers[name] == value
    head = await client.head("/api/v1/games", headers={"Accept-Encoding": "identity"})
    assert head.status == 200 and await head.read() == b""
    assert head.headers["Content-Length"] == str(len(res.identity.body))


async def test_serve_app_gzip_bytes_as_built(aiohttp_client: Client) -> None:
    client = await aiohttp_client(catalog_app(SITE), auto_decompress=False)
    variant = SITE.resources["/api/v1/games"].variant("gzip")
    assert variant is not None
    resp = await client.get("/api/v1/games", headers={"Accept-Encoding": "gzip;q=1, br;q=inf"})
    assert resp.headers["Content-Encoding"] == "gzip"
    body = await resp.read()
    assert body == variant.body
    assert gzip.decompress(body) == SITE.resources["/api/v1/games"].identity.body


async def test_serve_app_errors_and_conditionals(aiohttp_client: Client) -> None:
    client = await aiohttp_client(catalog_app(SITE))
    resp = await client.get("/api/nope?x=1")
    assert resp.status == 404 and resp.content_type == "application/problem+json"
    assert await resp.read() == SITE.not_found.body("/api/nope")
    resp = await client.post("/api/v1", data=b"{}")
    assert resp.status == 403 and resp.content_type == "text/html"
    etag = SITE.resources["/api/v1"].identity.etag
    plain = {"Accept-Encoding": "identity"}
    resp = await client.get("/api/v1", headers={**plain, "If-Match": f"W/{etag}"})
    assert resp.status == 412 and (await resp.json(content_type=None))["status"] == 412
    resp = await client.get("/api/v1", headers={**plain, "If-None-Match": etag})
    assert resp.status == 304 and resp.headers["ETag"] == etag
    assert "Content-Type" not in resp.headers
    resp = await client.get("/api/v1", headers={"Expect": "100-continue"})
    assert resp.status == 200  # the final answer at once, no 100


@pytest.fixture
def studio() -> web.Application:
    """A studio's own aiohttp service, with a route and a middleware of its own."""

    async def home(request: web.Request) -> web.Response:
        return web.Response(text="studio home")

    @web.middleware
    async def tag(request: web.Request, handler: Any) -> web.StreamResponse:
        response: web.StreamResponse = await handler(request)
        response.headers["X-Studio"] = "1"
        return response

    app = web.Application(middlewares=[tag])
    app.router.add_get("/", home)
    return app


async def test_serve_app_mounted_under_a_prefix(
    aiohttp_client: Client, studio: web.Application
) -> None:
    """`app.add_subapp("/catalog", catalog_app(...))`: the routes live under the prefix, the
    documents link to the base URL given, the studio's own routes and middlewares stay."""
    base = "https://studio.example/catalog"
    studio.add_subapp("/catalog", catalog_app(SAMPLE, base_url=base))
    client = await aiohttp_client(studio)
    assert await (await client.get("/")).text() == "studio home"
    resp = await client.get("/catalog/api/v1")
    assert resp.status == 200 and resp.headers["X-Studio"] == "1"
    index = json.loads(await resp.read())
    assert index["endpoints"]["games"] == f"{base}/api/v1/games"
    games = await client.get("/catalog/api/v1/games")
    assert games.status == 200
    problem = await client.get("/catalog/api/v2?q=1")
    assert problem.status == 404
    assert (await problem.json(content_type=None))["instance"] == "/catalog/api/v2"
    assert (await client.get("/catalog/robots.txt")).content_type == "text/html"
    assert (await client.get("/api/v1")).status == 404  # not mounted there


async def test_serve_app_mounted_for_a_host_name(
    aiohttp_client: Client, studio: web.Application, tmp_path: Path
) -> None:
    """`app.add_domain(host, catalog_app(build_dir))`: the catalog answers for its host."""
    write_site(SITE, tmp_path / "dist")
    studio.add_domain("games.example.com", catalog_app(tmp_path / "dist"))
    client = await aiohttp_client(studio)
    resp = await client.get("/api/v1", headers={"Host": "games.example.com"})
    assert resp.status == 200
    assert await resp.read() == (tmp_path / "dist/public/api/v1/index.json").read_bytes()
    assert (await client.get("/api/v1", headers={"Host": "www.example.com"})).status == 404


async def test_serve_app_reload_by_assigning_a_table(
    aiohttp_client: Client, make_content: ContentFactory
) -> None:
    root = make_content()
    app = catalog_app(root)
    client = await aiohttp_client(app)
    assert len((await (await client.get("/api/v1/games")).json())["games"]) == 2
    (root / "games" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
    app[CATALOG].serve(Table(render(load_catalog(root))))
    assert len((await (await client.get("/api/v1/games")).json())["games"]) == 3


def test_serve_app_refuses_what_cannot_be_loaded(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    with pytest.raises(ContentInvalid):
        catalog_app(make_content({"bad": "---\nname: X\n---\n"}))
    with pytest.raises(InputError):
        catalog_app(tmp_path / "nope")
