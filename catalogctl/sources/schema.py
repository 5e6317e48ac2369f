"""The validator of a published catalog document, by the rules of the contract's `GameCatalog`.

The rules come from the contract model (`catalogctl.contract.model`), turned into a
pydantic-core schema once, at development time: `python -m catalogctl.sources.schema` writes
`catalogctl/sources/_catalog_schema.py`, and a test fails when that file is stale. At run time
the validator is built from that schema with pydantic-core alone, as `validate` builds its own
(`catalogctl.content.settings`): importing pydantic and the contract model and generating the
schema took about 0.08 s of every `check-links` and `diff` before the first byte was read.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import SchemaValidator

SCHEMA_FILE = Path(__file__).with_name("_catalog_schema.py")


@cache
def catalog_validator() -> SchemaValidator:
    """Validates a GameCatalog document into plain dicts (no pydantic import).

    Plain dicts, not model instances: they validate about three times faster than frozen
    models and compare at C speed (a diff of two 100,000-game catalogs is dominated by
    validation).
    """
    from pydantic_core import SchemaValidator

    from catalogctl.sources._catalog_schema import SCHEMA

    return SchemaValidator(SCHEMA)


# --- generating the schema (development time) ----------------------------------------------


def _plain(model: type[BaseModel], made: dict[type[BaseModel], Any]) -> Any:
    """A TypedDict with the fields, types and constraints of a contract model."""
    from typing import Annotated, NotRequired, get_args, get_origin

    from pydantic import BaseModel, ConfigDict
    from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

    make: Any = TypedDict  # called with computed fields, which type checkers cannot follow

    def swap(tp: Any) -> Any:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            return _plain(tp, made)
        if get_origin(tp) is list:
            return list[swap(get_args(tp)[0])]  # type: ignore[misc]
        return tp

    if model not in made:
        fields: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            tp = swap(info.annotation)
            if info.metadata:
                tp = Annotated[tp, *info.metadata]
            fields[name] = tp if info.is_required() else NotRequired[tp]
        plain = make(model.__name__, fields)
        plain.__pydantic_config__ = ConfigDict(extra=model.model_config.get("extra", "ignore"))
        made[model] = plain
    return made[model]


def _data(value: Any) -> Any:
    """A core schema as plain data: without the TypedDict classes (a typed dict validates into
    a dict without them) and the references to them."""
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items() if k not in ("cls", "ref")}
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"cannot write {value!r} into a generated schema")


def core_schema() -> dict[str, Any]:
    """The pydantic-core schema of the contract's `GameCatalog`, validating into dicts."""
    from pydantic import TypeAdapter

    from catalogctl.contract.model import GameCatalog

    schema: dict[str, Any] = _data(TypeAdapter(_plain(GameCatalog, {})).core_schema)
    # The games stop at the first invalid one (pydantic-core's `fail_fast`): every error of a
    # catalog whose 200,000 games are all invalid took 44 s and 1.3 GB to collect; a valid
    # catalog validates as fast as before.
    schema["fields"]["games"]["schema"]["fail_fast"] = True
    return schema


def _literal(value: Any, indent: str = "") -> str:
    """Python source of plain data, one item a line, as `ruff format` leaves it."""
    inner = indent + "    "
    if isinstance(value, dict) and value:
        items = "".join(f"{inner}{_literal(k)}: {_literal(v, inner)},\n" for k, v in value.items())
        return "{\n" + items + indent + "}"
    if isinstance(value, list) and value:
        return "[\n" + "".join(f"{inner}{_literal(v, inner)},\n" for v in value) + indent + "]"
    if isinstance(value, str):
        return json.dumps(value)  # double quotes
    return repr(value)


def generate() -> str:
    """The source of `_catalog_schema.py`."""
    return (
        '"""The pydantic-core schema of a GameCatalog document. Generated: do not edit.\n\n'
        "Regenerate with `python -m catalogctl.sources.schema`.\n"
        '"""\n\n'
        "from typing import Any\n\n"
        f"SCHEMA: Any = {_literal(core_schema())}\n"
    )


if __name__ == "__main__":
    SCHEMA_FILE.write_text(generate(), encoding="utf-8")
