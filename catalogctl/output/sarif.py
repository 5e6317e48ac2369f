"""SARIF 2.1.0 (OASIS): one run of catalogctl with its rules and located results.

Read by GitHub code scanning (`github/codeql-action/upload-sarif`), GitLab, Azure DevOps and
SARIF viewers. Each rule carries its id, a PascalCase name, a short description, help text, the
address of its section of the docs (`helpUri`, which code scanning links to) and its default
level; each result its rule (`ruleId` and `ruleIndex`), level, message and a
location: the file with line and column for content, a logical location (a game, a URL, a
contract path) otherwise. A command that could not run is an invocation that did not succeed,
with the reason as a notification. May import: the base layer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from catalogctl import DOCS_URL, __version__, docs_url
from catalogctl.findings import Rule
from catalogctl.output.model import Result
from catalogctl.text import clean

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = DOCS_URL
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def rule_name(rule_id: str) -> str:
    """`broken-link` → `BrokenLink` (SARIF's `name` is an identifier, the id stays stable)."""
    return "".join(part[:1].upper() + part[1:] for part in rule_id.replace("_", "-").split("-"))


# A byte of a name that is not UTF-8, as `path_text` shows it (`caf\xe9.md`).
_SHOWN_BYTE = re.compile(r"\\x([0-9a-f]{2})")


def artifact_uri(path: str) -> str:
    """A file as a URI reference: relative paths stay relative (to the working directory);
    every character a URI path cannot hold as it is (a space, `#`, `%`, a backslash, which is
    a character of the name on POSIX) percent-encoded, and a byte of a name that is not UTF-8
    (shown `\xe9`) as that byte (`%E9`), so that the URI names the file on disk."""
    posix = path.replace(os.sep, "/") if os.sep != "/" else path
    raw = b"".join(
        bytes([int(part, 16)]) if i % 2 else part.encode("utf-8", "surrogateescape")
        for i, part in enumerate(_SHOWN_BYTE.split(posix))
    )
    if PurePosixPath(posix).is_absolute():
        return "file://" + quote(raw)
    return quote(raw.removeprefix(b"./"))


def _rule(rule: Rule) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": rule.id,
        "name": rule_name(rule.id),
        "shortDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
    }
    doc["help"] = {"text": rule.help or rule.summary}
    if rule.docs:
        doc["helpUri"] = docs_url(rule.docs)
    return doc


def _location(result: Result) -> dict[str, Any] | None:
    loc = result.location
    out: dict[str, Any] = {}
    if loc.file:
        physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(loc.file)}}
        if loc.line is not None and loc.line >= 1:
            region = {"startLine": loc.line}
            if loc.column is not None and loc.column >= 1:
                region["startColumn"] = loc.column
            physical["region"] = region
        out["physicalLocation"] = physical
    if loc.logical:
        out["logicalLocations"] = [{"fullyQualifiedName": clean(loc.logical), "kind": loc.kind}]
    return out or None


def _result(result: Result, index: dict[str, int]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "ruleId": result.rule,
        "level": _LEVEL[result.level],
        "message": {"text": clean(result.message, newlines=True) or result.rule},
    }
    if result.rule in index:
        doc["ruleIndex"] = index[result.rule]
    location = _location(result)
    if location is not None:
        doc["locations"] = [location]
    return doc


def sarif_log(
    rules: Sequence[Rule],
    results: Sequence[Result],
    *,
    error: str | None = None,
) -> dict[str, Any]:
    """The SARIF log of one run (`error`: the command could not do its work)."""
    index = {r.id: i for i, r in enumerate(rules)}
    invocation: dict[str, Any] = {"executionSuccessful": error is None}
    if error is not None:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": clean(error, newlines=True)}}
        ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "catalogctl",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(r) for r in rules],
            }
        },
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": [_result(r, index) for r in results],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
