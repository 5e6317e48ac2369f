"""catalogctl where POSIX-only facilities are missing, as on Windows and macOS.

Each test runs `python -m catalogctl` with what the system lacks taken away
(tests/posixless/sitecustomize.py says what is taken away, and what of the system it does not
reproduce) and compares it with the normal run: the same findings, reports and build bytes;
`serve --watch` starts, answers, reloads an edit and stops cleanly in one process; what needs
POSIX (`--workers` more than 1, `--unix`, SIGHUP) is refused with the alternative named. The
macOS case keeps fork but has no prctl: a supervisor's workers must notice themselves that it
died.

These tests emulate Windows and macOS on Linux: elsewhere (the real Windows or macOS, as in CI)
the emulated cases skip (`emulates_another_system`), and the real system runs the suite.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from catalogctl.serve.memfile import SENDFILE_MIN
from tests import conformance
from tests.catalogs import generate_catalog
from tests.conftest import (
    SAMPLE,
    emulates_another_system,
    needs_fork,
    needs_posix_signals,
)
from tests.posixless import SYSTEMS, System, environment
from tests.processes import Program, cli, port_answers, run, run_cli, wait_until
from tests.serve_process import ServeProcess

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DEFECTS, DEFECTS_NEXT = FIXTURES / "defects", FIXTURES / "defects-next"

# Each system the harness emulates, as a parameter that skips off Linux.
EMULATED = [pytest.param(system, marks=emulates_another_system, id=system) for system in SYSTEMS]
WINDOWS, MACOS = EMULATED

PROBE = """
import json, mmap, multiprocessing, os, signal, socket
print(json.dumps({
    "fork": hasattr(os, "fork"),
    "SIGHUP": hasattr(signal, "SIGHUP"),
    "pthread_sigmask": hasattr(signal, "pthread_sigmask"),
    "MSG_DONTWAIT": hasattr(socket, "MSG_DONTWAIT"),
    "AF_UNIX": hasattr(socket, "AF_UNIX"),
    "MAP_SHARED": hasattr(mmap, "MAP_SHARED"),
    "sched_getaffinity": hasattr(os, "sched_getaffinity"),
    "memfd_create": hasattr(os, "memfd_create"),
    "sendfile": hasattr(os, "sendfile"),
    "SIGKILL": hasattr(signal, "SIGKILL"),
    "scandir_inode": next(e for e in os.scandir(os.sep) if e.is_dir()).stat().st_ino != 0,
    "start_method": multiprocessing.get_start_method(),
}))
"""


@pytest.mark.parametrize("system", EMULATED)
def test_the_suite_collects_without_what_the_system_lacks(system: System) -> None:
    """Every test module imports where the system lacks POSIX's signals and modules: a
    default argument of `signal.SIGQUIT` would fail the whole Windows CI job at collection.
    (The modules that import `resource` do so only where `sys.platform` is not win32, which
    the harness leaves as Linux: their errors here are the harness's, not Windows'.)"""
    tests = Path(__file__).resolve().parent
    proc = run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0", "-p", "no:cacheprovider"],
        env=environment(system),
        cwd=tests.parent,
    )
    errors = re.findall(r"^E +(.+)$", proc.stdout, re.MULTILINE)
    assert set(errors) <= {"ModuleNotFoundError: No module named 'resource'"}, proc.stdout[-3000:]
    for module in re.findall(r"^ERROR (tests/\S+\.py)", proc.stdout, re.MULTILINE):
        text = (tests.parent / module).read_text("utf-8")
        assert 'if sys.platform != "win32":\n    import resource' in text, module


@pytest.mark.parametrize("system", EMULATED)
def test_posixless_harness_takes_away_what_the_system_lacks(system: System) -> None:
    """The harness is in force in the processes the tests start (else every other test here
    would pass for nothing)."""
    proc = run([sys.executable, "-c", PROBE], env=environment(system), check=True)
    seen = json.loads(proc.stdout)
    assert seen.pop("start_method") == "spawn"
    if system == "windows":
        assert not any(seen.values()), seen
    else:
        assert seen == {
            "fork": True,
            "SIGHUP": True,
            "pthread_sigmask": True,
            "MSG_DONTWAIT": True,
            "AF_UNIX": True,
            "MAP_SHARED": True,
            "sched_getaffinity": False,
            "memfd_create": False,
            "sendfile": True,
            "SIGKILL": True,
            "scandir_inode": True,
        }


IMPORT_ALL = """
import importlib, pkgutil, catalogctl
for module in pkgutil.walk_packages(catalogctl.__path__, "catalogctl."):
    if module.name != "catalogctl.__main__":
        importlib.import_module(module.name)
