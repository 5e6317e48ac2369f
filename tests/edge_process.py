"""Build a Cloudflare Workers project and run it on a local workerd, on 127.0.0.1 and a free port.

The project is what `catalogctl build --target cloudflare` writes; workerd runs its
`cloudflare/workerd.capnp`, as docs/deploy/cloudflare.md says, with the files of `public/`
behind the Worker's `ASSETS` binding. workerd is the runtime of
Cloudflare Workers (and of `wrangler dev`); it needs no account, no network and sends no
telemetry. It comes from the npm registry (`.ci/run` installs the pinned release).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from catalogctl.site.cloudflare import WORKERD_CAPNP, WORKERD_VERSION

INSTALL = f"npm install --global workerd@{WORKERD_VERSION}"
START_TIMEOUT = 20.0


def workerd_binary() -> str:
    """workerd on PATH; skip (fail under CATALOGCTL_REQUIRE_SYSTEM_TESTS) saying how to get it."""
    found = shutil.which("workerd")
    if found is not None:
        return found
    # Imported here: bench_edge.py loads this module without pytest (`pip install .`).
    import pytest

    from tests.conftest import REQUIRE_SYSTEM_TESTS, require_program

    require_program("npm", package="npm")  # Debian's npm brings nodejs
    message = f"workerd is not on PATH: install it from the npm registry ({INSTALL})"
    if os.environ.get(REQUIRE_SYSTEM_TESTS, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_SYSTEM_TESTS} is set)", pytrace=False)
    raise pytest.skip.Exception(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_project(content: Path, out: Path, *extra: str) -> Path:
    """`catalogctl build CONTENT --out OUT --target cloudflare`, as a studio runs it."""
    cmd = [sys.executable, "-m", "catalogctl", "build", str(content), "--out", str(out)]
    cmd += ["--target", "cloudflare", "--force", *extra]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    return out


class WorkerdProcess:
    """`workerd serve DIR/cloudflare/workerd.capnp --socket-addr http=127.0.0.1:PORT`.

    It runs from the directory above the build: the configuration needs no working directory.
    """

    def __init__(self, build: Path, port: int | None = None) -> None:
        workerd = workerd_binary()
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = build.with_name(f"{build.name}.workerd.log")
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    workerd,
                    "serve",
                    str((build / WORKERD_CAPNP).absolute()),
                    "--socket-addr",
                    f"http=127.0.0.1:{self.port}",
                ],
                cwd=build.parent,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"workerd exited {self.proc.returncode}: {self.output()}")
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            time.sleep(0.02)
        self.stop()
        raise AssertionError(f"workerd did not listen on {self.port}: {self.output()}")

    def output(self) -> str:
        return self.log.read_text("utf-8", "replace") if self.log.exists() else ""

    def stop(self) -> int:
        """SIGTERM, then the exit code (workerd exits at once, dropping open connections)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode
