"""Run nginx on a build's generated configuration, on 127.0.0.1 and a free port."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from pathlib import Path

from catalogctl.contract.routes import Site
from catalogctl.site.build import write_site
from catalogctl.site.nginx import NGINX_CONF, nginx_files


def nginx() -> str:
    """The nginx executable; the calling test skips (fails in CI) without the Debian package."""
    from tests.conftest import require_program

    return require_program("nginx", package="nginx")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def state_dir(build: Path) -> Path:
    """nginx's pid file, error log and temp files for `build`: beside it, never inside."""
    return build.parent / f"{build.name}.nginx-state"


def write_build(site: Site, out: Path, port: int) -> Path:
    """`catalogctl build` of `site` into `out`, with nginx listening on `port`."""
    state = state_dir(out)
    state.mkdir(parents=True, exist_ok=True)
    extra = nginx_files(site, listen=f"127.0.0.1:{port}", state_dir=str(state.absolute()))
    write_site(site, out, extra=extra, force=True)
    return out


class NginxProcess:
    """`nginx -p DIR -c nginx/nginx.conf -g 'daemon off;'`, as docs/deploy/nginx.md says."""

    def __init__(
        self, build: Path, port: int, *, conf: str = NGINX_CONF, exe: str | None = None
    ) -> None:
        """`exe`: the nginx to run (benchmarks find their own; tests use `nginx()`)."""
        exe = exe or nginx()
        self.build = build
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [exe, "-p", str(build), "-c", conf, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited {self.proc.returncode}: {self.errors()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                return
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"nginx did not listen on {port}: {self.errors()}")

    def errors(self) -> str:
        log = state_dir(self.build) / "error.log"
        text = log.read_text() if log.exists() else ""
        if self.proc.poll() is not None and self.proc.stderr is not None:
            text += self.proc.stderr.read()
        return text

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finish requests, then exit
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        return self.proc.returncode
