"""Check every link the published catalog carries: game pages, icons and store links.

The run: each link is excluded (--include/--exclude), taken from the cache, judged by its
syntax alone (--offline, or a URL that cannot be requested), or checked on the network
(`catalogctl.links.checker`); only the last needs an event loop, so a run that sends nothing
(--offline) starts none. The core never prints: `check_links` returns a `LinkReport`, which
`catalogctl.output.links` renders.
"""

from __future__ import annotations

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


class _Run:
    """One check of `links`: the verdicts that need no request at once, the others on the
    network (`network`), then the report (`finish`)."""

    def __init__(
        self,
        links: Sequence[Link],
        options: CheckOptions,
        on_result: Callable[[LinkResult], None] | None,
    ) -> None:
        self.started = time.perf_counter()
        self.now = time.time()
        self.options = options
        self.on_result = on_result
        self.cache = (
            LinkCache.open(options.cache, options.max_cache_age)
            if options.cache is not None and not options.offline
            else None
        )
        self.results: list[LinkResult | None] = [None] * len(links)
        self.todo: list[tuple[int, Link]] = []
        self.report = LinkReport([])
        for i, link in enumerate(links):
            entry = self.cache.fresh(link, self.now) if self.cache is not None else None
            if not options.wanted(link.url):
                self.done(i, LinkResult(link, "excluded", "excluded"))
            elif entry is not None:
                status = entry.get("status")
                status = status if isinstance(status, int) else None
                self.done(i, LinkResult(link, "ok", "cache", status))
            elif options.offline:
                self.done(i, _syntax(link, options) or LinkResult(link, "ok", "offline"))
            else:
                self.todo.append((i, link))

    def done(self, i: int, result: LinkResult) -> None:
        self.results[i] = result
        if self.on_result is not None:
            self.on_result(result)

    async def network(self) -> None:
        from catalogctl.links.checker import check_all

        # Each link's syntax is checked in its own task: the first requests are on their way
        # while the later links are looked at.
        figures = await check_all(self.todo, self.options, self.done, _syntax)
        report = self.report
        report.requests, report.hosts, report.retries, report.rate_limited = figures

    def finish(self) -> LinkReport:
        report = self.report
        report.results = [r for r in self.results if r is not None]
        if self.cache is not None:
            for r in report.results:
                self.cache.record(r, self.now)  # the start of the run: never younger
            self.cache.save(time.time())
        report.seconds = time.perf_counter() - self.started
        return report


async def check_links_async(
    links: Sequence[Link],
    options: CheckOptions,
    *,
    on_result: Callable[[LinkResult], None] | None = None,
) -> LinkReport:
    """Check `links`; `on_result` is called as each one is judged (for a progress bar)."""
    run = _Run(links, options, on_result)
    if run.todo:
        await run.network()
    return run.finish()


def check_links(
    links: Sequence[Link],
    options: CheckOptions,
    *,
    on_result: Callable[[LinkResult], None] | None = None,
) -> LinkReport:
    """`check_links_async` on an event loop of its own (uvloop when available), when any link
    needs the network."""
    run = _Run(links, options, on_result)
    if run.todo:
        import asyncio

        loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
        try:
            import uvloop

            loop_factory = uvloop.new_event_loop
        except ImportError:  # pragma: no cover - uvloop is optional
            pass
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(run.network())
    return run.finish()


__all__ = ["check_links", "check_links_async"]
