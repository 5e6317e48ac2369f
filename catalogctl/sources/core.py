"""Catalog sources read as published games: a content tree, a build, a games JSON file, a URL.

`locate` decides which kind of source an argument names; here each kind is loaded into the
one contract model (`GameCatalog`) and validated, so every reader (`diff`, `check-links`)
compares like with like. Every JSON document is depth-checked before it is parsed. A source
that cannot be read or is not a valid catalog raises `InputError` (exit 2) with a message
naming the source and the problem.

Why one module: the four kinds of source end in the same validation against the contract model
(`sources.schema`, `_validate`) and the same error wording naming the source, and only the URL
source needs the bounded fetch; apart, each loader would restate those rules.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from catalogctl.errors import ContentInvalid, InputError
from catalogctl.sources.locate import WEB_ROOT_GAMES, Located, is_url, locate
from catalogctl.sources.schema import catalog_validator
from catalogctl.text import path_text, plural, quoted, undecoded_bytes

if TYPE_CHECKING:
    import aiohttp
    from pydantic_core import ValidationError

    from catalogctl.sources.net import NetworkPolicy, PolicyResolver

SourceKind = Literal["content", "build", "json", "url"]
__all__ = ["CatalogSnapshot", "is_url", "load_source", "parse_catalog", "parse_openapi"]

GAMES_PATH = "/api/v1/games"
OPENAPI_PATH = "/openapi.json"
_WEB_ROOT_OPENAPI = Path("openapi.json")  # beside api/ in a web root
_MAX_ERRORS_SHOWN = 5
DEFAULT_TIMEOUT = 30.0  # seconds for reading a URL source in all
DEFAULT_MAX_BODY = 64 * 1024 * 1024  # bytes per document read from a URL, a few real catalogs


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    """A loaded, validated catalog and where it came from."""

    label: str  # the source as the user named it
    kind: SourceKind
    games: list[dict[str, Any]]  # validated against `Game`, in catalog order, as published
    openapi: dict[str, Any] | None = None  # the OpenAPI document, when the source carries one
    # Store name → platform ("ios", "android"), when the source knows it (content trees).
    store_platforms: dict[str, str] = field(default_factory=dict)
    note: str | None = None  # how the source was found, when it is not what was named


def load_source(
    spec: str | Path | Located,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    policy: NetworkPolicy | None = None,
) -> CatalogSnapshot:
    """Load any catalog source named on the command line (see `sources.locate`)."""
    found = spec if isinstance(spec, Located) else locate(spec, command="diff")
    if found.kind == "url":
        return load_url(found.url, timeout=timeout, max_body=max_body, policy=policy)
    if found.kind == "content":
        return load_content(found.path, label=found.label, note=found.note)
    if found.kind == "build":
        return load_build(found.path, label=found.label)
    if found.kind == "web-root":
        return _load_web_root(found.path, label=found.label)
    return load_json_file(found.path, label=found.label)


# --- each kind ------------------------------------------------------------------------------


def load_content(
    root: Path, *, label: str | None = None, note: str | None = None
) -> CatalogSnapshot:
    from catalogctl.content.loader import load_catalog, store_platforms

    shown = label if label is not None else path_text(root)
    try:
        catalog = load_catalog(root, display=shown)
    except ContentInvalid as exc:
        errors = [f for f in exc.findings if f.severity == "error"]
        first = errors[0] if errors else None
        where = ""
        if first is not None:
            line = f":{first.line}" if first.line is not None else ""
            fld = f" ({first.field})" if first.field else ""
            where = f"; first: {first.file}{line}{fld}: {first.message}"
        raise InputError(
            f"content tree {shown} is invalid ({plural(len(errors), 'error')}){where}; run "
            f"`catalogctl validate {shown}` for all"
        ) from None
    games = _validate(
        catalog_validator().validate_python, {"schemaVersion": 1, "games": catalog.games}, shown
    )
    return CatalogSnapshot(shown, "content", games, None, store_platforms(catalog.site), note)


def load_build(path: Path, *, label: str | None = None) -> CatalogSnapshot:
    from catalogctl.site.readback import read_build

    shown = label if label is not None else path_text(path)
    site = read_build(path)
    games = site.resources.get(GAMES_PATH)
    if games is None:
        raise InputError(f"the build in {shown} has no {GAMES_PATH} route")
    openapi = site.resources.get(OPENAPI_PATH)
    return CatalogSnapshot(
        shown,
        "build",
        parse_catalog(games.identity.body, f"{GAMES_PATH} of the build {shown}"),
        None if openapi is None else parse_openapi(openapi.identity.body, shown),
    )


def _load_web_root(path: Path, *, label: str) -> CatalogSnapshot:
    games = _read_file(path / WEB_ROOT_GAMES)
    openapi_file = path / _WEB_ROOT_OPENAPI
    openapi = _read_openapi_file(openapi_file)
    return CatalogSnapshot(
        label,
        "build",
        parse_catalog(games, str(path / WEB_ROOT_GAMES)),
        None if openapi is None else parse_openapi(openapi, str(openapi_file)),
    )


def load_json_file(path: Path, *, label: str | None = None) -> CatalogSnapshot:
    shown = label if label is not None else path_text(path)
    return CatalogSnapshot(shown, "json", parse_catalog(_read_file(path), shown))


def load_url(
    url: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    policy: NetworkPolicy | None = None,
) -> CatalogSnapshot:
    """Read `{base}/api/v1/games` (and `{base}/openapi.json` when present) of a deployment.

    Bounded: at most `max_body` bytes per document (on the wire and inflated), `timeout`
    seconds for everything, redirects and addresses as the network policy allows.
    """
    import asyncio

    base = base_url_of(url)
    documents: list[bytes | None] = []

    async def read() -> None:
        # The documents are kept here, not returned: asyncio (Python 3.11) formats the
        # finished task, result included, when it restores the SIGINT handler, and the repr of
        # a 64 MiB body costs four times that in memory.
        documents.extend(await fetch(base, timeout=timeout, max_body=max_body, policy=policy))

    asyncio.run(read())
    games, openapi = documents
    assert games is not None
    return CatalogSnapshot(
        url,
        "url",
        parse_catalog(games, base + GAMES_PATH),
        None if openapi is None else parse_openapi(openapi, base + OPENAPI_PATH),
    )


def base_url_of(url: str) -> str:
    """The service's base URL: a trailing '/', '/api/v1' or '/api/v1/games' is dropped."""
    from catalogctl.urls import undecoded_byte_problem

    # A byte the locale could not decode (`https://$'\xff'/`) cannot be sent: said here, as
    # --base-url says it, not by the IDNA codec once a connection is tried.
    problem = undecoded_byte_problem(url)
    if problem is not None:
        raise InputError(f"not a valid URL: {quoted(url)} {problem}")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise InputError(f"not a valid URL: {quoted(url)} ({undecoded_bytes(str(exc))})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"not an http(s) URL with a host: {quoted(url)}")
    path = parts.path.rstrip("/")
    for suffix in (GAMES_PATH, "/api/v1"):
        if path.endswith(suffix):
            path = path.removesuffix(suffix)
            break
    return f"{parts.scheme}://{parts.netloc}{path}"


async def fetch(
    base: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    policy: NetworkPolicy | None = None,
) -> tuple[bytes, bytes | None]:
    """GET the games document (required) and the OpenAPI document (optional) of `base`."""
    import asyncio

    import aiohttp

    from catalogctl import __version__
    from catalogctl.sources import net

    headers = {
        "User-Agent": f"catalogctl/{__version__} (diff)",
        "Accept": "application/json",
        "Accept-Encoding": net.ACCEPT_ENCODING,
    }
    resolver = net.PolicyResolver(policy or net.NetworkPolicy())
    try:
        async with net.session(resolver, headers=headers) as session, net.deadline(timeout):
            games = await _get(session, resolver, base + GAMES_PATH, max_body, required=True)
            openapi = await _get(session, resolver, base + OPENAPI_PATH, max_body, required=False)
            assert games is not None  # a required document is read or raises
    except TimeoutError:
        raise InputError(
            f"{base} did not answer in full within {timeout:g} s (--timeout)"
        ) from None
    except aiohttp.ClientConnectorError as exc:
        raise InputError(f"cannot connect to {base}: {net.client_error_text(exc)}") from None
    except (aiohttp.ClientError, OSError, asyncio.CancelledError, ValueError) as exc:
        raise InputError(f"cannot read {base}: {net.client_error_text(exc)}") from None
    finally:
        await resolver.close()
    return games, openapi


async def _get(
    session: aiohttp.ClientSession,
    resolver: PolicyResolver,
    url: str,
    max_body: int,
    *,
    required: bool,
) -> bytes | None:
    """The body of `url` after redirects the policy allows; None for an optional document."""
    from urllib.parse import urljoin

    from catalogctl.sources import net
    from catalogctl.urls import shown, url_problem

    current, came_from = url, None
    for _ in range(net.MAX_REDIRECTS + 1):
        host = urlsplit(current).hostname or ""
        refused = await resolver.refusal(host, redirected_from=came_from)
        if refused is not None:
            raise InputError(f"{current}: {refused}")
        async with session.get(current, allow_redirects=False) as resp:
            if resp.status in net.REDIRECTS:
                location = resp.headers.get("Location")
                if not location:
                    raise InputError(f"{current} answered {resp.status} without a Location")
                target = urljoin(current, location)
                problem = url_problem(target, schemes=("http", "https"))
                if problem is not None:
                    raise InputError(f"{current} redirects to {shown(target)}, which {problem}")
                current, came_from = target, host
                continue
            if resp.status != 200:
                if not required:
                    return None
                raise InputError(
                    f"{current} answered {resp.status} {resp.reason or ''}".rstrip()
                    + "; expected 200 with the game catalog"
                )
            ctype = resp.content_type
            if not required and not (ctype == "application/json" or ctype.endswith("+json")):
                return None  # answered by an HTML fallback page: no contract to compare
            try:
                return await net.read_body(resp, max_body)
            except net.BodyError as exc:
                hint = " (--max-body raises the limit)" if exc.over_limit else ""
                raise InputError(f"{current}: the body {exc}{hint}") from None
    raise InputError(f"{url}: more than {net.MAX_REDIRECTS} redirects")


# --- parsing and validation --------------------------------------------------------------------


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path_text(path)}: {exc.strerror or exc}") from None


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO is refused, not waited on
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _read_openapi_file(path: Path) -> bytes | None:
    """A web root's openapi.json; None when nothing is at that name.

    Anything else there is an error (exit 2), as an unreadable games document is: the contract
    would otherwise go unchecked without a word. A FIFO, a device (/dev/zero) or a folder is
    refused, never read from (opened without blocking, its type read from the open file); so
    is a symlink to nothing.
    """
    shown = path_text(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        if not os.path.lexists(path):
            return None
        raise InputError(
            f"cannot read {shown}: a symbolic link to nothing; the OpenAPI contract cannot "
            "be compared (link it to the document, or remove it)"
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read {shown}: {exc.strerror or exc}; the OpenAPI contract cannot be compared"
        ) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a folder"
            if stat.S_ISDIR(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a special file"
        )
        raise InputError(
            f"{shown} is {what}, not an OpenAPI document, so it is not read and the contract "
            "cannot be compared; replace it with the document, or remove it"
        )
    with os.fdopen(fd, "rb") as file:
        try:
            return file.read()
        except OSError as exc:
            raise InputError(f"cannot read {shown}: {exc.strerror or exc}") from None


def _describe(exc: ValidationError) -> str:
    """The first problems of a catalog; the games are checked up to the first invalid one
    (the schema's `fail_fast`), which the message says."""
    problems = []
    errors = exc.errors(include_url=False)
    for e in errors[:_MAX_ERRORS_SHOWN]:
        loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e["loc"]).lstrip(".")
        problems.append(f"{loc}: {e['msg']}" if loc else str(e["msg"]))
    more = exc.error_count() - len(problems)
    text = "; ".join(problems) + (f"; and {more} more" if more > 0 else "")
    games = [e["loc"][1] for e in errors if len(e["loc"]) > 1 and e["loc"][0] == "games"]
    if games and isinstance(games[0], int):
        text += f" (games after games[{games[0]}] are not checked)"
    return text


