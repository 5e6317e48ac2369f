"""OpenAPI 3.1 description of the service, generated from the contract models.

Each response with a body carries an example (`examples`, as API tools show them and mock
servers answer with them), made of the real documents of the catalog being published: the
version index, the games document with its first game, and the problem document of an
unknown path.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from catalogctl import __version__
from catalogctl.contract.model import CONTRACT_MODELS, GameCatalog, to_json
from catalogctl.contract.publication import Publication
from catalogctl.contract.routes import api_index, not_found_problem

REF = "#/components/schemas/{model}"


@cache
def component_schemas() -> dict[str, Any]:
    """JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every contract model."""
    from pydantic.json_schema import models_json_schema

    _, top = models_json_schema([(m, "serialization") for m in CONTRACT_MODELS], ref_template=REF)
    defs: dict[str, Any] = top["$defs"]
    return defs


def _substitute(node: Any, base_url: str) -> Any:
    if isinstance(node, dict):
        return {
            k: v.replace("{base_url}", base_url)
            if k == "description" and isinstance(v, str)
            else _substitute(v, base_url)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_substitute(v, base_url) for v in node]
    return node


def with_base_url(schemas: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The schemas with `{base_url}` in their descriptions replaced by the real base URL."""
    result: dict[str, Any] = _substitute(schemas, base_url)
    return result


def published_schemas(pub: Publication) -> dict[str, Any]:
    """The component schemas as this catalog publishes them: its base URL and store names.

    The store names are `examples`, not an `enum`: a store added to site.toml later is then
    not a change of the response's value set (which oasdiff reports as breaking,
    `response-property-enum-value-added`), while clients still see the names to filter on.
    """
    schemas = copy.deepcopy(with_base_url(component_schemas(), pub.base_url))
    name = schemas["Store"]["properties"]["name"]
    name["examples"] = list(pub.store_names)
    listed = ", ".join(f"`{n}`" for n in pub.store_names)
    name["description"] = f"{name['description']} Store names in this catalog: {listed}."
    return schemas


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _headers(*names: str) -> dict[str, Any]:
    known = {
        "ETag": "Strong entity tag of the representation; send it back in If-None-Match.",
        "Cache-Control": "Caching policy of the response.",
        "Vary": "The representation depends on Accept-Encoding.",
        "Link": 'Links the API catalog (rel="api-catalog", RFC 9727) and, when v1 is deprecated, '
        'the migration guide (rel="deprecation").',
        "Deprecation": "RFC 9745 deprecation date (@<unix seconds>); sent only once v1 is "
        "deprecated.",
        "Sunset": "RFC 8594 retirement date; sent only once retirement is scheduled.",
        "Access-Control-Allow-Origin": "Always `*`: the catalog is public.",
    }
    return {n: {"description": known[n], "schema": {"type": "string"}} for n in names}


# The unknown path of the 404 example: a version the API does not have.
NOT_FOUND_EXAMPLE = "/api/v2"


def response_examples(pub: Publication, games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Schema name → its example (an OpenAPI Example Object): the documents as served, the
    games document with its first game only (none for a catalog without games)."""
    examples: dict[str, Any] = {
        "ApiVersionIndex": {
            "summary": "Version 1 of this catalog",
            "value": json.loads(to_json(api_index(pub))),
        },
        "ApiNotFound": {
            "summary": f"GET {NOT_FOUND_EXAMPLE}, a path the API does not have",
            "value": json.loads(to_json(not_found_problem(pub, NOT_FOUND_EXAMPLE))),
        },
    }
    if games:
        first = GameCatalog.model_validate({"schemaVersion": 1, "games": games[:1]})
        examples["GameCatalog"] = {
            "summary": "This catalog's first game (the response lists every game)",
            "value": json.loads(to_json(first)),
        }
    return examples


def _content(media_type: str, schema: str, examples: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = {"schema": _ref(schema)}
    if schema in examples:
        content["examples"] = {schema[0].lower() + schema[1:]: examples[schema]}
    return {media_type: content}


def _operation(
    op_id: str,
    summary: str,
    schema: str,
    *,
    head: bool,
    deprecated: bool,
    examples: dict[str, Any],
) -> dict[str, Any]:
    ok_headers = _headers(
        "ETag", "Cache-Control", "Link", "Deprecation", "Sunset", "Access-Control-Allow-Origin"
    )
    ok: dict[str, Any] = {"description": "Success.", "headers": ok_headers}
    not_found: dict[str, Any] = {"description": "Unknown endpoint under /api/ (problem details)."}
    if head:
        ok["description"] = "Success: the same status and headers as GET, without a body."
        not_found["description"] += " No body for HEAD."
    else:
        ok["content"] = _content("application/json", schema, examples)
        not_found["content"] = _content("application/problem+json", "ApiNotFound", examples)
    operation: dict[str, Any] = {
        "operationId": op_id + ("Head" if head else ""),
        "summary": summary + (" (headers only)" if head else ""),
        "description": "Takes no parameters; query parameters are ignored.",
        "tags": ["v1"],
        "security": [],
        "responses": {
            "200": ok,
            "304": {"description": "Not modified: the If-None-Match ETag is current."},
            "403": {
                "description": "Method not supported (only GET and HEAD are). HTML, not JSON.",
                **({} if head else {"content": {"text/html": {"schema": {"type": "string"}}}}),
            },
            "404": not_found,
        },
    }
    if deprecated:  # contract §9: v1 deprecated; the Deprecation and Sunset headers give the dates
        operation["deprecated"] = True
    return operation


def openapi_document(pub: Publication, games: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The OpenAPI document of the catalog; `games`: its games as published (for the
    examples)."""
    v1 = pub.lifecycle
    deprecated = v1.status == "deprecated"
    examples = response_examples(pub, games)
    paths = {}
    for path, op_id, summary, schema in (
        ("/api/v1", "getApiVersion", "Version 1: status and links", "ApiVersionIndex"),
        ("/api/v1/games", "listGames", "The complete game catalog", "GameCatalog"),
    ):
        paths[path] = {
            method: _operation(
                op_id, summary, schema, head=head, deprecated=deprecated, examples=examples
            )
            for method, head in (("get", False), ("head", True))
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{pub.title} game catalog API",
            "version": "1",
            "summary": "Public, read-only catalog of games.",
            "description": (
                f"{pub.description}\n\nThe service is read-only and returns the complete "
                "catalog; query parameters are ignored and clients filter locally. No account, "
                "API key or SDK is needed. Only GET and HEAD are supported; any other method is "
                f"rejected with 403. API version 1 is {v1.status}."
            ),
            "x-generator": f"catalogctl {__version__}",
        },
        "externalDocs": {"description": "Usage documentation", "url": f"{pub.base_url}/api"},
        "servers": [{"url": pub.base_url}],
        "security": [],
        "tags": [{"name": "v1", "description": "API version 1"}],
        "paths": paths,
        "components": {"schemas": published_schemas(pub)},
    }
