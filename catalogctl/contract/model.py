"""The published contract (contract §2, §7): one pydantic model per document.

May import: nothing of catalogctl.

The `Field(description=...)` texts come from the specification; `openapi.json` and the
documentation page are generated from them, so the three cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

URI = {"format": "uri"}
URI_REFERENCE = {"format": "uri-reference"}

UriStr = Annotated[str, Field(json_schema_extra=URI)]


class _Contract(BaseModel):
    # Clients ignore unknown response fields, so a reader of published JSON must too.
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


# --- contract §2.1 ---------------------------------------------------------------------------


class Endpoints(_Contract):
    """Links to the endpoints of this API version."""

    games: UriStr = Field(description="Address of the games endpoint: {base_url}/api/v1/games.")


class ApiVersionIndex(_Contract):
    """Version discovery document returned by GET /api/v1."""

    version: Literal["v1"] = Field(description="API version; always `v1`.")
    status: Literal["supported", "deprecated"] = Field(
        description="Lifecycle status of this API version: `supported` or `deprecated`."
    )
    documentation: UriStr = Field(description="Usage documentation: {base_url}/api.")
    openapi: UriStr = Field(description="Machine-readable description: {base_url}/openapi.json.")
    endpoints: Endpoints = Field(description="Endpoints of this version; contains `games`.")


# --- contract §2.3, §2.4 -----------------------------------------------------------------------


class Store(_Contract):
    """A store where the game can be downloaded."""

    name: str = Field(
        description=(
            "Store name. The catalog uses one name for the iOS application store and one for "
            "the Android application store; clients find a store by comparing this name."
        )
    )
    url: UriStr = Field(
        description="Download address, carrying the store's attribution query parameters."
    )


class Game(_Contract):
    """One game of the catalog."""

    id: str = Field(description="Stable game slug, the one used in the game's website URL.")
    name: str = Field(description="Game name.")
    description: str = Field(description="Game description.")
    url: UriStr = Field(description="Canonical game page (absolute URI).")
    platforms: list[str] = Field(
        min_length=1,
        description=(
            "Supported platforms, at least one. `iOS` means iPhone and iPad; `Android` means "
            "Android phones and tablets."
        ),
    )
    genres: list[str] = Field(min_length=1, description="Game genres, at least one.")
    icon: UriStr = Field(description="Game icon address (absolute URI).")
    stores: list[Store] = Field(
        min_length=1,
        description=(
            "Download links, at least one. A game may lack an entry for a store; a client that "
            "looks for a missing store treats it as absent."
        ),
    )


# --- contract §2.2 ----------------------------------------------------------------------------


class GameCatalog(_Contract):
    """The complete catalog returned by GET /api/v1/games."""

    schemaVersion: Literal[1] = Field(description="Version of the catalog schema; always 1.")
    games: list[Game] = Field(
        description="The complete catalog, in the same order as the website's catalog."
    )


# --- contract §7 ------------------------------------------------------------------------------


class ErrorInfo(_Contract):
    """Compatibility error member of ApiNotFound."""

    code: Literal["not_found"] = Field(description="Always `not_found`.")
    message: Literal["Unknown API endpoint."] = Field(description="Always `Unknown API endpoint.`")
    status: Literal[404] = Field(description="Always 404.")


class ProblemLinks(_Contract):
    """Where to go instead of an unknown endpoint."""

    documentation: UriStr = Field(description="{base_url}/api")
    games: UriStr = Field(description="{base_url}/api/v1/games")
    openapi: UriStr = Field(description="{base_url}/openapi.json")


class ApiNotFound(_Contract):
    """RFC 9457 problem details for an unknown path under /api/, plus compatibility members."""

    type: Literal["about:blank"] = Field(description="Always `about:blank`.")
    title: Literal["Not Found"] = Field(description="Always `Not Found`.")
    status: Literal[404] = Field(description="Always 404, equal to the HTTP status.")
    detail: Literal["Unknown API endpoint."] = Field(description="Always `Unknown API endpoint.`")
    instance: Annotated[str, Field(json_schema_extra=URI_REFERENCE)] = Field(
        description="The requested path without its query string."
    )
    error: ErrorInfo = Field(description="Compatibility error object.")
    links: ProblemLinks = Field(description="Links to the documentation, games and schema.")


NOT_FOUND_DETAIL = "Unknown API endpoint."

CONTRACT_MODELS: tuple[type[BaseModel], ...] = (ApiVersionIndex, GameCatalog, ApiNotFound)


def to_json(doc: BaseModel | dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON of a published document, in the model's field order and aliases.

    Compact, because it is smaller to send and much faster to compress at brotli quality 11.
    """
    if isinstance(doc, BaseModel):
        return doc.model_dump_json(by_alias=True).encode("utf-8") + b"\n"
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
