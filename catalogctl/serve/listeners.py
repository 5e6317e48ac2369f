"""The listening sockets: TCP, a Unix socket, or one handed over by systemd (LISTEN_FDS).

They are opened once, before the workers start, and held until the server exits. On TCP with
`--workers N`, there is one socket per worker, all bound to the address with SO_REUSEPORT
(as nginx's `listen ... reuseport`): the kernel spreads new connections evenly across them.
With one socket shared by every worker, whichever worker wakes first accepts every connection
waiting, so a client that opens its connections at once (a proxy, a load tester) can land
them all on one worker while the others idle. Worker k of every generation accepts from
socket k, so a reload (the new worker and the old one accept from the same socket, then the
old one stops) loses no connection. A Unix socket or systemd's socket is shared by the
workers.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from dataclasses import dataclass, field
from pathlib import Path

from catalogctl.errors import InputError

SD_LISTEN_FDS_START = 3  # sd_listen_fds(3): the first passed descriptor


@dataclass(slots=True)
class Listener:
    sock: socket.socket
    url: str  # how the ready message names it
    unix_path: Path | None = None  # removed on exit (we created it)
    # One socket per worker (SO_REUSEPORT; `sock` first), None while released. Empty: every
    # worker accepts from `sock`.
    spread: list[socket.socket | None] = field(default_factory=list)
    backlog: int = 1024
    address: tuple[str, int] | tuple[str, int, int, int] = ("", 0)  # what `spread` is bound to

    def for_worker(self, index: int) -> socket.socket:
        """The socket worker `index` accepts from (opened again if it was released); raises
        `InputError` when it cannot be."""
        if not self.spread:
            return self.sock
        sock = self.spread[index]
        if sock is None:
            sock = self.spread[index] = _reuseport(self.sock.family, self.address, self.backlog)
        return sock

    def release(self, index: int) -> None:
        """Close worker `index`'s socket while no worker accepts from it: the kernel then
        spreads new connections across the others."""
        sock = self.spread[index] if self.spread else None
        if sock is not None:
            self.spread[index] = None
            sock.close()

    def close(self) -> None:
        for sock in self.spread:
            if sock is not None:
                sock.close()
        self.sock.close()  # (closing a socket twice does nothing)
        if self.unix_path is not None:
            with contextlib.suppress(OSError):
                self.unix_path.unlink()


def systemd_socket() -> socket.socket | None:
    """The socket systemd passed to this process (sd_listen_fds protocol), if any.

    The variables are removed once read, so that processes we start do not take them as
    their own.
    """
    pid, fds = os.environ.get("LISTEN_PID"), os.environ.get("LISTEN_FDS")
    if pid is None or fds is None:
        return None
    for name in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)
    if not pid.isdigit() or int(pid) != os.getpid():
        return None
    if not fds.isdigit() or int(fds) < 1:
        raise InputError(f"LISTEN_FDS={fds!r}: expected the number of sockets passed")
    if int(fds) > 1:
        raise InputError(f"LISTEN_FDS={fds}: serve listens on one socket; pass exactly one")
    try:
        sock = socket.socket(fileno=SD_LISTEN_FDS_START)
    except OSError as exc:
        raise InputError(f"LISTEN_FDS: descriptor 3 is not a socket ({exc.strerror})") from exc
    if sock.type != socket.SOCK_STREAM or not sock.getsockopt(
        socket.SOL_SOCKET, socket.SO_ACCEPTCONN
    ):
        sock.detach()
        raise InputError("LISTEN_FDS: descriptor 3 is not a listening stream socket")
    os.set_inheritable(sock.fileno(), True)
    return sock


def open_listener(
    host: str, port: int, unix: Path | None, backlog: int, workers: int = 1
) -> Listener:
    """The sockets to serve on: systemd's, else `--unix PATH`, else `host:port` (one per
    worker when `workers` > 1)."""
    activated = systemd_socket()
    if activated is not None:
        activated.setblocking(False)
        return Listener(activated, _name(activated))
    if unix is not None:
        return _unix(unix, backlog)
    sock = _tcp(host, port)
    if workers > 1 and hasattr(socket, "SO_REUSEPORT"):
        # `sock` was bound without SO_REUSEPORT: a port in use is refused (EADDRINUSE), even
        # one held by another server's SO_REUSEPORT sockets, and port 0 got its number.
        family, address = sock.family, sock.getsockname()
        sock.close()
        opened: list[socket.socket] = []
        try:
            for _ in range(workers):
                opened.append(_reuseport(family, address, backlog))
        except InputError:
            for each in opened:
                each.close()
            raise
        spread: list[socket.socket | None] = [*opened]
        return Listener(opened[0], _url(host, address[1]), None, spread, backlog, address)
    sock.listen(backlog)
    return Listener(sock, _url(host, sock.getsockname()[1]))


def _reuseport(
    family: int, address: tuple[str, int] | tuple[str, int, int, int], backlog: int
) -> socket.socket:
    """Another listening socket on the address of a SO_REUSEPORT group."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {_url(address[0], address[1])}: {exc.strerror or exc}"
        ) from exc
    sock.setblocking(False)
    return sock


def _tcp(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_ADDRCONFIG
        )
    except socket.gaierror as exc:
        raise InputError(f"cannot resolve --host {host!r}: {exc.strerror}") from exc
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        hint = (
            " (is another server running there? try --port)"
            if exc.errno == errno.EADDRINUSE
            else ""
        )
        raise InputError(f"cannot listen on {host}:{port}: {reason}{hint}") from exc
    sock.setblocking(False)
    return sock


def _unix(path: Path, backlog: int) -> Listener:
    if len(os.fsencode(path)) > 100:
        raise InputError(f"--unix {path}: the path is too long for a Unix socket")
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise InputError(f"--unix {path}: exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink()  # a socket nobody listens on: left by a server that died
        else:
            raise InputError(f"--unix {path}: another server is listening there")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {path}: {exc.strerror or exc}") from exc
    sock.setblocking(False)
    return Listener(sock, f"unix:{path}", unix_path=path)


def _name(sock: socket.socket) -> str:
    if sock.family == socket.AF_UNIX:
        return f"unix:{sock.getsockname() or '(unnamed)'}"
    host, port = sock.getsockname()[:2]
    return _url(host, port)


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"
