"""Take POSIX-only facilities away from a Python process, as Windows or macOS lacks them.

Python imports `sitecustomize` at start-up, before the program it runs: the tests put this
folder on PYTHONPATH and name a system in CATALOGCTL_TEST_SYSTEM (`tests/posixless/__init__.py`,
`environment()`), so `python -m catalogctl ...` runs with what that system lacks taken away,
and so does every Python process it starts (a spawned loader inherits the environment).

`windows` takes away what CPython on Windows does not have, where catalogctl could reach for it:

- `os.fork`, `os.forkpty`, `os.register_at_fork`, process groups and sessions, CPU affinity,
  `os.O_NONBLOCK`, `os.pipe2`, `os.mkfifo`, `os.openpty`, `os.set_blocking` and
  `os.get_blocking` (absent on Windows before Python 3.12, and since then for pipes only),
  `os.memfd_create`, `os.sendfile`;
  no function takes `dir_fd` (`os.supports_dir_fd` is empty, as there), so `shutil.rmtree`
  walks by path as it does on Windows (Python 3.13's walk by descriptor needs `O_NONBLOCK`);
- `signal.SIGHUP`, `SIGCHLD`, `SIGQUIT`, `SIGUSR1`, `SIGUSR2`, `SIGALRM`, `SIGPIPE`,
  `SIGWINCH`, the job-control signals, `pthread_sigmask`, `pthread_kill`, `sigwait*`,
  `siginterrupt`, `setitimer`, `alarm`, `pause`; and it adds `CTRL_C_EVENT` and
  `CTRL_BREAK_EVENT`, with `os.kill` as Windows has it: signal 0 or 1 is a console event,
  which fails for a process that is not a console process group, and any other signal
  terminates the process (as TerminateProcess does);
- `socket.AF_UNIX` (and `socket.socketpair` becomes a TCP connection on the loopback, as on
  Windows), `MSG_DONTWAIT`, `MSG_NOSIGNAL`, `SO_REUSEPORT`;
- `mmap`'s `MAP_*` and `PROT_*` flags, and `mmap.mmap` takes Windows' arguments (`tagname`,
  `access`): `flags=` or `prot=` is a TypeError;
- the modules `uvloop`, `resource`, `fcntl`, `termios`, `pty`, `tty`, `grp`, `pwd`, `syslog`
  (ModuleNotFoundError);
- the event loop's `add_signal_handler`, `remove_signal_handler`, `add_reader`,
  `remove_reader`, `add_writer` and `remove_writer` raise NotImplementedError, as Windows'
  default loop (ProactorEventLoop) does, when anything but asyncio itself calls them (its
  `sock_connect` and `sock_recv`, which the Proactor does by overlapped I/O);
- multiprocessing starts processes by spawn, and `get_context("fork")` (or "forkserver") is a
  ValueError;
- `signal.SIGKILL`; `os.scandir`'s entries have no device, inode or link count in their
  `stat()` (0, as on Windows, where only `os.stat` has them); a symlink loop fails with
  Windows' error (ERROR_CANT_RESOLVE_FILENAME, errno EINVAL), not ELOOP;
- a file any process holds open cannot be renamed, replaced or removed, nor can a folder
  holding one be renamed (PermissionError, with Windows' `winerror` 32 or 5: Python opens
  files without FILE_SHARE_DELETE); `os.rename` onto an existing name fails
  (FileExistsError), and `os.replace` onto a folder is refused;
- the C library has no `prctl` or `renameat2` (ctypes raises AttributeError, as dlsym fails),
  and there is no /proc (`os.open` of a path under it: FileNotFoundError).

`macos` takes away what macOS lacks of that: `prctl`, `renameat2`, /proc, CPU affinity,
`os.pipe2`, `os.memfd_create`, `MSG_NOSIGNAL`, epoll (the default selector is poll's); and
spawn is the default start method (fork is still there, as on macOS).

What this does not reproduce of Windows, so a run here is evidence, not proof: the process
still runs Linux's CPython (`sys.platform`, `os.name`, `os.sep`, path rules, the file system's
case sensitivity, text mode and `O_BINARY`, the console and its code page, which the encoding
tests cover); the event loop is still the selector loop, not the Proactor (overlapped I/O on
completion ports); `select.select` still accepts pipes (on Windows only sockets: it is left,
because the standard library's own POSIX code, such as `multiprocessing.connection.wait`,
needs it here where Windows uses WaitForMultipleObjects); the `os.W*` wait-status helpers stay,
because multiprocessing's POSIX code needs them to do what it does on Windows by other means
(and its `kill()` still sends signal 9, where `signal.SIGKILL` is gone); `signal.Signals`
still lists every signal; Ctrl+C is still SIGINT
from a terminal (Windows delivers a console control event to every process on the console,
and there is no Ctrl+Break); the console-close event, services and SO_EXCLUSIVEADDRUSE have
no counterpart. What this does not reproduce of macOS: kqueue, SO_REUSEPORT's semantics (no
balancing between sockets), HFS+/APFS names (NFD, case-insensitive), launchd.

It emulates on Linux only: where `sys.platform` is not "linux" (the real Windows or macOS, as
in CI) it takes nothing away, whatever CATALOGCTL_TEST_SYSTEM says, and the tests that use it
skip (tests/conftest.py, `emulates_another_system`). It reads no attribute the real system may
lack (`signal.SIGKILL` is looked for, not assumed), so it imports cleanly everywhere.
"""

