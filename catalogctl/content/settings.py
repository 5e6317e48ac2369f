"""Settings of a content tree: `site.toml`, and the front matter of one game page.

May import: nothing of catalogctl (the content layer's bottom).

They are standard-library dataclasses whose annotations carry pydantic `Field` constraints.
pydantic turns them into validators once, at development time:
`python -m catalogctl.content.settings` writes the pydantic-core schemas to
`catalogctl/content/_schemas.py`, and a test fails when that file is stale. At run time
`validate` builds its validators from those schemas with pydantic-core alone, so a pre-commit
hook does not pay for pydantic's schema generation on every commit. The annotations are never
evaluated at run time (`from __future__ import annotations`); pydantic resolves them when the
schemas are generated.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from typing import Annotated

    from pydantic import Field
    from pydantic_core import SchemaValidator

ApiStatus = Literal["supported", "deprecated"]
StoreKind = Literal["apple", "google-play", "other"]
RuleLevel = Literal["error", "warning", "off"]


@dataclass(kw_only=True, slots=True)
class StoreSettings:
    """`[stores.<key>]`: one store of the catalog."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": True}

    name: Annotated[str, Field(min_length=1, description="Store name published in the catalog.")]
    kind: Annotated[
        StoreKind | None,
        Field(
            description="`apple`, `google-play` or `other`: decides the rule for its URLs. "
            "Inferred from the key or name when not set."
        ),
    ] = None
    params: Annotated[
        dict[str, str],
        Field(description="Attribution query parameters added to every download URL."),
    ] = field(default_factory=dict)
    hosts: Annotated[
        list[Annotated[str, Field(min_length=1)]] | None,
        Field(
            description="Hosts of the store's links (`store.steampowered.com`; `*.itch.io` "
            "for any host below itch.io), where `[content] body_links` and `init` look for "
            "them. Replaces the hosts catalogctl knows: an `apple` or `google-play` store's, "
            "and those of the stores it knows by key or name (Steam, itch.io, GOG, …)."
        ),
    ] = None


@dataclass(kw_only=True, slots=True)
class ApiVersionSettings:
    """`[api.v1]`: lifecycle of the API version (the API contract, §9)."""

    # Lax, so that dates may be TOML dates or ISO strings.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": False}

    status: Annotated[ApiStatus, Field(description="`supported` or `deprecated`.")] = "supported"
    deprecation: Annotated[
        dt.date | dt.datetime | None,
        Field(description="Deprecation date: the `Deprecation` header (RFC 9745)."),
    ] = None
    sunset: Annotated[
        dt.date | dt.datetime | None,
        Field(description="Retirement date: the `Sunset` header (RFC 8594)."),
    ] = None
    migration: Annotated[
        str | None, Field(strict=True, description='Migration guide, `rel="deprecation"`.')
    ] = None


@dataclass(kw_only=True, slots=True)
class ApiSettings:
    """`[api]`: one table per API version."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": True}

    v1: ApiVersionSettings = field(default_factory=ApiVersionSettings)


@dataclass(kw_only=True, slots=True)
class ContentSettings:
    """`[content]`: where the game pages are, and in which language."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": True}

    games: Annotated[
        str, Field(min_length=1, description="The games folder, relative to site.toml.")
    ] = "games"
    language: Annotated[
        str,
        Field(
            min_length=1,
            description="The language published: `<id>.<lang>.md` pages in other languages "
            "are skipped; an untagged page is in this language.",
        ),
    ] = "en"
    own_keys: Annotated[
        list[Annotated[str, Field(min_length=1)]],
        Field(
            description="Front-matter keys the website uses for itself that look like a "
            "catalog key (a Jekyll site's `platform`): never reported as a misspelling. "
            "Dotted for nested keys (`params.platform`)."
        ),
    ] = field(default_factory=list)
    body_links: Annotated[
        bool,
        Field(
            description="Read a store the front matter does not give from the page's body: "
            "the first link on one of the store's hosts (Markdown and HTML links, bare URLs, "
            "shortcode and component arguments; not in code blocks or comments)."
        ),
    ] = False
    exclude: Annotated[
        list[Annotated[str, Field(min_length=1)]],
        Field(
            description="Pages of the games folder that are not games (a privacy policy, a "
            "game's own sub-pages): counted, not read. Shell patterns (`*`, `?`, `[…]`); one "
            "without `/` is matched against the page's file name and each folder it is in "
            "(`privacy*`, `legal`), one with `/` against its path from the games folder "
            "(`*/mechanics/*`).",
        ),
    ] = field(default_factory=list)
    sections: Annotated[
        bool,
        Field(
            description="Read a section's own page below the games folder as a game, named "
            "by its folder: `<id>/_index.md`, a game with pages of its own (Hugo and Zola "
            "branch bundles, a privacy policy beside the game). The games folder's own "
            "`_index.md` stays its section's."
        ),
    ] = False
    category: Annotated[
        str | None,
        Field(
            min_length=1,
            description="Read as games only the pages of this category: their `categories`, "
            "`category` or `tags` holds it (a list, or a string of words separated by spaces "
            "as Jekyll writes them; any case). The other pages of the games folder (blog "
            "posts beside the games in Jekyll's `_posts`) are counted, not checked.",
        ),
    ] = None


