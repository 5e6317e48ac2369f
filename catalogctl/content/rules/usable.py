"""The parts of a site.toml that validate, when the whole does not.

A value that fails validation is left out (a table's entry: that entry only) or, when the
settings need one, stands in as a placeholder, and the rest validates again: the pages are then
checked against every setting that is right. The names of the settings left out say which
checks cannot run ("stores.ios": the links of that store; "platforms": the vocabulary).
"""

import copy
from typing import Any, NamedTuple

from catalogctl.content.settings import SiteSettings, validator


class SiteCheck(NamedTuple):
    """site.toml, checked."""

    site: SiteSettings | None  # the settings, when they validate as a whole
    usable: SiteSettings | None  # what the pages are checked against: `site`, or its valid parts
    broken: frozenset[str]  # the settings that failed ("stores.ios", "platforms"): left out


# What stands in for a required setting that failed (the checks that need it are left out).
PLACEHOLDERS: dict[str, Any] = {
    "base_url": "https://example.com",
    "title": "-",
    "description": "-",
    "stores": {"-": {"name": "-"}},
}
# How deep a failing location is cut: the whole setting, or its entry in a table.
_TABLE_DEPTH = {"stores": 2, "content": 2, "rules": 2, "fields": 2, "api": 3}


def usable_site(
    data: dict[str, Any], errors: list[Any]
) -> tuple[SiteSettings | None, frozenset[str]]:
    """The settings with each failing value left out, and the names of those left out."""
    from pydantic_core import ValidationError

    data = copy.deepcopy(data)
    broken: set[str] = set()
    for _ in range(4):  # each round removes what the last one reported
        for err in errors:
            leave_out(data, tuple(p for p in err["loc"] if p != "[key]"), broken)
        try:
            site: SiteSettings = validator("site").validate_python(data)
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        else:
            return site, frozenset(broken)
    return None, frozenset(broken)


def leave_out(data: dict[str, Any], loc: tuple[Any, ...], broken: set[str]) -> None:
    """Take the setting at `loc` (its table's entry, or the whole setting) out of `data`, a
    placeholder in its place where one is needed, and add its name to `broken`."""
    if not loc:
        return
    head = loc[0]
    depth = _TABLE_DEPTH.get(str(head), 1)
    if head == "fields" and len(loc) > 2 and loc[1] == "stores":
        depth = 3
    cut = loc[: min(depth, len(loc))]
    table: Any = data
    for part in cut[:-1]:
        table = table.get(part) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        return
    table.pop(cut[-1], None)
    if head not in SiteSettings.__dataclass_fields__:
        return  # an unknown key: reported, and nothing needs it
    broken.add(".".join(str(p) for p in cut))
    if len(cut) == 1 and head in PLACEHOLDERS:
        data[head] = copy.deepcopy(PLACEHOLDERS[head])
    elif head == "stores" and not data.get("stores"):
        data["stores"] = copy.deepcopy(PLACEHOLDERS["stores"])
        broken.add("stores")
