"""Content tree → catalog: the loader and every rule of `validate`.

`load()` never raises for bad content: every problem becomes a `Finding` located by file,
line (where the parser knows it) and field, so that `validate` can report all of them at once.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from catalogctl.content.settings import GamePage, SiteSettings, StoreSettings, validator
from catalogctl.contract.publication import Lifecycle, Publication
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.findings import ERROR, WARNING, Finding, Severity

SITE_FILE = "site.toml"
GAMES_DIR = "games"

# A slug must be usable as one URL path segment as it stands.
_ID_RE = re.compile(r"^[^\s/\\?#%\"<>`{}|^\x00-\x1f\x7f]+$")
_CANONICAL_ID_RE = re.compile(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$")
_TOML_POS_RE = re.compile(r"\(at line (\d+), column (\d+)\)")
_DIGITS_RE = re.compile(r"^[0-9]+$")

# SPEC §2.4: the attribution parameters each store carries.
SPEC_STORE_PARAMS: dict[str, dict[str, str | None]] = {
    "ios": {"pt": None, "ct": "service_api_game_catalog", "mt": "8"},
    "android": {"utm_source": "service_api", "utm_campaign": "game_catalog"},
}


@dataclass(slots=True)
class FrontMatter:
    """A parsed text block and where it sits in its file (for locating fields)."""

    file: str
    text: str
    syntax: Literal["yaml", "toml"]
    first_line: int  # file line number of the block's first line

    def line_of(self, loc: Sequence[str | int]) -> int:
        found = locate(self.text, loc, self.syntax)
        # A missing key is reported on the block's opening line.
        return self.first_line - 1 + found if found else max(1, self.first_line - 1)


@dataclass(slots=True)
class GameEntry:
    id: str
    source: GamePage
    front: FrontMatter


@dataclass(slots=True)
class Content:
    """Everything loaded from a content tree, valid or not."""

    root: Path
    site: SiteSettings | None
    site_front: FrontMatter | None
    entries: list[GameEntry]
    findings: list[Finding]
    files: int

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]


@dataclass(frozen=True, slots=True)
class Catalog:
    """A valid catalog: site settings and the games as published (SPEC §2.3 field order)."""

    site: SiteSettings
    games: list[dict[str, Any]] = field(default_factory=list)

    @property
    def publication(self) -> Publication:
        """The site-wide facts every contract document is made from."""
        site, v1 = self.site, self.site.api.v1
        return Publication(
            base_url=site.base_url,
            title=site.title,
            description=site.description,
            store_names=tuple(s.name for s in site.stores.values()),
            lifecycle=Lifecycle(v1.status, v1.deprecation, v1.sunset, v1.migration),
        )


# --- locating -----------------------------------------------------------------------------


def locate(text: str, loc: Sequence[str | int], syntax: str) -> int | None:
    """1-based line of the deepest key of `loc` found in a YAML or TOML text, or None."""
    lines = text.splitlines()
    start, found = 0, None
    for key in loc:
        if not isinstance(key, str) or key.startswith("["):
            break
        k = re.escape(key)
        if syntax == "yaml":
            pat = re.compile(rf"(?:^|[\s{{,])[\"']?{k}[\"']?\s*:")
        else:
            pat = re.compile(rf"(?:^|[\s{{,.\[])[\"']?{k}[\"']?\s*(?:=|\]|\.)")
        for i in range(start, len(lines)):
            if pat.search(lines[i]):
                found = start = i
                break
        else:
            break
    return None if found is None else found + 1


# --- reading files ------------------------------------------------------------------------


class _FileProblem(Exception):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _FileProblem(f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise _FileProblem(
            f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8",
            line,
        ) from None
    return text.removeprefix("\ufeff")


def split_front_matter(text: str, file: str) -> FrontMatter:
    """Find the front matter block (YAML `---` or TOML `+++`) at the top of a Markdown file."""
    if not text.strip():
        raise _FileProblem("file is empty; expected front matter between '---' lines", 1)
    first_nl = text.find("\n")
    first = (text if first_nl < 0 else text[:first_nl]).rstrip()
    if first not in ("---", "+++"):
        raise _FileProblem(
            "no front matter: the file must start with a '---' (YAML) or '+++' (TOML) line", 1
        )
    syntax: Literal["yaml", "toml"] = "yaml" if first == "---" else "toml"
    closing = re.compile(rf"^{re.escape(first)}[ \t]*\r?$", re.MULTILINE)
    body_start = first_nl + 1 if first_nl >= 0 else len(text)
    match = closing.search(text, body_start)
    if match is None:
        raise _FileProblem(f"front matter opened with '{first}' on line 1 is never closed", 1)
    return FrontMatter(file, text[body_start : match.start()], syntax, 2)


def _yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_block(front: FrontMatter) -> dict[str, Any]:
    """Parse a YAML or TOML block into a mapping; problems carry the file line."""
    if front.syntax == "toml":
        try:
            return tomllib.loads(front.text)
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = _TOML_POS_RE.search(msg)
            line = front.first_line - 1 + int(m.group(1)) if m else None
            msg = _TOML_POS_RE.sub("", msg).strip()
            raise _FileProblem(f"invalid TOML: {msg}", line) from None
    import yaml

    try:
        data = yaml.load(front.text, Loader=_yaml_loader())  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = front.first_line + mark.line if mark else None
        problem = exc.problem or exc.context or "syntax error"
        raise _FileProblem(f"invalid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise _FileProblem(f"invalid YAML: {exc}") from None
    if data is None:
        raise _FileProblem("front matter is empty", front.first_line - 1)
    if not isinstance(data, dict):
        raise _FileProblem(
            f"front matter must be a mapping of keys to values, not {_kind(data)}",
            front.first_line,
        )
    return data


# --- pydantic errors → findings ---------------------------------------------------------------


def _kind(value: object) -> str:
    names = {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "true/false",
        list: "a list",
        dict: "a mapping",
        type(None): "empty",
    }
    return names.get(type(value), f"a {type(value).__name__}")


def _message(err: Any) -> str:
    kind, value = err["type"], err.get("input")
    loc = err["loc"]
    if kind == "missing":
        return "required field is missing"
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return "unknown key"
    if kind == "too_short":
        return "must not be empty" if isinstance(value, str) else "must have at least 1 item"
    if kind in ("string_type", "string_sub_type"):
        if loc and loc[-1] == "[key]":
            return f"key must be a string, not {_kind(value)}"
        return f"must be a string, not {_kind(value)}"
    if kind == "list_type":
        return f"must be a list, not {_kind(value)}"
    if kind == "dict_type":
        return f"must be a mapping, not {_kind(value)}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"must be a whole number, not {_kind(value)}"
    if kind == "bool_type":
        return f"must be true or false, not {_kind(value)}"
    if kind == "model_type":
        return f"must be a table, not {_kind(value)}"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return f"must be one of {expected}, not {value!r}"
    return str(err["msg"])


def _loc_name(loc: Sequence[str | int]) -> str:
    parts = [str(p) for p in loc if p != "[key]"]
    return ".".join(parts) if parts else "(front matter)"


def _validate(
    kind: Literal["site", "game"], data: dict[str, Any], front: FrontMatter, severity: Severity
) -> tuple[Any, list[Finding]]:
    from pydantic_core import ValidationError

    try:
        return validator(kind).validate_python(data), []
    except ValidationError as exc:
        findings = [
            Finding(
                front.file,
                front.line_of(err["loc"]),
                _loc_name(err["loc"]),
                _message(err),
                severity,
            )
            for err in exc.errors(include_url=False)
        ]
        return None, findings


# --- site.toml ----------------------------------------------------------------------------


_HTTP_URL_RE = re.compile(r"^https?://[^\s/?#@]+(?:[/?#][^\s]*)?$", re.IGNORECASE)


def _is_http_url(url: str, *, https_only: bool = False) -> bool:
    """An absolute http(s) URL with a host and no white space."""
    if _HTTP_URL_RE.match(url) is None:
        return False
    return not https_only or url[:8].lower() == "https://"


def game_url(site: SiteSettings, game_id: str) -> str:
    return site.game_url.replace("{base_url}", site.base_url).replace(
        "{id}", quote(game_id, safe="")
    )


def _check_site(site: SiteSettings, front: FrontMatter) -> list[Finding]:
    out: list[Finding] = []

    def add(loc: Sequence[str | int], msg: str, severity: Severity = ERROR) -> None:
        out.append(Finding(front.file, front.line_of(loc), _loc_name(loc), msg, severity))

    base = site.base_url
    if not _is_http_url(base):
        add(["base_url"], f"must be an absolute http(s) URL, got {base!r}")
    elif base.endswith("/"):
        add(["base_url"], f"must not end with '/': use {base.rstrip('/')!r}")
    elif urlsplit(base).query or urlsplit(base).fragment:
        add(["base_url"], "must not carry a query or fragment")
    if "{id}" not in site.game_url:
        add(["game_url"], "must contain '{id}', the place of the game's id in its page URL")
    elif not _is_http_url(game_url(site, "x")):
        add(["game_url"], "must give an absolute http(s) URL once {base_url} and {id} are filled")

    for key, store in site.stores.items():
        out.extend(_check_store_params(key, store, add))

    v1 = site.api.v1
    loc = ["api", "v1"]
    if v1.status == "deprecated" and v1.deprecation is None:
        add([*loc, "deprecation"], "a 'deprecated' status needs a deprecation date (RFC 9745)")
    if v1.status == "deprecated" and v1.migration is None:
        add([*loc, "migration"], "a deprecated version should link a migration guide", WARNING)
    if v1.status == "supported" and v1.deprecation is not None:
        add([*loc, "status"], "a deprecation date is set but status is 'supported'")
    if v1.sunset is not None:
        if v1.deprecation is None:
            add([*loc, "sunset"], "a sunset needs a deprecation date first (SPEC §9)")
        else:
            notice = (_as_date(v1.sunset) - _as_date(v1.deprecation)).days
            if notice < 90:
                add(
                    [*loc, "sunset"],
                    f"sunset is {notice} days after deprecation; SPEC §9 requires at least 90",
                )
    if v1.migration is not None and not _is_http_url(v1.migration):
        add([*loc, "migration"], f"must be an absolute http(s) URL, got {v1.migration!r}")
    return out


def _as_date(value: Any) -> Any:
    import datetime as dt

    return value.date() if isinstance(value, dt.datetime) else value


def _check_store_params(key: str, store: StoreSettings, add: Any) -> list[Finding]:
    pt = store.params.get("pt")
    if pt is not None and not _DIGITS_RE.match(pt):
        add(["stores", key, "params", "pt"], f"the provider token 'pt' must be numeric, got {pt!r}")
    expected = SPEC_STORE_PARAMS.get(key.lower())
    for name, value in (expected or {}).items():
        have = store.params.get(name)
        if have is None:
            add(
                ["stores", key, "params"],
                f"SPEC §2.4 expects the attribution parameter {name!r} on this store",
                WARNING,
            )
        elif value is not None and have != value:
            add(
                ["stores", key, "params", name],
                f"SPEC §2.4 expects {name}={value!r}, got {have!r}",
                WARNING,
            )
    return []


def _load_site(
    root: Path, display: str
) -> tuple[SiteSettings | None, FrontMatter | None, list[Finding]]:
    path = root / SITE_FILE
    file = str(Path(display) / SITE_FILE)
    if not path.is_file():
        return None, None, [Finding(file, None, None, "site.toml is missing from the content tree")]
    try:
        text = _read_text(path)
        front = FrontMatter(file, text, "toml", 1)
        data = parse_block(front)
    except _FileProblem as exc:
        return None, None, [Finding(file, exc.line, None, str(exc))]
    site: SiteSettings | None
    site, findings = _validate("site", data, front, ERROR)
    if site is not None:
        findings.extend(_check_site(site, front))
    return site, front, findings


# --- games --------------------------------------------------------------------------------


def _suggest(value: str, allowed: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(value, list(allowed), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_game(entry: GameEntry, site: SiteSettings | None) -> list[Finding]:
    src, front = entry.source, entry.front
    severity = WARNING if src.draft else ERROR
    out: list[Finding] = []

    def add(loc: Sequence[str | int], msg: str, sev: Severity = severity) -> None:
        out.append(Finding(front.file, front.line_of(loc), _loc_name(loc), msg, sev))

    id_loc = ["slug"] if src.slug is not None else []
    if not _ID_RE.match(entry.id) or entry.id in (".", ".."):
        add(id_loc, f"id {entry.id!r} cannot be a URL path segment (no spaces, '/', '?', '#', '%')")
    elif not _CANONICAL_ID_RE.match(entry.id):
        add(id_loc, f"id {entry.id!r} is not a lowercase slug (a-z, 0-9, '-')", WARNING)
    for name in ("name", "description"):
        if not getattr(src, name).strip():
            add([name], "must not be blank")

    icon = src.icon
    if icon.startswith("/") and not icon.startswith("//"):
        pass  # a site path, resolved against base_url
    elif _is_http_url(icon, https_only=True):
        pass
    elif _is_http_url(icon):
        add(["icon"], "icon is served over plain http; use https", WARNING)
    else:
        add(
            ["icon"],
            f"must be an absolute https:// URL or a site path like /icons/x.png, got {icon!r}",
        )

    for vocab_name in ("platforms", "genres"):
        values: list[str] = getattr(src, vocab_name)
        allowed = getattr(site, vocab_name) if site is not None else None
        seen: set[str] = set()
        for i, value in enumerate(values):
            if value in seen:
                add([vocab_name, i], f"{value!r} is listed twice", WARNING)
            seen.add(value)
            if allowed is not None and value not in allowed:
                add(
                    [vocab_name, i],
                    f"{value!r} is not in the {vocab_name} of site.toml{_suggest(value, allowed)}",
                )

    for key, url in src.stores.items():
        if site is not None and key not in site.stores:
            known = ", ".join(site.stores) or "none"
            add(["stores", key], f"unknown store key {key!r}; site.toml defines: {known}")
        if not _is_http_url(url):
            add(["stores", key], f"store URL must be an absolute http(s) URL, got {url!r}")

    platform_keys = {p.lower() for p in src.platforms}
    store_keys = {k.lower() for k in src.stores}
    for key in sorted(SPEC_STORE_PARAMS.keys() & platform_keys - store_keys):
        add(["stores"], f"lists platform {key!r} but has no {key!r} store link", WARNING)
    for key in sorted(SPEC_STORE_PARAMS.keys() & store_keys - platform_keys):
        add(["platforms"], f"has a {key!r} store link but does not list that platform", WARNING)
    return out


# A parsed file: (display name, stem, front matter and its data) or (display name, problem).
_Parsed = tuple[str, str, FrontMatter | None, dict[str, Any] | None, Finding | None]
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 1500


def _parse_game_file(path: str, file: str) -> _Parsed:
    stem = os.path.basename(path).removesuffix(".md")
    try:
        front = split_front_matter(_read_text(Path(path)), file)
        return file, stem, front, parse_block(front), None
    except _FileProblem as exc:
        return file, stem, None, None, Finding(file, exc.line, None, str(exc))


def _parse_chunk(chunk: list[tuple[str, str]]) -> list[_Parsed]:
    return [_parse_game_file(path, file) for path, file in chunk]


def _parse_all(jobs: list[tuple[str, str]]) -> list[_Parsed]:
    """Read and parse every game file; big trees are parsed on every core."""
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) < PARALLEL_THRESHOLD or workers < 2:
        return _parse_chunk(jobs)
    import multiprocessing

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return _parse_chunk(jobs)
    size = -(-len(jobs) // (workers * 4))
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    with ctx.Pool(workers) as pool:
        return [item for part in pool.map(_parse_chunk, chunks) for item in part]


def _game_entry(
    parsed: _Parsed, site: SiteSettings | None
) -> tuple[GameEntry | None, list[Finding]]:
    _file, stem, front, data, problem = parsed
    if front is None or data is None:
        return None, [problem] if problem else []
    severity = WARNING if data.get("draft") is True else ERROR
    source: GamePage | None
    source, findings = _validate("game", data, front, severity)
    if source is None:
        return None, findings
    entry = GameEntry(source.slug if source.slug is not None else stem, source, front)
    findings.extend(_check_game(entry, site))
    return entry, findings


def _game_files(root: Path) -> list[str]:
    games = root / GAMES_DIR
    if not games.is_dir():
        return []
    # Hugo-style section files (_index.md) and editor droppings are not games.
    with os.scandir(games) as it:
        return sorted(
            e.name for e in it if e.name.endswith(".md") and e.name[0] not in "._" and e.is_file()
        )


def load(root: Path, *, display: str | None = None) -> Content:
    """Load a content tree; every problem becomes a finding. Raises only for a bad root."""
    if not root.exists():
        raise InputError(f"content directory not found: {root}")
    if not root.is_dir():
        raise InputError(f"not a content directory: {root}")
    shown = display if display is not None else str(root)
    site, site_front, findings = _load_site(root, shown)
    entries: list[GameEntry] = []
    names = _game_files(root)
    games_dir, shown_dir = os.path.join(root, GAMES_DIR), os.path.join(shown, GAMES_DIR)
    if not os.path.isdir(games_dir):
        findings.append(Finding(shown_dir, None, None, "games/ directory is missing"))
    jobs = [(os.path.join(games_dir, n), os.path.join(shown_dir, n)) for n in names]
    for parsed in _parse_all(jobs):
        entry, found = _game_entry(parsed, site)
        findings.extend(found)
        if entry is not None:
            entries.append(entry)
    findings.extend(_cross_checks(entries))
    return Content(root, site, site_front, entries, findings, len(names) + 1)


def _cross_checks(entries: list[GameEntry]) -> list[Finding]:
    out: list[Finding] = []
    by_id: dict[str, list[GameEntry]] = {}
    for e in entries:
        by_id.setdefault(e.id, []).append(e)
    for game_id, same in by_id.items():
        if len(same) < 2:
            continue
        published = [e for e in same if not e.source.draft]
        severity = ERROR if len(published) > 1 else WARNING
        for e in same:
            others = ", ".join(o.front.file for o in same if o is not e)
            loc = ["slug"] if e.source.slug is not None else []
            out.append(
                Finding(
                    e.front.file,
                    e.front.line_of(loc),
                    "slug" if loc else "id",
                    f"id {game_id!r} is also used by {others}",
                    severity,
                )
            )
    if not any(not e.source.draft for e in entries):
        out.append(Finding("games", None, None, "the catalog has no published games", WARNING))
    return out


# --- the catalog ----------------------------------------------------------------------------


def order_key(entry: GameEntry) -> tuple[int, int, str, str]:
    """Hugo's list order: by weight, then unweighted games; ties by name, then id."""
    w = entry.source.weight
    return (0 if w is not None else 1, w or 0, entry.source.name, entry.id)


