"""How the tests start programs: `run_cli`/`run` for a command that finishes, `Program` (and
the `Server`s built on it) for one that keeps running while the test talks to it.

Every wait has a deadline. A program that overruns it is killed with its whole process group
(it runs in its own session) and the test fails with what the program printed. Nothing here
sleeps for a fixed time: readiness is a line the program prints or a port that answers, and a
state no line announces is polled with a deadline (`wait_until`).

tests/test_test_house.py keeps every test module on these: no other module starts a process
itself, runs `catalogctl` its own way, or sleeps in place of an event. No pytest here: the
benchmarks import the server classes (tests/serve_process.py, nginx_process.py,
edge_process.py) with only catalogctl installed.

Why one module: the finished run, the terminal run and the long-running program share one
way to kill a process group, one deadline and one failure message, and test_test_house.py
exempts exactly one file from its rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import shlex
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from signal import SIGTERM
from types import TracebackType
from typing import IO, Any

TIMEOUT = 60.0  # seconds a command or a wait may take unless the test says otherwise
POLL = 0.05  # seconds between two looks at a state that no event announces
SHOWN = 4000  # characters of a program's output quoted when a test fails on it

Arg = str | os.PathLike[str]


def cli(*args: Arg) -> list[str]:
    """The command line of `catalogctl ARGS` as the tests run it: `python -m catalogctl` with
    this interpreter (this checkout, or in CI the installed wheel)."""
    return [sys.executable, "-m", "catalogctl", *map(str, args)]


def _tail(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text or ""
    return text if len(text) <= SHOWN else "…" + text[-SHOWN:]


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL to the program and everything it started (its own process group; Windows
    has no groups: the program alone)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()


def _terminal(columns: int) -> tuple[int, int]:
    """A pseudo-terminal `columns` wide that passes line ends as written: (master, slave)."""
    import fcntl  # POSIX's, as pseudo-terminals are: imported where one is made
    import pty
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # "\n" stays "\n", not "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    return master, slave


def _read_terminal(master: int, into: list[bytes]) -> None:
    """What the program writes on its terminal, until the last writer closes it."""
    with contextlib.suppress(OSError):  # EIO: the terminal is closed
        while data := os.read(master, 65536):
            into.append(data)


def _terminal_output(reader: threading.Thread, read: list[bytes], deadline: float) -> str:
    """What `reader` read from the terminal once the program's last process closed it."""
    reader.join(max(0.0, deadline - time.monotonic()))
    if reader.is_alive():  # a child of the program keeps the terminal open
        raise subprocess.TimeoutExpired("terminal", 0)
    return b"".join(read).decode("utf-8", "replace")


