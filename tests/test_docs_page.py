"""The /api docs page, openapi.json and the favicon as documents: escaping, ids, links, names."""

from __future__ import annotations

import datetime as dt
import json
from html.parser import HTMLParser
from typing import Any

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.contract.docs import docs_page
from catalogctl.contract.openapi import openapi_document
from catalogctl.contract.publication import Lifecycle, Publication
from catalogctl.contract.routes import FAVICON
from catalogctl.site.render import render
from tests.conftest import ROOT, SAMPLE

SMALL = ROOT / "tests" / "fixtures" / "small"
SCRIPT = "<script>alert(1)</script>"
HOSTILE_BASE = f'https://x.example/">{SCRIPT}'

GAME = {
    "id": "g",
    "name": f"Game {SCRIPT}",
    "description": "A </pre> game & more",
    "url": "https://x.example/games/g/",
    "platforms": ["iOS"],
    "genres": ["Puzzle"],
    "icon": "https://x.example/g.png",
    "stores": [{"name": "App Store", "url": "https://apps.apple.com/app/g/id1?pt=1"}],
}


class Page(HTMLParser):
    """The elements of a page, as a browser's parser sees them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def all(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]

    def ids(self) -> list[str | None]:
        return [attrs["id"] for _, attrs in self.tags if "id" in attrs]


def _pub(**changes: Any) -> Publication:
    fields: dict[str, Any] = {
        "base_url": "https://games.example.com",
        "title": "Example Games",
        "description": "Mobile games.",
        "store_names": ("App Store", "Google Play"),
    }
    fields.update(changes)
    return Publication(**fields)


def test_docs_page_hostile_base_url_never_becomes_markup() -> None:
    html = docs_page(_pub(base_url=HOSTILE_BASE), [GAME])
    page = Page(html)
    assert page.all("script") == []
    assert SCRIPT not in html
    # The text is there, escaped: a reader sees exactly what the site settings say.
    assert f"{HOSTILE_BASE}/api/v1/games" in "".join(page.text)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize(
    "field",
    ["title", "description", "store_names"],
)
def test_docs_page_escapes_every_site_text(field: str) -> None:
    value: Any = (f"Store {SCRIPT}",) if field == "store_names" else f'Ex "{SCRIPT}'
    html = docs_page(_pub(**{field: value}), [GAME])
    assert Page(html).all("script") == []
    assert SCRIPT not in html


def test_docs_page_escapes_game_text_in_the_example() -> None:
    html = docs_page(_pub(), [GAME])
    page = Page(html)
    assert page.all("script") == [] and SCRIPT not in html
    assert "A &lt;/pre&gt; game &amp; more" in html
    assert len(page.all("pre")) == 4  # the game's `</pre>` closed nothing


def test_docs_page_migration_link_is_http_only() -> None:
    lifecycle = Lifecycle(status="deprecated", migration="javascript:alert(1)")
    page = Page(docs_page(_pub(lifecycle=lifecycle), [GAME]))
    assert all(not (a["href"] or "").startswith("javascript:") for a in page.all("a"))
    good = Lifecycle(status="deprecated", migration="https://games.example.com/api/v2")
    hrefs = [a["href"] for a in Page(docs_page(_pub(lifecycle=good), [GAME])).all("a")]
    assert "https://games.example.com/api/v2" in hrefs


@pytest.mark.parametrize("content", [SAMPLE, SMALL], ids=["sample", "deprecated"])
def test_docs_page_ids_links_and_code_blocks(content: Any) -> None:
    site = render(load_catalog(content), compress=False)
    html = site.resources["/api"].identity.body.decode("utf-8")
    page = Page(html)
    ids = page.ids()
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for a in page.all("a"):
        href = a["href"] or ""
        if href.startswith("#"):
            assert href[1:] in ids, href
    pres = page.all("pre")
    assert pres and all(p.get("tabindex") == "0" for p in pres)
    assert "{base_url}" not in html
    assert f"{site.base_url}/api/v1/games" in html
    icons = [link for link in page.all("link") if link.get("rel") == "icon"]
    assert icons == [{"rel": "icon", "href": FAVICON, "type": "image/svg+xml"}]


def test_favicon_is_a_route_of_the_site() -> None:
    site = render(load_catalog(SAMPLE))
    icon = site.resources[FAVICON]
    assert icon.content_type == "image/svg+xml"
    assert icon.identity.body.startswith(b"<svg xmlns=")
    assert icon.file == "favicon.ico"


def test_openapi_names_the_stores_of_site_toml() -> None:
    doc = openapi_document(_pub(store_names=("App Store", "Google Play", "Steam")))
    name = doc["components"]["schemas"]["Store"]["properties"]["name"]
    assert name["examples"] == ["App Store", "Google Play", "Steam"]
    assert "`Steam`" in name["description"]
    assert "{base_url}" not in json.dumps(doc)


def _operations(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for item in doc["paths"].values() for op in item.values()]


def test_openapi_marks_v1_deprecated_only_when_it_is() -> None:
    supported = openapi_document(_pub())
    assert all("deprecated" not in op for op in _operations(supported))
    lifecycle = Lifecycle(status="deprecated", deprecation=dt.date(2027, 3, 1))
    deprecated = openapi_document(_pub(lifecycle=lifecycle))
    ops = _operations(deprecated)
    assert len(ops) == 4 and all(op["deprecated"] is True for op in ops)


def test_openapi_of_a_build_is_valid_with_store_names() -> None:
    from openapi_spec_validator import validate

    site = render(load_catalog(SMALL), compress=False)
    doc = json.loads(site.resources["/openapi.json"].identity.body)
    validate(doc)
    assert doc["components"]["schemas"]["Store"]["properties"]["name"]["examples"] == [
        "App Store",
        "Google Play",
    ]
    assert all(op["deprecated"] is True for op in _operations(doc))
