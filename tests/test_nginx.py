"""The generated nginx configuration: files, options, and nginx answering exactly like serve.

nginx runs on 127.0.0.1 and a free port with `nginx -p DIR -c nginx/nginx.conf -g 'daemon
off;'`. The reference for every answer is serve's own request handler (`Table.answer`) on the
same route table: status, every header but Date/Server/Connection, and the body.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogctl.content.loader import load_catalog
from catalogctl.errors import InputError
from catalogctl.serve.server import Table
from catalogctl.site.nginx import MAX_ESCAPED, catalog_conf, nginx_conf, quote
from catalogctl.site.readback import read_build
from catalogctl.site.render import render
from tests.conformance import Reply, request
from tests.conftest import SAMPLE, ContentFactory, game_yaml, needs_proc
from tests.http_cases import choose_coding
from tests.nginx_process import NginxProcess, free_port, nginx, write_build
from tests.processes import run, run_cli

IGNORED = frozenset({"date", "server", "connection", "content-length"})
TARGETS = [
    "/api/v1",
    "/api/v1/games",
    "/api",
    "/openapi.json",
    "/.well-known/api-catalog",
    "/llms.txt",
    "/favicon.ico",
    "/api/v1?x=1&y",
    "/api/v1?a|b",
    "/api/v1/games?|",
    "/api/v1/",
    "/api/v1/games/",
    "/api/",
    "/api/v2",
    "/api//v1",
    "//api/v1",
    "/api/%76%31",
    "/%61pi/v1",
    "/api/v1/../v1",
    "/api/%00",
    "/api/../../etc/passwd",
    "/api/%zz",
    "/api/%22",
    "/api/a'b<c>{}|^`",
    '/api/x"y\\z',
    "/nope",
    "/",
    "/index.html",
    "/.catalogctl/403",
    "/.catalogctl/not-found",
]
ENCODINGS = [
    None,
    "gzip",
    "br",
    "gzip, deflate, br",
    "br;q=0.5, gzip",
    "gzip;q=0.5, br;q=0.5",
    "gzip;q=1.0, br;q=0.999",
    "gzip ; q=0.8 , br;q=0.9",
    "gzip;q=0, br;q=0",
    "*",
    "*;q=0",
    "br;q=0, *",
    "x-gzip",
    "GZIP",
    "identity",
    "identity;q=1, gzip;q=0.5",
    "deflate",
    # the fast path: plain tokens, no q-values
    "br, gzip, deflate",
    "deflate, x-gzip",
    "*, gzip",
    "BR",
    "brotli, gzip",
    "gzip,br",
    " gzip ,\tbr ",
    "gzip,,br",
    "gzip br",
    "identity, gzip",
    "gzip, deflate, br, zstd",
    "",
]


@pytest.fixture(scope="module")
def sample_nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[NginxProcess, Table]]:
    port = free_port()
    out = write_build(render(load_catalog(SAMPLE)), tmp_path_factory.mktemp("nx") / "dist", port)
    server = NginxProcess(out, port)
    try:
        yield server, Table(read_build(out))
    finally:
        assert server.stop() == 0


def _same_as_serve(
    reply: Reply, table: Table, method: str, target: str, ae: str | None, inm: str | None = None
) -> None:
    want = table.answer(method, target, ae, inm)
    got_headers = sorted((k, v) for k, v in reply.headers if k not in IGNORED)
    want_headers = sorted(
        (k.lower(), v) for k, v in want.headers.items() if k.lower() not in IGNORED
    )
    assert (reply.status, got_headers) == (want.status, want_headers), reply.request
    assert reply.body == (b"" if method == "HEAD" else want.body), reply.request


def _decided(table: Table, target: str, ae: str | None) -> str | None:
    """The coding the decisions choose (tests/http_cases.py), as the Accept-Encoding that
    makes serve's table send that variant (serve's own parser follows on its branch)."""
    res = table.site.resources.get(target)
    if res is None:
        return ae
    return choose_coding(ae, tuple(v.encoding for v in res.encoded))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "OPTIONS"])
def test_nginx_answers_like_serve(
    sample_nginx: tuple[NginxProcess, Table], method: str, target: str
) -> None:
    server, table = sample_nginx
    reply = request(server.url, target, method)
    _same_as_serve(reply, table, method, target, None)


@pytest.mark.parametrize("ae", ENCODINGS)
@pytest.mark.parametrize("target", ["/api/v1", "/api/v1/games", "/openapi.json", "/api/v9"])
def test_nginx_negotiates_like_serve(
    sample_nginx: tuple[NginxProcess, Table], target: str, ae: str | None
) -> None:
    server, table = sample_nginx
    reply = request(server.url, target, headers={} if ae is None else {"Accept-Encoding": ae})
    _same_as_serve(reply, table, "GET", target, _decided(table, target, ae))


def test_nginx_negotiates_like_serve_on_random_headers(
    sample_nginx: tuple[NginxProcess, Table],
) -> None:
    """Accept-Encoding values built from codings, q-values (malformed ones too) and
    separators, fixed seed; a coding may come twice (the first element counts)."""
    server, table = sample_nginx
    rng = random.Random(6)
    codings = [["gzip", "x-gzip", "GZip"], ["br", "Br"], ["*"], ["identity"], ["deflate"]]
    codings += [["brotli"], [""], [""], ["gzip"], ["br"]]
    qs = ["", ";q=0", ";q=1", ";q=0.5", ";q=0.001", ";q=1.0", ";q=0.999", ";q=.5", ";Q=0.7"]
    qs += [";q=2", ";q=-1", ";q=inf", ";q", "; level=1", ";q=0.5;x=y", " ; q=0.25 ", ";q=1.0000"]
    seps = [",", ", ", " , ", ",\t"]
    for _ in range(400):
        chosen = rng.sample(codings, rng.randint(1, 5))
        parts = [rng.choice(names) + rng.choice(qs) for names in chosen]
        ae = "".join(part + rng.choice(seps) for part in parts)[: -rng.randint(1, 2)]
        reply = request(server.url, "/api/v1", headers={"Accept-Encoding": ae})
        _same_as_serve(reply, table, "GET", "/api/v1", _decided(table, "/api/v1", ae))


@pytest.mark.parametrize("ae", [None, "gzip", "br"])
def test_nginx_if_none_match_like_serve(
    sample_nginx: tuple[NginxProcess, Table], ae: str | None
) -> None:
    """The exact ETag gets the configuration's own 304, like serve's; any other form that
    matches (a list, W/, `*`) nginx's, which repeats the Content-Encoding of a br or gzip
    variant (docs/reference/http.md)."""
    server, table = sample_nginx
    etag = table.answer("GET", "/api/v1/games", ae, None).etag
    other = table.answer("GET", "/api/v1/games", "gzip" if ae != "gzip" else None, None).etag
    for inm in [etag, f"W/{etag}", f'"x", {etag}', "*", '"nope"', other, etag.strip('"')]:
        headers = {"If-None-Match": inm, **({"Accept-Encoding": ae} if ae else {})}
        reply = request(server.url, "/api/v1/games", headers=headers)
        if reply.status == 304 and inm != etag and ae is not None:
            assert reply.header("content-encoding") == ae, reply.request
            reply.headers.remove(("content-encoding", ae))
        _same_as_serve(reply, table, "GET", "/api/v1/games", ae, inm)
    assert request(server.url, "/api/v1/games", headers={"If-None-Match": etag}).status == (
        304 if ae is None else 200
    )


@pytest.mark.parametrize(
    "path",
    [
        '/api/"',
        "/api/\\",
        '/api/\\"',
        '/api/"},"status":200,"x":"',
        "/api/" + '"\\' * 40,
        "/api/" + '"' * MAX_ESCAPED,
        "/api/" + "a" * 3000 + '"' * 100 + "b" * 3000,
    ],
    ids=["quote", "backslash", "escaped-quote", "injection", "mixed-80", "at-limit", "long"],
)
def test_nginx_not_found_instance_is_json_safe(
    sample_nginx: tuple[NginxProcess, Table], path: str
) -> None:
    server, table = sample_nginx
    reply = request(server.url, path + "?q=1")
    assert reply.status == 404
    body = json.loads(reply.body)
    assert body["instance"] == path and body["status"] == 404
    assert reply.body == table.site.not_found.body(path)


def test_nginx_not_found_beyond_the_escape_limit_is_a_bad_request(
    sample_nginx: tuple[NginxProcess, Table],
) -> None:
    server, _ = sample_nginx
    reply = request(server.url, "/api/" + '"' * (MAX_ESCAPED + 1))
    assert (reply.status, reply.media_type) == (400, "application/problem+json")


def test_nginx_non_ascii_target_is_a_bad_request_like_serve(
    sample_nginx: tuple[NginxProcess, Table],
) -> None:
    server, _ = sample_nginx
    for target in ["/api/é".encode(), b"/api/\xff", b"/\xc3\xa9"]:
        reply = request(server.url, target)
        assert (reply.status, reply.media_type) == (400, "application/problem+json"), target


def _directives(conf: str) -> list[str]:
    return [line.strip() for line in conf.splitlines() if not line.lstrip().startswith("#")]


def test_build_writes_nginx_configs(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    proc = run_cli("build", SAMPLE, "--out", out, "--nginx-listen", "127.0.0.1:9999")
    assert proc.returncode == 0, proc.stderr
    conf = (out / "nginx" / "nginx.conf").read_text()
    assert "listen 127.0.0.1:9999 " in conf
    assert not [d for d in _directives(conf) if d.startswith("daemon")]
    # nginx's state lives outside the build: a rebuild replaces the build directory.
    for directive in (
        "pid /run/catalogctl-nginx/nginx.pid;",
        "error_log /var/log/catalogctl-nginx/error.log warn;",
        "client_body_temp_path /run/catalogctl-nginx/client_body_temp;",
    ):
        assert directive in _directives(conf)
    assert "worker_connections 4096;" in _directives(conf)
    assert "worker_rlimit_nofile 4224;" in _directives(conf)  # + open file cache + margin
    for tuning in ("sendfile on;", "tcp_nopush on;", "open_file_cache max=", "access_log off;"):
        assert tuning in conf
    included = (out / "nginx" / "catalog.conf").read_text()
    assert not [d for d in _directives(included) if d.startswith(("server", "http", "listen"))]
    assert '"${catalogctl_build}/public/api/v1/games/index.json${catalogctl_sfx}"' in included
    assert str(tmp_path) not in conf + included
    state = tmp_path / "state"
    state.mkdir()
    proc = run_cli("build", SAMPLE, "--out", out, "--nginx-state-dir", state)
    assert proc.returncode == 0, proc.stderr
    conf = (out / "nginx" / "nginx.conf").read_text()
    assert f"pid {state}/nginx.pid;" in _directives(conf)
    assert f"error_log {state}/error.log warn;" in _directives(conf)
    test = run([nginx(), "-t", "-q", "-p", out, "-c", "nginx/nginx.conf"])
    assert test.returncode == 0, test.stderr
    assert not list((out / "nginx").glob("*.pid")) and not (out / "nginx" / "error.log").exists()


@pytest.mark.parametrize(
    ("state_dir", "reason"),
    [
        ("nginx-state", "absolute path"),
        ("/srv/$state", "may hold only"),
        ("/srv/a b", "may hold only"),
        ("/srv/x;\nuser root", "may hold only"),
    ],
)
def test_build_nginx_state_dir_invalid(tmp_path: Path, state_dir: str, reason: str) -> None:
    proc = run_cli("build", SAMPLE, "--out", tmp_path / "d", "--nginx-state-dir", state_dir)
    assert proc.returncode == 2
    said = " ".join(proc.stderr.replace("│", " ").split())  # rich wraps it in a box
    assert "--nginx-state-dir" in said and reason in said, said
    assert "Traceback" not in proc.stderr and not (tmp_path / "d").exists()


def test_build_nginx_listen_default(tmp_path: Path) -> None:
    assert run_cli("build", SAMPLE, "--out", tmp_path / "d").returncode == 0
    assert "listen 127.0.0.1:8080 " in (tmp_path / "d" / "nginx" / "nginx.conf").read_text()


@pytest.mark.parametrize("listen", ["", "127.0.0.1:80; evil", "a b", "{"])
def test_build_nginx_listen_invalid(tmp_path: Path, listen: str) -> None:
    proc = run_cli("build", SAMPLE, "--out", tmp_path / "d", "--nginx-listen", listen)
    assert proc.returncode == 2
    assert "--nginx-listen" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "d").exists()


def test_build_nginx_refuses_dollar_in_headers(tmp_path: Path) -> None:
    proc = run_cli("build", SAMPLE, "--out", tmp_path / "d", "--cache-control", "max-age=$x")
    assert proc.returncode == 2
    assert "'$'" in proc.stderr and "Traceback" not in proc.stderr


def test_nginx_quote_escapes_quotes_and_backslashes() -> None:
    assert quote('a"b\\c') == '"a\\"b\\\\c"'
    with pytest.raises(InputError):
        quote("$host")


def test_nginx_catalog_conf_inside_an_existing_server(
    tmp_path: Path, make_content: ContentFactory
) -> None:
    """The `include` of docs/deploy/nginx.md: the website keeps its own root and locations."""
    port = free_port()
    site = render(load_catalog(make_content()))
    out = write_build(site, tmp_path / "dist", port)
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text("<h1>website</h1>\n")
    conf = out / "nginx" / "site.conf"
    standalone = (out / "nginx" / "nginx.conf").read_text()
    head = standalone.split("http {")[0]
    conf.write_text(
        head
        + "http {\n  access_log off;\n"
        + "  client_body_temp_path nginx/client_body_temp;\n"
        + f"  server {{\n    listen 127.0.0.1:{port};\n    root {www};\n"
        + "    location / { try_files $uri $uri/index.html =404; }\n"
        + f"    set $catalogctl_build {out.absolute()};\n"
        + f"    include {out.absolute()}/nginx/catalog.conf;\n"
        + "    error_page 400 = /.catalogctl/bad-request;\n  }\n}\n"
    )
    assert catalog_conf(site) == (out / "nginx" / "catalog.conf").read_text()
    server = NginxProcess(out, port, conf="nginx/site.conf")
    try:
        assert request(server.url, "/").body == b"<h1>website</h1>\n"
        games = request(server.url, "/api/v1/games", headers={"Accept-Encoding": "gzip"})
        assert (
            games.status == 200
            and games.header("etag") == site.resources["/api/v1/games"].variant("gzip").etag
        )  # type: ignore[union-attr]
        missing = request(server.url, "/api/v1/nope")
        assert (missing.status, missing.media_type) == (404, "application/problem+json")
        assert json.loads(missing.body)["instance"] == "/api/v1/nope"
        assert request(server.url, "/api/v1", "DELETE").status == 403
        dots = request(server.url, "/api/../../x")
        assert json.loads(dots.body)["instance"] == "/api/../../x"
    finally:
        assert server.stop() == 0


def test_nginx_catalog_conf_without_the_build_directory_fails_the_config_test(
    tmp_path: Path,
) -> None:
    """Forgetting `set $catalogctl_build` is caught by `nginx -t`, not by clients getting 404s."""
    out = write_build(render(load_catalog(SAMPLE)), tmp_path / "dist", free_port())
    conf = out / "nginx" / "forgot.conf"
    standalone = (out / "nginx" / "nginx.conf").read_text()
    conf.write_text(
        standalone.split("http {")[0]
        + "http {\n  client_body_temp_path nginx/client_body_temp;\n"
        + f"  server {{\n    include {out.absolute()}/nginx/catalog.conf;\n  }}\n}}\n"
    )
    test = run([nginx(), "-t", "-q", "-p", out, "-c", "nginx/forgot.conf"])
    assert test.returncode != 0
    assert 'unknown "catalogctl_build" variable' in test.stderr


@pytest.mark.parametrize(("euid", "expected"), [(0, ["user root;"]), (1000, [])])
def test_nginx_conf_runs_workers_as_root_only_when_built_by_root(
    monkeypatch: pytest.MonkeyPatch, euid: int, expected: list[str]
) -> None:
    monkeypatch.setattr("os.geteuid", lambda: euid)
    conf = nginx_conf(render(load_catalog(SAMPLE), compress=False))
    assert [d for d in _directives(conf) if d.startswith("user ")] == expected


def _workers(master: int) -> set[int]:
    """The live child processes of nginx's master (its workers)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(master) and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


