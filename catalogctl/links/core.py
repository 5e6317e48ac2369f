"""Check every link the published catalog carries: game pages, icons and store links.

Each distinct URL is requested once, whichever games share it, with a global and a per-host
concurrency limit. HEAD first; GET only when HEAD is refused. Redirects are followed by hand
(to bound them and to detect loops), and each hop's answer is shared, so a URL that is both
in the catalog and the target of a redirect is still requested once.

The core never prints: `check_links` returns a `LinkReport`; `links_report` renders it.

Why one module: the link check is one pipeline (collect the catalog's links, request each URL
once with HEAD, GET, redirects, retries and per-host limits, report) whose types (`Link`,
`CheckOptions`, `LinkResult`) every step shares; the HTTP part, most of the module, has no use
on its own.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin, urlsplit

from catalogctl import __version__
from catalogctl.errors import InputError

if TYPE_CHECKING:
    import aiohttp

    from catalogctl.sources.net import NetworkPolicy, PolicyResolver

USER_AGENT = (
    f"catalogctl/{__version__} (catalog link checker; +https://github.com/catalogctl/catalogctl)"
)

# HEAD answers that speak about the method, not the resource: ask again with GET.
# 404/410 speak about the resource and are believed as they are.
HEAD_REFUSED = frozenset({400, 403, 405, 406, 501})
# Worth asking again after a pause: overloaded, rate limited or briefly failing servers.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
DEFAULT_ACCEPT = frozenset(range(200, 300))

State = Literal["ok", "warning", "broken", "excluded"]
Origin = Literal["network", "cache", "offline", "excluded", "syntax"]

_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.IGNORECASE)
_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_CACHE_KEY = "catalogctl-link-cache"


# --- what to check ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkRef:
    """Where a URL appears: a game's id and the field (`url`, `icon`, `stores.<name>`)."""

    game: str
    field: str

    @property
    def kind(self) -> str:
        return "store" if self.field.startswith("stores.") else self.field


@dataclass(slots=True)
class Link:
    """One distinct URL and every place the catalog uses it."""

    url: str
    refs: list[LinkRef] = field(default_factory=list)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(r.kind for r in self.refs)

    @property
    def games(self) -> list[str]:
        return list(dict.fromkeys(r.game for r in self.refs))

    @property
    def fields(self) -> list[str]:
        return list(dict.fromkeys(r.field for r in self.refs))


def collect_links(games: Iterable[Mapping[str, Any]]) -> list[Link]:
    """Every URL of the published games, once each, in catalog order of first use."""
    links: dict[str, Link] = {}

    def add(url: Any, game: str, name: str) -> None:
        if isinstance(url, str):
            links.setdefault(url, Link(url)).refs.append(LinkRef(game, name))

    for game in games:
        gid = str(game.get("id", "?"))
        add(game.get("url"), gid, "url")
        add(game.get("icon"), gid, "icon")
        for store in game.get("stores") or []:
            if isinstance(store, Mapping):
                add(store.get("url"), gid, f"stores.{store.get('name', '?')}")
    return list(links.values())


def load_links(
    spec: str | Path,
    *,
    timeout: float | None = None,
    max_body: int | None = None,
    policy: NetworkPolicy | None = None,
) -> list[Link]:
    """Links of any catalog source: a content tree, a build, a games JSON file or a base URL.

    A base URL is read with `catalogctl.sources` limits: `max_body` bytes per document,
    `timeout` seconds in all, the network `policy`.
    """
    from catalogctl.sources.core import DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, load_source

    return collect_links(
        load_source(
            spec,
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
            max_body=DEFAULT_MAX_BODY if max_body is None else max_body,
            policy=policy,
        ).games
    )


# --- options ------------------------------------------------------------------------------


def parse_duration(text: str) -> float:
    """Seconds of `90`, `90s`, `30m`, `12h`, `1d` or `2w`."""
    m = _DURATION_RE.match(text)
    if m is None:
        raise InputError(f"not a duration: {text!r} (use e.g. 90s, 30m, 12h, 1d)")
    return float(m.group(1)) * _DURATION_UNITS[m.group(2).lower()]