print("imported")
"""


@pytest.mark.parametrize("system", EMULATED)
def test_posixless_every_module_imports(system: System) -> None:
    """No module reaches for a POSIX-only facility as it is imported (the supervisor's signals,
    `resource`, `fcntl`): what needs one looks for it when it runs."""
    proc = run([sys.executable, "-c", IMPORT_ALL], env=environment(system))
    assert proc.stdout == "imported\n", proc.stderr


def _timeless(text: str) -> str:
    """Output without the time a run took (it differs between two runs)."""
    text = re.sub(r"\b\d+(\.\d+)? s\b", "… s", text)
    return re.sub(r'"seconds": [0-9.e-]+', '"seconds": …', text)


SITES = FIXTURES / "sites"

COMMANDS = [
    ("validate", SAMPLE),
    # Games in subfolders (page bundles, series folders): Windows' directory entries have no
    # inode, which once made every folder after the first look like a symlink loop.
    ("validate", SITES / "hugo-bundles", "--format", "json"),
    ("validate", SITES / "zola-bundles-translated", "--format", "json"),
    ("validate", DEFECTS),
    ("validate", DEFECTS, "--format", "sarif"),
    ("diff", DEFECTS, DEFECTS_NEXT),
    ("diff", DEFECTS, DEFECTS_NEXT, "--format", "json"),
    ("check-links", "--offline", DEFECTS, "--format", "json"),
    ("check-links", "--offline", SAMPLE),
    ("schema", "page"),
    ("schema", "site"),
]


@pytest.mark.parametrize("system", EMULATED)
@pytest.mark.parametrize(
    "args", COMMANDS, ids=lambda a: " ".join(x.name if isinstance(x, Path) else x for x in a)
)
def test_posixless_commands_report_as_the_normal_run(
    system: System, args: tuple[str | Path, ...]
) -> None:
    normal = run_cli(*args)
    other = run_cli(*args, env=environment(system))
    assert other.returncode == normal.returncode, other.stderr
    assert _timeless(other.stdout) == _timeless(normal.stdout)
    assert _timeless(other.stderr) == _timeless(normal.stderr)


@pytest.mark.parametrize("system", EMULATED)
def test_posixless_network_commands_report_as_the_normal_run(system: System) -> None:
    """`diff` of a served catalog and `check-links` of one: their connections (asyncio's
    sock_connect, aiohttp's client) work where the loop has no add_reader for others' use,
    with the same reports as the normal run."""
    with ServeProcess(str(SAMPLE)) as server:
        url = server.url
        cases = [
            ("diff", SAMPLE, url),
            ("diff", DEFECTS, url, "--format", "json"),
            ("check-links", url, "--include", "^" + re.escape(url), "--retries", "0"),
        ]
        for args in cases:
            normal = run_cli(*args)
            other = run_cli(*args, env=environment(system))
            assert other.returncode == normal.returncode, other.stderr
            assert "NotImplementedError" not in other.stderr
            assert _timeless(other.stdout) == _timeless(normal.stdout)
            assert _timeless(other.stderr) == _timeless(normal.stderr)


def _tree(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("site", [SAMPLE, SITES / "hugo-bundles"], ids=["sample", "bundles"])
@pytest.mark.parametrize("system", EMULATED)
def test_posixless_build_is_byte_identical(tmp_path: Path, system: System, site: Path) -> None:
    """The same build, written twice (the second replaces the first without renameat2); of
    the sample, and of a site whose games are page bundles in subfolders."""
    builds = {}
    for name, env in (("normal", None), (system, environment(system))):
        (tmp_path / name).mkdir()
        for _ in range(2):
            proc = run_cli("build", site, "--out", "dist", cwd=tmp_path / name, env=env)
            assert proc.returncode == 0, proc.stderr
        builds[name] = (_tree(tmp_path / name / "dist"), _timeless(proc.stdout + proc.stderr))
    assert builds[system] == builds["normal"]
    assert sorted(p.name for p in (tmp_path / system).iterdir()) == ["dist"]  # nothing left


@pytest.mark.parametrize("system", EMULATED)
def test_posixless_symlink_loop_is_told_as_a_loop(tmp_path: Path, system: System) -> None:
    """Windows tells a symlink loop by its own error (no ELOOP there), macOS by its ELOOP
    (62): a loop, never "dangling"."""
    root = tmp_path / "content"
    shutil.copytree(SAMPLE, root)
    (root / "games" / "a.md").symlink_to(root / "games" / "b.md")
    (root / "games" / "b.md").symlink_to(root / "games" / "a.md")
    for env in (None, environment(system)):
        proc = run_cli("validate", root, "--format", "json", env=env)
        found = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "broken-symlink"]
        assert {f["message"].split(" (")[0].split(";")[0] for f in found} == {
            "the symlink loops"
        }, found


@emulates_another_system
def test_posixless_windows_build_keeps_a_running_builds_staging(tmp_path: Path) -> None:
    """Windows' os.kill(pid, 0) sends Ctrl+C instead of asking whether a build still runs:
    a staging folder beside --out (here one of this test's own pid, a live process) is left
    alone there, as it is on POSIX."""
    for env in (None, environment("windows")):
        live = tmp_path / f".dist.catalogctl-staging-{os.getpid()}.live"
        live.mkdir(exist_ok=True)
        proc = run_cli("build", SAMPLE, "--out", tmp_path / "dist", env=env)
        assert proc.returncode == 0, proc.stderr
        assert live.is_dir()


@emulates_another_system
def test_posixless_windows_build_waits_for_a_file_held_open(tmp_path: Path) -> None:
    """Windows refuses to rename a folder while a program holds a file in it open (a server
    reading the previous build, a virus scanner): the build says it waits, and replaces
    --out once the file is let go, where it once failed with "Access is denied"."""
    out = tmp_path / "dist"
    assert run_cli("build", SAMPLE, "--out", out).returncode == 0
    again = cli("build", SAMPLE, "--out", out, "--base-url", "https://other.example")
    held = (out / "public" / "openapi.json").open("rb")
    with held, Program(again, env=environment("windows")) as build:
        build.wait_for_line("waiting to replace")
        held.close()
        assert build.wait(timeout=60) == 0, build.describe()
    assert "https://other.example" in (out / "public" / "openapi.json").read_text("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dist"]


# --- serve ------------------------------------------------------------------------------------


def _names(url: str) -> set[str]:
    reply = conformance.request(url, "/api/v1/games")
    assert reply.status == 200, reply.status
    return {game["name"] for game in json.loads(reply.body)["games"]}


def _metrics(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        text = resp.read().decode()
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("system", EMULATED)
def test_posixless_serve_watch_reloads_in_one_process(
    tmp_path: Path, system: System, stop: str
) -> None:
    """serve --watch --metrics: answers the bytes the normal build writes, reloads an edit
    (its loader spawned, and waited for without a watch on its pipe on Windows), counts it, and
    stops with Ctrl+C (SIGINT) or SIGTERM, exit 0."""
    root = tmp_path / "content"
    shutil.copytree(SAMPLE, root)
    assert run_cli("build", root, "--out", tmp_path / "dist").returncode == 0
    built = (tmp_path / "dist" / "public" / "api" / "v1" / "games" / "index.json").read_bytes()
    log = tmp_path / "access.log"
    proc = ServeProcess(
        str(root), "--watch", "--metrics", "127.0.0.1:0", env=environment(system), access_log=log
    )
    try:
        metrics = str(proc.events[-1]["metrics"])
        reply = conformance.request(proc.url, "/api/v1/games")
        assert reply.status == 200 and reply.body == built
        page = root / "games" / "lighthouse-keeper.md"
        page.write_text(
            page.read_text(encoding="utf-8").replace("name: Lighthouse Keeper", "name: Beacon"),
            encoding="utf-8",
        )
        assert "13 games" in str(proc.wait_for("reloaded", timeout=30)["message"])
        assert "Beacon" in _names(proc.url) and "Lighthouse Keeper" not in _names(proc.url)
        proc.wait_until(lambda: _metrics(metrics)["catalogctl_reloads_total"] == 1, timeout=10)
    finally:
        assert proc.stop(getattr(signal, stop)) == 0, proc.describe()
    assert len(log.read_text().splitlines()) == 3  # every answer, flushed on stop at the latest
    assert "Traceback" not in proc.printed()


DEPLOY_DOCS = Path(__file__).resolve().parent.parent / "docs" / "deploy" / "serve.md"


@emulates_another_system
def test_posixless_windows_serve_refuses_workers_and_unix(tmp_path: Path) -> None:
    """Each refusal exits 2 naming what to use instead, in the words the docs show; both at
    once when both are asked for; nothing is served."""
    windows = environment("windows")
    documented = DEPLOY_DOCS.read_text(encoding="utf-8")
    messages = []
    for option in (("--workers", "2"), ("--unix", tmp_path / "s.sock")):
        proc = run_cli("serve", SAMPLE, *option, env=windows)
        assert proc.returncode == 2, proc.stderr
        (error,) = (line for line in proc.stderr.splitlines() if line.startswith("error: "))
        assert error in documented.splitlines(), error
        messages.append(error.removeprefix("error: "))
    assert "with --workers 1 (the default)" in messages[0]
    assert "--host and --port" in messages[1]
    both = run_cli("serve", SAMPLE, "--workers", "2", "--unix", tmp_path / "s.sock", env=windows)
    assert both.returncode == 2
    assert f"error: {messages[0]}; {messages[1]}" in both.stderr.splitlines()
    assert "Traceback" not in both.stderr
    assert not (tmp_path / "s.sock").exists()


@pytest.mark.parametrize("system", [None, *EMULATED])
def test_posixless_serve_large_answers_as_the_normal_run(
    tmp_path: Path, system: System | None
) -> None:
    """Answers past SENDFILE_MIN leave a Linux worker's memory file by sendfile; where the
    system has no memfd_create (macOS) or sendfile (Windows) they are written: the same
    bytes either way, kept alive or not, in each encoding."""
    content = generate_catalog(tmp_path / "content", 300)
    assert run_cli("build", content, "--out", tmp_path / "dist").returncode == 0
    games = tmp_path / "dist" / "public" / "api" / "v1" / "games"
    built = {"identity": (games / "index.json").read_bytes()}
    built["gzip"] = (games / "index.json.gz").read_bytes()
    assert len(built["identity"]) >= SENDFILE_MIN
    proc = ServeProcess(str(tmp_path / "dist"), env=environment(system) if system else None)
    try:
        host, port = proc.url.removeprefix("http://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            for encoding in ("identity", "gzip", "identity", "gzip"):
                head = (
                    f"GET /api/v1/games HTTP/1.1\r\nHost: x\r\nAccept-Encoding: {encoding}\r\n\r\n"
                )
                sock.sendall(head.encode())
                assert _read_answer(sock) == built[encoding]
        for encoding in ("identity", "gzip"):
            reply = conformance.request(
                proc.url, "/api/v1/games", headers={"Accept-Encoding": encoding}
            )
            assert reply.status == 200 and reply.body == built[encoding]
    finally:
        assert proc.stop() == 0, proc.describe()


def _read_answer(sock: socket.socket) -> bytes:
    """One answer's body from a kept-alive connection (Content-Length framed)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "closed before the head ended"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"\r\nContent-Length: (\d+)", head)[1])  # type: ignore[index]
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed before the body ended"
        body += chunk
    assert len(body) == length, "bytes past the answer"
    return body


@pytest.mark.parametrize("system", [pytest.param(None, marks=needs_posix_signals), WINDOWS])
def test_posixless_serve_says_how_to_reload_without_sighup(system: System | None) -> None:
    """Without SIGHUP, serve (without --watch) says at start how to serve a changed catalog;
    where SIGHUP exists it says nothing of the kind."""
    proc = ServeProcess(str(SAMPLE), env=environment(system) if system else None)
    try:
        if system:
            note = str(proc.wait_for("no SIGHUP")["message"])
            assert "--watch" in note and "restart" in note
    finally:
        assert proc.stop() == 0
    assert ("no SIGHUP" in proc.printed()) == bool(system)


@pytest.mark.parametrize("system", EMULATED)
def test_posixless_serve_access_log_on_a_pipe(system: System) -> None:
    """The access log on standard output, a pipe: no descriptor of its own there (no /proc,
    and Windows has no O_NONBLOCK), each line still arrives."""
    argv = cli("serve", SAMPLE, "--port", "0", "--log-format", "json")
    with Program(argv, env=environment(system), stdout=subprocess.PIPE) as proc:
        url = json.loads(proc.wait_for_line('"listening"'))["url"]
        assert conformance.request(url, "/api/v1").status == 200
        line = proc.wait_for_line('"path":"/api/v1"', timeout=30)
        assert json.loads(line)["status"] == 200


@emulates_another_system
def test_posixless_serve_access_log_on_a_socket_without_msg_dontwait() -> None:
    """Standard output a socket (as the systemd journal gives), on a system without
    MSG_DONTWAIT: written as a file is, every line arrives."""
    ours, theirs = socket.socketpair()
    argv = cli("serve", SAMPLE, "--port", "0", "--log-format", "json")
    try:
        with Program(argv, env=environment("windows"), stdout=theirs.fileno()) as proc:
            theirs.close()
            url = json.loads(proc.wait_for_line('"listening"'))["url"]
            assert conformance.request(url, "/api/v1/games").status == 200
            received = b""
            while b"\n" not in received:
                assert select.select([ours], [], [], 30)[0], "no access line in 30 s"
                chunk = ours.recv(65536)
                assert chunk, "serve closed its standard output"
                received += chunk
        assert json.loads(received.split(b"\n")[0])["path"] == "/api/v1/games"
    finally:
        ours.close()


@pytest.mark.parametrize(
    "system", [pytest.param(None, marks=[needs_fork, needs_posix_signals]), MACOS]
)
def test_posixless_workers_stop_when_the_supervisor_is_killed(system: System | None) -> None:
    """--workers 2 --metrics with fork but, on macOS, no prctl: SIGHUP reloads as on Linux, and
    when the supervisor dies by SIGKILL its workers and the metrics process stop (Linux: the
    kernel tells them; macOS: they see their parent change), so the ports stop answering."""
    proc = ServeProcess(
        str(SAMPLE), "--workers", "2", "--metrics", "127.0.0.1:0",
        env=environment(system) if system else None,
    )  # fmt: skip
    try:
        port = int(proc.url.rsplit(":", 1)[1])
        metrics_port = int(str(proc.events[-1]["metrics"]).rsplit(":", 1)[1].split("/")[0])
        assert len(_names(proc.url)) == 13
        proc.signal(signal.SIGHUP)
        assert "all 2 workers" in str(proc.wait_for("reloaded", timeout=30)["message"])
        # Not proc.stop(): reaping the supervisor kills its process group, workers included.
        os.kill(proc.proc.pid, signal.SIGKILL)
        wait_until(
            lambda: not port_answers(port) and not port_answers(metrics_port),
            timeout=20,
            what="the workers and the metrics process stopping",
        )
    finally:
        proc.kill()
    if system:  # the workers said why they stopped
        assert "is gone; stopping" in proc.printed(), proc.describe()
