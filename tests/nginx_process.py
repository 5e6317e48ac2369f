"""Run nginx on a build's generated configuration, on 127.0.0.1 and a free port."""

from __future__ import annotations

import signal
from pathlib import Path

from catalogctl.contract.routes import Site
from catalogctl.site.build import write_site
from catalogctl.site.nginx import NGINX_CONF, nginx_files
from tests.processes import Server, free_port, port_answers

__all__ = ["NginxProcess", "free_port", "nginx", "state_dir", "write_build"]


def nginx() -> str:
    """The nginx executable; the calling test skips (fails in CI) without the Debian package."""
    from tests.conftest import require_program

    return require_program("nginx", package="nginx")


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


class NginxProcess(Server):
    """`nginx -p DIR -c nginx/nginx.conf -g 'daemon off;'`, as docs/deploy/nginx.md says."""

    name = "nginx"
    start_timeout = 30.0

    def __init__(
        self, build: Path, port: int, *, conf: str = NGINX_CONF, exe: str | None = None
    ) -> None:
        """`exe`: the nginx to run (benchmarks find their own; tests use `nginx()`)."""
        self.build = build
        self.port = port
        super().__init__([exe or nginx(), "-p", build, "-c", conf, "-g", "daemon off;"])

    def ready(self) -> str:
        self.wait_until(
            lambda: port_answers(self.port),
            timeout=self.start_timeout,
            what=f"nginx listening on 127.0.0.1:{self.port}",
        )
        return f"http://127.0.0.1:{self.port}"

    def describe(self) -> str:
        """What nginx printed, and its error log."""
        log = state_dir(self.build) / "error.log"
        errors = log.read_text(errors="replace")[-4000:] if log.exists() else "(none)"
        return f"{super().describe()}\nerror log:\n{errors}"

    def stop(self, sig: int | None = None, *, timeout: float = 10) -> int:
        """SIGQUIT unless told: nginx finishes the requests in flight, then exits. (Looked up
        here, not at import: Windows' signal module has no SIGQUIT, and the modules that
        import this one are collected there too.)"""
        return super().stop(signal.SIGQUIT if sig is None else sig, timeout=timeout)