def with_params(url: str, params: dict[str, str]) -> str:
    """Add attribution parameters, keeping the URL's own (an author's value is replaced)."""
    if not params:
        return url
    base, _, fragment = url.partition("#")
    path, _, query = base.partition("?")
    kept = [p for p in query.split("&") if p and p.split("=", 1)[0] not in params]
    kept.extend(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in params.items())
    out = f"{path}?{'&'.join(kept)}"
    return f"{out}#{fragment}" if fragment else out


def published_games(site: SiteSettings, entries: list[GameEntry]) -> list[dict[str, Any]]:
    base = site.base_url
    games = []
    for e in sorted((e for e in entries if not e.source.draft), key=order_key):
        src = e.source
        icon = base + src.icon if src.icon.startswith("/") else src.icon
        stores = [
            {"name": conf.name, "url": with_params(src.stores[key], conf.params)}
            for key, conf in site.stores.items()
            if key in src.stores
        ]
        games.append(
            {
                "id": e.id,
                "name": src.name,
                "description": src.description,
                "url": game_url(site, e.id),
                "platforms": list(src.platforms),
                "genres": list(src.genres),
                "icon": icon,
                "stores": stores,
            }
        )
    return games


def load_catalog(
    root: Path,
    *,
    display: str | None = None,
    strict: bool = False,
    base_url: str | None = None,
) -> Catalog:
    """Load and check a content tree; raise `ContentInvalid` when it has errors.

    `base_url` replaces the one of site.toml (e.g. to serve the catalog locally).
    """
    content = load(root, display=display)
    failing = content.errors + (content.warnings if strict else [])
    if failing or content.site is None:
        n = len(failing)
        raise ContentInvalid(f"content is invalid ({n} problem{'s' * (n != 1)})", content.findings)
    site = content.site
    if base_url is not None:
        if not _is_http_url(base_url) or base_url.endswith("/"):
            raise InputError(
                f"--base-url must be an absolute http(s) URL without a trailing '/': {base_url!r}"
            )
        site = site.replace(base_url=base_url)
    return Catalog(site, published_games(site, content.entries))


def sample_content() -> Path:
    """The bundled sample content (installed package data, or the source checkout)."""
    here = Path(__file__).resolve().parent.parent  # the catalogctl package
    for candidate in (here / "_sample_content", here.parent / "content"):
        if (candidate / SITE_FILE).is_file():
            return candidate
    raise InputError("the bundled sample content is missing from this installation")