def parse_accept(text: str) -> frozenset[int]:
    """Status codes from `200..299,403` (ranges with `..` or `-`)."""
    codes: set[int] = set()
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            continue
        lo, sep, hi = part.replace("..", "-").partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise InputError(f"--accept: not a status code or range: {part!r}") from None
        if not (100 <= first <= last <= 999):
            raise InputError(f"--accept: status codes lie in 100..999, got {part!r}")
        codes.update(range(first, last + 1))
    if not codes:
        raise InputError("--accept: give at least one status code")
    return frozenset(codes)


def compile_patterns(patterns: Sequence[str], option: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p))
        except re.error as exc:
            raise InputError(f"{option}: invalid regular expression {p!r}: {exc}") from None
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CheckOptions:
    max_concurrency: int = 64
    host_concurrency: int = 8
    timeout: float = 10.0  # seconds, per request
    retries: int = 3  # further attempts after connection errors, 5xx and 429
    backoff: float = 0.25  # first retry pause; doubles each time
    max_retry_wait: float = 10.0  # bound on any pause, Retry-After included
    max_redirects: int = 10
    accept: frozenset[int] = DEFAULT_ACCEPT
    include: tuple[re.Pattern[str], ...] = ()
    exclude: tuple[re.Pattern[str], ...] = ()
    user_agent: str = USER_AGENT
    offline: bool = False
    cache: Path | None = None
    max_cache_age: float = 86400.0
    # Where requests may go (catalogctl.sources.net); None: the default policy.
    policy: NetworkPolicy | None = None

    def wanted(self, url: str) -> bool:
        if self.include and not any(p.search(url) for p in self.include):
            return False
        return not any(p.search(url) for p in self.exclude)


# --- results ------------------------------------------------------------------------------


@dataclass(slots=True)
class LinkResult:
    link: Link
    state: State
    source: Origin
    status: int | None = None
    error: str | None = None  # why the link is broken
    warning: str | None = None
    final_url: str | None = None  # where redirects ended, when they did
    redirects: int = 0

    @property
    def ok(self) -> bool:
        return self.state != "broken"

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.link.url,
            "ok": self.ok,
            "status": self.status,
            "error": self.error,
            "warning": self.warning,
            "games": self.link.games,
            "field": ", ".join(self.link.fields),
            "state": self.state,
            "checked": self.source,
            "final_url": self.final_url,
            "redirects": self.redirects,
        }


@dataclass(slots=True, repr=False)
class LinkReport:
    results: list[LinkResult]
    requests: int
    seconds: float

    def __repr__(self) -> str:
        # Short: asyncio (Python 3.11) formats the finished task, result and all, when it
        # restores the SIGINT handler; a full repr of 100,000 results took seconds.
        return f"<LinkReport of {len(self.results)} links>"

    def count(self, state: State) -> int:
        return sum(r.state == state for r in self.results)

    @property
    def broken(self) -> list[LinkResult]:
        return [r for r in self.results if r.state == "broken"]

    @property
    def problems(self) -> list[LinkResult]:
        return [r for r in self.results if r.state in ("broken", "warning")]

    def summary(self) -> dict[str, Any]:
        return {
            "links": len(self.results),
            "ok": self.count("ok"),
            "warnings": self.count("warning"),
            "broken": self.count("broken"),
            "excluded": self.count("excluded"),
            "cached": sum(r.source == "cache" for r in self.results),
            "requests": self.requests,
            "seconds": round(self.seconds, 3),
        }


# --- helpers ------------------------------------------------------------------------------


def url_problem(url: str) -> str | None:
    """Why a URL cannot be requested as it stands, or None (http and https are requested)."""
    from catalogctl.urls import url_problem as problem

    scheme = url.partition(":")[0].lower() if ":" in url else ""
    if scheme.isalnum() and scheme not in ("http", "https"):
        return f"unsupported scheme {scheme}:"
    reason = problem(url, schemes=("http", "https"))
    return None if reason is None else f"the URL {reason}"


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _strip_fragment(url: str) -> str:
    return url.partition("#")[0]


def _shown(url: str, origin: str) -> str:
    """`url` without its scheme and host when they are those of `origin`."""
    a, b = urlsplit(url), urlsplit(origin)
    if (a.scheme, a.netloc) == (b.scheme, b.netloc):
        return url[len(f"{a.scheme}://{a.netloc}") :] or "/"
    return url


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


# --- the cache ----------------------------------------------------------------------------


