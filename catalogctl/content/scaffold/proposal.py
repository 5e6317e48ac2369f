"""What `catalogctl init` proposes for a website: every choice, what it rests on, and the
site.toml text that says it."""

from __future__ import annotations

from typing import NamedTuple

from catalogctl.content.scaffold.choose import Choice
from catalogctl.content.scaffold.generators import Generator
from catalogctl.content.scaffold.pages import PageKeys
from catalogctl.content.scaffold.stores import Store


class Proposal(NamedTuple):
    generator: Generator
    games: str
    keys: PageKeys
    fields: dict[str, tuple[str, int]]  # catalog key -> (front-matter path, pages with it)
    stores: list[Store]
    stores_table: str | None  # `stores = "storeLinks"`: the table of links, when not `stores`
    own_keys: list[str]
    choice: Choice | None  # how the games folder was chosen (None: given with --games)
    guesses: dict[str, str]  # catalog key -> what its values look like, when mapped by them
    body_links: bool  # store links are read from the pages' bodies
    body_pages: int  # pages linking their stores in the body only
    category: str | None  # [content] category: the label of the game pages, when written
    unmapped: list[str]  # required catalog keys no key of the pages was mapped to
    exclude: list[tuple[str, str]]  # [content] exclude: (pattern, why)
    sections: list[str]  # the section pages read as games ([content] sections), when any
    text: str  # the site.toml
    notes: list[str]  # what the user should check or add by hand


__all__ = ["Proposal"]
