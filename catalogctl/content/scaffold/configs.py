"""A website's configuration files, read bounded: a file that cannot be read or parsed is a
setting not found, never an error (init guesses, the user decides)."""

from __future__ import annotations

import codecs
import json
import os
import re
from pathlib import Path
from typing import Any

from catalogctl.content.files import read_head
from catalogctl.content.storehosts import url_host
from catalogctl.paths import is_file

MAX_CONFIG = 256 * 1024  # of a configuration file, as much as is read


# Byte-order marks of the wide encodings Notepad and other Windows editors may save a file in
# (UTF-32's little-endian mark starts with UTF-16's: it comes first).
_WIDE = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def read_text(path: Path) -> str | None:
    """The text of a configuration file (a BOM left out), or None when it cannot be read.
    A file saved as UTF-16 or UTF-32 with a byte-order mark is read as such."""
    try:
        raw, _ = read_head(os.path.realpath(path), MAX_CONFIG)
    except OSError:
        return None
    for bom, codec in _WIDE:
        if raw.startswith(bom):
            return raw.decode(codec, "replace")
    return raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")


def read_toml(path: Path) -> dict[str, Any]:
    import tomli

    text = read_text(path)
    try:
        return tomli.loads(text) if text is not None else {}
    except (tomli.TOMLDecodeError, ValueError, RecursionError):
        return {}


def read_yaml(path: Path) -> dict[str, Any]:
    """A YAML configuration read as a page's front matter is (libyaml where installed, the
    depth bounded, every tag's value checked): one that cannot be read is none."""
    from catalogctl.content.document import Problem
    from catalogctl.content.yamldoc import read_yaml as parse

    text = read_text(path)
    if text is None:
        return {}
    try:
        data = parse(text, path.name, 1, (1, 1)).data
    except Problem:
        data = _lenient(text)  # what a page may not hold, a generator may (`"\ud83c"`)
    return _text_keys(data, {}) if isinstance(data, dict) else {}


def _lenient(text: str) -> Any:
    """The configuration as PyYAML's safe loader reads it (libyaml where installed), or None
    where it cannot: every error a tag's constructor raises is one."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, ValueError, LookupError, AttributeError, TypeError, RecursionError):
        return None


MAX_DEPTH = 32  # of a configuration's tables, as much as is kept


def _text_keys(
    data: dict[Any, Any], done: dict[int, dict[str, Any]], depth: int = 0
) -> dict[str, Any]:
    """A YAML mapping with only its text keys (`1: x`, `~: x` are no setting of a
    generator's), in its tables too; tables below MAX_DEPTH left out. A table given again
    by an alias is made once (`done`): aliases of aliases cost no more than the text."""
    made = done.get(id(data))
    if made is not None:
        return made
    out: dict[str, Any] = {}
    done[id(data)] = out
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, dict):
            out[key] = _text_keys(value, done, depth + 1) if depth < MAX_DEPTH else {}
        else:
            out[key] = value
    return out


def read_json(path: Path) -> dict[str, Any]:
    text = read_text(path)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def read_config(path: Path) -> dict[str, Any]:
    """A TOML, YAML or JSON configuration file, by its extension."""
    if path.suffix == ".toml":
        return read_toml(path)
    if path.suffix in (".yaml", ".yml"):
        return read_yaml(path)
    return read_json(path)


def text_value(value: Any) -> str | None:
    """A setting's text, stripped; None for anything else, blank, or not text (half a
    character: YAML's `"\\ud83c"`, which no file can hold)."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value.strip()


def first_file(root: Path, names: tuple[str, ...]) -> Path | None:
    """The first of `names` that is a file in `root` (a name the system refuses, too long
    for one, is none)."""
    for name in names:
        if is_file(root / name):
            return root / name
    return None


# Hosts of code, not of websites: a `homepage` there is the project's repository.
_CODE_HOSTS = frozenset(
    ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht", "npmjs.com")
)


def homepage(root: Path) -> str | None:
    """package.json's `homepage` where it is a website's address: an http(s) URL without a
    fragment, not on a code host (`https://github.com/studio/site#readme` is the repository
    a template's package.json names)."""
    if not (root / "package.json").is_file():
        return None
    url = text_value(read_json(root / "package.json").get("homepage"))
    pages = _GITHUB_PAGES.fullmatch(url or "")
    if pages is not None and pages.group(1).lower() == pages.group(2).lower():
        # The repository of a GitHub Pages site (`<owner>/<owner>.github.io`) is served at
        # https://<owner>.github.io, unless a CNAME file names a domain of its own.
        return cname(root) or f"https://{pages.group(1).lower()}.github.io"
    host = url_host(url) if url is not None and "#" not in url else None
    return None if host is None or host.removeprefix("www.") in _CODE_HOSTS else url


_GITHUB_PAGES = re.compile(
    r"https?://(?:www\.)?github\.com/([A-Za-z0-9-]+)/([A-Za-z0-9-]+)\.github\.io/?(?:#.*)?",
    re.IGNORECASE,
)
_DOMAIN = re.compile(
    r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+"
)


def cname(root: Path) -> str | None:
    """The custom domain a GitHub Pages site's CNAME file names, as an https URL."""
    for folder in (".", "static", "public", "src"):
        text = read_text(root / folder / "CNAME")
        domain = (text or "").strip().lower()
        if domain and len(domain) <= 253 and _DOMAIN.fullmatch(domain):
            return f"https://{domain}"
    return None
