"""`catalogctl serve` as processes on real sockets: workers, reloads, signals, listeners.

What only whole processes show: a reload across `--workers` (every worker on the new catalog,
or every worker on the old one), SIGTERM against clients that never read, a worker that dies,
`--metrics`, `--unix` and a socket handed over by systemd.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import select
import shlex
import shutil
import signal
import socket
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from catalogctl.content.loader import PARALLEL_THRESHOLD
from catalogctl.serve.options import ENGINES
from tests import conformance
from tests.catalogs import add_slow_pages
from tests.conftest import (
    SAMPLE,
    game_yaml,
    generate_catalog,
    needs_fork,
    needs_linux,
    needs_posix_signals,
    needs_proc,
    needs_rlimits,
    needs_unix_sockets,
    require_program,
)
from tests.processes import Program, children, cli, port_answers, wait_until
from tests.serve_process import (
    FAILING_WORKERS,
    HANGUP_WHILE_LOADING,
    RELOAD_TIMEOUT_1S,
    ServeProcess,
    alive,
    connections_per_process,
    loading_process,
    reload_timeout,
)

if sys.platform != "win32":
    import resource  # the open-file limits (`needs_rlimits`)


def _games(url: str) -> int:
    reply = conformance.request(url, "/api/v1/games")
    assert reply.status == 200, reply.status
    return len(json.loads(reply.body)["games"])


def _pids(log: Path, skip: int, count: int) -> tuple[set[int], int]:
    """Worker pids of the `count` access lines after the log's first `skip`; and the line
    count (lines are written within a fraction of a second: waited for, 10 s at most)."""
    wait_until(
        lambda: len(log.read_text().splitlines()) >= skip + count,
        timeout=10,
        what=f"{count} more access lines",
    )
    lines = log.read_text().splitlines()
    assert len(lines) == skip + count, f"{len(lines) - skip} access lines, {count} expected"
    return {json.loads(line)["pid"] for line in lines[skip:]}, len(lines)


def _metric_at_least(url: str, name: str, value: float) -> dict[str, float]:
    """The metrics once `name` reaches `value` (workers publish once a second; 10 s at most)."""
    wait_until(
        lambda: _metrics(url).get(name, 0) >= value, timeout=10, what=f"{name} reaching {value}"
    )
    return _metrics(url)


def _answering(socks: list[socket.socket]) -> bool:
    """Whether the server has begun an answer on every one of these connections."""
    readable, _, _ = select.select(socks, [], [], 0)
    return len(readable) == len(socks)


def _metrics(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }


@needs_fork
@needs_posix_signals
@needs_proc
@pytest.mark.parametrize("engine", ENGINES)
def test_serve_workers_reload_as_one(tmp_path: Path, engine: str) -> None:
    """--workers 3 --watch, on each engine: after an edit, 50 new connections all get the new
    catalog, from new workers only; bad content keeps every worker on the old one; a dead
    worker is replaced; --metrics counts it all."""
    root = generate_catalog(tmp_path / "content", 40)
    log = tmp_path / "access.log"
    proc = ServeProcess(
        str(root),
        *("--workers", "3", "--watch", "--metrics", "127.0.0.1:0", "--http", engine),
        access_log=log,
    )
    try:
        listening = proc.events[-1]
        assert listening["workers"] == 3
        metrics_url = str(listening["metrics"])
        for _ in range(30):
            assert _games(proc.url) == 40
        old, seen = _pids(log, 0, 30)
        assert old  # (which workers accept is up to the kernel)

        (root / "games" / "game-00000.md").unlink()
        reloaded = str(proc.wait_for("reloaded")["message"])
        etag = conformance.request(proc.url, "/api/v1/games").header("etag")
        assert f"39 games, ETag {etag}" in reloaded and "all 3 workers" in reloaded
        assert [_games(proc.url) for _ in range(50)] == [39] * 50  # 50 new connections
        new, seen = _pids(log, seen, 51)  # and the ETag request
        assert new and not new & old, (old, new)  # no old worker answered
        # Which of the new workers accept is up to the kernel: the failed reload below is
        # checked against every process the server has, not against those that answered.
        generation = children(proc.proc.pid)
        assert new <= generation

        (root / "games" / "game-00001.md").write_text("---\nname: [\n---\n", encoding="utf-8")
        failed = str(proc.wait_for("failed")["message"])
        assert "game-00001.md" in failed and f"previous catalog (39 games, ETag {etag})" in failed
        assert [_games(proc.url) for _ in range(30)] == [39] * 30
        same, seen = _pids(log, seen, 30)
        assert same and not same & old, (old, same)  # still the reloaded workers, none restarted
        assert same <= generation, (generation, same)

        # Every answer so far (30 + 1 + 50 + 30) reaches the metrics within a second or so;
        # then a worker is killed: what it answers after its last publication is lost.
        ok = 'catalogctl_requests_total{code="200"}'
        assert _metric_at_least(metrics_url, ok, 111)[ok] == 111
        victim = next(iter(same))
        os.kill(victim, signal.SIGKILL)
        assert str(victim) in str(proc.wait_for("exited unexpectedly")["message"])
        assert [_games(proc.url) for _ in range(10)] == [39] * 10

        figures = _metric_at_least(metrics_url, ok, 121)
        assert figures["catalogctl_reloads_total"] == 1
        assert figures["catalogctl_reloads_failed_total"] == 1
        assert figures["catalogctl_catalog_games"] == 39
        assert etag is not None
        quoted = etag.replace('"', '\\"')
        assert figures[f'catalogctl_catalog_info{{etag="{quoted}"}}'] == 1
        assert figures["catalogctl_workers"] == 3
        assert figures["catalogctl_worker_restarts_total"] == 1
        assert figures[ok] == 121  # the 10 after the kill came from live workers
        # the public port does not answer for metrics
        assert conformance.request(proc.url, "/metrics").status == 404
    finally:
        assert proc.stop() == 0


@needs_fork
def test_serve_sigterm_with_clients_that_never_read(tmp_path: Path) -> None:
    """50 clients pipeline requests and never read: the server still exits within
    --shutdown-timeout (plus a second's grace), with status 0."""
    root = generate_catalog(tmp_path / "content", 300)
    proc = ServeProcess(str(root), "--workers", "2", "--shutdown-timeout", "1")
    host, port, netloc = conformance._address(proc.url)
    clients = []
    try:
        for _ in range(50):
            sock = socket.create_connection((host, port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(f"GET /api/v1/games HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode() * 20)
            clients.append(sock)
        proc.wait_until(lambda: _answering(clients), what="an answer begun on every connection")
        started = time.monotonic()
        proc.signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert time.monotonic() - started < 1 + 1.5
    finally:
        for sock in clients:
            sock.close()
        proc.stop()


def test_serve_shutdown_timeout_zero_closes_at_once(tmp_path: Path) -> None:
    with ServeProcess(str(SAMPLE), "--shutdown-timeout", "0") as proc:
        host, port, netloc = conformance._address(proc.url)
        sock = socket.create_connection((host, port))
        sock.sendall(f"GET /api/v1/games HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode() * 200)
        proc.wait_until(lambda: _answering([sock]), what="an answer begun")
        started = time.monotonic()
        proc.signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert time.monotonic() - started < 1.0
        sock.close()


def test_serve_graceful_stop_finishes_the_answer_in_flight(tmp_path: Path) -> None:
    """SIGTERM while answers are being written to a slow reader: what arrives is whole."""
    root = generate_catalog(tmp_path / "content", 300)
    with ServeProcess(str(root), "--shutdown-timeout", "20") as proc:
        host, port, netloc = conformance._address(proc.url)
        slow = socket.create_connection((host, port))
        slow.sendall(f"GET /api/v1/games HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode() * 20)
        proc.wait_until(lambda: _answering([slow]), what="an answer begun")
        proc.signal(signal.SIGTERM)
        received = b""
        slow.settimeout(30)
        while chunk := slow.recv(1 << 20):
            received += chunk
        slow.close()
        code = proc.wait(timeout=30)
    complete = 0
    while received:
        head, _, rest = received.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        assert len(rest) >= length, "a response was cut short"
        assert json.loads(rest[:length])["schemaVersion"] == 1
        received, complete = rest[length:], complete + 1
    assert complete >= 1
    assert code == 0


@needs_unix_sockets
def test_serve_unix_socket(tmp_path: Path) -> None:
    path = tmp_path / "http.sock"
    proc = ServeProcess(str(SAMPLE), listen=("--unix", str(path)), access_log=tmp_path / "a.log")
    try:
        assert proc.url == f"unix:{path}"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(str(path))
            sock.sendall(b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200 OK\r\n")
    finally:
        assert proc.stop() == 0
    assert not path.exists()  # removed on exit
    assert json.loads((tmp_path / "a.log").read_text())["remote"] == "unix:"


def _first_event(proc: Program) -> dict[str, object]:
    """The first JSON line on stderr (systemd-socket-activate writes its own lines first)."""
    event: dict[str, object] = json.loads(proc.wait_for_line(lambda line: line.startswith("{")))
    return event


def _listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


@needs_linux
def test_serve_socket_activation_with_systemd_socket_activate() -> None:
    """systemd-socket-activate listens, and starts serve (which takes over the socket) on
    the first connection."""
    activate = require_program("systemd-socket-activate", package="systemd")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve = cli("serve", SAMPLE, "--workers", "2", "--log-format", "json", "--quiet")
    with Program([activate, "--listen", f"127.0.0.1:{port}", *serve]) as proc:
        proc.wait_until(lambda: port_answers(port), timeout=30, what="the socket listening")
        assert _games(f"http://127.0.0.1:{port}") == 13  # waits in the backlog until serve
        event = _first_event(proc)
        assert event["url"] == f"http://127.0.0.1:{port}" and event["workers"] == 2
        assert proc.stop() == 0


@needs_linux
def test_serve_socket_passed_as_systemd_does(tmp_path: Path) -> None:
    """The sd_listen_fds protocol by hand: the socket as descriptor 3, LISTEN_FDS=1 and
    LISTEN_PID naming the server's own process."""
    listener = _listening_socket()
    port = listener.getsockname()[1]
    fd = listener.fileno()
    serve = shlex.join(cli("serve", SAMPLE, "--log-format", "json", "--quiet"))
    proc = Program(
        ["sh", "-c", f"export LISTEN_PID=$$ LISTEN_FDS=1; exec {serve}"],
        pass_fds=(fd, 3),  # 3: where preexec_fn puts the socket
        preexec_fn=lambda: (os.dup2(fd, 3), os.set_inheritable(3, True)),
    )
    listener.close()
    with proc:
        event = _first_event(proc)
        assert event["url"] == f"http://127.0.0.1:{port}"
        assert _games(event["url"]) == 13
        assert proc.stop() == 0


@needs_fork
@needs_posix_signals
def test_serve_reload_renders_once_not_per_worker(tmp_path: Path) -> None:
    """SIGHUP: one load for all workers (a game added is served by every one at once)."""
    root = generate_catalog(tmp_path / "content", 20)
    proc = ServeProcess(str(root), "--workers", "2")
    try:
        (root / "games" / "new.md").write_text(game_yaml("New"), encoding="utf-8")
        proc.signal(signal.SIGHUP)
        assert "21 games" in str(proc.wait_for("reloaded")["message"])
        assert {_games(proc.url) for _ in range(20)} == {21}
        assert sum("reloaded" in str(e.get("message")) for e in proc.events) == 1
    finally:
        assert proc.stop() == 0


@needs_posix_signals
@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_a_reload_asked_while_it_starts_is_done_once_it_listens(
    tmp_path: Path, workers: str
) -> None:
    """SIGHUP before serve's handlers are in place (`systemctl reload` right after a start,
    while the site loads) no longer ends it by the signal's default action: it starts, and
    then reloads."""
    root = generate_catalog(tmp_path / "content", 3)
    proc = ServeProcess(str(root), "--workers", workers, prefix=HANGUP_WHILE_LOADING)
    try:
        assert "3 games" in str(proc.wait_for("reloaded")["message"])
        assert _games(proc.url) == 3
    finally:
        assert proc.stop() == 0


@needs_fork
@needs_posix_signals
@needs_proc
def test_serve_workers_abandon_a_reload_that_hangs(tmp_path: Path) -> None:
    """A reload whose loading hangs (stopped here, as on a disk that stops answering) is
    abandoned after the reload timeout: the log says so, the loading process is killed, and
    every worker still serves the previous catalog."""
    root = generate_catalog(tmp_path / "content", 3)
    proc = ServeProcess(str(root), "--workers", "2", prefix=RELOAD_TIMEOUT_1S)
    try:
        (root / "games" / "new.md").write_text(game_yaml("New"), encoding="utf-8")
        proc.signal(signal.SIGHUP)
        loader = loading_process(proc.proc.pid)
        os.kill(loader, signal.SIGSTOP)
        failed = str(proc.wait_for("failed")["message"])
        assert "loading took longer than 1 s" in failed and "previous catalog (3 games" in failed
        assert loader not in children(proc.proc.pid)  # killed and reaped
        assert {_games(proc.url) for _ in range(10)} == {3}
    finally:
        assert proc.stop() == 0


@needs_fork
@needs_posix_signals
@needs_proc
def test_serve_workers_keep_the_catalog_when_new_workers_die_at_start(tmp_path: Path) -> None:
    """A reload whose new workers die before they listen is abandoned: the log says why, and
    the old workers go on serving the previous catalog."""
    root = generate_catalog(tmp_path / "content", 3)
    flag = tmp_path / "fail"
    env = os.environ | {"FAIL_START_IF": str(flag)}
    proc = ServeProcess(str(root), "--workers", "2", prefix=FAILING_WORKERS, env=env)
    try:
        old = children(proc.proc.pid)
        (root / "games" / "new.md").write_text(game_yaml("New"), encoding="utf-8")
        flag.touch()
        proc.signal(signal.SIGHUP)
        failed = str(proc.wait_for("reload of")["message"])
        assert "failed, every worker still serves the previous catalog (3 games" in failed
        assert "a new worker exited before it listened (exit status 1)" in failed
        assert {_games(proc.url) for _ in range(10)} == {3}
        assert old <= children(proc.proc.pid)  # the old workers, not restarted
    finally:
        assert proc.stop() == 0


@pytest.mark.parametrize("workers", ["1", pytest.param("2", marks=needs_fork)])
def test_serve_reports_ready_with_catalog_etag(workers: str) -> None:
    proc = ServeProcess(str(SAMPLE), "--workers", workers)
    try:
        event = proc.events[-1]
        etag = conformance.request(proc.url, "/api/v1/games").header("etag")
        assert event["etag"] == etag and event["games"] == 13
    finally:
        assert proc.stop() == 0


SITES = Path(__file__).resolve().parent / "fixtures" / "sites"


@pytest.mark.parametrize(
    ("site", "workers", "edits"),
    [
        # site.toml at the root, games under content/games: bundles, sections, nested bundles.
        pytest.param(
            "hugo-bundles",
            "2",
            [
                (
                    "content/games/tidal-drift/index.md",
                    "title: Tidal Drift",
                    "title: Tidal Drift II",
                ),
                (
                    "content/games/mobile/gull-patrol.md",
                    "title: Gull Patrol",
                    "title: Gull Patrol+",
                ),
                (
                    "content/games/mobile/kelp-garden/index.md",
                    '"title": "Kelp Garden"',  # JSON front matter
                    '"title": "Kelp Garden Deluxe"',
                ),
            ],
            marks=needs_fork,
        ),
        # [content] games = "_posts": a Jekyll blog's posts, .markdown pages.
        (
            "jekyll-posts",
            "1",
            [("_posts/2016-01-10-tally.markdown", 'name: "Tally"', 'name: "Tally Ho"')],
        ),
    ],
)
def test_serve_watch_reloads_on_every_page_the_site_reads(
    tmp_path: Path, site: str, workers: str, edits: list[tuple[str, str, str]]
) -> None:
    """--watch sees an edit to a bundle page, a page in a nested section and a page in a
    games folder other than games/, and the next answer has it."""
    root = tmp_path / site
    shutil.copytree(SITES / site, root)
    proc = ServeProcess(str(root), "--watch", "--workers", workers)
    try:
        for file, old, new in edits:
            page = root / file
            text = page.read_text(encoding="utf-8")
            assert old in text, (file, old)
            page.write_text(text.replace(old, new, 1), encoding="utf-8")
            assert "reloaded" in str(proc.wait_for("reloaded", timeout=30)["message"])
            reply = conformance.request(proc.url, "/api/v1/games")
            name = new.split(":", 1)[1].strip().strip('"')
            assert name in {g["name"] for g in json.loads(reply.body)["games"]}, file
    finally:
        assert proc.stop() == 0


# --- reloads above the parallel-parse threshold -------------------------------------------------

ABOVE = PARALLEL_THRESHOLD + 100  # games: the first load and each reload parse in a pool


@pytest.fixture(scope="module")
def above_threshold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated tree of ABOVE games, copied by each test that edits it."""
    return generate_catalog(tmp_path_factory.mktemp("above") / "content", ABOVE)


def _reload_outcome(proc: ServeProcess) -> str:
    """The next line saying how a reload ended ("reloaded …" or "reload of … failed …")."""
    while True:
        message = str(proc.wait_for("reload", timeout=120)["message"])
        if not message.startswith("change detected"):
            return message


@needs_posix_signals
@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_reloads_a_catalog_parsed_in_parallel(
    above_threshold: Path, tmp_path: Path, workers: str
) -> None:
    """A catalog above the parallel-parse threshold reloads on every path: on a change --watch
    sees and on SIGHUP, in one process and with workers (the loading process parses in a pool
    of its own)."""
    root = tmp_path / "content"
    shutil.copytree(above_threshold, root)
    proc = ServeProcess(str(root), "--watch", "--workers", workers)
    try:
        assert proc.events[-1]["games"] == ABOVE
        (root / "games" / "game-00000.md").unlink()
        assert f"reloaded {root}: {ABOVE - 1} games" in _reload_outcome(proc)
        assert {_games(proc.url) for _ in range(4)} == {ABOVE - 1}
        (root / "games" / "new.md").write_text(game_yaml("New"), encoding="utf-8")
        proc.signal(signal.SIGHUP)  # (--watch may see the new page first: one reload or two)
        assert f"reloaded {root}: {ABOVE} games" in _reload_outcome(proc)
        assert {_games(proc.url) for _ in range(4)} == {ABOVE}
    finally:
        assert proc.stop() == 0


def _loading_pool(proc: ServeProcess) -> tuple[int, set[int]]:
    """The loading process of the reload `proc` runs now, and its parse workers, once they
    run (the slow pages keep them running for a second or more)."""
    loader = loading_process(proc.proc.pid)
    proc.wait_until(
        lambda: len(children(loader)) >= 2, timeout=60, what="the loading process's pool"
    )
    return loader, children(loader)


@needs_fork
@needs_posix_signals
@needs_proc
@pytest.mark.parametrize(
    ("workers", "end"),
    [("2", "SIGKILL"), ("1", "SIGTERM"), ("2", "timeout")],
)
def test_serve_loading_process_and_its_pool_never_outlive_the_server(
    above_threshold: Path, tmp_path: Path, workers: str, end: str
) -> None:
    """Whether the server is killed, stops or gives the reload up, the loading process and
    its parse workers end with it, even a loading process that would never finish (stopped
    here, as on a disk that stops answering)."""
    root = tmp_path / "content"
    shutil.copytree(above_threshold, root)
    add_slow_pages(root, 4)
    prefix = reload_timeout(8) if end == "timeout" else ()
    proc = ServeProcess(str(root), "--workers", workers, prefix=prefix)
    try:
        (root / "games" / "game-00000.md").unlink()
        proc.signal(signal.SIGHUP)
        loader, pool = _loading_pool(proc)  # parsed in parallel, as the first load was
        os.kill(loader, signal.SIGSTOP)  # the load would never end; its workers run on
        if end == "timeout":
            failed = str(proc.wait_for("failed")["message"])
            assert "loading took longer than 8 s" in failed
        else:
            proc.signal(getattr(signal, end))
        # Not proc.wait_until: once the server has exited, it kills the rest of its group.
        wait_until(
            lambda: not any(alive(pid) for pid in {loader, *pool}),
            timeout=30,
            what="the loading process and its pool gone",
        )
        if end == "SIGTERM":
            assert proc.wait(timeout=30) == 0
        if end == "timeout":
            assert {_games(proc.url) for _ in range(4)} == {ABOVE + 4}
    finally:
        proc.stop()


# --- descriptors, and how connections fall between workers --------------------------------------

CONNECTIONS = 4000


def _open_files(soft: int, hard: int | None = None) -> Callable[[], None]:
    """A `preexec_fn`: the program starts with this open-file limit, as after a shell's
    `ulimit -Sn SOFT` (and `ulimit -Hn HARD`)."""

    def limit() -> None:
        kept = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, kept if hard is None else hard))

    return limit


@pytest.fixture
def many_files() -> Iterator[int]:
    """This test process may open a few thousand connections; the hard limit the server
    started under `_open_files(soft)` keeps."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = CONNECTIONS + 600
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.fail(f"the test opens {CONNECTIONS:,} connections: `ulimit -Hn` must be {need}+")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    try:
        yield hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _connect(url: str, count: int) -> list[socket.socket]:
    host, port, _ = conformance._address(url)
    return [socket.create_connection((host, port), timeout=10) for _ in range(count)]


def _closed_by_server(socks: list[socket.socket]) -> int:
    """How many of these connections, on which nothing was sent, the server has closed."""
    poller = select.poll()
    for sock in socks:
        poller.register(sock, select.POLLIN)
    return len(poller.poll(0))  # readable with nothing asked: the end of the stream


def _workers(proc: ServeProcess) -> dict[int, int]:
    """The connections each worker holds."""
    port = conformance._address(proc.url)[1]
    return connections_per_process(port, children(proc.proc.pid))


def _wait_held(proc: ServeProcess, total: int) -> dict[int, int]:
    """The connections each worker holds, once they hold `total` together."""
    proc.wait_until(
        lambda: sum(_workers(proc).values()) == total, what=f"{total} connections accepted"
    )
    return _workers(proc)


def _get(url: str, sock: socket.socket | None = None) -> int:
    """The status of `GET /api/v1` on a new connection (or on `sock`, kept open)."""
    if sock is None:
        return conformance.request(url, "/api/v1").status
    netloc = conformance._address(url)[2]
    sock.sendall(f"GET /api/v1 HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode())
    return conformance._read_reply(sock, head=False, name="GET /api/v1").status


@needs_fork
@needs_rlimits
@needs_proc
def test_serve_holds_4000_idle_connections_started_with_a_soft_limit_of_1024(
    many_files: int,
) -> None:
    """Started as a shell starts it (a soft open-file limit of 1,024), serve --workers 2 raises
    its limit to the hard one: 4,000 idle connections stay open, split evenly between the
    workers (60/40 at worst), and normal requests are answered meanwhile."""
    proc = ServeProcess(
        str(SAMPLE), "--workers", "2", "--keepalive-timeout", "120", preexec_fn=_open_files(1024)
    )
    idle: list[socket.socket] = []
    try:
        listening = proc.events[-1]
        assert listening["open_files"] == many_files and "warning" not in listening
        idle = _connect(proc.url, CONNECTIONS)
        held = _wait_held(proc, CONNECTIONS)
        assert len(held) == 2 and min(held.values()) >= 0.4 * CONNECTIONS, held
        assert [_get(proc.url) for _ in range(200)] == [200] * 200
        assert _closed_by_server(idle) == 0
        assert {_get(proc.url, sock) for sock in idle[::100]} == {200}  # and they answer
    finally:
        for sock in idle:
            sock.close()
        assert proc.stop() == 0


@needs_fork
@needs_unix_sockets
@needs_rlimits
@needs_proc
def test_serve_shares_connections_evenly_on_a_unix_socket(tmp_path: Path, many_files: int) -> None:
    """On a Unix socket, where the kernel does not say how many connections wait, the workers
    still share 1,000 idle connections opened at once (fewer than the listen queue holds)
    evenly, 60/40 at worst, as on a TCP port."""
    path = tmp_path / "http.sock"
    proc = ServeProcess(
        str(SAMPLE), "--workers", "2", "--keepalive-timeout", "120", listen=("--unix", str(path))
    )
    idle: list[socket.socket] = []
    try:
        for _ in range(1000):
            idle.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            idle[-1].connect(str(path))

        def held() -> dict[int, int]:
            return connections_per_process(path, children(proc.proc.pid))

        proc.wait_until(lambda: sum(held().values()) == 1000, what="1,000 connections accepted")
        assert len(held()) == 2 and min(held().values()) >= 400, held()
    finally:
        for sock in idle:
            sock.close()
        assert proc.stop() == 0


@needs_fork
@needs_rlimits
@pytest.mark.parametrize("engine", ENGINES)
def test_serve_out_of_descriptors_says_what_to_change_and_answers_once_some_free_up(
    engine: str,
) -> None:
    """With a hard limit of 96 open files, connections that never finish their request hold
    every descriptor of both workers: the log says, once a second at most per worker, what the
    limit is and how to raise it; a request sent meanwhile waits (no connection is closed
    unanswered) and is answered once those connections close. On each engine."""
    proc = ServeProcess(
        str(SAMPLE),
        *("--workers", "2", "--keepalive-timeout", "60", "--http", engine),
        preexec_fn=_open_files(96, 96),
    )
    hogs: list[socket.socket] = []
    try:
        listening = proc.events[-1]
        assert listening["open_files"] == 96
        assert "LimitNOFILE=" in str(listening["warning"]), listening
        hogs = _connect(proc.url, 300)
        for sock in hogs:
            sock.sendall(b"GET /api/v1 HTTP/1.1\r\n")  # a head that never ends: not idle

        def said() -> dict[int, list[str]]:
            """What each worker logged that it cannot accept, so far."""
            lines: dict[int, list[str]] = {}
            for event in proc.events:
                if str(event.get("message", "")).startswith("cannot accept connections"):
                    lines.setdefault(int(str(event["pid"])), []).append(str(event["time"]))
            return lines

        while max(map(len, said().values()), default=0) < 3:
            message = str(proc.wait_for("cannot accept connections", timeout=30)["message"])
            assert "all 96 files this process may open are in use" in message, message
            assert "LimitNOFILE=" in message and "ulimit -n" in message, message
        waiting = _connect(proc.url, 1)[0]
        netloc = conformance._address(proc.url)[2]
        waiting.sendall(f"GET /api/v1 HTTP/1.1\r\nHost: {netloc}\r\n\r\n".encode())
        for sock in hogs:
            sock.close()
        reply = conformance._read_reply(waiting, head=False, name="GET /api/v1")
        waiting.close()
        assert reply.status == 200
        assert [_get(proc.url) for _ in range(20)] == [200] * 20
        for times in said().values():
            seen = sorted(map(dt.datetime.fromisoformat, times))
            gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(seen)]
            assert all(gap >= 0.99 for gap in gaps), gaps  # (logged to the millisecond)
    finally:
        for sock in hogs:
            sock.close()
        assert proc.stop() == 0


@needs_fork
@needs_rlimits
@pytest.mark.parametrize("sent", [b"", b"G"], ids=["nothing", "a-byte-of-a-head"])
def test_serve_short_of_descriptors_closes_idle_connections_for_new_ones(sent: bytes) -> None:
    """With a hard limit of 96 open files and 300 connections open that send nothing (or the
    first byte of a head, and no more), new clients are answered: connections that have
    waited a second or more for a request are closed to make room."""
    proc = ServeProcess(
        str(SAMPLE),
        *("--workers", "2", "--keepalive-timeout", "60"),
        preexec_fn=_open_files(96, 96),
    )
    idle: list[socket.socket] = []
    try:
        idle = _connect(proc.url, 300)
        for sock in idle:
            if sent:
                sock.sendall(sent)
        assert [_get(proc.url) for _ in range(20)] == [200] * 20
        assert _closed_by_server(idle) > 0
        assert "idle ones closed to make room" in str(proc.wait_for("idle ones closed")["message"])
    finally:
        for sock in idle:
            sock.close()
        assert proc.stop() == 0


@needs_fork
@needs_posix_signals
@needs_proc
def test_serve_a_stopped_worker_holds_no_connection_up() -> None:
    """A worker that does not accept (stopped here, as one stuck on a disk would be) holds
    up no connection: the other worker takes them, beyond its share."""
    proc = ServeProcess(str(SAMPLE), "--workers", "2", "--keepalive-timeout", "60")
    idle: list[socket.socket] = []
    try:
        idle = _connect(proc.url, 64)
        held = _wait_held(proc, 64)
        assert min(held.values()) > 0, held
        stopped = min(held, key=lambda pid: held[pid])
        os.kill(stopped, signal.SIGSTOP)
        try:
            idle += _connect(proc.url, 64)  # beyond the running worker's share
            assert _wait_held(proc, 128)[stopped] == held[stopped]
            assert [_get(proc.url) for _ in range(20)] == [200] * 20
        finally:
            os.kill(stopped, signal.SIGCONT)
    finally:
        for sock in idle:
            sock.close()
        assert proc.stop() == 0


@needs_rlimits
def test_serve_start_up_line_names_a_low_open_file_limit() -> None:
    """A hard limit of 256 open files stays: the start-up lines say so, and what to change."""
    serve = cli("serve", SAMPLE, "--port", "0", "--quiet")
    with Program(serve, preexec_fn=_open_files(256, 256)) as proc:
        line = proc.wait_for_line("open files:")
    assert "at most 256 per worker" in line, line
    for change in ("LimitNOFILE=", "--ulimit nofile=", "ulimit -Hn"):
        assert change in line, line
