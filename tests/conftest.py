"""Shared fixtures: the sample content, a factory for small content trees, system programs."""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import socket
import sys
import tempfile
import textwrap
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# Content generators live in tests/catalogs.py, which the benchmarks import without pytest;
# tests import them from here as before.
from tests.catalogs import SITE_TOML, generate_catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "content"

# CI sets this to 1: a test that needs a missing system program fails instead of skipping.
REQUIRE_SYSTEM_TESTS = "CATALOGCTL_REQUIRE_SYSTEM_TESTS"


# --- what the operating system lacks -------------------------------------------------------
# A test that needs a facility of the system (not a program: see `require_program`) carries one
# of these marks; it skips where the system lacks it, saying what is missing. These skips are
# never turned into failures by CATALOGCTL_REQUIRE_SYSTEM_TESTS: no install can add them.
# docs/contributing.md lists the tests each one skips and where.

WINDOWS = sys.platform == "win32"
LINUX = sys.platform.startswith("linux")


def _probe(make: Callable[[Path], bool]) -> bool:
    """Whether `make` succeeds in a fresh folder of the temporary folder, where tmp_path is."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            return make(Path(folder))
        except (OSError, UnicodeError, ValueError, NotImplementedError):
            return False


def _symlink(folder: Path) -> bool:
    (folder / "link").symlink_to(folder / "target")
    return (folder / "link").is_symlink()


def _bytes_name(folder: Path) -> bool:
    name = os.fsencode(folder) + b"/caf\xe9.md"  # Latin-1, not UTF-8
    os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o644))
    return [entry.name for entry in folder.iterdir()] == [os.fsdecode(b"caf\xe9.md")]


def _case_sensitive(folder: Path) -> bool:
    (folder / "Gull-Patrol.md").write_bytes(b"")
    return not (folder / "gull-patrol.md").exists()


def _nfc_and_nfd(folder: Path) -> bool:
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    (folder / nfc).write_bytes(b"")
    (folder / nfd).write_bytes(b"")
    return sorted(entry.name for entry in folder.iterdir()) == sorted([nfc, nfd])


needs_posix_signals = pytest.mark.skipif(
    WINDOWS,
    reason="Windows has no SIGHUP, SIGKILL, SIGSTOP, SIGCONT or SIGQUIT (os.kill terminates)",
)
needs_fork = pytest.mark.skipif(
    WINDOWS, reason="Windows has no os.fork: serve refuses --workers above 1, no fork pool"
)
needs_unix_sockets = pytest.mark.skipif(
    not hasattr(socket, "AF_UNIX"),
    reason=f"{sys.platform}'s Python has no socket.AF_UNIX: serve refuses --unix",
)
needs_fifos = pytest.mark.skipif(WINDOWS, reason="Windows has no FIFOs (os.mkfifo)")
needs_rlimits = pytest.mark.skipif(
    WINDOWS,
    reason="Windows has no resource module: no open-file limit (ulimit), no getrusage",
)
needs_pty = pytest.mark.skipif(
    WINDOWS, reason="Windows has no pseudo-terminals (pty, termios): the console is not one"
)
needs_proc = pytest.mark.skipif(
    not LINUX,
    reason=f"reads /proc (processes' children, states, sockets), which {sys.platform} lacks",
)
needs_linux = pytest.mark.skipif(
    not LINUX, reason=f"Linux only (systemd, prctl, /proc): {sys.platform} lacks it"
)
needs_symlinks = pytest.mark.skipif(
    not _probe(_symlink),
    reason="this system lets this user make no symlink (Windows: without Developer Mode)",
)
needs_bytes_file_names = pytest.mark.skipif(
    not _probe(_bytes_name),
    reason="this file system refuses file names that are not UTF-8 (NTFS, APFS)",
)
needs_case_sensitive_fs = pytest.mark.skipif(
    not _probe(_case_sensitive),
    reason="this file system ignores case (macOS and Windows by default): "
    "Gull-Patrol.md and gull-patrol.md cannot both exist",
)
needs_nfc_and_nfd = pytest.mark.skipif(
    not _probe(_nfc_and_nfd),
    reason="this file system normalises file names (macOS HFS+): café in NFC and NFD is one",
)
needs_posix_names = pytest.mark.skipif(
    WINDOWS, reason="Windows cannot hold such a name (aux.md, a:b.md): no file can be made"
)


def example_marks(rule_ids: list[str]) -> list[pytest.MarkDecorator]:
    """What the system needs to lay out the examples of these rules (docs/reference/rules.md):
    a FIFO, a symlink, a name that is not UTF-8, a name Windows refuses."""
    from catalogctl.content.discovery import windows_name_problem
    from catalogctl.content.rules.examples import EXAMPLES

    marks: list[pytest.MarkDecorator] = []
    for rule_id in rule_ids:
        for f in EXAMPLES[rule_id].files:
            if f.kind == "fifo":
                marks.append(needs_fifos)
            if f.kind == "symlink":
                marks.append(needs_symlinks)
            try:
                f.path.encode("utf-8")
            except UnicodeEncodeError:
                marks.append(needs_bytes_file_names)
            if any(windows_name_problem(part) for part in f.path.split("/")):
                marks.append(needs_posix_names)
    unique: list[pytest.MarkDecorator] = []
    for mark in marks:
        if not any(mark is seen for seen in unique):
            unique.append(mark)
    return unique


def example_params() -> list[Any]:
    """Each rule with an example, as a parameter that skips where its example cannot be made."""
    from catalogctl.content.rules.examples import EXAMPLES

    return [pytest.param(r, marks=example_marks([r]), id=r) for r in sorted(EXAMPLES)]


emulates_another_system = pytest.mark.skipif(
    not LINUX,
    reason="tests/posixless emulates Windows and macOS by taking facilities away from Linux's "
    f"Python: on {sys.platform} the real system runs the suite",
)


# --- tests that fork from a process of one thread --------------------------------------------
# catalogctl forks parse workers only from a process that runs no other thread
# (`pool.start_method`): a forked child of a threaded process may inherit a lock another thread
# held, and hang on it. A pytest-xdist worker runs a second thread (execnet's reader), so a test
# of the forked parse carries `one_thread` and runs in a fresh `pytest -n 0` of its own there.

one_thread = pytest.mark.one_thread
_ALONE = "CATALOGCTL_TEST_ALONE"  # the test id a `pytest -n 0` of one test was started for


def start_methods() -> list[Any]:
    """multiprocessing's start methods on this system, as parameters: fork's runs `one_thread`."""
    import multiprocessing

    return [
        pytest.param(m, marks=one_thread) if m == "fork" else m
        for m in multiprocessing.get_all_start_methods()
    ]


def threads_of_this_process() -> int:
    """The kernel's count of this process's threads (Linux), or Python's elsewhere."""
    try:
        return sum(1 for _ in Path("/proc/self/task").iterdir())
    except OSError:
        import threading

        return threading.active_count()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "one_thread: runs in a process of one thread (a `pytest -n 0` of its own)"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A `one_thread` test in a process that runs other threads runs in a fresh `pytest -n 0`
    with the same plugins (`-p`), and passes or fails as it does there."""
    if pyfuncitem.get_closest_marker("one_thread") is None:
        return None
    if os.environ.get(_ALONE) == pyfuncitem.nodeid:
        assert threads_of_this_process() == 1, "a one_thread test runs beside another thread"
        return None
    if threads_of_this_process() == 1:
        return None
    from tests.processes import run

    args = list(pyfuncitem.config.invocation_params.args)
    plugins = [f"-p{a}" for flag, a in itertools.pairwise(args) if flag == "-p"]
    plugins += [a for a in args if a.startswith("-p") and a != "-p"]
    argv = [sys.executable, "-m", "pytest", "-n", "0", "-q", *plugins, pyfuncitem.nodeid]
    done = run(
        argv,
        cwd=pyfuncitem.config.rootpath,
        env={**os.environ, _ALONE: pyfuncitem.nodeid},
        timeout=300,
    )
    if done.returncode != 0:
        pytest.fail(
            f"in a process of one thread (`{' '.join(argv[1:])}`), it failed:\n{done.stdout}",
            pytrace=False,
        )
    return True


@pytest.fixture
def pool_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The start method of each pool the parse of this test starts (`parallel_map`), in order."""
    from catalogctl.content import pool

    calls: list[str] = []
    real = pool.parallel_map

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(kw["method"])
        return real(*args, **kw)

    monkeypatch.setattr(pool, "parallel_map", counted)
    return calls


