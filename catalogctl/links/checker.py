"""One link's verdict: its URL asked once, by HEAD and by GET where HEAD fails, retried, paced
per host; its redirects followed; the answer judged for the roles the link plays.

- HEAD first. Any 4xx answer to HEAD but 429, and 501, is asked again with GET before the link
  is called broken (servers refuse HEAD with 403, 404, 405 …); so is a HEAD whose answer is
  garbled or whose connection drops, and the retry after a 500. The verdict names the method
  of the answer it rests on.
- Retries (`--retries`, backoff doubling from 0.25 s, or the 503's Retry-After) after a failed
  connection and after 408, 425, 500, 502, 503 and 504.
- A 429 is not a failure of the link but a request to slow down: the host is paced
  (`catalogctl.links.pacing`) and the link asked again when its turn comes, without counting
  against `--retries`; it is broken only when the host still refuses after `--rate-limit-wait`
  seconds, or asks for a longer wait than that.
- An icon must be an image no larger than `--max-icon-size`: the size the answer declares, or
  when it declares none, its body read with GET, counted and cut off at the limit.

Each URL is requested once however many links or redirects lead to it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urljoin, urlsplit

from catalogctl.links.catalog import Link, url_problem
from catalogctl.links.http import Answer, Client, RequestFailed, Target, target
from catalogctl.links.options import CheckOptions, size_text
from catalogctl.links.pacing import HostPace, Pacing, retry_after
from catalogctl.links.result import LinkResult, Method
from catalogctl.text import plural

# Worth asking again after a pause: slow, overloaded or briefly failing servers.
RETRY_STATUSES = frozenset({408, 425, 500, 502, 503, 504})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Links started before the loop connects, sends and reads again: the first requests go out
# while later links are still being started. Started all at once, 8,000 links sent their first
# request after 0.7 s on the shared test machine; 64 at a time, after 0.03 s.
START_BATCH = 64


@dataclass(frozen=True, slots=True)
class Reply:
    """The last answer for one URL (after fallback, retries and pacing), or why there is none."""

    method: Method
    answer: Answer | None = None
    error: str | None = None  # why the URL counts as broken

    @property
    def status(self) -> int | None:
        return None if self.answer is None else self.answer.status

    def field(self, name: str) -> str | None:
        return None if self.answer is None else self.answer.fields.get(name)


def reason(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _strip_fragment(url: str) -> str:
    return url.partition("#")[0]


def _shown(url: str, origin: str) -> str:
    """`url` without its scheme and host when they are those of `origin`."""
    a, b = urlsplit(url), urlsplit(origin)
    if (a.scheme, a.netloc) == (b.scheme, b.netloc):
        return url[len(f"{a.scheme}://{a.netloc}") :] or "/"
    return url


@dataclass(slots=True)
class _Asking:
    """Where the asking for one URL stands."""

    method: Method
    retries: int = 0
    limited_since: float | None = None  # loop time of the first 429


class Checker:
    """Checks links over one client, with the global and per-host limits of `options`."""

    def __init__(self, client: Client, options: CheckOptions) -> None:
        self.client = client
        self.options = options
        self.pacing = Pacing(options.host_concurrency, options.max_retry_wait)
        self.slots = asyncio.Semaphore(options.max_concurrency)
        self.retries = 0
        self._replies: dict[tuple[str, int | None], asyncio.Future[Reply]] = {}
        self._rank = itertools.count()

    # --- one URL ---------------------------------------------------------------------------

    async def reply(self, url: str, body_limit: int | None = None) -> Reply:
        """The reply for `url` (its body counted up to `body_limit`), asked once per run."""
        key = (url, body_limit)
        future = self._replies.get(key)
        if future is not None:
            return await asyncio.shield(future)
        future = self._replies[key] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fetch(url, body_limit)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:  # a bug: let every waiter see it, not hang
            future.set_exception(exc)
            future.exception()  # marked retrieved: the waiters re-raise it
            raise
        future.set_result(result)
        return result

    async def _fetch(self, url: str, body_limit: int | None) -> Reply:
        ask = _Asking("HEAD" if body_limit is None else "GET")
        try:
            where = target(url)
        except ValueError as exc:
            return Reply(ask.method, error=f"not a valid URL: {exc}")
        host = self.pacing.host(where.authority)
        rank = next(self._rank)
        while True:
            try:
                answer = await self._request(host, rank, ask.method, where, body_limit)
            except (RequestFailed, TimeoutError) as exc:
                step = self._after_failure(ask, exc)
            else:
                step = self._after_answer(ask, host, answer)
            if isinstance(step, Reply):
                return step
            if step is not None:  # a retry, after a pause
                ask.retries += 1
                self.retries += 1
                await asyncio.sleep(step)

    def _after_failure(self, ask: _Asking, exc: Exception) -> Reply | float | None:
        """A request that got no answer: the verdict, or the pause before a retry (None: ask
        again at once)."""
        if not isinstance(exc, RequestFailed):
            return Reply(ask.method, error=f"timed out after {self.options.timeout:g} s")
        if exc.kind == "refused":
            return Reply(ask.method, error=f"refused: {exc}")
        if exc.kind == "tls":
            return Reply(ask.method, error=str(exc))
        if exc.kind == "invalid":
            if ask.method == "HEAD":
                ask.method = "GET"  # a garbled answer to HEAD says nothing about GET
                return None
            return Reply(ask.method, error=f"invalid HTTP response: {exc}")
        message = str(exc) if exc.kind == "connect" else f"connection failed: {exc}"
        if ask.retries >= self.options.retries:
            attempts = plural(ask.retries + 1, "attempt")
            return Reply(ask.method, error=f"{message} (after {attempts})")
        if exc.kind == "dropped" and ask.method == "HEAD":
            ask.method = "GET"  # some servers choke on HEAD: the retry asks with GET
        return self._pause(ask, None)

    def _after_answer(self, ask: _Asking, host: HostPace, answer: Answer) -> Reply | float | None:
        """An answer: the verdict, or the pause before a retry (None: ask again at once, in
        the host's next turn)."""
        opts = self.options
        status = answer.status
        if status == 429 and status not in opts.accept:
            now = asyncio.get_running_loop().time()
            if ask.limited_since is None:
                ask.limited_since = now
            given_up = self._given_up(host, answer, now - ask.limited_since)
            return None if given_up is None else Reply(ask.method, answer, given_up)
        if ask.method == "HEAD" and (400 <= status < 500 or status == 501):
            ask.method = "GET"  # HEAD refused or unknown here: confirm with GET
            return None
        if status not in RETRY_STATUSES or status in opts.accept:
            return Reply(ask.method, answer)
        if ask.retries >= opts.retries:
            attempts = plural(ask.retries + 1, "attempt")
            return Reply(ask.method, answer, f"{reason(status)} (after {attempts})")
        if status == 500 and ask.method == "HEAD":
            ask.method = "GET"  # a server error on HEAD alone is common: retry with GET
        return self._pause(ask, retry_after(answer.fields.get("retry-after")))

    def _pause(self, ask: _Asking, asked: float | None) -> float:
        """Seconds before the next retry: what the server asked for, else the backoff."""
        opts = self.options
        delay = opts.backoff * 2**ask.retries if asked is None else asked
        return min(delay, opts.max_retry_wait)

    async def _request(
        self, host: HostPace, rank: int, method: Method, where: Target, body_limit: int | None
    ) -> Answer:
        """One request in its host's turn and a global slot, bounded by --timeout."""
        round_ = await host.turn(rank)
        try:
            async with self.slots, asyncio.timeout(self.options.timeout):
                answer = await self.client.request(method, where, body_limit=body_limit)
        except BaseException:
            host.release()
            raise
        if answer.status == 429:
            pause = retry_after(answer.fields.get("retry-after"))
            if pause is not None:  # never longer than a link may wait
                pause = min(pause, self.options.rate_limit_wait)
            host.answered(round_, limited=True, pause=pause)
        else:
            host.answered(round_, limited=False)
        return answer

    def _given_up(self, host: HostPace, answer: Answer, waited: float) -> str | None:
        """Why a link the host keeps answering 429 is broken now, or None to wait on."""
        budget = self.options.rate_limit_wait
        asked = retry_after(answer.fields.get("retry-after"))
        if asked is not None and asked > budget:
            return (
                f"{reason(429)} (the host asks to wait {asked:g} s; "
                f"--rate-limit-wait allows {budget:g} s)"
            )
        resume_in = max(0.0, host.resume_at - asyncio.get_running_loop().time())
        if waited + resume_in > budget:
            return (
                f"{reason(429)} (still refused after {waited:.1f} s; "
                f"--rate-limit-wait {budget:g} s)"
            )
        return None

    # --- one link --------------------------------------------------------------------------

    async def check(self, link: Link) -> LinkResult:
        opts = self.options
        current = _strip_fragment(link.url)
        chain = [current]
        while True:
            reply = await self.reply(current)
            status = reply.status
            if reply.error is not None:
                return _broken(link, reply, reply.error, chain)
            assert status is not None
            if status not in REDIRECTS or status in opts.accept:
                break
            location = reply.field("location")
            if not location:
                return _broken(link, reply, f"{reason(status)} without a Location", chain)
            try:
                target = _strip_fragment(urljoin(current, location))
            except ValueError:  # an unclosed IPv6 literal: "http://[::1"
                return _broken(link, reply, f"redirects to {location[:200]!r}: not a URL", chain)
            if target in chain:
                hops = [*chain[chain.index(target) :], target]
                loop = " → ".join(_shown(u, link.url) for u in hops)
                return _broken(link, reply, f"redirect loop: {loop}", chain)
            if len(chain) > opts.max_redirects:
                most = plural(opts.max_redirects, "redirect")
                return _broken(link, reply, f"more than {most}", chain)
            problem = url_problem(target)
            if problem is not None:
                return _broken(link, reply, f"redirects to {target!r}: {problem}", chain)
            refused = await self._redirect_refusal(current, target)
            chain.append(target)
            if refused is not None:
                return _broken(link, reply, f"redirect refused: {refused}", chain)
            current = target
        return await self._judge(link, reply, status, chain)

    async def _redirect_refusal(self, current: str, target: str) -> str | None:
        try:
            return await self.client.resolver.refusal(
                urlsplit(target).hostname or "",
                redirected_from=urlsplit(current).hostname or "",
            )
        except OSError:
            return None  # a lookup failure is reported by the request itself

    async def _judge(self, link: Link, reply: Reply, status: int, chain: list[str]) -> LinkResult:
        redirects = len(chain) - 1
        if status not in self.options.accept:
            return _broken(link, reply, reason(status), chain)
        kinds = link.kinds
        if "icon" in kinds:
            media = (reply.field("content-type") or "").split(";", 1)[0].strip().lower()
            if not media.startswith("image/"):
                shown = media or "no Content-Type"
                message = f"icon is served as {shown}, not an image"
                return _broken(link, reply, message, chain, "not-an-image")
            problem, reply = await self._icon_size(reply, chain[-1])
            if problem is not None:
                return _broken(link, reply, problem, chain, "icon-too-large")
        final_url = chain[-1] if redirects else None
        result = LinkResult(
            link,
            "ok",
            "network",
            status,
            final_url=final_url,
            redirects=redirects,
            method=reply.method,
        )
        if "url" in kinds and redirects:
            to = _shown(chain[-1], link.url)
            result.state = "warning"
            result.warning = f"game page redirects to {to}; a canonical URL should not redirect"
            result.rule = "redirect"
        return result

    async def _icon_size(self, reply: Reply, url: str) -> tuple[str | None, Reply]:
        """Why the icon at `url` is too large (or None), and the reply that says so."""
        limit = self.options.max_icon_size
        declared = None if reply.answer is None else reply.answer.length
        if declared is not None:
            if declared <= limit:
                return None, reply
            return (
                f"icon is {declared:,} bytes; --max-icon-size allows {size_text(limit)}",
                reply,
            )
        # No size declared (a stream, chunks): read the body, at most `limit` bytes of it.
        body = await self.reply(url, body_limit=limit)
        if body.error is not None:
            return f"icon body not read: {body.error}", body
        if body.answer is not None and body.answer.over:
            return f"icon is larger than {size_text(limit)} (--max-icon-size)", body
        return None, body


def _broken(
    link: Link, reply: Reply, error: str, chain: list[str], rule: str | None = None
) -> LinkResult:
    status = reply.status
    if rule is None:
        rule = "unreachable" if status is None else "broken-link"
    return LinkResult(
        link,
        "broken",
        "network",
        status,
        error,
        final_url=chain[-1] if len(chain) > 1 else None,
        redirects=len(chain) - 1,
        method=reply.method,
        rule=rule,
    )


async def check_all(
    todo: list[tuple[int, Link]],
    options: CheckOptions,
    done: Callable[[int, LinkResult], None],
    before: Callable[[Link, CheckOptions], LinkResult | None],
) -> tuple[int, int, int, int]:
    """Check every link of `todo` (index, link), calling `done` with each verdict; `before`
    judges a link without a request where it can.

    Returns the figures of the run: requests, hosts, retries, 429 answers.
    """
    from catalogctl.sources import net

    policy = options.policy or net.NetworkPolicy(allow_private=options.allow_private)
    resolver = net.PolicyResolver(policy)
    client = Client(resolver, user_agent=options.user_agent)
    checker = Checker(client, options)

    async def run(i: int, link: Link) -> None:
        done(i, before(link, options) or await checker.check(link))

    try:
        async with asyncio.TaskGroup() as group:
            for n, (i, link) in enumerate(todo, 1):
                group.create_task(run(i, link))
                if n % START_BATCH == 0:
                    await asyncio.sleep(0)  # connect, send, read what came in meanwhile
    finally:
        checker.pacing.close()
        client.close()
        await resolver.close()
    pacing = checker.pacing
    return client.sent, len(pacing.hosts), checker.retries, pacing.limited


__all__ = ["Checker", "Reply", "check_all", "reason"]
