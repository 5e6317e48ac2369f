"""schemathesis (`st run openapi.json --url ...`, every default check) against `catalogctl serve`.

SPEC §7 answers every method but GET and HEAD with 403, where schemathesis' probe for
undeclared methods expects 405; the OpenAPI document declares GET and HEAD only (and cannot
declare QUERY at all in OpenAPI 3.1), so those probes are filtered out with `--exclude-method`.
The conformance suite checks the 403s instead (`check_methods_forbidden`).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, generate_catalog
from tests.processes import run
from tests.serve_process import ServeProcess

REJECTED = ("POST", "PUT", "PATCH", "DELETE", "TRACE", "OPTIONS", "QUERY")


def _st() -> str:
    found = shutil.which("st") or str(Path(sys.executable).with_name("st"))
    assert Path(found).exists(), "schemathesis' `st` is part of the test dependencies"
    return found


@pytest.fixture(scope="module", params=["sample+access-log", "sample", "generated-300+access-log"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    root = SAMPLE
    tmp = tmp_path_factory.mktemp("st")
    if request.param.startswith("generated"):
        root = generate_catalog(tmp / "content", 300)
    log = tmp / "access.log" if request.param.endswith("access-log") else None
    proc = ServeProcess(str(root), access_log=log)
    try:
        yield proc.url
    finally:
        assert proc.stop() == 0


def assert_schemathesis_passes(base_url: str, workdir: Path) -> None:
    """`st run` with every default check against a delivery of the catalog: no failure."""
    cmd = [_st(), "run", f"{base_url}/openapi.json", "--url", base_url, "--seed", "1"]
    for method in REJECTED:
        cmd += ["--exclude-method", method]
    result = run(cmd, timeout=300, cwd=workdir)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "passed" in result.stdout and "failures" not in result.stdout.split("SUMMARY")[-1]


def test_serve_schemathesis_finds_nothing(server: str, tmp_path: Path) -> None:
    assert_schemathesis_passes(server, tmp_path)