@needs_proc
def test_nginx_reload_after_a_rebuild_serves_matching_etag_and_body(
    tmp_path: Path, make_content: ContentFactory
) -> None:
    """`catalogctl build` into the directory a running nginx serves, then `nginx -s reload`.

    The rebuild replaces the build directory; the pid file is outside it, so the reload
    reaches the running nginx. Once the workers of the previous configuration are gone,
    every answer is the new build, with the ETag of exactly the bytes it sends.
    """
    port = free_port()
    old = render(load_catalog(make_content()))
    new = render(
        load_catalog(make_content({"gamma": game_yaml("Gamma"), "delta": game_yaml("Delta")}))
    )
    games = "/api/v1/games"
    new_variants = {
        v.etag: v.body for v in (new.resources[games].identity, *new.resources[games].encoded)
    }
    out = write_build(old, tmp_path / "dist", port)
    server = NginxProcess(out, port)
    try:
        for ae in ("", "gzip", "br"):  # warm nginx's open file cache with the old files
            reply = request(server.url, games, headers={"Accept-Encoding": ae})
            assert reply.status == 200
        before = _workers(server.proc.pid)
        assert before
        write_build(new, out, port)
        assert sorted(p.name for p in (out / "nginx").iterdir()) == ["catalog.conf", "nginx.conf"]
        reload = run([nginx(), "-p", out, "-c", "nginx/nginx.conf", "-s", "reload"])
        assert reload.returncode == 0, reload.stderr
        server.wait_until(
            lambda: not _workers(server.proc.pid) & before,
            timeout=15,
            what="the previous workers exiting",
        )
        for _ in range(20):  # every new worker, every encoding
            for ae in ("", "gzip", "br", "gzip, br"):
                reply = request(server.url, games, headers={"Accept-Encoding": ae})
                etag = reply.header("etag") or ""
                assert reply.status == 200 and new_variants.get(etag) == reply.body, (
                    f"{reply.request}: ETag {etag} does not name the bytes sent"
                )
    finally:
        assert server.stop() == 0


