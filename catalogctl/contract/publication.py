"""What a catalog publishes besides its games: where, under which title, and its lifecycle.

The content layer fills these from site.toml; every contract document is made from them.
May import: nothing of catalogctl.
"""

import datetime as dt
from typing import Literal, NamedTuple

ApiStatus = Literal["supported", "deprecated"]


class Lifecycle(NamedTuple):
    """Contract §9: the lifecycle of API version 1."""

    status: ApiStatus = "supported"
    deprecation: dt.date | dt.datetime | None = None
    sunset: dt.date | dt.datetime | None = None
    migration: str | None = None


class Publication(NamedTuple):
    """The site-wide facts of a published catalog."""

    base_url: str
    title: str
    description: str
    store_names: tuple[str, ...]
    lifecycle: Lifecycle = Lifecycle()
