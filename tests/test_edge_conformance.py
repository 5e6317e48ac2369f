"""The SPEC.md conformance suite and schemathesis against the Workers project on workerd.

The same deliveries as `test_conformance_serve.py` and `test_conformance_nginx.py` (the sample,
a generated catalog of 300 games, a deprecated v1 with §9 headers), each built by
`catalogctl build --target cloudflare` and run by workerd from the build directory.

Three checks send requests that workerd's HTTP server answers itself, before any Worker code
runs: they are expected to fail (strictly: one that starts passing fails too), and the tests
below them hold the rest of what those checks hold, and the runtime's own answers
(docs/deploy/cloudflare.md lists them under "Limits").
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogctl.contract.routes import Site
from catalogctl.site.readback import read_build
from tests.conformance import (
    ALL_CHECKS,
    API_V1,
    Check,
    check_hostile_paths,
    check_http10_and_keepalive,
    check_unknown_method_forbidden,
    expect_document,
    expect_html,
    expect_problem,
    raw_request,
    request,
)
from tests.conformance import _read_reply as read_reply
from tests.conftest import SAMPLE, ContentFactory, generate_catalog
from tests.edge_process import WorkerdProcess, build_project
from tests.test_conformance_serve import DEPRECATED_SITE
from tests.test_schemathesis import assert_schemathesis_passes


def _contents(tmp: Path) -> Iterator[tuple[str, Path]]:
    yield "sample", SAMPLE
    yield "build-300", generate_catalog(tmp / "generated", 300)
    yield "deprecated", ContentFactory(tmp)(site=DEPRECATED_SITE, name="deprecated")


@pytest.fixture(scope="module")
def deliveries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, Site]]]:
    tmp = tmp_path_factory.mktemp("edge-conformance")
    running: list[WorkerdProcess] = []
    out: dict[str, tuple[str, Site]] = {}
    try:
        for name, content in _contents(tmp):
            build = build_project(content, tmp / f"dist-{name}")
            running.append(WorkerdProcess(build))
            out[name] = (running[-1].url, read_build(build))
        yield out
    finally:
        codes = [server.stop() for server in running]
    assert codes == [0] * len(running), f"workerd exit codes on SIGTERM: {codes}"


# What workerd answers itself, whatever the Worker (docs/deploy/cloudflare.md, "Limits").
RUNTIME_ANSWERS: dict[Check, str] = {
    check_unknown_method_forbidden: "workerd answers a method it does not know (FOO) with 501",
    check_hostile_paths: "workerd refuses a request target holding < > or ` with 400",
    check_http10_and_keepalive: "workerd refuses a request without Host (HTTP/1.0) with 400",
}
CHECKS = [
    pytest.param(
        check,
        id=check.__name__,
        marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)]
        if (reason := RUNTIME_ANSWERS.get(check))
        else [],
    )
    for check in ALL_CHECKS
]
DELIVERIES = ["sample", "build-300", "deprecated"]


@pytest.mark.parametrize("delivery", DELIVERIES)
@pytest.mark.parametrize("check", CHECKS)
def test_edge_conformance(
    check: Check, delivery: str, deliveries: dict[str, tuple[str, Site]]
) -> None:
    base_url, site = deliveries[delivery]
    check(base_url, site)


@pytest.mark.parametrize("delivery", ["sample", "build-300"])
def test_edge_schemathesis_finds_nothing(
    delivery: str, deliveries: dict[str, tuple[str, Site]], tmp_path: Path
) -> None:
    base_url, _ = deliveries[delivery]
    assert_schemathesis_passes(base_url, tmp_path)


# --- what the checks that workerd decides in part still hold ---------------------------------


@pytest.mark.parametrize("delivery", DELIVERIES)
def test_edge_methods_forbidden(delivery: str, deliveries: dict[str, tuple[str, Site]]) -> None:
    """`check_methods_forbidden` for every method workerd knows; FOO is the runtime's 501."""
    base_url, _ = deliveries[delivery]
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "QUERY"):
        for path in (API_V1, "/api/v1/games", "/api/nope", "/openapi.json", "/nope", "/"):
            body = b'{"x":1}' if method in ("POST", "PUT", "PATCH") else b""
            reply = request(base_url, path, method, {"Content-Type": "application/json"}, body)
            expect_html(reply, 403)
            assert reply.header("www-authenticate") is None, reply.request
    assert request(base_url, API_V1, "FOO").status == 501


@pytest.mark.parametrize("delivery", DELIVERIES)
def test_edge_hostile_paths(delivery: str, deliveries: dict[str, tuple[str, Site]]) -> None:
    """`check_hostile_paths` but for targets holding < > `, which workerd refuses (400)."""
    base_url, site = deliveries[delivery]
    for path in (
        '/api/a"b\\c',
        "/api/%22%5C%0A",
        '/api/"},"status":200,"x":{"',
        "/api/%00",
        "/api/%0d%0aSet-Cookie:%20x=1",
        "/api/\\u0000",
        "/api/'",
        "/api/{}[]|^",
        "/api/;a=b",
        "/api/a%2Fb",
        "/api/" + "a" * 3000,
    ):
        reply = request(base_url, path)
        expect_problem(site, reply, path)
        assert reply.header("set-cookie") is None, f"{reply.request}: header injection"
    for path in ("/api/<script>alert(1)</script>", "/api/{}[]|^`", "/api/`"):
        reply = request(base_url, path)
        assert reply.status == 400, reply.request
    # Bytes no request-target may carry: workerd refuses some, the Worker the rest (as serve).
    for raw in (b"/api/\x01x", b"/api/a\x7fb", "/api/é".encode(), b"/api/\tx"):
        reply = request(base_url, raw)
        assert reply.status == 400, reply.request
    expect_document(site, request(base_url, API_V1), API_V1)


@pytest.mark.parametrize("delivery", DELIVERIES)
def test_edge_http10_and_keepalive(delivery: str, deliveries: dict[str, tuple[str, Site]]) -> None:
    """HTTP/1.0 with a Host header works (workerd refuses one without); keep-alive works."""
    base_url, site = deliveries[delivery]
    netloc = base_url.removeprefix("http://")
    data = f"GET /api/v1 HTTP/1.0\r\nHost: {netloc}\r\n\r\n".encode()
    expect_document(site, raw_request(base_url, data, name="GET /api/v1 HTTP/1.0"), API_V1)
    bare = raw_request(base_url, b"GET /api/v1 HTTP/1.0\r\n\r\n", name="no Host")
    assert bare.status == 400, bare.request
    host, port = netloc.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        for i in range(2):
            sock.sendall(f"GET /api/v1 HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode())
            reply = read_reply(sock, head=False, name=f"keep-alive request {i + 1}")
            expect_document(site, reply, API_V1)
