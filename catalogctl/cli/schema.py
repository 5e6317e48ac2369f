"""`catalogctl schema page|site`: the JSON Schema of a game page's front matter or of site.toml."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

DRAFT = "https://json-schema.org/draft/2020-12/schema"


class Document(StrEnum):
    page = "page"
    site = "site"


KINDS: dict[Document, tuple[Literal["site", "game"], str]] = {
    Document.page: ("game", "Front matter of a catalogctl game page"),
    Document.site: ("site", "catalogctl site.toml"),
}


def schema(
    document: Annotated[
        Document,
        typer.Argument(
            metavar="page|site",
            help="page: a game page's front matter; site: site.toml.",
            show_default=False,
        ),
    ],
    content: Annotated[
        Path | None,
        typer.Argument(
            help="For page: the site whose site.toml [fields] says where each key "
            "is (Hugo's title, params.icon, ...). Default: the site here or around, if any.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a game page or of site.toml.

    Editors read it to complete keys, show their descriptions and flag mistakes as you type:
    yaml-language-server for front matter, Taplo for site.toml. It is generated from the
    settings `catalogctl validate` checks; validate checks more (URLs, vocabulary, ids). The
    page schema follows the [fields] of the content tree's site.toml.

    Examples

      mkdir -p .schemas
      catalogctl schema page > .schemas/page.schema.json
      catalogctl schema page site/content > .schemas/page.schema.json
      catalogctl schema site > .schemas/site.schema.json
    """
    from catalogctl import __version__
    from catalogctl.content.settings import json_schema
    from catalogctl.errors import InputError
    from catalogctl.output.console import print_json

    kind, title = KINDS[document]
    generated = json_schema(kind)
    generated.pop("title", None)
    if document is Document.site and content is not None:
        raise InputError("the site.toml schema is the same for every content tree: give no CONTENT")
    if document is Document.page:
        fields = _fields_of(_site_of(content), content is None)
        generated = _mapped(generated, fields)
    print_json(
        {
            "$schema": DRAFT,
            "title": title,
            "$comment": f"catalogctl {__version__}: `catalogctl schema {document}`",
            **generated,
        }
    )


def _site_of(content: Path | None) -> Path:
    """The site whose [fields] apply: as every command finds it (none near: ./content)."""
    from catalogctl.cli.common import resolve_source
    from catalogctl.errors import InputError

    try:
        return resolve_source(content).path
    except InputError:
        if content is not None:
            raise
        return Path("content")  # no site here: the schema of the catalog's own keys


def _fields_of(root: Path, optional: bool) -> dict[str, Any]:
    """The `[fields]` table of ROOT/site.toml (none: an empty table when `optional`), read as
    validate reads it: the same limits, a symlink out of the tree not followed."""
    import os

    from catalogctl.content.document import Problem
    from catalogctl.content.limits import MAX_SITE_NAME
    from catalogctl.content.loader import SITE_FILE, read_site
    from catalogctl.errors import InputError
    from catalogctl.text import path_text

    site = root / SITE_FILE
    if not os.path.lexists(site):
        if optional:
            return {}
        raise InputError(
            f"no site.toml in {path_text(root)}: name the content tree (the folder of site.toml)"
        )
    try:
        data = read_site(root, path_text(root)).data
    except Problem as exc:
        where = f":{exc.line}:{exc.column}" if exc.line is not None else ""
        # Validate's message; where the file was parsed, validate also reports what follows.
        unread = exc.rule in ("symlink-outside", "unreadable-file") or exc.message.startswith(
            "site.toml is larger"
        )
        more = "" if unread else " (`catalogctl validate` checks the whole file)"
        raise InputError(f"{path_text(site)}{where}: {exc.message}{more}") from None
    fields = data.get("fields", {}) if isinstance(data, dict) else {}
    if not isinstance(fields, dict):
        return {}
    stores = fields.get("stores")
    paths = [(f"fields.{k}", v) for k, v in fields.items() if k != "stores"]
    if isinstance(stores, dict):
        paths += [(f"fields.stores.{k}", v) for k, v in stores.items()]
    for name, value in paths:
        if isinstance(value, str) and len(value) > MAX_SITE_NAME:
            raise InputError(
                f"{path_text(site)}: {name} is longer than {MAX_SITE_NAME} characters, the limit "
                "of a key path (`catalogctl validate` checks the whole file)"
            )
    return fields


def _mapped(page: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """The page schema with each catalog key moved to where `[fields]` reads it from."""
    from catalogctl.content.fields import FieldMap

    fmap = _keys_only(FieldMap.from_settings(fields))
    props: dict[str, Any] = page["properties"]
    required = set(page.get("required", ()))
    root: dict[str, Any] = {k: v for k, v in page.items() if k not in ("properties", "required")}
    root["properties"], root["required"] = {}, []

    def place(path: tuple[str, ...], prop: dict[str, Any], needed: bool) -> None:
        node = root
        for part in path[:-1]:
            table = {
                "type": "object",
                "description": f"The `{part}` table, where site.toml's [fields] reads keys.",
                "properties": {},
                "required": [],
            }
            child = node["properties"].setdefault(part, table)
            child.setdefault("properties", {})
            child.setdefault("required", [])
            if needed and part not in node["required"]:
                node["required"].append(part)
            node = child
        node["properties"][path[-1]] = prop
        if needed and path[-1] not in node["required"]:
            node["required"].append(path[-1])

    for key, prop in props.items():
        if key == "stores":
            stores = dict(prop)
            if fmap.store_paths:
                # Store links spread over several keys: "at least one" is validate's to check.
                stores.pop("minProperties", None)
                for store, path in fmap.store_paths.items():
                    place(path, {**prop["additionalProperties"],
                                 "description": f"Plain download URL of the store `{store}`."},
                          needed=False)  # fmt: skip
            if fmap.stores:
                place(fmap.stores, stores, needed=key in required and not fmap.store_paths)
        elif key in fmap.paths:
            place(fmap.paths[key], prop, needed=key in required)

    # No empty `required` lists; a [fields] path may be hundreds of keys deep (a loop, not
    # recursion).
    todo = [root]
    while todo:
        node = todo.pop()
        if not node.get("required"):
            node.pop("required", None)
        for child in node.get("properties", {}).values():
            if child.get("type") == "object" and "properties" in child:
                todo.append(child)
    return root


def _keys_only(fmap: Any) -> Any:
    """The [fields] paths made of keys only: a path through a list (`links[platform=ios].url`)
    is left out of the schema, and to validate."""
    from types import SimpleNamespace

    def keys(path: tuple[Any, ...]) -> bool:
        return all(isinstance(p, str) for p in path)

    return SimpleNamespace(
        paths={k: p for k, p in fmap.paths.items() if keys(p)},
        stores=fmap.stores if keys(fmap.stores) else (),
        store_paths={k: p for k, p in fmap.store_paths.items() if keys(p)},
    )
