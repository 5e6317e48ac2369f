"""What `serve` is told (options), what a serving process is handed (`Setup`) and what it
reports once it listens (`Ready`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import socket

    from catalogctl.serve.metrics import Counters
    from catalogctl.sources.served import SiteInput

LogFormat = Literal["text", "json"]
AccessFormat = Literal["text", "json", "common", "combined"]
Engine = Literal["httptools", "aiohttp"]
ENGINES: tuple[Engine, ...] = ("httptools", "aiohttp")


@dataclass(frozen=True, slots=True)
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    http: Engine = "httptools"  # --http: which HTTP engine the workers run
    unix: Path | None = None  # --unix PATH instead of host:port
    workers: int = 1
    access_log: bool = True
    access_log_path: str = "-"  # "-": standard output
    access_log_format: AccessFormat = "text"
    log_format: LogFormat = "text"  # the server's own events, on standard error
    forwarded_allow_ips: str = ""  # peers whose X-Forwarded-For / Forwarded are believed
    metrics: tuple[str, int] | None = None  # --metrics HOST:PORT
    watch: bool = False
    watch_interval: float = 1.0
    keepalive_timeout: float = 15.0  # also bounds how long a request head may take to arrive
    shutdown_timeout: float = 10.0
    reload_timeout: float = 300.0  # a load that takes longer is abandoned (and reported)
    max_line_size: int = 8190  # request line, and each header line
    max_headers: int = 100
    backlog: int = 1024


@dataclass(frozen=True, slots=True)
class Setup:
    """What the supervisor and each worker are handed: the options, and what `serve()`
    opened and loaded for them."""

    options: ServeOptions
    sock: socket.socket  # the listener every worker accepts from
    source: SiteInput  # where a reload loads from
    fingerprint: object  # the source's fingerprint before the first load (--watch)
    counters: Counters  # shared with every worker (metrics)
    access_fd: int | None = None  # where access lines go (None: no access log)
    metrics_sock: socket.socket | None = None  # --metrics


@dataclass(frozen=True, slots=True)
class Ready:
    """What the server reports once it listens."""

    url: str
    base_url: str  # the base URL the documents were rendered for
    workers: int
    games: int
    etag: str
    source: str
    pid: int
    metrics_url: str | None = None
    open_files: int | None = None  # descriptors each process may open (None: no limit)
