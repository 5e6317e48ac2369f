"""Run `catalogctl serve` as a subprocess on 127.0.0.1 and a free port (for real-socket tests)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

START_TIMEOUT = 60.0


class ServeProcess:
    """`catalogctl serve ARGS --port 0 --log-format json`; `url` is read from its first line.

    A thread reads stderr so that every wait has a deadline: a server that hangs fails the
    test instead of hanging the run.
    """

    def __init__(
        self,
        *args: str,
        quiet: bool = True,
        access_log: Path | None = None,
        cwd: Path | None = None,
        listen: tuple[str, ...] = ("--host", "127.0.0.1", "--port", "0"),
        env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = (),
    ) -> None:
        """`access_log`: write access lines (JSON) to that file; else `quiet` turns them off
        or sends them to a pipe (`self.proc.stdout`)."""
        cmd = [*prefix, sys.executable, "-m", "catalogctl", "serve", *args, *listen]
        cmd += ["--log-format", "json"]
        if access_log is not None:
            cmd += ["--access-log", str(access_log)]
            quiet = True  # nothing on stdout
        elif quiet:
            cmd.append("--quiet")
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=env,
        )
        self.events: list[dict[str, object]] = []
        self._lines: queue.Queue[dict[str, object] | None] = queue.Queue()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        try:
            self.url = str(self.wait_for("", event="listening", timeout=START_TIMEOUT)["url"])
        except AssertionError:
            self.stop()
            raise

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            event = json.loads(line) if line.startswith("{") else {"message": line.rstrip()}
            self._lines.put(event)
        self._lines.put(None)

    def wait_for(
        self, text: str, *, event: str | None = None, timeout: float = 60.0
    ) -> dict[str, object]:
        """The next stderr line whose message contains `text` (or whose event is `event`)."""
        while True:
            try:
                item = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"serve logged no {text or event!r} in {timeout} s") from None
            if item is None:
                raise AssertionError(
                    f"serve exited before logging {text or event!r}: {self.events}"
                )
            self.events.append(item)
            if event is not None and item.get("event") == event:
                return item
            if event is None and text in str(item.get("message", "")):
                return item

    def signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def stop(self, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()