class LinkCache:
    """URLs found fine recently (like lychee's .lycheecache); failures are never stored."""

    def __init__(self, path: Path, max_age: float, entries: dict[str, dict[str, Any]]) -> None:
        self.path = path
        self.max_age = max_age
        self.entries = entries

    @classmethod
    def open(cls, path: Path, max_age: float) -> LinkCache:
        if not path.exists():
            if not path.parent.is_dir():  # found out now, not after every link is checked
                raise InputError(f"cannot write the link cache {path}: no directory {path.parent}")
            return cls(path, max_age, {})
        try:
            doc = json.loads(path.read_bytes())
        except OSError as exc:
            raise InputError(f"cannot read the link cache {path}: {exc.strerror or exc}") from None
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or not isinstance(doc.get(_CACHE_KEY), dict):
            # Never overwrite a file that is not ours (a mistyped --cache content/site.toml).
            raise InputError(f"{path} is not a catalogctl link cache; choose another --cache file")
        entries = {k: v for k, v in doc[_CACHE_KEY].items() if isinstance(v, dict)}
        return cls(path, max_age, entries)

    def fresh(self, link: Link, now: float) -> dict[str, Any] | None:
        entry = self.entries.get(link.url)
        if entry is None:
            return None
        checked = entry.get("checked")
        if not isinstance(checked, int | float) or now - checked > self.max_age or now < checked:
            return None
        # An entry judged for fewer roles (a store link now also used as an icon) is stale.
        if not link.kinds <= set(entry.get("kinds") or ()):
            return None
        return entry

    def record(self, result: LinkResult, now: float) -> None:
        url = result.link.url
        if result.source == "network" and result.state == "ok":
            self.entries[url] = {
                "checked": round(now, 3),
                "status": result.status,
                "kinds": sorted(result.link.kinds),
            }
        elif result.state in ("broken", "warning"):
            self.entries.pop(url, None)

    def save(self, now: float) -> None:
        keep = {
            url: e
            for url, e in self.entries.items()
            if isinstance(e.get("checked"), int | float) and now - e["checked"] <= self.max_age
        }
        data = json.dumps({_CACHE_KEY: keep}, indent=0, sort_keys=True).encode()
        directory = self.path.parent
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=directory)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            Path(tmp).replace(self.path)
        except OSError as exc:
            raise InputError(f"cannot write the link cache {self.path}: {exc}") from None


# --- the checker --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Answer:
    """The final answer of one URL (after HEAD→GET fallback and retries)."""

    status: int | None = None
    location: str | None = None
    content_type: str | None = None
    error: str | None = None


@dataclass(slots=True)
class _Host:
    slots: asyncio.Semaphore
    resume_at: float = 0.0  # loop time before which the host asked us to wait (429)


class _Refused(Exception):
    """The network policy does not allow the request."""


class _Retry(Exception):
    """One attempt failed in a way worth retrying."""

    def __init__(self, message: str, wait: float | None = None, *, dropped: bool = False) -> None:
        super().__init__(message)
        self.wait = wait
        self.dropped = dropped  # the server took the request, then dropped the connection


