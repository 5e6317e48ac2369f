"""The access log: one line per response, formatted on the spot, written in chunks.

A request costs one formatted string appended to a list. The list is written as one chunk
every `FLUSH_EVERY` seconds (or sooner once it is long), from the event loop, never waiting
on a reader (see `Sink`): a full pipe delays or drops log lines, never an answer. A regular
file is written directly, and the kernel makes such a write wait as long as the file system
needs (at memory speed mostly; a few milliseconds at times, seen on ext4 under load). Formats:

- `combined`: the NCSA Combined Log Format (Apache's and nginx's `combined`);
- `common`: the Common Log Format;
- `text`: Combined plus the time taken, in microseconds (`123us`);
- `json`: one object per line (time, remote, method, path, protocol, status, bytes,
  encoding, duration_us, referer, user_agent, pid).

`bytes` counts the body only (0 for HEAD and 304), as nginx's `$body_bytes_sent` does; in
CLF a zero is written `-`. Durations run from the first byte of the request head to the
answer handed to the transport, in microseconds. Every value a client controls is escaped:
`"`, `\\` and bytes outside printable ASCII become `\\xHH` (text formats, as nginx does) or
JSON escapes. With `--forwarded-allow-ips`, the client a trusted proxy names (X-Forwarded-For
or Forwarded) is logged instead of the proxy.

Why one module: escaping, the client a trusted proxy names, the line formats and the non-
blocking sink are one path run on every response, tuned together (one formatted string per
request, one write per chunk); apart, the per-request cost would hide behind module boundaries.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import select
import socket
import stat
import time
from collections import deque
from typing import TYPE_CHECKING, Literal, Protocol

from catalogctl.serve.clock import CLOCK

if TYPE_CHECKING:
    from catalogctl.serve.semantics import RequestHead


class Request(Protocol):
    """The connection's view of the request just answered (its line, `AccessLog.parts`)."""

    peer: str
    head: RequestHead  # the headers that name the client behind a trusted proxy
    loop: asyncio.AbstractEventLoop


UNIX_PEER = "unix:"  # how a client on a Unix socket is named
AccessFormat = Literal["text", "json", "common", "combined"]
# A line's text after the client and the time: before the duration, and after it.
Parts = tuple[str, str]
FORMATS: tuple[AccessFormat, ...] = ("text", "json", "common", "combined")

FLUSH_EVERY = 0.2  # seconds a line may wait before it is written
FLUSH_LINES = 512  # or this many lines, whichever comes first
PIPE_BUF = 4096  # writes up to this size to a pipe are atomic (workers share one)
LOGGED_LINE = 1024  # bytes of a refused request line written to the log
SEEN_LINES = 1024  # escaped request lines remembered