@dataclass(kw_only=True, slots=True)
class SiteSettings:
    """`site.toml`: catalogctl's own file, every key of it known."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": True}

    base_url: Annotated[str, Field(description="Absolute base URL, without a trailing slash.")]
    title: Annotated[str, Field(min_length=1, description="Site title (llms.txt, docs page).")]
    description: Annotated[str, Field(min_length=1, description="One-line catalog summary.")]
    stores: Annotated[
        dict[str, StoreSettings], Field(min_length=1, description="Stores by key, in order.")
    ]
    game_url: Annotated[str, Field(description="Canonical game page; contains `{id}`.")] = (
        "{base_url}/games/{id}/"
    )
    platforms: Annotated[list[str] | None, Field(description="Allowed platforms.")] = None
    genres: Annotated[list[str] | None, Field(description="Allowed genres.")] = None
    api: ApiSettings = field(default_factory=ApiSettings)
    content: ContentSettings = field(default_factory=ContentSettings)
    fields: Annotated[
        dict[str, str | dict[str, str]],
        Field(
            description="Front-matter key of a catalog key, dotted into nested tables "
            '(`name = "title"`, `icon = "params.icon"`); `[fields.stores]` maps each store '
            "key to its link's key, and `list[key=value]` picks the item of a list of "
            'objects whose `key` is `value` (`android = "links[platform=googleplay].url"`).'
        ),
    ] = field(default_factory=dict)
    rules: Annotated[
        dict[str, RuleLevel],
        Field(description="Severity per rule id: `error`, `warning` or `off`."),
    ] = field(default_factory=dict)

    def replace(self, **changes: Any) -> SiteSettings:
        return dataclasses.replace(self, **changes)


@dataclass(kw_only=True, slots=True)
class GamePage:
    """The catalog keys of one game page, once `[fields]` has mapped them."""

    # Unknown keys belong to the website and are ignored.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "ignore", "strict": True}

    name: Annotated[str, Field(min_length=1, description="Game name.")]
    description: Annotated[str, Field(min_length=1, description="Plain-text description.")]
    platforms: Annotated[
        list[Annotated[str, Field(min_length=1)]], Field(min_length=1, description="Platforms.")
    ]
    genres: Annotated[
        list[Annotated[str, Field(min_length=1)]], Field(min_length=1, description="Genres.")
    ]
    icon: Annotated[str, Field(min_length=1, description="https:// URL or a site path.")]
    stores: Annotated[
        dict[str, Annotated[str, Field(min_length=1)]],
        Field(min_length=1, description="Store key → plain download URL."),
    ]
    weight: Annotated[
        int | None, Field(description="Catalog order, ascending; 0 or none after weighted games.")
    ] = None
    date: Annotated[
        dt.datetime | dt.date | str | None,
        Field(description="Order among equal weights: newest first."),
    ] = None
    publishDate: Annotated[
        dt.datetime | dt.date | str | None,
        Field(description="A game is left out until this date."),
    ] = None
    expiryDate: Annotated[
        dt.datetime | dt.date | str | None,
        Field(description="A game is left out from this date."),
    ] = None
    slug: Annotated[str | None, Field(min_length=1, description="Overrides the id.")] = None
    draft: Annotated[bool, Field(description="`true` leaves the game out.")] = False


# The keys a game page may set, in the order of GamePage.
CATALOG_KEYS: tuple[str, ...] = (
    "name",
    "description",
    "platforms",
    "genres",
    "icon",
    "stores",
    "weight",
    "date",
    "publishDate",
    "expiryDate",
    "slug",
    "draft",
)
REQUIRED_KEYS = frozenset({"name", "description", "platforms", "genres", "icon", "stores"})
SITE_KEYS: tuple[str, ...] = (
    "base_url",
    "title",
    "description",
    "game_url",
    "stores",
    "platforms",
    "genres",
    "api",
    "content",
    "fields",
    "rules",
)


SETTINGS_MODELS = {"site": SiteSettings, "game": GamePage}


# --- validators -----------------------------------------------------------------------------


@cache
def validator(kind: Literal["site", "game"]) -> SchemaValidator:
    """A pydantic-core validator built from the generated schema (no pydantic import)."""
    from pydantic_core import SchemaValidator

    from catalogctl.content._schemas import schemas

    return SchemaValidator(schemas(sys.modules[__name__])[kind])


# --- generating the schemas (development time) --------------------------------------------------

SCHEMA_FILE = Path(__file__).with_name("_schemas.py")


def _literal(value: Any) -> str:
    """Python source of a core schema: data, or a reference to a class of this module."""
    if isinstance(value, dict):
        if value.get("type") == "dataclass":
            # Strict config, but a table is given as a dict, not as an instance of the class.
            value = {**value, "strict": False}
        items = ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items() if k != "ref")
        return "{" + items + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    if isinstance(value, type) and value.__module__ == __name__:
        return f"models.{value.__name__}"
    if value is dict or value is list:
        return value.__name__
    raise TypeError(f"cannot write {value!r} into a generated schema")


def generate() -> str:
    """The source of `_schemas.py`, from pydantic's schemas of the models above."""
    import pydantic
    from pydantic import TypeAdapter

    module = sys.modules[__name__]
    namespace = {"Annotated": __import__("typing").Annotated, "Field": pydantic.Field}
    for name, value in namespace.items():  # what the string annotations refer to
        setattr(module, name, value)
    schemas = {kind: TypeAdapter(cls).core_schema for kind, cls in SETTINGS_MODELS.items()}
    body = ",\n".join(f"        {kind!r}: {_literal(s)}" for kind, s in schemas.items())
    return (
        '"""pydantic-core schemas of catalogctl.content.settings. Generated: do not edit.\n\n'
        "Regenerate with `python -m catalogctl.content.settings`. The classes come in as\n"
        '`models` (that module), so this module imports nothing of catalogctl.\n"""\n\n'
        "# ruff: noqa: E501\n"
        "from typing import Any\n\n\n"
        "def schemas(models: Any) -> dict[str, Any]:\n"
        f"    return {{\n{body},\n    }}\n"
    )


def json_schema(kind: Literal["site", "game"]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of site.toml or of a game page, from the models above."""
    import typing

    import pydantic

    module = sys.modules[__name__]
    for name, value in {"Annotated": typing.Annotated, "Field": pydantic.Field}.items():
        setattr(module, name, value)  # what the string annotations refer to
    schema: dict[str, Any] = pydantic.TypeAdapter(SETTINGS_MODELS[kind]).json_schema()
    return schema


if __name__ == "__main__":
    SCHEMA_FILE.write_text(generate(), encoding="utf-8")