class _Checker:
    def __init__(
        self, session: aiohttp.ClientSession, resolver: PolicyResolver, options: CheckOptions
    ) -> None:
        import aiohttp

        self.session = session
        self.resolver = resolver
        self.options = options
        self.timeout = aiohttp.ClientTimeout(total=options.timeout)
        self.slots = asyncio.Semaphore(options.max_concurrency)
        self.hosts: dict[str, _Host] = {}
        self.answers: dict[str, asyncio.Future[_Answer]] = {}
        self.requests = 0

    def _host(self, url: str) -> _Host:
        key = urlsplit(url).netloc.lower()
        host = self.hosts.get(key)
        if host is None:
            host = self.hosts[key] = _Host(asyncio.Semaphore(self.options.host_concurrency))
        return host

    async def answer(self, url: str) -> _Answer:
        """The answer for `url`, fetched once however many links or redirects lead to it."""
        future = self.answers.get(url)
        if future is not None:
            return await asyncio.shield(future)
        future = self.answers[url] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fetch(url)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:  # a bug: let every waiter see it, not hang
            future.set_exception(exc)
            future.exception()  # marked retrieved: the waiters re-raise it
            raise
        future.set_result(result)
        return result

    async def _fetch(self, url: str) -> _Answer:
        import aiohttp

        opts = self.options
        method = "HEAD"
        retries = 0
        while True:
            try:
                answer = await self._request(method, url)
            except _Retry as exc:
                if retries >= opts.retries:
                    return _Answer(error=f"{exc} (after {retries + 1} attempts)")
                wait = exc.wait
                if exc.dropped and method == "HEAD":
                    method = "GET"  # some servers choke on HEAD: the retry asks with GET
            except _Refused as exc:
                return _Answer(error=f"refused: {exc}")
            except TimeoutError:
                return _Answer(error=f"timed out after {opts.timeout:g} s")
            except aiohttp.ClientSSLError as exc:
                return _Answer(error=f"TLS error: {exc}")
            except (aiohttp.InvalidURL, ValueError) as exc:
                return _Answer(error=f"not a valid URL: {exc}")
            except aiohttp.ClientResponseError as exc:
                if method == "HEAD":
                    method = "GET"  # a garbled answer to HEAD says nothing about GET
                    continue
                return _Answer(error=f"invalid HTTP response: {exc.message}")
            except aiohttp.ClientError as exc:
                return _Answer(error=f"request failed: {exc}")
            else:
                if method == "HEAD" and answer.status in HEAD_REFUSED:
                    method = "GET"  # HEAD not supported here: ask the usual way
                    continue
                return answer
            retries += 1
            delay = opts.backoff * 2 ** (retries - 1) if wait is None else wait
            await asyncio.sleep(min(delay, opts.max_retry_wait))

    async def _request(self, method: str, url: str) -> _Answer:
        import aiohttp

        opts = self.options
        host = self._host(url)
        loop = asyncio.get_running_loop()
        async with host.slots:
            pause = host.resume_at - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            async with self.slots:
                try:
                    # One deadline for the lookup, the connection and the response head; the
                    # body is never read (the connection is closed instead).
                    async with asyncio.timeout(opts.timeout):
                        refused = await self.resolver.refusal(urlsplit(url).hostname or "")
                        if refused is not None:
                            raise _Refused(refused)
                        self.requests += 1
                        async with self.session.request(
                            method, url, allow_redirects=False, timeout=self.timeout
                        ) as resp:
                            status = resp.status
                            headers = resp.headers
                            location = headers.get("Location")
                            content_type = headers.get("Content-Type")
                            wait_header = headers.get("Retry-After")
                            resp.close()
                except TimeoutError:  # an OSError too: not the lookup failure below
                    raise
                except aiohttp.ClientConnectorError as exc:
                    if isinstance(exc, aiohttp.ClientSSLError):
                        raise
                    raise _Retry(f"cannot connect: {exc.os_error or exc}") from None
                except (
                    aiohttp.ServerDisconnectedError,
                    aiohttp.ClientOSError,
                    aiohttp.ClientPayloadError,
                ) as exc:
                    raise _Retry(f"connection failed: {exc}", dropped=True) from None
                except OSError as exc:  # the host could not be looked up
                    raise _Retry(f"cannot connect: {exc.strerror or exc}") from None
            if status in RETRY_STATUSES:
                wait = retry_after(wait_header)
                if wait is not None:
                    wait = min(wait, opts.max_retry_wait)
                    if status == 429:  # the host asked everyone to slow down, not just us
                        host.resume_at = max(host.resume_at, loop.time() + wait)
                raise _Retry(_reason(status), wait)
        return _Answer(status, location, content_type)

    async def check(self, link: Link) -> LinkResult:
        opts = self.options
        current = _strip_fragment(link.url)
        chain = [current]
        while True:
            ans = await self.answer(current)
            if ans.error is not None:
                return self._broken(link, ans.error, None, chain)
            status = ans.status
            assert status is not None
            if status not in REDIRECTS or status in opts.accept:
                break
            if not ans.location:
                return self._broken(link, f"{_reason(status)} without a Location", status, chain)
            target = _strip_fragment(urljoin(current, ans.location))
            if target in chain:
                hops = [*chain[chain.index(target) :], target]
                loop = " → ".join(_shown(u, link.url) for u in hops)
                return self._broken(link, f"redirect loop: {loop}", status, chain)
            if len(chain) > opts.max_redirects:
                return self._broken(
                    link, f"more than {opts.max_redirects} redirects", status, chain
                )
            problem = url_problem(target)
            if problem is not None:
                return self._broken(link, f"redirects to {target!r}: {problem}", status, chain)
            try:
                refused = await self.resolver.refusal(
                    urlsplit(target).hostname or "",
                    redirected_from=urlsplit(current).hostname or "",
                )
            except OSError:
                refused = None  # a lookup failure is reported by the request itself
            if refused is not None:
                chain.append(target)
                return self._broken(link, f"redirect refused: {refused}", status, chain)
            chain.append(target)
            current = target
        return self._judge(link, ans, status, chain)

    def _broken(self, link: Link, error: str, status: int | None, chain: list[str]) -> LinkResult:
        return LinkResult(
            link,
            "broken",
            "network",
            status,
            error,
            final_url=chain[-1] if len(chain) > 1 else None,
            redirects=len(chain) - 1,
        )

    def _judge(self, link: Link, ans: _Answer, status: int, chain: list[str]) -> LinkResult:
        redirects = len(chain) - 1
        if status not in self.options.accept:
            return self._broken(link, _reason(status), status, chain)
        kinds = link.kinds
        if "icon" in kinds:
            media = _media_type(ans.content_type)
            if not media.startswith("image/"):
                shown = media or "no Content-Type"
                return self._broken(link, f"icon is served as {shown}, not an image", status, chain)
        final_url = chain[-1] if redirects else None
        if "url" in kinds and redirects:
            to = _shown(chain[-1], link.url)
            warning = f"game page redirects to {to}; a canonical URL should not redirect"
            return LinkResult(
                link, "warning", "network", status, None, warning, final_url, redirects
            )
        return LinkResult(link, "ok", "network", status, final_url=final_url, redirects=redirects)


