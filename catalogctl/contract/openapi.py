"""OpenAPI 3.1 description of the service, generated from the contract models."""

from __future__ import annotations

from functools import cache
from typing import Any

from catalogctl import __version__
from catalogctl.contract.model import CONTRACT_MODELS
from catalogctl.contract.publication import Publication

REF = "#/components/schemas/{model}"


@cache
def component_schemas() -> dict[str, Any]:
    """JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every contract model."""
    from pydantic.json_schema import models_json_schema

    _, top = models_json_schema([(m, "serialization") for m in CONTRACT_MODELS], ref_template=REF)
    defs: dict[str, Any] = top["$defs"]
    return defs


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


def _operation(op_id: str, summary: str, schema: str, *, head: bool) -> dict[str, Any]:
    ok_headers = _headers(
        "ETag", "Cache-Control", "Link", "Deprecation", "Sunset", "Access-Control-Allow-Origin"
    )
    ok: dict[str, Any] = {"description": "Success.", "headers": ok_headers}
    not_found: dict[str, Any] = {"description": "Unknown endpoint under /api/ (problem details)."}
    if head:
        ok["description"] = "Success: the same status and headers as GET, without a body."
        not_found["description"] += " No body for HEAD."
    else:
        ok["content"] = {"application/json": {"schema": _ref(schema)}}
        not_found["content"] = {"application/problem+json": {"schema": _ref("ApiNotFound")}}
    return {
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


def openapi_document(pub: Publication) -> dict[str, Any]:
    paths = {}
    for path, op_id, summary, schema in (
        ("/api/v1", "getApiVersion", "Version 1: status and links", "ApiVersionIndex"),
        ("/api/v1/games", "listGames", "The complete game catalog", "GameCatalog"),
    ):
        paths[path] = {
            "get": _operation(op_id, summary, schema, head=False),
            "head": _operation(op_id, summary, schema, head=True),
        }
    v1 = pub.lifecycle
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
        "components": {"schemas": component_schemas()},
    }
