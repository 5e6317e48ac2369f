"""Run `catalogctl serve` as a subprocess on 127.0.0.1 and a free port (for real-socket tests)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path


class ServeProcess:
    """`catalogctl serve ARGS --port 0 --log-format json`; `url` is read from its first line."""

    def __init__(self, *args: str, quiet: bool = True, cwd: Path | None = None) -> None:
        cmd = [sys.executable, "-m", "catalogctl", "serve", *args]
        cmd += ["--host", "127.0.0.1", "--port", "0", "--log-format", "json"]
        if quiet:
            cmd.append("--quiet")
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        self.events: list[dict[str, object]] = []
        self.url = ""
        for event in self.stderr_events():
            if event.get("event") == "listening":
                self.url = str(event["url"])
                return
        self.proc.wait(10)
        raise AssertionError(f"serve did not start (exit {self.proc.returncode})")

    def stderr_events(self):  # type: ignore[no-untyped-def]
        """Yield the JSON lines serve writes to stderr, as they come (blocks)."""
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            event = json.loads(line) if line.startswith("{") else {"message": line.rstrip()}
            self.events.append(event)
            yield event

    def wait_for(self, text: str) -> dict[str, object]:
        """Block until a stderr line whose message contains `text`."""
        for event in self.stderr_events():
            if text in str(event.get("message", "")):
                return event
        raise AssertionError(f"serve exited before logging {text!r}: {self.events}")

    def signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def stop(self, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            for stream in (self.proc.stderr, self.proc.stdout):
                if stream is not None:
                    stream.close()