_UNSAFE = re.compile(rb"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def _hex(match: re.Match[bytes]) -> bytes:
    return b"\\x%02X" % match.group()[0]


def clf_escape(value: bytes | None) -> str:
    """A client-sent value for a quoted CLF field (nginx's `escape=default` rule)."""
    if value is None:
        return "-"
    if _UNSAFE.search(value) is None:
        return value.decode("ascii")
    return _UNSAFE.sub(_hex, value).decode("ascii")


def json_string(value: bytes | None) -> str:
    """A client-sent value as a JSON string (bytes outside ASCII kept as U+00XX)."""
    if value is None:
        return "null"
    if _UNSAFE.search(value) is None:
        return '"' + value.decode("ascii") + '"'
    return json.dumps(value.decode("latin-1"), ensure_ascii=True)


class TrustedProxies:
    """`--forwarded-allow-ips`: peers whose X-Forwarded-For / Forwarded name the client."""

    def __init__(self, spec: str) -> None:
        self.any = False
        self.unix = False
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for item in (part.strip() for part in spec.split(",")):
            if not item:
                continue
            if item == "*":
                self.any = True
            elif item == "unix":
                self.unix = True
            else:
                try:
                    self.networks.append(ipaddress.ip_network(item, strict=False))
                except ValueError as exc:
                    raise ValueError(f"not an IP address or network: {item!r}") from exc
        self._cache: dict[str, bool] = {}

    def trusts(self, peer: str) -> bool:
        if self.any:
            return True
        if peer == UNIX_PEER:
            return self.unix
        known = self._cache.get(peer)
        if known is None:
            try:
                address = ipaddress.ip_address(peer)
            except ValueError:
                known = False
            else:
                known = any(address in net for net in self.networks)
            if len(self._cache) < 4096:
                self._cache[peer] = known
        return known

    def client(self, peer: str, xff: bytes | None, forwarded: bytes | None) -> str:
        """The client address a trusted chain of proxies reports (else the peer itself)."""
        if not self.trusts(peer):
            return peer
        hops: list[str] = []
        if forwarded is not None:
            hops = _forwarded_for(forwarded.decode("latin-1"))
        elif xff is not None:
            hops = [h.strip() for h in xff.decode("latin-1").split(",")]
        # Walk back from the nearest hop: the first one we do not trust is the client.
        client = peer
        for hop in reversed(hops):
            if not hop:
                break
            client = hop
            if not self.trusts(hop):
                break
        return client


def _forwarded_for(value: str) -> list[str]:
    """The `for=` nodes of a Forwarded header (RFC 7239), oldest first, ports dropped."""
    nodes = []
    for element in value.split(","):
        for pair in element.split(";"):
            name, _, node = pair.strip().partition("=")
            if name.strip().lower() != "for":
                continue
            node = node.strip().strip('"')
            if node.startswith("["):  # "[2001:db8::1]:4711"
                node = node[1 : node.find("]")] if "]" in node else node[1:]
            elif node.count(":") == 1:  # "192.0.2.60:4711"
                node = node.partition(":")[0]
            nodes.append(node)
    return nodes


class Sink:
    """Where access lines go: written from the event loop without waiting on a reader.

    A regular file is written directly (there is no non-blocking write to one; the file
    system decides how long a write takes, at memory speed mostly). A pipe, terminal or
    socket is written non-blocking (a pipe or terminal through a descriptor of its own, so
    the flag does not leak to other processes sharing it; a socket with MSG_DONTWAIT); what
    it cannot take now waits in memory until the loop sees it writable, up to `MAX_BACKLOG`
    bytes, past which lines are dropped and counted (`dropped`), never silently.

    Where the OS gives no descriptor of our own to a pipe or terminal (no /proc: macOS), or has
    no non-blocking flag for it or no MSG_DONTWAIT (Windows), it is written as a file is: a
    reader that does not keep up makes the write wait.
    """

    MAX_BACKLOG = 16 << 20

    def __init__(self, fd: int) -> None:
        mode = os.fstat(fd).st_mode
        self.socket: socket.socket | None = None
        self.own = False
        # Where the OS has no MSG_DONTWAIT, a socket is written as a file is (see the class).
        self.send_flags = getattr(socket, "MSG_DONTWAIT", 0)
        if stat.S_ISSOCK(mode):
            self.socket = socket.socket(fileno=os.dup(fd))
            self.fd = self.socket.fileno()
        elif (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)) and hasattr(os, "O_NONBLOCK"):
            try:  # a new open file description: O_NONBLOCK stays ours
                self.fd = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
                self.own = True
            except OSError:  # no /proc (macOS): written as a file is
                self.fd = fd
        else:
            self.fd = fd
        # Writes up to PIPE_BUF to a pipe are atomic: workers sharing one never split a line.
        self.chunk = PIPE_BUF if not stat.S_ISREG(mode) else 1 << 16
        self.backlog: deque[bytes] = deque()
        self.backlog_size = 0
        self.dropped = 0  # lines
        self._loop: asyncio.AbstractEventLoop | None = None

    def write(self, data: bytes) -> None:
        if self.backlog:
            self._queue(data)
            return
        rest = self._write_some(data)
        if rest:
            self._queue(rest)
            self._watch()

    def _queue(self, data: bytes) -> None:
        if self.backlog_size + len(data) > self.MAX_BACKLOG:
            self.dropped += data.count(b"\n")
            return
        self.backlog.append(data)
        self.backlog_size += len(data)

    def _write_some(self, data: bytes) -> bytes:
        """Write what the descriptor takes now; return the rest."""
        view = memoryview(data)
        try:
            while view:
                if len(view) > self.chunk:  # cut at a line end
                    cut = bytes(view[: self.chunk]).rfind(b"\n") + 1 or self.chunk
                else:
                    cut = len(view)
                if self.socket is not None:
                    written = self.socket.send(view[:cut], self.send_flags)
                else:
                    written = os.write(self.fd, view[:cut])
                view = view[written:]
        except BlockingIOError:
            return bytes(view)
        except OSError:
            self.dropped += bytes(view).count(b"\n")  # the reader is gone: nothing to wait for
            return b""
        return b""

    def _watch(self) -> None:
        if self._loop is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: what waits is written by the next `drain`
            return
        self._loop = loop
        loop.add_writer(self.fd, self._writable)

    def _writable(self) -> None:
        while self.backlog:
            data = self.backlog.popleft()
            self.backlog_size -= len(data)
            rest = self._write_some(data)
            if rest:
                self.backlog.appendleft(rest)
                self.backlog_size += len(rest)
                return
        if self._loop is not None:
            self._loop.remove_writer(self.fd)
            self._loop = None

    def drain(self, timeout: float) -> None:
        """On exit: write what waits, for at most `timeout` seconds."""
        if self._loop is not None:
            self._loop.remove_writer(self.fd)
            self._loop = None
        deadline = time.monotonic() + timeout
        while self.backlog and time.monotonic() < deadline:
            select.select([], [self.fd], [], max(0.0, deadline - time.monotonic()))
            data = self.backlog.popleft()
            self.backlog_size -= len(data)
            rest = self._write_some(data)
            if rest:
                self.backlog.appendleft(rest)
                self.backlog_size += len(rest)
        for data in self.backlog:
            self.dropped += data.count(b"\n")
        self.backlog.clear()

    def close(self) -> None:
        self.drain(2.0)
        if self.socket is not None:
            self.socket.close()
        elif self.own:
            os.close(self.fd)


