"""`catalogctl schema page|site`: the JSON Schema of a game page's front matter or of site.toml."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

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
) -> None:
    """Print the JSON Schema (draft 2020-12) of a game page or of site.toml.

    Editors read it to complete keys, show their descriptions and flag mistakes as you type:
    yaml-language-server for front matter, Taplo for site.toml. It is generated from the
    settings `catalogctl validate` checks; validate checks more (URLs, vocabulary, ids).

    [bold]Examples[/]

      mkdir -p .schemas
      catalogctl schema page > .schemas/page.schema.json
      catalogctl schema site > .schemas/site.schema.json
    """
    from catalogctl import __version__
    from catalogctl.content.settings import json_schema
    from catalogctl.output.console import print_json

    kind, title = KINDS[document]
    generated = json_schema(kind)
    generated.pop("title", None)
    print_json(
        {
            "$schema": DRAFT,
            "title": title,
            "$comment": f"catalogctl {__version__}: `catalogctl schema {document}`",
            **generated,
        }
    )