_CLIENT_REGEX = re.compile(r'if \((\$\S+) !?~\*? ("(?:[^"\\]|\\.)*"|\S+)\)')


def _repeats_a_group(regex: str) -> bool:
    """Whether a PCRE pattern quantifies a group (`(...)*`, `(...)+`, `(...){n}`): escapes and
    character classes skipped."""
    in_class, previous, i = False, "", 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            previous, i = "escape", i + 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch in "*+{" and previous == ")":
            return True
        previous, i = ch, i + 1
    return False


def test_nginx_regexes_repeat_no_group() -> None:
    """Every regex of the configuration repeats single characters only, never a group: PCRE
    runs it in constant stack (a repeated group over a 6 KB Accept-Encoding ran out of the JIT
    stack: 500 on every route)."""
    conf = nginx_conf(render(load_catalog(SAMPLE), compress=True))
    found = _CLIENT_REGEX.findall(conf)
    assert {"$http_accept_encoding", "$http_host", "$request", "$catalogctl_key"} <= {
        var for var, _ in found
    }
    for var, quoted in found:
        regex = quoted
        if quoted.startswith('"'):  # an nginx string: \" and \\ are escapes
            regex = quoted[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        assert not _repeats_a_group(regex), f"{var} ~ {regex}"
    assert _repeats_a_group("(?:a|b)*") and not _repeats_a_group("[()*]")


@pytest.mark.parametrize(
    ("shape", "coding"),
    [
        ("gzip, ", "br"),  # the last element: br
        ("x;q=0.5, ", "gzip"),
        (",", "br"),
        (" ", "br"),
        ("gzip;q=0.5 ,", "br"),
        ("identity;q=0, ", "br"),
    ],
)
def test_nginx_reads_an_accept_encoding_of_8_kb(
    sample_nginx: tuple[NginxProcess, Table], shape: str, coding: str
) -> None:
    """Headers up to nginx's line limit (8 KB) are negotiated, whatever their shape."""
    server, table = sample_nginx
    ae = shape * ((8000 - 40) // len(shape)) + ("gzip;q=0.9, br;q=0.8" if "x;" in shape else "br")
    assert choose_coding(ae, ("br", "gzip")) == coding
    reply = request(server.url, "/api/v1", headers={"Accept-Encoding": ae})
    _same_as_serve(reply, table, "GET", "/api/v1", coding)


def test_nginx_document_missing_from_the_build_is_a_server_error(tmp_path: Path) -> None:
    """A file the configuration names but the build lacks (a build changed by hand) is a 500
    problem, not a 404 that says the route does not exist."""
    port = free_port()
    out = write_build(render(load_catalog(SAMPLE)), tmp_path / "dist", port)
    (out / "public" / "api" / "v1" / "index.json.gz").unlink()
    server = NginxProcess(out, port)
    try:
        for headers in ({"Accept-Encoding": "gzip"}, {"Accept-Encoding": "gzip;q=0.5"}):
            reply = request(server.url, "/api/v1", headers=headers)
            assert (reply.status, reply.media_type) == (500, "application/problem+json")
            assert reply.header("cache-control") == "no-store", reply.headers
        assert request(server.url, "/api/v1").status == 200
    finally:
        assert server.stop() == 0