def _offline(link: Link, problem: str | None) -> LinkResult:
    if problem is not None:
        return LinkResult(link, "broken", "syntax", error=problem)
    return LinkResult(link, "ok", "offline")


async def check_links_async(
    links: Sequence[Link],
    options: CheckOptions,
    *,
    on_result: Callable[[LinkResult], None] | None = None,
) -> LinkReport:
    """Check `links`; `on_result` is called as each one is judged (for a progress bar)."""
    started = time.perf_counter()
    now = time.time()
    cache = (
        LinkCache.open(options.cache, options.max_cache_age)
        if options.cache is not None and not options.offline
        else None
    )
    results: list[LinkResult | None] = [None] * len(links)
    todo: list[tuple[int, Link]] = []

    def done(i: int, result: LinkResult) -> None:
        results[i] = result
        if on_result is not None:
            on_result(result)

    for i, link in enumerate(links):
        problem = url_problem(link.url)
        entry = cache.fresh(link, now) if cache is not None else None
        if not options.wanted(link.url):
            done(i, LinkResult(link, "excluded", "excluded"))
        elif options.offline or problem is not None:
            done(i, _offline(link, problem))
        elif entry is not None:
            status = entry.get("status")
            done(i, LinkResult(link, "ok", "cache", status if isinstance(status, int) else None))
        else:
            todo.append((i, link))

    requests = 0
    if todo:
        from catalogctl.sources import net

        resolver = net.PolicyResolver(options.policy or net.NetworkPolicy())
        headers = {"User-Agent": options.user_agent, "Accept": "*/*", "Accept-Encoding": "identity"}
        try:
            async with net.session(
                resolver,
                headers=headers,
                limit=options.max_concurrency,
                per_host=options.host_concurrency,
            ) as session:
                checker = _Checker(session, resolver, options)

                async def run(i: int, link: Link) -> None:
                    done(i, await checker.check(link))

                await asyncio.gather(*(run(i, link) for i, link in todo))
                requests = checker.requests
        finally:
            await resolver.close()

    final = [r for r in results if r is not None]
    if cache is not None:
        for r in final:
            cache.record(r, now)  # the start of the run: never younger than the check
        cache.save(time.time())
    return LinkReport(final, requests, time.perf_counter() - started)


def check_links(
    links: Sequence[Link],
    options: CheckOptions,
    *,
    on_result: Callable[[LinkResult], None] | None = None,
) -> LinkReport:
    """Synchronous wrapper: runs the checker on its own event loop (uvloop when available)."""
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    try:
        import uvloop

        loop_factory = uvloop.new_event_loop
    except ImportError:  # pragma: no cover - uvloop is optional
        pass
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(check_links_async(links, options, on_result=on_result))


__all__ = [
    "CheckOptions",
    "Link",
    "LinkCache",
    "LinkRef",
    "LinkReport",
    "LinkResult",
    "check_links",
    "check_links_async",
    "collect_links",
    "load_links",
    "parse_accept",
    "parse_duration",
    "url_problem",
]
