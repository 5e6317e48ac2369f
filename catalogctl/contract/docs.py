"""Human-readable documents: the /api documentation page and /llms.txt."""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from catalogctl.contract.openapi import component_schemas
from catalogctl.contract.publication import Publication
from catalogctl.contract.routes import (
    API_CATALOG,
    API_DOCS,
    API_GAMES,
    API_V1,
    LLMS_TXT,
    OPENAPI,
    lifecycle_headers,
    not_found_problem,
)

_WS = re.compile(r"\s+")


def one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


# --- llms.txt (llmstxt.org) ---------------------------------------------------------------


def _md_text(text: str) -> str:
    return one_line(text).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def llms_txt(pub: Publication, games: list[dict[str, Any]]) -> str:
    b = pub.base_url
    lines = [
        f"# {one_line(pub.title)}",
        "",
        f"> {one_line(pub.description)}",
        "",
        f"The catalog lists {len(games)} game{'s' * (len(games) != 1)}. "
        f"It is also published as a read-only JSON API at {b}{API_GAMES} "
        "(no key needed; clients filter locally).",
        "",
        "## Games",
        "",
    ]
    for g in games:
        platforms = ", ".join(g["platforms"])
        lines.append(
            f"- [{_md_text(g['name'])}]({g['url']}): {one_line(g['description'])} ({platforms})"
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

_CSS = """
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;
--code:#f6f8fa;--accent:#0b62c4}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8b949e;
--line:#30363d;--code:#161b22;--accent:#4493f8}}
*{box-sizing:border-box}body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",
Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:60rem;margin:0 auto;padding:2rem 1.25rem 4rem}
h1{font-size:2rem;margin:.2rem 0}h2{margin-top:2.5rem;border-bottom:1px solid var(--line);
padding-bottom:.3rem}h3{margin-top:1.8rem}a{color:var(--accent)}
.lead{color:var(--muted);font-size:1.1rem}
code,pre{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{background:var(--code);padding:.1rem .3rem;border-radius:4px}
pre{background:var(--code);padding:1rem;border-radius:6px;overflow-x:auto;
border:1px solid var(--line)}pre code{padding:0;background:none}
table{border-collapse:collapse;width:100%;margin:1rem 0;font-size:.95rem}
th,td{border:1px solid var(--line);padding:.45rem .6rem;text-align:left;vertical-align:top}
th{background:var(--code)}.badge{display:inline-block;padding:.1rem .55rem;border-radius:1rem;
font-size:.85rem;font-weight:600;background:#1a7f37;color:#fff}.badge.deprecated{background:#bf8700}
nav ul{columns:2;padding-left:1.2rem}
"""


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#{name.lower()}">{name}</a>'
    if schema.get("type") == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if "const" in schema:
        return (
            f"{schema.get('type', 'string')} (<code>{escape(json.dumps(schema['const']))}</code>)"
        )
    if "enum" in schema:
        values = ", ".join(f"<code>{escape(json.dumps(v))}</code>" for v in schema["enum"])
        return f"{schema.get('type', 'string')}: one of {values}"
    kind = str(schema.get("type", "any"))
    if schema.get("format") in ("uri", "uri-reference"):
        kind += f" ({schema['format']})"
    return kind


def _model_table(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = []
    for field, prop in schema.get("properties", {}).items():
        desc = escape(prop.get("description", ""))
        desc = re.sub(r"`([^`]+)`", r"<code>\1</code>", desc)
        rows.append(
            f"<tr><td><code>{escape(field)}</code></td><td>{_type_of(prop)}</td>"
            f"<td>{'yes' if field in required else 'no'}</td><td>{desc}</td></tr>"
        )
    return (
        f'<h3 id="{name.lower()}">{name}</h3>\n<p>{escape(schema.get("description", ""))}</p>\n'
        "<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _pre(text: str) -> str:
    return f"<pre><code>{escape(text)}</code></pre>"


def docs_page(pub: Publication, games: list[dict[str, Any]]) -> str:
    b = pub.base_url
    v1 = pub.lifecycle
    schemas = component_schemas()
    model_order = [
        "ApiVersionIndex",
        "Endpoints",
        "GameCatalog",
        "Game",
        "Store",
        "ApiNotFound",
        "ErrorInfo",
        "ProblemLinks",
    ]
    tables = "\n".join(_model_table(n, schemas[n]) for n in model_order if n in schemas)
    stores = ", ".join(f"<code>{escape(name)}</code>" for name in pub.store_names)
    example = games[0] if games else None
    problem = not_found_problem(pub, "/api/v2/games").model_dump_json(indent=2)
    status_class = "badge deprecated" if v1.status == "deprecated" else "badge"
    lifecycle = lifecycle_headers(v1)
    if lifecycle or v1.status == "deprecated":
        migration = (
            f' Migration guide: <a href="{escape(v1.migration)}">{escape(v1.migration)}</a>.'
            if v1.migration
            else ""
        )
        notes = "".join(f"<li><code>{escape(k)}: {escape(v)}</code></li>" for k, v in lifecycle)
        status_text = f"<p>Version 1 is <strong>deprecated</strong>.{migration}</p><ul>{notes}</ul>"
    else:
        status_text = (
            "<p>Version 1 is <strong>supported</strong>; no retirement is scheduled. It sends "
            "neither a <code>Deprecation</code> nor a <code>Sunset</code> header.</p>"
        )
    first_store = pub.store_names[0]
    jq_example = _pre(
        f"curl -s --compressed {b}{API_GAMES} \\\n"
        "  | jq -r '.games[] | [.name, (.stores[] | select(.name == "
        f"{json.dumps(first_store)}) | .url)] | @tsv'"
    )
    example_html = (
        _pre(json.dumps(example, indent=2, ensure_ascii=False)) if example is not None else ""
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(pub.title)} — Game catalog API</title>
<meta name="description" content="{escape(one_line(pub.description))}">
<link rel="service-desc" href="{OPENAPI}" type="application/json">
<link rel="api-catalog" href="{API_CATALOG}">
<style>{_CSS}</style>
</head>
<body>
<main>
<p class="lead">{escape(pub.title)}</p>
<h1>Game catalog API <span class="{status_class}">v1 {escape(v1.status)}</span></h1>
<p>{escape(pub.description)} The catalog is public and read-only: it gives descriptions,
platforms, genres, icons and store links of every game ({len(games)} today).
No account, API key or SDK is needed. The service has no state a client can change and
sends no events.</p>
<nav><ul>
<li><a href="#endpoints">Endpoints</a></li><li><a href="#quick-start">Quick start</a></li>
<li><a href="#fields">Fields</a></li><li><a href="#errors">Errors</a></li>
<li><a href="#http">Caching and headers</a></li><li><a href="#versioning">Versioning</a></li>
</ul></nav>

<h2 id="endpoints">Endpoints</h2>
<table><thead><tr><th>Method</th><th>Path</th><th>Response</th></tr></thead><tbody>
<tr><td>GET, HEAD</td><td><a href="{API_V1}"><code>{b}{API_V1}</code></a></td>
<td>200 <code>application/json</code>, <a href="#apiversionindex">ApiVersionIndex</a>:
the version's status and links</td></tr>
<tr><td>GET, HEAD</td><td><a href="{API_GAMES}"><code>{b}{API_GAMES}</code></a></td>
<td>200 <code>application/json</code>, <a href="#gamecatalog">GameCatalog</a>:
every game</td></tr>
</tbody></table>
<p>Both endpoints take no parameters: query parameters are ignored and the complete
catalog is always returned, with no filtering, paging or sorting. Games come in the same
order as on the website; filter them locally. HEAD returns the same status and headers as
GET, without a body. There is no unversioned or <q>latest</q> alias: use
<code>{API_GAMES}</code>.</p>
<p>Related documents: <a href="{OPENAPI}">OpenAPI 3.1 schema</a> ·
<a href="{API_CATALOG}">API catalog (RFC 9727)</a> · <a href="{LLMS_TXT}">llms.txt</a></p>

<h2 id="quick-start">Quick start</h2>
{_pre(f"curl -s --compressed {b}{API_GAMES}")}
<p>List every game with its download link from one store:</p>
{jq_example}
<p>An element of <code>games</code>:</p>
{example_html}
<p>Stores are identified by name: {stores}. A game may lack an entry for a store; treat a
missing store as absent. Store URLs carry attribution query parameters that identify API
referrals; keep them as they are. Clients must ignore fields they do not know.</p>

<h2 id="fields">Fields</h2>
{tables}

<h2 id="errors">Errors</h2>
<table><thead><tr><th>Condition</th><th>Status</th><th>Content type</th><th>Body</th></tr>
</thead><tbody>
<tr><td>Success of either endpoint</td><td>200</td><td><code>application/json</code></td>
<td>see above</td></tr>
<tr><td>GET or HEAD of an unknown path under <code>/api/</code></td><td>404</td>
<td><code>application/problem+json</code>, <code>Cache-Control: no-store</code></td>
<td><a href="#apinotfound">ApiNotFound</a> (none for HEAD)</td></tr>
<tr><td>Any other method, e.g. POST</td><td>403</td><td>HTML</td><td>HTML, not JSON</td></tr>
<tr><td>Storage or delivery failure</td><td>varies</td><td>may be HTML</td><td>may be HTML</td>
</tr></tbody></table>
<p>Check the status and the content type before parsing an error body as JSON. A 403 does
not mean that a key or login is required. Example of a 404 body (RFC 9457 problem details
with compatibility members):</p>
{_pre(problem)}

<h2 id="http">Caching and headers</h2>
<ul>
<li>Every response has a strong <code>ETag</code>; send it back in
<code>If-None-Match</code> to get <code>304 Not Modified</code> when nothing changed.</li>
<li>Responses are compressed with brotli or gzip when the request's
<code>Accept-Encoding</code> allows it (<code>Vary: Accept-Encoding</code>).</li>
<li><code>Access-Control-Allow-Origin: *</code>: the catalog can be read from any web page.</li>
<li><code>Link: &lt;{API_CATALOG}&gt;; rel="api-catalog"</code> points to the RFC 9727 catalog.</li>
</ul>

<h2 id="versioning">Versioning</h2>
{status_text}
<ol>
<li>Contracts are versioned by major version in the URL (<code>/api/v1</code>).</li>
<li>Backward-compatible additions (optional fields, new endpoints) may be released within v1;
clients ignore unknown fields.</li>
<li>Removing or renaming fields, changing field types, adding required request parameters or
changing established behaviour requires a new major version (for example
<code>/api/v2</code>). Versioned URLs keep their contract and never redirect.</li>
<li>Before a version is retired: at least 90 days' notice here, a migration guide, and a
working replacement throughout the notice; both versions stay available during migration.</li>
<li>Deprecation is signalled on the affected responses by a <code>Deprecation</code> header
(RFC 9745) and a <code>Link</code> header with <code>rel="deprecation"</code> to the migration
guide; once retirement is scheduled, a <code>Sunset</code> header (RFC 8594) gives its date.</li>
<li>Catalog entries, descriptions, platforms and store links may change at any time without
a new API version. <code>schemaVersion</code> is 1.</li>
</ol>
</main>
</body>
</html>
"""
