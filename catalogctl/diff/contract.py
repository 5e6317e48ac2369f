"""The contract check of `diff` (contract §9): two OpenAPI documents, each change breaking or not.

`contract_changes()` returns the changes a client of the old document would notice; `compare()`
(in `catalogctl.diff.core`) puts them in a `DiffResult` beside the catalog's own changes.

Why one module: `_Contract` is one recursive walk over two OpenAPI documents (paths,
operations, parameters, then schemas by who reads them), whose rules call each other through
one `$ref` resolution and one depth bound; they read best side by side, each beside the oasdiff
check id it follows. The helpers that keep what a change shows bounded (`_clip`, `_brief`,
`Listed`) serve every rule and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from catalogctl.diff.shown import (
    MAX_WHERE,
    SHOWN_VALUES,
    Listed,
    brief,
    clip,
    first_missing,
    missing,
    value_key,
)


@dataclass(frozen=True, slots=True)
class ContractChange:
    breaking: bool
    where: str  # e.g. "paths./api/v1/games.get" or "schemas.Game.properties.icon"
    message: str


# --- contract check (contract §9) ---------------------------------------------------------------
#
# The rules are oasdiff's (github.com/oasdiff/oasdiff, checker/rules.go; the check ids are
# quoted beside each rule). A change is breaking when oasdiff's `breaking` command reports it,
# that is at level ERR or WARN. What a schema may change depends on who reads it: a response
# is read by the client, so it may gain fields (required or not: clients ignore unknown
# fields, contract §9) but not lose one or widen its values; a request is written by the client,
# so it may not demand more.

MAX_SCHEMA_DEPTH = 64  # nested inline schemas compared at most this deep
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_REF_PREFIX = "#/components/schemas/"
Direction = Literal["request", "response"]
# Lower bounds: raising one narrows what is valid, lowering (or removing) one widens it.
_LOWER_BOUNDS = ("minItems", "minLength", "minimum", "minProperties")
_UPPER_BOUNDS = ("maxItems", "maxLength", "maximum", "maxProperties")


class _Contract:
    """Compares two OpenAPI documents; each change is breaking or compatible."""

    def __init__(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.old, self.new = old, new
        self.old_schemas = _dict(_dict(old.get("components")).get("schemas"))
        self.new_schemas = _dict(_dict(new.get("components")).get("schemas"))
        self.changes: list[ContractChange] = []
        self._seen: set[tuple[str, str, Direction]] = set()
        self._depth = 0
        self._types: dict[int, str] = {}  # id(schema) → type_of, computed once
        # id(schema) → its enum (or const) by value key, computed once: a schema shared by many
        # properties is serialised once, not once per property.
        self._values: dict[int, dict[Any, Any]] = {}
        # id(schema) → its required names, and how many of them it has as properties.
        self._required: dict[int, tuple[frozenset[str], int]] = {}
        self._order: dict[int, dict[str, int]] = {}  # id(properties) → name → position
        # The schema that only one side refers to ($ref) and that is being walked: it is
        # compared again at every place that refers to it, so what it adds or lacks is told
        # in one change per place once it is more than SHOWN_VALUES fields.
        self._shared: str | None = None

    def breaking(self, where: str, message: str) -> None:
        self.changes.append(ContractChange(True, clip(where, MAX_WHERE), message))

    def compatible(self, where: str, message: str) -> None:
        self.changes.append(ContractChange(False, clip(where, MAX_WHERE), message))

    def run(self) -> list[ContractChange]:
        old_paths, new_paths = _dict(self.old.get("paths")), _dict(self.new.get("paths"))
        for path, item in old_paths.items():
            if path not in new_paths:
                # api-path-removed-without-deprecation (ERR)
                self.breaking(f"paths.{clip(path)}", "endpoint removed")
            else:
                self.path_item(clip(path), _dict(item), _dict(new_paths[path]))
        for path in new_paths:
            if path not in old_paths:
                self.compatible(f"paths.{clip(path)}", "new endpoint")  # endpoint-added (INFO)
        # Component schemas are compared as the paths use them (the wire contract): each pair
        # once per direction, reported under its name.
        return self.changes

    # -- paths ---------------------------------------------------------------------------------

    def path_item(self, path: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        for method in HTTP_METHODS:
            where = f"paths.{path}.{method}"
            if method in old and method not in new:
                # api-removed-without-deprecation (ERR)
                self.breaking(where, f"method {method.upper()} removed")
            elif method in new and method not in old:
                self.compatible(where, f"new method {method.upper()}")  # endpoint-added
            elif method in old:
                self.operation(where, old, new, _dict(old[method]), _dict(new[method]))

    def operation(
        self,
        where: str,
        old_item: dict[str, Any],
        new_item: dict[str, Any],
        old: dict[str, Any],
        new: dict[str, Any],
    ) -> None:
        if new.get("deprecated") and not old.get("deprecated"):
            self.compatible(where, "deprecated")  # endpoint-deprecated (INFO)
        self.parameters(where, _params(old_item, old), _params(new_item, new))
        self.request_body(f"{where}.requestBody", old, new)
        old_sec = old.get("security", self.old.get("security")) or []
        new_sec = new.get("security", self.new.get("security")) or []
        if new_sec and not old_sec:
            # api-security-removed / api-global-security-removed (ERR): the anonymous
            # alternative, `[]`, is gone
            self.breaking(f"{where}.security", "now requires authentication")
        old_resp, new_resp = _dict(old.get("responses")), _dict(new.get("responses"))
        for status, resp in old_resp.items():
            shown = clip(status)
            at = f"{where}.responses.{shown}"
            if status not in new_resp:
                # response-success-status-removed (ERR); response-non-success-status-removed
                # is INFO in oasdiff, but contract §7 fixes the error answers of this API too
                self.breaking(at, f"response {shown} removed")
            else:
                self.response(at, _dict(resp), _dict(new_resp[status]))
        for status in new_resp:
            if status not in old_resp:
                shown = clip(status)
                self.compatible(f"{where}.responses.{shown}", f"new response {shown}")

    def request_body(self, where: str, old_op: dict[str, Any], new_op: dict[str, Any]) -> None:
        old, new = _dict(old_op.get("requestBody")), _dict(new_op.get("requestBody"))
        if new.get("required") and not old.get("required"):
            # added-required-request-body, request-body-became-required (ERR)
            self.breaking(where, "request body is now required")
        old_content, new_content = _dict(old.get("content")), _dict(new.get("content"))
        for ctype, media in old_content.items():
            if ctype not in new_content:
                self.breaking(f"{where}.content", f"no longer accepts {clip(ctype)}")
            else:
                self.schema(
                    f"{where}.content.{clip(ctype)}",
                    _dict(_dict(media).get("schema")),
                    _dict(_dict(new_content[ctype]).get("schema")),
                    "request",
                )

    def parameters(
        self,
        where: str,
        old: dict[tuple[str, str], dict[str, Any]],
        new: dict[tuple[str, str], dict[str, Any]],
    ) -> None:
        for key, p in new.items():
            place, name = clip(key[0]), clip(key[1])
            at = f"{where}.parameters.{name}"
            q = old.get(key)
            if q is None:
                if p.get("required"):
                    # new-required-request-parameter (ERR)
                    self.breaking(at, f"new required {place} parameter {name!r}")
                else:
                    # new-optional-request-parameter (INFO)
                    self.compatible(at, f"new optional {place} parameter {name!r}")
                continue
            if p.get("required") and not q.get("required"):
                # request-parameter-became-required (ERR)
                self.breaking(at, f"{place} parameter {name!r} is now required")
            self.schema(at, _dict(q.get("schema")), _dict(p.get("schema")), "request")
        for key in old:
            if key not in new:
                place, name = clip(key[0]), clip(key[1])
                # request-parameter-removed (WARN)
                self.breaking(f"{where}.parameters.{name}", f"{place} parameter {name!r} removed")

    def response(self, where: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        old_content, new_content = _dict(old.get("content")), _dict(new.get("content"))
        for ctype, media in old_content.items():
            if ctype not in new_content:
                # response-media-type-removed (ERR)
                self.breaking(f"{where}.content", f"no longer returns {clip(ctype)}")
            else:
                self.schema(
                    f"{where}.content.{clip(ctype)}",
                    _dict(_dict(media).get("schema")),
                    _dict(_dict(new_content[ctype]).get("schema")),
                    "response",
                )
        for ctype in new_content:
            if ctype not in old_content and old_content:
                # response-media-type-added (INFO)
                self.compatible(f"{where}.content", f"also returns {clip(ctype)}")
        old_headers, new_headers = _dict(old.get("headers")), _dict(new.get("headers"))
        for name in old_headers:
            if name not in new_headers:
                # required-response-header-removed (ERR), optional-response-header-removed
                # (WARN)
                shown = clip(name)
                self.breaking(f"{where}.headers.{shown}", f"response header {shown} removed")
        for name in new_headers:
            if name not in old_headers:
                shown = clip(name)
                self.compatible(f"{where}.headers.{shown}", f"new response header {shown}")

    # -- schemas -------------------------------------------------------------------------------

    def schema(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        if self._depth >= MAX_SCHEMA_DEPTH:  # deeper inline schemas are not compared
            return
        self._depth += 1
        shared = self._shared
        try:
            self._schema(where, old, new, direction)
        finally:
            self._depth -= 1
            self._shared = shared

    def _schema(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        old_ref, new_ref = _ref_name(old), _ref_name(new)
        if old_ref is not None or new_ref is not None:
            pair = (old_ref or where, new_ref or where, direction)
            if pair in self._seen:
                return
            self._seen.add(pair)
            if old_ref is not None and new_ref is not None:
                where = f"schemas.{clip(new_ref)}"
                self._shared = None  # a pair of schemas is compared once
            else:
                self._shared = old_ref or new_ref
            old = self.resolve(old, self.old_schemas)
            new = self.resolve(new, self.new_schemas)
        old_t, new_t = self.type_of(old, self.old_schemas), self.type_of(new, self.new_schemas)
        if old_t != new_t:
            # response-property-type-changed, request-property-type-changed (ERR)
            self.breaking(where, f"type changed from {clip(old_t)} to {clip(new_t)}")
            return
        if old.get("format") != new.get("format"):
            # response-property-format-changed, request-property-format-changed (ERR)
            self.breaking(
                where,
                f"format changed from {brief(old.get('format'))} to {brief(new.get('format'))}",
            )
        # Values listed from a schema that only one side refers to are named after it.
        one_ref = (old_ref is None) != (new_ref is None)
        self.values(
            where,
            old,
            new,
            direction,
            (old_ref if one_ref else None, new_ref if one_ref else None),
        )
        self.bounds(where, old, new, direction)
        self.properties(where, old, new, direction)
        if "items" in old and "items" in new:
            self.schema(f"{where}[]", _dict(old["items"]), _dict(new["items"]), direction)
        for key in ("anyOf", "oneOf", "allOf"):
            old_list, new_list = old.get(key), new.get(key)
            if isinstance(old_list, list) and isinstance(new_list, list):
                for i, (a, b) in enumerate(zip(old_list, new_list, strict=False)):
                    self.schema(f"{where}.{key}[{i}]", _dict(a), _dict(b), direction)

    def values(
        self,
        where: str,
        old: dict[str, Any],
        new: dict[str, Any],
        direction: Direction,
        refs: tuple[str | None, str | None] = (None, None),
    ) -> None:
        """`enum` and `const` (a one-value enum): the set of values a reader must accept.

        Linear in the documents: each schema's values are keyed once (`allowed`), and a
        comparison walks the smaller side plus the few values it shows, so a 50,000-value enum
        shared by a hundred properties is neither serialised nor printed a hundred times.
        """
        old_values, new_values = self.allowed(old), self.allowed(new)
        if old_values is None and new_values is None:
            return
        if old_values is None or new_values is None:
            # An unconstrained value became constrained (or the other way round).
            widened = new_values is None
            if widened == (direction == "response"):
                self.breaking(where, "allowed values changed")
            else:
                self.compatible(where, "allowed values changed")
            return
        added = missing(new_values, old_values, refs[1])
        removed = missing(old_values, new_values, refs[0])
        if direction == "response":
            # response-property-enum-value-added (WARN): a client may not handle the new
            # value; response-property-enum-value-removed (INFO)
            if added and not added.schema and added.count == len(added.shown):
                self.breaking(where, f"new allowed value{'s' * (added.count > 1)} {added}")
            elif added:
                self.breaking(where, added.text("new allowed value"))
            if removed:
                self.compatible(where, f"no longer returns {removed}")
        else:
            # request-property-enum-value-removed (ERR); request-property-enum-value-added
            # (INFO)
            if removed:
                self.breaking(where, f"no longer accepts {removed}")
            if added:
                self.compatible(where, f"also accepts {added}")

    def allowed(self, schema: dict[str, Any]) -> dict[Any, Any] | None:
        """The values `schema` allows (its `enum`, or its `const`) by value key, in document
        order, the first of equal values kept; None when it does not restrict them."""
        known = self._values.get(id(schema))
        if known is not None:
            return known
        values = _allowed(schema)
        if values is None:
            return None
        keyed: dict[Any, Any] = {}
        for v in values:
            keyed.setdefault(value_key(v), v)
        self._values[id(schema)] = keyed  # schema is the document's own: its id stays its own
        return keyed

    def bounds(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        """minItems, maxLength, …: a response may not widen them, a request may not narrow.

        response-property-min-items-decreased, response-property-max-length-increased,
        request-property-min-items-increased, request-property-max-length-decreased, … (ERR);
        the opposite moves are INFO.
        """
        for key in (*_LOWER_BOUNDS, *_UPPER_BOUNDS):
            a, b = old.get(key), new.get(key)
            if a == b or not all(isinstance(v, int | float | None) for v in (a, b)):
                continue
            message = f"{key} changed from {brief(a, repr_=str)} to {brief(b, repr_=str)}"
            if _widens(key, a, b) == (direction == "response"):
                self.breaking(where, message)
            else:
                self.compatible(where, message)

    def properties(
        self, where: str, old: dict[str, Any], new: dict[str, Any], direction: Direction
    ) -> None:
        """Fields removed, added, made required or optional, then each common field's schema.

        The names both sides have are found by walking the smaller side (in the old order), and
        the removed and added ones from those: a schema of 50,000 fields that one side refers
        to at a hundred places is not walked whole at each.
        """
        old_props, new_props = _dict(old.get("properties")), _dict(new.get("properties"))
        old_req, new_req = self.required(old)[0], self.required(new)[0]
        if len(old_props) <= len(new_props):
            common = [p for p in old_props if p in new_props]
        else:
            order = self.order(old_props)
            common = sorted((p for p in new_props if p in old_props), key=order.__getitem__)
        n_gone, n_fresh = len(old_props) - len(common), len(new_props) - len(common)
        of = "" if self._shared is None else f" of schemas.{clip(self._shared)}"
        if of and n_gone > SHOWN_VALUES:
            gone = Listed(n_gone, first_missing(old_props, new_props, SHOWN_VALUES), of)
            self.breaking(where, gone.text("removed field"))
        else:
            fresh_one = first_missing(new_props, old_props, 1) if n_gone == n_fresh == 1 else []
            for p in first_missing(old_props, new_props, n_gone):
                # response-required-property-removed (ERR), response-optional-property-removed
                # (WARN), request-property-removed (WARN)
                hint = f" (renamed to {clip(fresh_one[0])!r}?)" if fresh_one else ""
                name = clip(p)
                self.breaking(f"{where}.{name}", f"field {name!r} removed{hint}")
        if of and n_fresh > SHOWN_VALUES:
            self.fields_added(where, of, old_props, new, new_props, common, direction)
        else:
            for p in first_missing(new_props, old_props, n_fresh):
                required = p in new_req
                kind = "required" if required else "optional"
                name = clip(p)
                if direction == "request" and required:
                    # new-required-request-property (ERR)
                    self.breaking(f"{where}.{name}", f"new required field {name!r}")
                else:
                    # response-required-property-added, response-optional-property-added,
                    # new-optional-request-property (INFO): clients ignore unknown fields
                    self.compatible(f"{where}.{name}", f"new {kind} field {name!r}")
        for p in common:
            name = clip(p)
            if (p in old_req) != (p in new_req):
                now_required = p in new_req
                state = "required" if now_required else "optional"
                # response-property-became-optional (ERR), response-property-became-required
                # (INFO); request-property-became-required (ERR),
                # request-property-became-optional (INFO)
                if now_required == (direction == "request"):
                    self.breaking(f"{where}.{name}", f"field {name!r} is now {state}")
                else:
                    self.compatible(f"{where}.{name}", f"field {name!r} is now {state}")
            self.schema(f"{where}.{name}", _dict(old_props[p]), _dict(new_props[p]), direction)

    def fields_added(
        self,
        where: str,
        of: str,
        old_props: dict[str, Any],
        new: dict[str, Any],
        new_props: dict[str, Any],
        common: list[str],
        direction: Direction,
    ) -> None:
        """Many fields that a shared schema adds, in one change per place (two in a request:
        new required fields break it, new optional ones do not)."""
        n_fresh = len(new_props) - len(common)
        seen = first_missing(new_props, old_props, 4 * SHOWN_VALUES)
        if direction == "response":
            # response-required-property-added, response-optional-property-added (INFO)
            listed = Listed(n_fresh, seen[:SHOWN_VALUES], of)
            self.compatible(where, listed.text("new field"))
            return
        new_req, required_props = self.required(new)
        n_required = required_props - sum(1 for p in common if p in new_req)
        required = [p for p in seen if p in new_req][:SHOWN_VALUES]
        optional = [p for p in seen if p not in new_req][:SHOWN_VALUES]
        if n_required:
            # new-required-request-property (ERR)
            listed = Listed(n_required, required, of)
            self.breaking(where, listed.text("new required field"))
        if n_fresh - n_required:
            # new-optional-request-property (INFO)
            listed = Listed(n_fresh - n_required, optional, of)
            self.compatible(where, listed.text("new optional field"))

    def required(self, schema: dict[str, Any]) -> tuple[frozenset[str], int]:
        """The names `schema` requires, and how many of them are among its properties."""
        if "required" not in schema:
            return frozenset(), 0
        known = self._required.get(id(schema))
        if known is None:
            names = frozenset(_names(schema.get("required")))
            props = _dict(schema.get("properties"))
            known = self._required[id(schema)] = (names, sum(1 for p in names if p in props))
        return known

    def order(self, props: dict[str, Any]) -> dict[str, int]:
        known = self._order.get(id(props))
        if known is None:
            known = self._order[id(props)] = {p: i for i, p in enumerate(props)}
        return known

    @staticmethod
    def resolve(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
        ref = _ref_name(schema)
        return schema if ref is None else _dict(schemas.get(ref))

    def type_of(self, schema: dict[str, Any], schemas: dict[str, Any], depth: int = 0) -> str:
        """A short signature of what a schema accepts: its JSON types and referenced schemas."""
        if depth > 8:
            return "…"
        schema = self.resolve(schema, schemas)
        known = self._types.get(id(schema))
        if known is not None:  # shared schemas are typed once: linear in the document
            return known
        self._types[id(schema)] = "…"  # a cycle back to this schema
        self._types[id(schema)] = self._type_of(schema, schemas, depth)
        return self._types[id(schema)]

    def _type_of(self, schema: dict[str, Any], schemas: dict[str, Any], depth: int) -> str:
        kinds: set[str] = set()
        t = schema.get("type")
        if isinstance(t, str):
            kinds.add(t)
        elif isinstance(t, list):
            kinds.update(str(x) for x in t)
        for key in ("anyOf", "oneOf"):
            for sub in schema.get(key, []) if isinstance(schema.get(key), list) else []:
                kinds.add(self.type_of(_dict(sub), schemas, depth + 1))
        if not kinds and ("properties" in schema):
            kinds.add("object")
        return "|".join(sorted(kinds)) or "any"


def _widens(key: str, old: float | None, new: float | None) -> bool:
    """Whether moving bound `key` from `old` to `new` lets more values through."""
    if old is None or new is None:
        return new is None  # a bound dropped widens, a bound added narrows
    return new < old if key in _LOWER_BOUNDS else new > old


def _allowed(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return list(values) if isinstance(values, list) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _names(value: Any) -> set[str]:
    return {v for v in _list(value) if isinstance(v, str)}


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        return ref.removeprefix(_REF_PREFIX)
    return None


def _params(item: dict[str, Any], op: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Effective parameters of an operation: the path item's, overridden by the operation's."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for p in [*_list(item.get("parameters")), *_list(op.get("parameters"))]:
        if isinstance(p, dict) and "name" in p:
            out[(str(p.get("in", "query")), str(p["name"]))] = p
    return out


def contract_changes(old: dict[str, Any], new: dict[str, Any]) -> list[ContractChange]:
    """The contract §9 check of two OpenAPI documents: breaking changes need a new major version."""
    return _Contract(old, new).run()