def run(
    argv: Sequence[Arg],
    *,
    cwd: Arg | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = TIMEOUT,
    check: bool = False,
    terminal: int | None = None,
    encoding: str | None = None,
    errors: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` to its end, its output captured as text; stdin is `input` (or empty).

    `env` is the whole environment (as for subprocess); `check` fails the test on an exit code
    other than 0. `terminal=COLUMNS` puts standard output on a pseudo-terminal that wide (the
    operating system's, not a pipe told to pass for one; COLUMNS is set and TTY_COMPATIBLE
    and FORCE_COLOR are dropped), standard error stays a pipe. Past `timeout` the program and
    its children are killed and the test fails with what they printed. `encoding` and
    `errors` decode the pipes (default: the locale's, strict); `encoding="utf-8",
    errors="surrogateescape"` keeps every byte (`out.encode("utf-8", "surrogateescape")`).
    """
    args = [os.fspath(a) for a in argv]
    deadline = time.monotonic() + timeout
    master, slave = _terminal(terminal) if terminal is not None else (-1, -1)
    if terminal is not None:
        env = {**(env if env is not None else os.environ), "COLUMNS": str(terminal)}
        env = {k: v for k, v in env.items() if k not in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    on_terminal: list[bytes] = []
    reader = threading.Thread(target=_read_terminal, args=(master, on_terminal), daemon=True)
    try:
        with subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
            stdout=subprocess.PIPE if terminal is None else slave,
            stderr=subprocess.PIPE,
            text=True,
            encoding=encoding,
            errors=errors,
            start_new_session=True,
        ) as proc:
            if terminal is not None:
                os.close(slave)
                slave = -1
                reader.start()
            try:
                out, err = proc.communicate(input, timeout=timeout)
                if terminal is not None:
                    out = _terminal_output(reader, on_terminal, deadline)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                out, err = proc.communicate(timeout=TIMEOUT)
                raise AssertionError(
                    f"`{shlex.join(args)}` did not finish in {timeout:g} s (killed); it "
                    f"printed:\n{_tail(out or b''.join(on_terminal))}\n{_tail(err)}"
                ) from None
            except BaseException:
                _kill_group(proc)
                raise
    finally:
        if reader.is_alive():  # the program is killed: its terminal closes
            reader.join(TIMEOUT)
        for fd in (slave, master):
            if fd >= 0:
                os.close(fd)
    done = subprocess.CompletedProcess(args, proc.returncode, out, err)
    if check and done.returncode != 0:
        raise AssertionError(
            f"`{shlex.join(args)}` exited {done.returncode}:\n{_tail(out)}\n{_tail(err)}"
        )
    return done


def run_cli(
    *args: Arg,
    cwd: Arg | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = TIMEOUT,
    terminal: int | None = None,
    encoding: str | None = None,
    errors: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`catalogctl ARGS`, run to its end as a user runs it (see `run`; `terminal=COLUMNS`
    for its standard output on a terminal that wide)."""
    return run(
        cli(*args),
        cwd=cwd,
        env=env,
        input=input,
        timeout=timeout,
        terminal=terminal,
        encoding=encoding,
        errors=errors,
    )


def cli_bytes(*args: Arg, cwd: Arg | None = None, timeout: float = TIMEOUT) -> tuple[int, bytes]:
    """`catalogctl ARGS` run to its end: its exit code and its standard output's bytes as
    written (a text pipe would read CRLF as LF)."""
    argv = cli(*args)
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"`{shlex.join(argv)}` did not finish in {timeout:g} s") from exc
    return done.returncode, done.stdout


_MEASURE = """\
import json, resource, subprocess, sys, time
started = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps([p.returncode, p.stdout, p.stderr, seconds, peak]))
"""


@dataclass(frozen=True)
class Measured:
    """A finished command with its wall time and its peak memory (resident set)."""

    proc: subprocess.CompletedProcess[str]
    seconds: float
    peak_mib: float


def measure(argv: Sequence[Arg], *, timeout: float = 120) -> Measured:
    """Run `argv` alone under a small Python parent that reads its peak memory from the
    kernel (the children of the test process share one figure); see `run`."""
    args = [os.fspath(a) for a in argv]
    outer = run([sys.executable, "-c", _MEASURE, *args], timeout=timeout, check=True)
    code, out, err, seconds, peak = json.loads(outer.stdout)
    return Measured(subprocess.CompletedProcess(args, code, out, err), seconds, peak)


def wait_until(
    check: Callable[[], object],
    *,
    timeout: float = TIMEOUT,
    what: str | None = None,
    pause: Callable[[float], object] = time.sleep,
) -> None:
    """Return once `check()` is true; fail the test if it is not within `timeout` seconds.

    For a state that no event announces (a file's length, a counter another process
    publishes): it is looked at every POLL seconds. `what` names it in the failure (by
    default the check's name); `pause` waits between two looks (`Program.wait_until`'s also
    ends when the program exits).
    """
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what or check.__name__}: not within {timeout:g} s")
        pause(POLL)  # between two looks: nothing announces this state


async def wait_until_async(
    check: Callable[[], Awaitable[bool]], *, timeout: float = TIMEOUT, what: str | None = None
) -> None:
    """`wait_until` for a check that awaits (on the test's event loop)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        if loop.time() >= deadline:
            raise AssertionError(f"{what or check.__name__}: not within {timeout:g} s")
        await asyncio.sleep(POLL)  # between two looks: nothing announces this state


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (for programs that need a number)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_answers(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts a connection on host:port."""
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True


def require_proc(what: str) -> None:
    """Raise, naming `what`, where there is no /proc to read (macOS, Windows): a helper that
    reads it would otherwise answer "none" or "dead" there, and the test pass for nothing.
    A test that uses one carries tests/conftest.py's `needs_proc` mark."""
    if not Path("/proc/self/stat").is_file():
        raise NotImplementedError(
            f"{what} reads /proc, which {sys.platform} lacks: mark the test `needs_proc`"
        )


def children(pid: int) -> set[int]:
    """The processes `pid` has started and not yet reaped (Linux); none once it is gone.
    Elsewhere (no /proc) it raises NotImplementedError."""
    require_proc("children()")
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return {int(child) for task in tasks for child in (task / "children").read_text().split()}
    except FileNotFoundError:
        return set()


class ProgramExited(AssertionError):
    """The program ended while the test waited for something else."""


_CLOSED = object()  # in the line queue: one of the program's output pipes reached its end


class Program:
    """A program that runs while the test talks to it, in its own process group.

    What it prints on the pipes it is given (`subprocess.PIPE`, the default for stderr) is
    read line by line by threads: `next_line` and `wait_for_line` take the lines in order,
    each with a deadline, and `printed()` returns them all for a failure message. `stop()`
    (or leaving a `with` block) ends it and every process it started.
    """

    name = "program"

    def __init__(
        self,
        argv: Sequence[Arg],
        *,
        cwd: Arg | None = None,
        env: Mapping[str, str] | None = None,
        stdin: int | IO[Any] | None = subprocess.DEVNULL,
        stdout: int | IO[Any] | None = subprocess.DEVNULL,
        stderr: int | IO[Any] | None = subprocess.PIPE,
        pass_fds: Sequence[int] = (),
        preexec_fn: Callable[[], object] | None = None,
    ) -> None:
        self.argv = [os.fspath(a) for a in argv]
        self.proc = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env=env,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            text=True,
            start_new_session=True,
            # Windows: its own console process group, so Ctrl+Break reaches it alone (`signal`).
            creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
            pass_fds=tuple(pass_fds),
            preexec_fn=preexec_fn,  # noqa: PLW1509 (a dup2 before exec, as systemd does)
        )
        self._lines: queue.Queue[object] = queue.Queue()
        self._printed: list[str] = []
        self._ended = False  # reaped, and what it left in its group killed
        self._open = 0
        self._readers = []
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                self._open += 1
                reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
                reader.start()
                self._readers.append(reader)

    def _read(self, stream: IO[str]) -> None:
        with contextlib.suppress(ValueError, OSError):  # closed by stop()
            for line in stream:
                self._printed.append(line)
                self._lines.put(line.rstrip("\n"))
        self._lines.put(_CLOSED)

    def printed(self) -> str:
        """Everything read from the program's pipes so far."""
        return "".join(self._printed)

    def describe(self) -> str:
        """The command and what it printed, for a failure message."""
        return f"`{shlex.join(self.argv)}` printed:\n{_tail(self.printed())}"

    def next_line(self, *, timeout: float = TIMEOUT) -> str | None:
        """The program's next line (stdout and stderr as they come); None once it closed them."""
        deadline = time.monotonic() + timeout
        while self._open:
            try:
                item = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"{self.name} printed no line in {timeout:g} s; {self.describe()}"
                ) from None
            if item is _CLOSED:
                self._open -= 1
                continue
            assert isinstance(item, str)
            return item
        return None

    def wait_for_line(
        self, matches: str | Callable[[str], object], *, timeout: float = TIMEOUT
    ) -> str:
        """The next line that contains `matches` (or for which `matches(line)` is true)."""
        deadline = time.monotonic() + timeout
        wanted = repr(matches) if isinstance(matches, str) else "the line waited for"
        while True:
            line = self.next_line(timeout=max(0.0, deadline - time.monotonic()))
            if line is None:
                self.wait(timeout=TIMEOUT)
                raise AssertionError(
                    f"{self.name} exited {self.proc.returncode} before printing {wanted}; "
                    + self.describe()
                )
            if matches in line if isinstance(matches, str) else matches(line):
                return line

    def _reap(self, timeout: float) -> int:
        """Wait up to `timeout` for the program's exit (TimeoutExpired past it); then kill
        what it left running in its group, at once, while the group id is still its own."""
        code = self.proc.wait(timeout)
        if not self._ended:
            self._ended = True
            _kill_group(self.proc)
        return code

    def _pause(self, seconds: float) -> None:
        """Wait `seconds`, or fail at once if the program exits meanwhile."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self._reap(seconds)
            raise ProgramExited(f"{self.name} exited {code}; {self.describe()}")

    def wait_until(
        self, check: Callable[[], object], *, timeout: float = TIMEOUT, what: str | None = None
    ) -> None:
        """`wait_until`, failing at once (with the program's output) if the program exits."""
        try:
            wait_until(check, timeout=timeout, what=what, pause=self._pause)
        except ProgramExited:
            raise
        except AssertionError as failed:
            raise AssertionError(f"{failed}; {self.describe()}") from None

    def signal(self, sig: int) -> None:
        """Send `sig`; on Windows, where SIGTERM or SIGINT sent to another process would
        terminate it on the spot, a stop is Ctrl+Break (SIGBREAK, which serve stops on)."""
        if sys.platform == "win32" and sig in (signal.SIGTERM, signal.SIGINT):
            sig = signal.CTRL_BREAK_EVENT
        self.proc.send_signal(sig)

    def wait(self, *, timeout: float = TIMEOUT) -> int:
        """The exit code, once the program has exited; past `timeout` it is killed (with what
        it started) and the test fails."""
        try:
            return self._reap(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"{self.name} did not exit in {timeout:g} s (killed); {self.describe()}"
            ) from None

    def stop(self, sig: int = SIGTERM, *, timeout: float = 30) -> int:
        """Ask the program to end with `sig` and wait for it (see `wait`); then end whatever
        it left behind in its group and close the pipes. The exit code."""
        try:
            if not self._ended:
                self.signal(sig)
            return self.wait(timeout=timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        """SIGKILL to the program and its whole process group, then close the pipes."""
        if not self._ended:
            _kill_group(self.proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._reap(TIMEOUT)
        for reader in self._readers:
            reader.join(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Program:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.stop()
        else:
            self.kill()


class Server(Program):
    """A `Program` that answers on `url` once `ready()` returns it.

    A server that exits or does not get ready within `start_timeout` is killed and the test
    fails with what it printed.
    """

    name = "server"
    start_timeout = TIMEOUT
    url: str

    def __init__(self, argv: Sequence[Arg], **options: Any) -> None:
        super().__init__(argv, **options)
        try:
            self.url = self.ready()
        except BaseException:
            self.kill()
            raise

    def ready(self) -> str:
        """Wait (until `start_timeout`) for the server to answer; its URL."""
        raise NotImplementedError

    def __enter__(self) -> Server:
        return self
