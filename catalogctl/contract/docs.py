"""Human-readable documents: the /api documentation page and /llms.txt."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from markupsafe import Markup, escape

from catalogctl.contract.openapi import published_schemas
from catalogctl.contract.publication import Publication
from catalogctl.contract.routes import (
    API_CATALOG,
    API_DOCS,
    API_GAMES,
    API_V1,
    FAVICON,
    LLMS_TXT,
    OPENAPI,
    lifecycle_headers,
    not_found_problem,
)
from catalogctl.text import clean, plural

if TYPE_CHECKING:
    from jinja2 import Template

_WS = re.compile(r"\s+")


def one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


# --- llms.txt (llmstxt.org) ---------------------------------------------------------------


def _md_text(text: str) -> str:
    """Text from content on one line, as Markdown shows it: no `[link](…)`, `<tag>` or
    heading of its own, and no control character or hidden tag character (a text file would
    carry ESC, BEL or U+202E to the terminal of whoever reads it, and tag characters, which
    no one sees, to the model that reads it; the games JSON holds them all but the C0
    controls as they are, for a client to show as it decides)."""
    return (
        one_line(clean(text))
        .replace("\\", "\\\\")
        .replace("[", "\\[")
        .replace("]", "\\]")
        .replace("<", "\\<")
    )


def _md_url(url: str) -> str:
    """A link's target that ends where Markdown ends it: its parentheses percent-encoded."""
    return url.replace("(", "%28").replace(")", "%29")


def llms_txt(pub: Publication, games: list[dict[str, Any]]) -> str:
    b = pub.base_url
    lines = [
        f"# {_md_text(pub.title)}",
        "",
        f"> {_md_text(pub.description)}",
        "",
        f"The catalog lists {plural(len(games), 'game')}. "
        f"It is also published as a read-only JSON API at {b}{API_GAMES} "
        "(no key needed; clients filter locally).",
        "",
        "## Games",
        "",
    ]
    for g in games:
        platforms = _md_text(", ".join(g["platforms"]))
        lines.append(
            f"- [{_md_text(g['name'])}]({_md_url(g['url'])}): {_md_text(g['description'])} "
            f"({platforms})"
        )
    lines += [
        "",
        "## API",
        "",
        f"- [API documentation]({b}{API_DOCS}): endpoints, fields, errors and versioning",
        f"- [Game catalog]({b}{API_GAMES}): every game as JSON (GameCatalog)",
        f"- [API version 1]({b}{API_V1}): version status and links",
        f"- [OpenAPI schema]({b}{OPENAPI}): machine-readable description (OpenAPI 3.1)",
        f"- [API catalog]({b}{API_CATALOG}): RFC 9727 discovery linkset",
        "",
    ]
    return "\n".join(lines)


# --- /api documentation page ----------------------------------------------------------------

# The order of the field tables on the page.
MODEL_ORDER = (
    "ApiVersionIndex",
    "Endpoints",
    "GameCatalog",
    "Game",
    "Store",
    "ApiNotFound",
    "ErrorInfo",
    "ProblemLinks",
)
_BACKTICKS = re.compile(r"`([^`]+)`")


def _anchor(model: str) -> str:
    """The id of a model's table; prefixed so that `Endpoints` never collides with a section."""
    return f"schema-{model.lower()}"


def _code_spans(text: str) -> Markup:
    """Text with `backticks` as <code> elements; every piece of text escaped by markupsafe."""
    out = Markup("")
    for i, part in enumerate(_BACKTICKS.split(text)):
        out += Markup("<code>{}</code>").format(part) if i % 2 else escape(part)
    return out


@cache
def _template() -> Template:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("catalogctl.contract", "templates"),
        autoescape=True,  # every value is escaped by the engine, whatever the template
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["code_spans"] = _code_spans
    env.filters["one_line"] = one_line
    env.globals["anchor"] = _anchor
    return env.get_template("api.html")


def _web_url(url: str | None) -> str | None:
    """A URL a link may point to: http(s) only, so no `javascript:` can become a link."""
    if url and urlsplit(url).scheme in ("http", "https"):
        return url
    return None


def _shell_single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def docs_page(pub: Publication, games: list[dict[str, Any]]) -> str:
    b = pub.base_url
    v1 = pub.lifecycle
    schemas = published_schemas(pub)
    first_store = pub.store_names[0]
    jq_program = (
        f".games[] | [.name, (.stores[] | select(.name == {json.dumps(first_store)}) | .url)]"
        " | @tsv"
    )
    example = games[0] if games else None
    return _template().render(
        title=pub.title,
        description=pub.description,
        base_url=b,
        game_count=len(games),
        status=v1.status,
        lifecycle=lifecycle_headers(v1),
        migration=_web_url(v1.migration) if v1.status == "deprecated" else None,
        store_names=pub.store_names,
        models=[(name, schemas[name]) for name in MODEL_ORDER if name in schemas],
        curl=f"curl -s --compressed {b}{API_GAMES}",
        jq=f"curl -s --compressed {b}{API_GAMES} \\\n  | jq -r {_shell_single_quoted(jq_program)}",
        example=json.dumps(example, indent=2, ensure_ascii=False) if example else None,
        problem=not_found_problem(pub, "/api/v2/games").model_dump_json(indent=2),
        routes={
            "api_v1": API_V1,
            "api_games": API_GAMES,
            "openapi": OPENAPI,
            "api_catalog": API_CATALOG,
            "llms_txt": LLMS_TXT,
            "favicon": FAVICON,
        },
    )