def _validate(validate: Any, data: Any, where: str) -> list[dict[str, Any]]:
    from pydantic_core import ValidationError

    try:
        catalog: dict[str, Any] = validate(data)
    except ValidationError as exc:
        raise InputError(f"{where} is not a valid game catalog: {_describe(exc)}") from None
    games: list[dict[str, Any]] = catalog["games"]
    if len({g["id"] for g in games}) == len(games):
        return games
    seen: dict[str, int] = {}
    for i, game in enumerate(games):
        first = seen.setdefault(game["id"], i)
        if first != i:
            raise InputError(
                f"{where} is not a valid game catalog: games[{first}] and games[{i}] have the "
                f"same id {game['id']!r} (ids are unique)"
            )
    raise AssertionError("unreachable: a duplicate id was counted")  # pragma: no cover


def _within_depth(data: bytes | str, where: str) -> bytes:
    """The document as UTF-8 bytes, once its nesting is known to be within the limit (and
    that it is not saved as UTF-16 or UTF-32, as Notepad may save it)."""
    from catalogctl.content.frontmatter import wide_encoding
    from catalogctl.content.limits import json_depth_problem

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    wide = wide_encoding(raw)
    if wide is not None:
        raise InputError(f"{where} is saved as {wide}; save it as UTF-8")
    problem = json_depth_problem(raw)
    if problem is not None:
        raise InputError(f"{where} {problem}")
    return raw


