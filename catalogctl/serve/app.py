"""The aiohttp engine: the catalog's HTTP contract as an `aiohttp.web.Application`.

`catalog_app()` is for a studio that runs its own aiohttp service: mount the catalog in it
as a sub-application (or run it on its own)::

    from aiohttp import web
    from catalogctl.serve.app import catalog_app

    app = web.Application()
    app.add_subapp("/catalog", catalog_app("dist"))           # a build directory
    # app.add_domain("games.example.com", catalog_app("content"))   # or by host name
    web.run_app(app)

`catalogctl serve --http aiohttp` runs the same application (`AiohttpEngine`). It answers
from the same prepared responses and decides with the same code as the httptools engine
(`semantics.decide`): one route takes every request, hands its method, raw target, version
and raw header fields to a `RequestHead`, and returns the prepared status, headers and body
as a `web.Response`. Only what aiohttp's own parser refuses before any handler runs is
answered differently (by aiohttp: see the HTTP table in the docs). Public aiohttp API only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from catalogctl.contract.routes import Site
from catalogctl.serve.accesslog import UNIX_PEER, AccessLog
from catalogctl.serve.clock import CLOCK
from catalogctl.serve.responses import HEAD, Prepared, Table
from catalogctl.serve.semantics import Rejected, RequestHead, check_line, decide
from catalogctl.serve.traffic import Traffic
from catalogctl.sources.served import SiteInput

if TYPE_CHECKING:
    from catalogctl.serve.options import ServeOptions

__all__ = ["CATALOG", "AiohttpEngine", "catalog_app"]

CATALOG = web.AppKey("catalogctl.catalog", Traffic)
"""`app[CATALOG].table`: the `Table` being served; assign a new one to reload."""

_ANSWERED: web.ResponseKey[tuple[RequestHead, int, str]] = web.ResponseKey("catalogctl.answered")
_TAIL = "/{tail}"  # the canonical form of the one route, after the mount prefix
_UNBOUNDED = 1 << 30  # aiohttp's parser bounds the head; the RequestHead need not
_log = logging.getLogger("catalogctl.serve")


def catalog_app(
    source: Site | str | os.PathLike[str],
    *,
    base_url: str | None = None,
    cache_control: str | None = None,
) -> web.Application:
    """The contract for `source` (a content tree, a build directory or a rendered `Site`)
    as an aiohttp application. Raises `CatalogError` when the content cannot be loaded
    (invalid content raises `ContentInvalid`, with the findings)."""
    if not isinstance(source, Site):
        site_input = SiteInput.open(Path(source), base_url=base_url, cache_control=cache_control)
        source = site_input.load()
    return application(Traffic(Table(source), None))


def application(traffic: Traffic) -> web.Application:
    """The application answering from `traffic.table` (what `serve --http aiohttp` runs)."""
    app = web.Application()
    app[CATALOG] = traffic
    prefix: bytes | None = None  # where the application is mounted, known at the first request

    async def contract(request: web.Request) -> web.StreamResponse:
        nonlocal prefix
        if prefix is None:
            resource = request.match_info.route.resource
            canonical = resource.canonical if resource is not None else _TAIL
            prefix = canonical.removesuffix(_TAIL).encode("utf-8")
        head = RequestHead(_UNBOUNDED, _UNBOUNDED, log=traffic.access_log is not None)
        prepared, close = answer(traffic.table, head, request, prefix)
        response = web.Response(
            status=prepared.status,
            headers=prepared.headers,
            body=prepared.body if prepared.body_len else None,
        )
        if close:
            response.force_close()
        sent = 0 if head.method == HEAD else prepared.body_len
        response[_ANSWERED] = (head, sent, prepared.encoding)
        return response

    # Any path, newlines (%0A) included: the route table decides, not the router.
    app.router.add_route("*", r"/{tail:[\s\S]*}", contract, expect_handler=_final_answer_at_once)
    return app


def answer(
    table: Table, head: RequestHead, request: web.BaseRequest, prefix: bytes = b""
) -> tuple[Prepared, bool]:
    """`semantics.decide` for an aiohttp request: the same checks, on the raw bytes."""
    major, minor = request.version
    head.method = request.method.encode("ascii")
    head.target = request.raw_path.encode("utf-8", "surrogateescape")
    head.version = b"HTTP/%d.%d" % (major, minor)
    try:
        head.minor = check_line(head.method, head.target, head.version)
        for name, value in request.raw_headers:
            head.on_header(name, value)
    except Rejected as exc:
        return exc.answer, True
    return decide(table, head, prefix)


async def _final_answer_at_once(request: web.Request) -> None:
    """No `100 Continue`: the final answer follows at once (RFC 9110 §10.1.1); an
    expectation other than 100-continue gets its 417 from `decide`."""


# --- serve --http aiohttp ---------------------------------------------------------------------


class _Seen:
    """The access log's view of a request aiohttp answered (see `accesslog.Request`)."""

    __slots__ = ("head", "line", "loop", "peer")

    def __init__(self, peer: str, head: RequestHead, loop: asyncio.AbstractEventLoop) -> None:
        self.peer = peer
        self.head = head
        # The request line as aiohttp read it (what the access log writes).
        self.line = b" ".join((head.method, head.target, head.version)) if head.version else b""
        self.loop = loop