from __future__ import annotations

import ctypes
import errno
import importlib.abc
import mmap
import multiprocessing
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

SYSTEM = os.environ.get("CATALOGCTL_TEST_SYSTEM", "")

WINDOWS_OS = (
    "fork",
    "forkpty",
    "register_at_fork",
    "killpg",
    "getpgid",
    "setpgid",
    "getpgrp",
    "setpgrp",
    "getsid",
    "setsid",
    "sched_getaffinity",
    "sched_setaffinity",
    "O_NONBLOCK",
    "pipe2",
    "mkfifo",
    "openpty",
    "set_blocking",
    "get_blocking",
    "memfd_create",
    "sendfile",
)
WINDOWS_SIGNAL = (
    "SIGHUP",
    "SIGCHLD",
    "SIGQUIT",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGPIPE",
    "SIGWINCH",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "pthread_sigmask",
    "pthread_kill",
    "sigwait",
    "sigwaitinfo",
    "sigtimedwait",
    "sigpending",
    "siginterrupt",
    "setitimer",
    "getitimer",
    "alarm",
    "pause",
    "SIG_BLOCK",
    "SIG_UNBLOCK",
    "SIG_SETMASK",
)
WINDOWS_SOCKET = ("AF_UNIX", "MSG_DONTWAIT", "MSG_NOSIGNAL", "SO_REUSEPORT")
WINDOWS_MODULES = ("uvloop", "resource", "fcntl", "termios", "pty", "tty", "grp", "pwd", "syslog")
LOOP_METHODS = (
    "add_signal_handler",
    "remove_signal_handler",
    "add_reader",
    "remove_reader",
    "add_writer",
    "remove_writer",
)
MACOS_OS = ("sched_getaffinity", "sched_setaffinity", "pipe2", "memfd_create")
MACOS_SOCKET = ("MSG_NOSIGNAL",)
ABSENT_SYMBOLS = frozenset({"prctl", "renameat2"})  # neither Windows nor macOS has them
CTRL_C_EVENT, CTRL_BREAK_EVENT = 0, 1  # Windows' values


def _remove(module: Any, names: tuple[str, ...]) -> None:
    for name in names:
        if hasattr(module, name):
            delattr(module, name)


