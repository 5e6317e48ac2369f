"""Check every link the published catalog carries: game pages, icons and store links.

The run: each link is excluded (--include/--exclude), judged by its syntax alone (--offline,
or a URL that cannot be requested), taken from the cache, or checked on the network
(`catalogctl.links.checker`). The core never prints: `check_links` returns a `LinkReport`,
which `catalogctl.output.links` renders.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from catalogctl.links.cache import LinkCache
from catalogctl.links.catalog import Link, url_problem
from catalogctl.links.options import CheckOptions
from catalogctl.links.result import LinkReport, LinkResult


def _syntax(link: Link, options: CheckOptions) -> LinkResult | None:
    """The verdict on a link its URL alone decides (offline, or unusable), or None."""
    problem = url_problem(link.url)
    if problem is not None:
        return LinkResult(link, "broken", "syntax", error=problem, rule="invalid-url")
    if options.offline:
        return LinkResult(link, "ok", "offline")
    return None


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
        entry = cache.fresh(link, now) if cache is not None else None
        if not options.wanted(link.url):
            done(i, LinkResult(link, "excluded", "excluded"))
        elif entry is not None:
            status = entry.get("status")
            done(i, LinkResult(link, "ok", "cache", status if isinstance(status, int) else None))
        elif options.offline:
            done(i, _syntax(link, options) or LinkResult(link, "ok", "offline"))
        else:
            todo.append((i, link))

    report = LinkReport([])
    if todo:
        from catalogctl.links.checker import check_all

        # Each link's syntax is checked in its own task: the first requests are on their way
        # while the later links are looked at.
        figures = await check_all(todo, options, done, _syntax)
        report.requests, report.hosts, report.retries, report.rate_limited = figures

    report.results = [r for r in results if r is not None]
    if cache is not None:
        for r in report.results:
            cache.record(r, now)  # the start of the run: never younger than the check
        cache.save(time.time())
    report.seconds = time.perf_counter() - started
    return report


def check_links(
    links: Sequence[Link],
    options: CheckOptions,
    *,
    on_result: Callable[[LinkResult], None] | None = None,
) -> LinkReport:
    """Synchronous wrapper: runs the check on its own event loop (uvloop when available)."""
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if not options.offline:
        try:
            import uvloop

            loop_factory = uvloop.new_event_loop
        except ImportError:  # pragma: no cover - uvloop is optional
            pass
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(check_links_async(links, options, on_result=on_result))


__all__ = ["check_links", "check_links_async"]