class AccessLog:
    """Formats one line per response and hands them to a `Sink` in chunks. Time stamps are
    those of `CLOCK`, which the engine ticks for the response being logged."""

    def __init__(
        self,
        sink: Sink,
        fmt: AccessFormat = "text",
        *,
        trusted: TrustedProxies | None = None,
    ) -> None:
        self.sink = sink
        self.format = fmt
        self.trusted = trusted
        self.lines: list[str] = []
        self.pid = os.getpid()
        self._timer: asyncio.TimerHandle | None = None
        self._seen: dict[bytes, str] = {}  # request line as received -> as logged
        self._line, self._parts = {
            "text": (self._text, self._text_parts),
            "combined": (self._clf, self._combined_parts),
            "common": (self._clf, self._common_parts),
            "json": (self._json, self._json_parts),
        }[fmt]

    def parts(self, head: RequestHead, line: bytes, status: int, encoding: str, body: int) -> Parts:
        """What a line says of the request and its answer: the text after the client and the
        time, before the duration and after it. A head answered again and again gets the same
        parts (the engine keeps them with the head it remembers)."""
        return self._parts(head, line, status, encoding, body)

    def request(self, conn: Request, parts: Parts, started: int) -> None:
        """One line, of `parts`; `started` is when the head began to arrive
        (`time.perf_counter_ns()`)."""
        self.lines.append(self._line(conn, parts, started))
        if len(self.lines) >= FLUSH_LINES:
            self.flush()
        elif self._timer is None:
            self._timer = conn.loop.call_later(FLUSH_EVERY, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.lines:
            data = "".join(self.lines).encode("ascii")
            self.lines = []
            self.sink.write(data)

    # --- formats ----------------------------------------------------------------------------

    def _remote(self, conn: Request) -> str:
        trusted = self.trusted
        head = conn.head
        if trusted is not None and (head.x_forwarded_for or head.forwarded):
            return clf_escape(
                trusted.client(conn.peer, head.x_forwarded_for, head.forwarded).encode("latin-1")
            )
        return conn.peer

    def _request_line(self, head: RequestHead, line: bytes) -> str:
        """The request line as received, escaped (`-` when nothing was); one refused before
        it could be read is cut at LOGGED_LINE bytes. Lines up to that size are remembered
        (`_seen`): a server sees few distinct ones."""
        if not head.version:
            return clf_escape(line[:LOGGED_LINE]) if line else "-"
        logged = self._seen.get(line)
        if logged is not None:
            return logged
        logged = clf_escape(line)
        if len(line) <= LOGGED_LINE:
            if len(self._seen) >= SEEN_LINES:
                self._seen.clear()
            self._seen[line] = logged
        return logged

    def _common_parts(
        self, head: RequestHead, line: bytes, status: int, encoding: str, body: int
    ) -> Parts:
        return f'"{self._request_line(head, line)}" {status} {body or "-"}\n', ""

    def _combined_parts(
        self, head: RequestHead, line: bytes, status: int, encoding: str, body: int
    ) -> Parts:
        return (
            f'"{self._request_line(head, line)}" {status} {body or "-"} '
            f'"{clf_escape(head.referer)}" "{clf_escape(head.user_agent)}"\n',
            "",
        )

    def _text_parts(
        self, head: RequestHead, line: bytes, status: int, encoding: str, body: int
    ) -> Parts:
        return (
            f'"{self._request_line(head, line)}" {status} {body or "-"} '
            f'"{clf_escape(head.referer)}" "{clf_escape(head.user_agent)}" ',
            "us\n",
        )

    def _json_parts(
        self, head: RequestHead, line: bytes, status: int, encoding: str, body: int
    ) -> Parts:
        if head.version:
            method, path = f'"{head.method.decode("ascii")}"', json_string(head.target)
            protocol = f'"{head.version.decode("ascii")}"'
        else:  # refused before it could be read: the line as received, as the path
            method, protocol = "null", "null"
            path = json_string(line[:LOGGED_LINE])
        return (
            f'"method":{method},"path":{path},"protocol":{protocol},'
            f'"status":{status},"bytes":{body},"encoding":"{encoding}","duration_us":',
            f',"referer":{json_string(head.referer)},'
            f'"user_agent":{json_string(head.user_agent)},"pid":{self.pid}}}\n',
        )

    def _clf(self, conn: Request, parts: Parts, started: int) -> str:
        remote = conn.peer if self.trusted is None else self._remote(conn)
        return f"{remote} - - [{CLOCK.clf}] {parts[0]}"

    def _text(self, conn: Request, parts: Parts, started: int) -> str:
        micros = (time.perf_counter_ns() - started) // 1000
        return (
            f"{conn.peer if self.trusted is None else self._remote(conn)} - - [{CLOCK.clf}] "
            f"{parts[0]}{micros}{parts[1]}"
        )

    def _json(self, conn: Request, parts: Parts, started: int) -> str:
        now = time.time()
        if int(now) != CLOCK.second:
            CLOCK.tick()
        micros = (time.perf_counter_ns() - started) // 1000
        return (
            f'{{"time":"{CLOCK.iso}.{int(now * 1000) % 1000:03d}Z",'
            f'"remote":{json_string(self._remote(conn).encode("latin-1"))},'
            f"{parts[0]}{micros}{parts[1]}"
        )