def parse_catalog(data: bytes | str, where: str) -> list[dict[str, Any]]:
    """Validate a GameCatalog document (contract §2.2) in one pass, straight from its JSON text
    (after a byte-order mark, which an editor on Windows may have saved in front of it)."""
    raw = _within_depth(data, where).removeprefix(b"\xef\xbb\xbf")
    return _validate(catalog_validator().validate_json, raw, where)


class _LongNumber(ValueError):
    """An integer of more digits than a document of this kind can mean."""


def _bounded_int(text: str) -> int:
    from catalogctl.content.limits import MAX_INT_DIGITS

    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _LongNumber
    return int(text)


def parse_openapi(data: bytes | str, where: str) -> dict[str, Any]:
    what = f"the OpenAPI document of {where}"
    raw = _within_depth(data, what)
    try:
        # Integers are bounded before they are converted: Python refuses one of more than
        # 4,300 digits with advice about its own settings, which names nothing the user has.
        doc = json.loads(raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8"), parse_int=_bounded_int)
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (byte {exc.start:,})") from None
    except _LongNumber:
        from catalogctl.content.limits import MAX_INT_DIGITS

        raise InputError(
            f"{what} holds an integer longer than {MAX_INT_DIGITS} digits, the limit"
        ) from None
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("paths", {}), dict):
        raise InputError(f"{what} is not an OpenAPI object")
    return doc
