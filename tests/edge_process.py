"""Build a Cloudflare Workers project and run it on a local workerd, on 127.0.0.1 and a free port.

The project is what `catalogctl build --target cloudflare` writes; workerd runs its
`cloudflare/workerd.capnp`, as docs/deploy/cloudflare.md says, with the files of `public/`
behind the Worker's `ASSETS` binding. workerd is the runtime of
Cloudflare Workers (and of `wrangler dev`); it needs no account, no network and sends no
telemetry. It comes from the npm registry (`.ci/run` installs the pinned release).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from catalogctl.site.cloudflare import WORKERD_CAPNP, WORKERD_VERSION
from tests.processes import Arg, Server, free_port, port_answers, run_cli

__all__ = ["INSTALL", "WorkerdProcess", "build_project", "free_port", "workerd_binary"]

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


def build_project(content: Path, out: Path, *extra: str) -> Path:
    """`catalogctl build CONTENT --out OUT --target cloudflare`, as a studio runs it."""
    args: list[Arg] = ["build", content, "--out", out, "--target", "cloudflare", "--force", *extra]
    result = run_cli(*args, timeout=120)
    assert result.returncode == 0, result.stderr
    return out


class WorkerdProcess(Server):
    """`workerd serve DIR/cloudflare/workerd.capnp --socket-addr http=127.0.0.1:PORT`.

    It runs from the directory above the build: the configuration needs no working directory.
    Its output (stdout and stderr) is read as it comes: `printed()`.
    """

    name = "workerd"
    start_timeout = START_TIMEOUT

    def __init__(self, build: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        capnp = (build / WORKERD_CAPNP).absolute()
        argv: list[Arg] = [workerd_binary(), "serve", capnp]
        argv += ["--socket-addr", f"http=127.0.0.1:{self.port}"]
        super().__init__(argv, cwd=build.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def ready(self) -> str:
        self.wait_until(
            lambda: port_answers(self.port),
            timeout=self.start_timeout,
            what=f"workerd listening on 127.0.0.1:{self.port}",
        )
        return f"http://127.0.0.1:{self.port}"

    def stop(self, sig: int = signal.SIGTERM, *, timeout: float = 10) -> int:
        """SIGTERM, then the exit code (workerd exits at once, dropping open connections)."""
        return super().stop(sig, timeout=timeout)