class _Hidden(importlib.abc.MetaPathFinder):
    """Modules the system does not have: importing one fails as a missing module does."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def _hide_modules(names: tuple[str, ...]) -> None:
    for name in names:
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, _Hidden(names))


def _without_symbols() -> None:
    """ctypes finds neither prctl nor renameat2 in the C library (dlsym fails)."""
    lookup = ctypes.CDLL.__getitem__

    def getitem(self: ctypes.CDLL, name: Any) -> Any:
        if name in ABSENT_SYMBOLS:
            raise AttributeError(f"dlsym({self._name}, {name}): symbol not found")
        return lookup(self, name)

    ctypes.CDLL.__getitem__ = getitem  # type: ignore[method-assign]


def _without_proc() -> None:
    """No /proc file system."""
    real_open = os.open

    def open_(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if os.fsdecode(path).startswith("/proc/"):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    os.open = open_


def _without_dir_fd() -> None:
    """No function takes `dir_fd`: shutil, imported before this runs, decides again how it
    removes a tree (by path, as on Windows)."""
    import importlib
    import shutil

    os.supports_dir_fd.clear()
    importlib.reload(shutil)


def _spawn_by_default() -> None:
    multiprocessing.set_start_method("spawn", force=True)


def _without_fork_contexts() -> None:
    real = multiprocessing.get_context

    def get_context(method: str | None = None) -> Any:
        if method in ("fork", "forkserver"):
            raise ValueError(f"cannot find context for {method!r}")
        return real(method)

    multiprocessing.get_context = get_context  # type: ignore[assignment]


def _windows_kill() -> None:
    """`os.kill` as on Windows: 0 and 1 are console events, anything else terminates."""
    real_kill = os.kill
    # SIGKILL is there on Linux, where this runs; SIGTERM is the fallback, never needed here.
    kill_signal = getattr(signal, "SIGKILL", signal.SIGTERM)

    def kill(pid: int, sig: int) -> None:
        if sig in (CTRL_C_EVENT, CTRL_BREAK_EVENT):
            # GenerateConsoleCtrlEvent: only a console process group can receive it.
            raise OSError(errno.EINVAL, "The parameter is incorrect (not a console process group)")
        real_kill(pid, kill_signal)

    os.kill = kill
    signal.CTRL_C_EVENT = CTRL_C_EVENT  # type: ignore[attr-defined]
    signal.CTRL_BREAK_EVENT = CTRL_BREAK_EVENT  # type: ignore[attr-defined]


def _without_sigkill() -> None:
    """No `signal.SIGKILL`: Windows ends a process with TerminateProcess, which is what
    multiprocessing's and subprocess's `kill()` do there; here they still send signal 9."""
    import subprocess
    from multiprocessing import popen_fork

    nine = int(getattr(signal, "SIGKILL", 9))  # Linux's number; 9 where the caller took it away
    popen_fork.Popen.kill = lambda self: self._send_signal(nine)  # type: ignore[method-assign]
    subprocess.Popen.kill = lambda self: self.send_signal(nine)  # type: ignore[method-assign]
    _remove(signal, ("SIGKILL",))


class _WindowsEntry:
    """A directory entry as Windows' os.scandir gives it: its stat() has no device, inode or
    link count (all 0; os.stat has them)."""

    def __init__(self, entry: os.DirEntry[Any]) -> None:
        self._entry = entry

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry, name)

    def __fspath__(self) -> Any:
        return self._entry.__fspath__()

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        st = self._entry.stat(follow_symlinks=follow_symlinks)
        rest = {n: getattr(st, n) for n in dir(st) if n.startswith("st_") and n not in _SEQ}
        seq = (st.st_mode, 0, 0, 0, st.st_uid, st.st_gid, st.st_size)
        seq += (int(st.st_atime), int(st.st_mtime), int(st.st_ctime))
        return os.stat_result(seq, rest)


_SEQ = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size")


class _WindowsScandir:
    def __init__(self, it: Any) -> None:
        self._it = it

    def __iter__(self) -> _WindowsScandir:
        return self

    def __next__(self) -> _WindowsEntry:
        return _WindowsEntry(next(self._it))

    def __enter__(self) -> _WindowsScandir:
        return self

    def __exit__(self, *exc: object) -> None:
        self._it.close()

    def close(self) -> None:
        self._it.close()


def _windows_scandir() -> None:
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        return _WindowsScandir(real(path))

    os.scandir = scandir  # type: ignore[assignment]


def _windows_realpath() -> None:
    """A symlink loop fails as on Windows: ERROR_CANT_RESOLVE_FILENAME (1921), errno EINVAL;
    Windows has no ELOOP of its own."""
    real = os.path.realpath

    def realpath(path: Any, *, strict: bool = False) -> Any:
        try:
            return real(path, strict=strict)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            error = OSError(errno.EINVAL, "The name of the file cannot be resolved by the system")
            error.winerror = 1921  # type: ignore[attr-defined]
            error.filename = exc.filename
            raise error from None

    os.path.realpath = realpath


def _held_open(path: Any) -> str | None:
    """A regular file at or under `path` that a process (this one too) holds open, or the
    current folder of a process at or under it; None when there is none."""
    real = os.path.realpath(path)
    under = real.rstrip("/") + "/"
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            links = [proc / "cwd", *(proc / "fd").iterdir()]
        except OSError:  # gone, or another user's
            continue
        for link in links:
            try:
                target = link.readlink()
            except OSError:
                continue
            inside = str(target) == real or str(target).startswith(under)
            if inside and (link.name == "cwd" or target.is_file()):
                return str(target)
    return None


def _windows_error(exc: type[OSError], code: int, winerror: int, text: str, path: Any) -> OSError:
    error = exc(code, text)
    error.winerror = winerror  # type: ignore[attr-defined]
    error.filename = os.fspath(path)
    return error


def _sharing_violation(path: Any, *, held_under: bool = False) -> OSError:
    if held_under:  # a folder with an open file in it: ERROR_ACCESS_DENIED
        return _windows_error(PermissionError, errno.EACCES, 5, "Access is denied", path)
    return _windows_error(
        PermissionError,
        errno.EACCES,
        32,
        "The process cannot access the file because it is being used by another process",
        path,
    )


def _check_movable(src: Any, dst: Any, *, replace: bool) -> None:
    held = _held_open(src)
    if held is not None:
        raise _sharing_violation(src, held_under=held != os.path.realpath(src))
    if not os.path.lexists(dst):
        return
    if not replace:
        exists = "Cannot create a file when that file already exists"
        raise _windows_error(FileExistsError, errno.EEXIST, 183, exists, dst)
    if Path(dst).is_dir() and not Path(dst).is_symlink():
        raise _windows_error(PermissionError, errno.EACCES, 5, "Access is denied", dst)
    if _held_open(dst) is not None:
        raise _windows_error(PermissionError, errno.EACCES, 5, "Access is denied", dst)


def _windows_sharing() -> None:
    """Names as Windows' file system keeps them for a file that is open (see above)."""
    real_rename, real_replace, real_unlink = os.rename, os.replace, os.unlink

    def rename(src: Any, dst: Any, *, src_dir_fd: Any = None, dst_dir_fd: Any = None) -> None:
        _check_movable(src, dst, replace=False)
        real_rename(src, dst)

    def replace(src: Any, dst: Any, *, src_dir_fd: Any = None, dst_dir_fd: Any = None) -> None:
        _check_movable(src, dst, replace=True)
        real_replace(src, dst)

    def unlink(path: Any, *, dir_fd: Any = None) -> None:
        if _held_open(path) is not None:
            raise _sharing_violation(path)
        real_unlink(path)

    os.rename, os.replace = rename, replace
    os.unlink = os.remove = unlink


def _loopback_socketpair(
    family: int | None = None, type: int = socket.SOCK_STREAM, proto: int = 0
) -> tuple[socket.socket, socket.socket]:
    """Windows' socketpair: the two ends of a TCP connection on the loopback."""
    family = socket.AF_INET if family is None else family
    with socket.socket(family, type, proto) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        one = socket.socket(family, type, proto)
        one.connect(listener.getsockname())
        other, _ = listener.accept()
    return one, other


class _WindowsMmap(mmap.mmap):
    """mmap.mmap with Windows' arguments: no `flags`, no `prot`."""

    def __new__(
        cls,
        fileno: int,
        length: int,
        tagname: str | None = None,
        access: int = mmap.ACCESS_DEFAULT,
        offset: int = 0,
    ) -> _WindowsMmap:
        return super().__new__(cls, fileno, length, access=access, offset=offset)


def _windows_mmap() -> None:
    _remove(mmap, tuple(n for n in dir(mmap) if n.startswith(("MAP_", "PROT_", "MADV_"))))
    mmap.mmap = _WindowsMmap  # type: ignore[misc]


def _not_implemented(name: str, real: Any) -> Any:
    def method(self: object, *args: object, **kwargs: object) -> Any:
        # asyncio's own socket operations (sock_connect, sock_recv) call these methods of
        # the selector loop, where the Proactor does the same by overlapped I/O: they keep
        # them. Any other caller is told what Windows' loop tells it.
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("asyncio."):
            return real(self, *args, **kwargs)
        raise NotImplementedError(f"{name} is not implemented by this event loop (Windows)")

    return method


def _windows_loops() -> None:
    import asyncio

    for name in LOOP_METHODS:
        real = getattr(asyncio.SelectorEventLoop, name)
        setattr(asyncio.SelectorEventLoop, name, _not_implemented(name, real))


def windows() -> None:
    _remove(os, WINDOWS_OS)
    _without_dir_fd()
    _remove(signal, WINDOWS_SIGNAL)
    _remove(socket, WINDOWS_SOCKET)
    socket.socketpair = _loopback_socketpair
    _windows_kill()
    _without_sigkill()
    _windows_scandir()
    _windows_realpath()
    _windows_sharing()
    _windows_mmap()
    _hide_modules(WINDOWS_MODULES)
    _windows_loops()
    _spawn_by_default()
    _without_fork_contexts()
    _without_symbols()
    _without_proc()


def macos() -> None:
    import select
    import selectors

    _remove(os, MACOS_OS)
    _remove(socket, MACOS_SOCKET)
    _remove(select, tuple(n for n in dir(select) if n.startswith(("epoll", "EPOLL"))))
    # The default selector was chosen when `selectors` was imported, with epoll there: it
    # becomes one macOS has (kqueue is not here to emulate; poll is on both).
    selectors.DefaultSelector = selectors.PollSelector  # type: ignore[misc,assignment]
    _spawn_by_default()
    _without_symbols()
    _without_proc()


if SYSTEM not in ("", "windows", "macos"):
    raise SystemExit(f"CATALOGCTL_TEST_SYSTEM={SYSTEM!r}: expected windows or macos")
if sys.platform != "linux":
    pass  # the real system: nothing is emulated (see above)
elif SYSTEM == "windows":
    windows()
elif SYSTEM == "macos":
    macos()