def pytest_report_header() -> str:
    """Which catalogctl the tests run: this checkout, or (CI) the installed wheel."""
    import catalogctl

    return f"catalogctl {catalogctl.__version__} from {Path(catalogctl.__file__).parent}"


def require_program(name: str, *, package: str) -> str:
    """The path of system program `name` on PATH, or skip the calling test saying what to install.

    With CATALOGCTL_REQUIRE_SYSTEM_TESTS=1 (as CI runs) a missing program fails the test, so a
    green CI run never hides a skipped suite. Call it in a test or fixture:
    `nginx = require_program("nginx", package="nginx")`.
    """
    found = shutil.which(name)
    if found is not None:
        return found
    message = f"{name} is not on PATH: install the Debian package {package}"
    message += f" (apt-get install {package})"
    if sys.platform == "win32":  # CI installs the programs on Linux and macOS only
        message = f"{name} is not on PATH: this test drives it, on Linux and macOS"
    for folder in ("/usr/sbin", "/sbin", "/usr/local/sbin"):
        if Path(folder, name).is_file():
            message = f"{name} is not on PATH, but {folder}/{name} exists: add {folder} to PATH"
            break
    if os.environ.get(REQUIRE_SYSTEM_TESTS, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_SYSTEM_TESTS} is set)", pytrace=False)
    pytest.skip(message)


