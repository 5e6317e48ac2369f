"""The SPEC.md conformance suite and schemathesis against nginx running the generated config.

The same deliveries as `test_conformance_serve.py` (the sample, a generated catalog of 300
games, a deprecated v1 with §9 headers), each built with `write_site` + `nginx_files` exactly
as `catalogctl build` does, and served by `nginx -p DIR -c nginx/nginx.conf`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.contract.routes import Site
from catalogctl.site.readback import read_build
from catalogctl.site.render import render
from tests.conformance import ALL_CHECKS, Check
from tests.conftest import SAMPLE, ContentFactory, generate_catalog
from tests.nginx_process import NginxProcess, free_port, write_build
from tests.test_conformance_serve import DEPRECATED_SITE
from tests.test_schemathesis import assert_schemathesis_passes


def _contents(tmp: Path) -> Iterator[tuple[str, Path]]:
    yield "sample", SAMPLE
    yield "build-300", generate_catalog(tmp / "generated", 300)
    yield "deprecated", ContentFactory(tmp)(site=DEPRECATED_SITE, name="deprecated")


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, Site]]]:
    tmp = tmp_path_factory.mktemp("nginx-conformance")
    running: list[NginxProcess] = []
    out: dict[str, tuple[str, Site]] = {}
    try:
        for name, content in _contents(tmp):
            port = free_port()
            build = write_build(render(load_catalog(content)), tmp / f"dist-{name}", port)
            running.append(NginxProcess(build, port))
            out[name] = (running[-1].url, read_build(build))
        yield out
    finally:
        codes = [server.stop() for server in running]
    assert codes == [0] * len(running), f"nginx exit codes on SIGQUIT: {codes}"


@pytest.mark.parametrize("delivery", ["sample", "build-300", "deprecated"])
@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_nginx_conformance(
    check: Check, delivery: str, deliveries: dict[str, tuple[str, Site]]
) -> None:
    base_url, site = deliveries[delivery]
    check(base_url, site)


@pytest.mark.parametrize("delivery", ["sample", "build-300"])
def test_nginx_schemathesis_finds_nothing(
    delivery: str, deliveries: dict[str, tuple[str, Site]], tmp_path: Path
) -> None:
    base_url, _ = deliveries[delivery]
    assert_schemathesis_passes(base_url, tmp_path)
