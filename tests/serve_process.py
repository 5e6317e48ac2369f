"""Run `catalogctl serve` as a subprocess on 127.0.0.1 and a free port (for real-socket tests)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tests.processes import Arg, Server, children, cli, require_proc, wait_until

START_TIMEOUT = 60.0


def loading_process(parent: int, timeout: float = 30.0) -> int:
    """The pid of the process `parent` spawned to load a catalog for a reload (Linux: read from
    /proc), once it exists; each reload loads in one (catalogctl/sources/isolated.py).
    Elsewhere (no /proc) it raises NotImplementedError."""
    require_proc("loading_process()")
    found: list[int] = []

    def started() -> bool:
        for child in children(parent):
            try:
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(child)
                    return True
            except FileNotFoundError:
                continue
        return False

    wait_until(started, timeout=timeout, what=f"a loading process of {parent}")
    return found[0]


def reload_timeout(seconds: float) -> tuple[str, ...]:
    """A program that runs `python -m catalogctl serve ...` (the arguments after it) with
    reloads abandoned after `seconds` instead of five minutes:
    `ServeProcess(..., prefix=reload_timeout(1))`."""
    return (
        sys.executable,
        "-c",
        "import dataclasses, runpy, sys\n"
        "import catalogctl.serve.server as server\n"
        "serve = server.serve\n"
        "server.serve = lambda source, options, **kw: serve(\n"
        f"    source, dataclasses.replace(options, reload_timeout={seconds!r}), **kw)\n"
        "sys.argv = ['catalogctl', *sys.argv[4:]]\n"
        "runpy.run_module('catalogctl', run_name='__main__', alter_sys=True)\n",
    )


RELOAD_TIMEOUT_1S = reload_timeout(1.0)

# serve with a SIGHUP sent to itself while it loads the site, before it listens (as
# `systemctl reload` right after `systemctl start` does to a large site).
HANGUP_WHILE_LOADING = (
    sys.executable,
    "-c",
    "import os, runpy, signal, sys\n"
    "from catalogctl.sources.served import SiteInput\n"
    "load, main = SiteInput.load, os.getpid()\n"
    "def load_after_a_hangup(self, *args, **kw):\n"
    "    if os.getpid() == main and not getattr(SiteInput, 'hung_up', False):\n"
    "        SiteInput.hung_up = True\n"
    "        os.kill(main, signal.SIGHUP)\n"
    "    return load(self, *args, **kw)\n"
    "SiteInput.load = load_after_a_hangup\n"
    "sys.argv = ['catalogctl', *sys.argv[4:]]\n"
    "runpy.run_module('catalogctl', run_name='__main__', alter_sys=True)\n",
)


def alive(pid: int) -> bool:
    """Whether process `pid` runs (Linux: a zombie, dead but not yet reaped, does not).
    Elsewhere (no /proc) it raises NotImplementedError, rather than say "dead"."""
    require_proc("alive()")
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def connections_per_process(where: int | Path, pids: Iterable[int]) -> dict[int, int]:
    """How many connections to `where` (a local TCP port, or a Unix socket's path) each of
    `pids` holds (Linux: read from /proc, as `ss -tnp` or `ss -xp` does). Elsewhere (no
    /proc) it raises NotImplementedError, rather than say "none"."""
    require_proc("connections_per_process()")
    sockets = set()
    if isinstance(where, Path):
        with contextlib.suppress(FileNotFoundError):
            for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
                fields = line.split()
                if fields[5] == "03" and fields[7:] == [str(where)]:  # 03: connected
                    sockets.add(f"socket:[{fields[6]}]")
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if isinstance(where, Path):
            break
        with contextlib.suppress(FileNotFoundError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                if fields[3] == "01" and local_port == where:  # 01: ESTABLISHED
                    sockets.add(f"socket:[{fields[9]}]")
    held = {}
    for pid in pids:
        held[pid] = 0
        with contextlib.suppress(FileNotFoundError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):  # closed meanwhile
                    held[pid] += str(fd.readlink()) in sockets
    return held


# Runs `python -m catalogctl serve ...` with workers that crash as they start while the file
# that environment variable FAIL_START_IF names exists (a fault no real catalog can cause on
# demand): `ServeProcess(..., prefix=FAILING_WORKERS, env=...)`.
FAILING_WORKERS = (
    sys.executable,
    "-c",
    "import os, runpy, sys\n"
    "from catalogctl.serve.worker import Worker\n"
    "run = Worker.run\n"
    "def failing_run(self, *args, **kw):\n"
    "    if os.path.exists(os.environ['FAIL_START_IF']):\n"
    "        raise MemoryError('the test made this worker fail as it started')\n"
    "    return run(self, *args, **kw)\n"
    "Worker.run = failing_run\n"
    "sys.argv = ['catalogctl', *sys.argv[4:]]\n"
    "runpy.run_module('catalogctl', run_name='__main__', alter_sys=True)\n",
)


class ServeProcess(Server):
    """`catalogctl serve ARGS --port 0 --log-format json`; `url` is read from its first event.

    `events` holds the JSON lines of stderr read so far (a line that is not JSON is kept as
    `{"message": line}`); `wait_for` reads on to the next one that matches.
    """

    name = "serve"
    start_timeout = START_TIMEOUT

    def __init__(
        self,
        *args: str,
        quiet: bool = True,
        access_log: Path | None = None,
        cwd: Path | None = None,
        listen: tuple[str, ...] = ("--host", "127.0.0.1", "--port", "0"),
        env: dict[str, str] | None = None,
        prefix: tuple[Arg, ...] = (),
        preexec_fn: Callable[[], object] | None = None,
    ) -> None:
        """`access_log`: write access lines (JSON) to that file; else `quiet` turns them off
        (or not: they go to stdout, which nobody reads). `prefix`: a program that starts
        serve (as systemd-socket-activate does); `preexec_fn`: run before it starts (a
        resource limit set as a shell's `ulimit` does)."""
        cmd = [*prefix, *cli("serve", *args, *listen, "--log-format", "json")]
        if access_log is not None:
            cmd += ["--access-log", str(access_log)]
        elif quiet:
            cmd.append("--quiet")
        self.events: list[dict[str, object]] = []
        super().__init__(cmd, cwd=cwd, env=env, preexec_fn=preexec_fn)

    def ready(self) -> str:
        return str(self.wait_for("", event="listening", timeout=self.start_timeout)["url"])

    def wait_for(
        self, text: str, *, event: str | None = None, timeout: float = 60.0
    ) -> dict[str, object]:
        """The next stderr event whose message contains `text` (or whose event is `event`)."""

        def matches(line: str) -> bool:
            item: dict[str, object] = (
                json.loads(line) if line.startswith("{") else {"message": line}
            )
            self.events.append(item)
            if event is not None:
                return item.get("event") == event
            return text in str(item.get("message", ""))

        found = self.wait_for_line(matches, timeout=timeout)
        assert self.events and found  # the matching event is the last one read
        return self.events[-1]