def require_module(name: str, *, pip: str) -> None:
    """Skip the calling test (or fail, as `require_program`) when Python module `name` is
    missing, naming the PyPI package to install."""
    if importlib.util.find_spec(name) is not None:
        return
    message = f"the Python package {pip} is not installed (pip install {pip})"
    if os.environ.get(REQUIRE_SYSTEM_TESTS, "") not in ("", "0"):
        pytest.fail(f"{message} ({REQUIRE_SYSTEM_TESTS} is set)", pytrace=False)
    pytest.skip(message)


def game_yaml(
    name: str = "Game",
    *,
    description: str = "A game.",
    platforms: str = "[iOS, Android]",
    genres: str = "[Puzzle]",
    icon: str = "/icons/game.png",
    ios: str | None = "https://apps.apple.com/app/game/id1",
    android: str | None = "https://play.google.com/store/apps/details?id=com.example.game",
    extra: str = "",
) -> str:
    stores = ""
    if ios:
        stores += f"  ios: {ios}\n"
    if android:
        stores += f"  android: {android}\n"
    return (
        f"---\nname: {name}\ndescription: {description}\nplatforms: {platforms}\n"
        f"genres: {genres}\nicon: {icon}\nstores:\n{stores}{extra}---\nBody.\n"
    )


class ContentFactory:
    """Writes a content tree under tmp_path: `make(games={"id": text}, site=...)`."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.count = 0

    def __call__(
        self,
        games: dict[str, str | bytes] | None = None,
        *,
        site: str | None = SITE_TOML,
        name: str | None = None,
    ) -> Path:
        self.count += 1
        root = self.base / (name or f"content{self.count}")
        (root / "games").mkdir(parents=True)
        if site is not None:
            (root / "site.toml").write_text(site, encoding="utf-8")
        if games is None:
            games = {"alpha": game_yaml("Alpha"), "beta": game_yaml("Beta")}
        for game_id, text in games.items():
            path = root / "games" / f"{game_id}.md"
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(textwrap.dedent(text), encoding="utf-8")
        return root


@pytest.fixture
def make_content(tmp_path: Path) -> ContentFactory:
    return ContentFactory(tmp_path)


@pytest.fixture
def sample() -> Path:
    return SAMPLE


@pytest.fixture
def generated(tmp_path: Path) -> Callable[[int], Path]:
    def make(n: int) -> Path:
        return generate_catalog(tmp_path / f"generated-{n}", n)

    return make


@pytest.fixture
def defective(make_content: ContentFactory) -> Path:
    """Errors and warnings: a genre typo, an ftp icon, a draft with a problem, a missing store."""
    return make_content(
        {
            "good": game_yaml("Good"),
            "typo": game_yaml("Typo", genres="[Puzzel]"),
            "icon": game_yaml("Icon", icon="ftp://example.com/x.png"),
            "draft": game_yaml("Draft", genres="[Nope]", extra="draft: true\n"),
            "nostore": game_yaml("No store", android=None),
        }
    )
