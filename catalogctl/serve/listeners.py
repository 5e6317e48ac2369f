"""The listening socket: TCP, a Unix socket, or one handed over by systemd (LISTEN_FDS).

The supervisor opens it once; every worker inherits it and accepts from it, so a worker that
stops accepting (on reload or stop) leaves the connections still queued to the others.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from dataclasses import dataclass
from pathlib import Path

from catalogctl.errors import InputError
from catalogctl.text import clean, quoted

SD_LISTEN_FDS_START = 3  # sd_listen_fds(3): the first passed descriptor


@dataclass(slots=True)
class Listener:
    sock: socket.socket
    url: str  # how the ready message names it
    unix_path: Path | None = None  # removed on exit (we created it)

    def close(self) -> None:
        self.sock.close()
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
        raise InputError(f"LISTEN_FDS={quoted(fds)}: expected the number of sockets passed")
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


def open_listener(host: str, port: int, unix: Path | None, backlog: int) -> Listener:
    """The socket to serve on: systemd's, else `--unix PATH`, else `host:port`."""
    activated = systemd_socket()
    if activated is not None:
        activated.setblocking(False)
        return Listener(activated, _name(activated))
    if unix is not None:
        return _unix(unix, backlog)
    sock = _tcp(host, port)
    sock.listen(backlog)
    return Listener(sock, _url(host, sock.getsockname()[1]))


def host_refused(exc: UnicodeError) -> str:
    """Why IDNA refused a host name, in words: a byte that is not UTF-8 text (an argument the
    locale could not decode), else the codec's reason."""
    text = str(exc)
    if "\\udc" in repr(text):
        return "it holds a byte that is not UTF-8 text"
    reason = text.removeprefix("encoding with 'idna' codec failed ").strip("()")
    return clean(reason.removeprefix("UnicodeError: "))


def _tcp(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_ADDRCONFIG
        )
    except socket.gaierror as exc:
        raise InputError(f"cannot resolve --host {quoted(host)}: {exc.strerror}") from exc
    except UnicodeError as exc:  # a label empty or over 63 letters ("a..b"): IDNA refuses it
        raise InputError(f"--host {quoted(host)} is not a host name: {host_refused(exc)}") from exc
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        exclusive_address(sock)
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


def exclusive_address(sock: socket.socket) -> None:
    """Let a restarted server bind its port again at once, and no other server share it.

    POSIX: SO_REUSEADDR (the port is reused while old connections linger in TIME_WAIT; a second
    listener is still refused). Where the OS has SO_EXCLUSIVEADDRUSE (Windows), SO_REUSEADDR
    would let another program bind the same port: the exclusive option is used instead.
    """
    if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
    else:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


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