def _access_logger(traffic: Traffic) -> type[AbstractAccessLogger]:
    """An aiohttp access logger that counts every response (ours and aiohttp's own) and
    writes the lines of `--access-log` in the same formats as the httptools engine."""

    class CatalogAccessLogger(AbstractAccessLogger):
        def log(self, request: web.BaseRequest, response: web.StreamResponse, time_: float) -> None:
            answered = response.get(_ANSWERED)
            if answered is None:  # aiohttp's own answer (its parser refused the request)
                head = RequestHead()
                sent = 0 if request.method == "HEAD" else (response.content_length or 0)
                encoding = "identity"
            else:
                head, sent, encoding = answered
            traffic.count(response.status, sent)
            access = traffic.access_log
            if access is None:
                return
            transport = request.transport
            peer = transport.get_extra_info("peername") if transport is not None else None
            shown = peer[0] if isinstance(peer, tuple) and peer else UNIX_PEER if peer else "-"
            started = time.perf_counter_ns() - int(time_ * 1e9)
            CLOCK.tick()  # the log's time stamps (aiohttp writes its own Date)
            view = _Seen(shown, head, asyncio.get_running_loop())
            parts = access.parts(head, view.line, response.status, encoding, sent)
            access.request(view, parts, started)

    return CatalogAccessLogger


class AiohttpEngine:
    """`serve --http aiohttp`: the application on aiohttp's server (its protocol for each
    connection)."""

    def __init__(self, table: Table, options: ServeOptions, access_log: AccessLog | None) -> None:
        self.traffic = Traffic(table, access_log)
        self.options = options
        self.runner = web.AppRunner(
            application(self.traffic),
            handle_signals=False,
            shutdown_timeout=options.shutdown_timeout,
            access_log=_log,  # any logger: the class below writes the lines
            access_log_class=_access_logger(self.traffic),
            keepalive_timeout=options.keepalive_timeout,
            max_line_size=options.max_line_size,
            max_field_size=options.max_line_size,
            max_headers=options.max_headers,
            lingering_time=2.0,
        )

    async def start(self) -> web.Server:
        await self.runner.setup()
        server = self.runner.server
        assert server is not None  # (set up just now)
        return server

    async def drain(self) -> int:
        """Idle connections close now; answers in flight get `--shutdown-timeout`, after
        which aiohttp cancels them (it does not say how many: 0 is returned)."""
        self.traffic.stopping = True
        await self.runner.cleanup()
        return 0

    def open_connections(self) -> int:
        server = self.runner.server
        return len(server.connections) if server is not None else 0

    def close_idle(self, count: int) -> int:
        """aiohttp does not say which of its connections wait for a request: none is closed
        (they close at the keep-alive timeout)."""
        return 0

    def sweep(self, now: float) -> None:
        """aiohttp keeps its own keep-alive deadlines."""
