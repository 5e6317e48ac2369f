"""Hostile content trees: no escape from the tree, no crash, no hang, bounded time and memory.

Each case runs the real command in a subprocess and asserts the exit code, a message naming
the file, and no traceback; where it matters, a generous bound on time and memory (a bound
that only a hang, a quadratic loop or a runaway allocation can break).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalogctl.content import files, loader
from catalogctl.content.document import Problem
from catalogctl.content.frontmatter import parse_page
from catalogctl.content.pool import parallel_map
from catalogctl.content.rules.suggest import osa_distance
from tests.conftest import (
    SITE_TOML,
    ContentFactory,
    game_yaml,
    generate_catalog,
    needs_bytes_file_names,
    needs_fifos,
    needs_posix_signals,
    needs_proc,
    needs_rlimits,
    needs_symlinks,
    start_methods,
)
from tests.processes import Program, children, cli, measure, run_cli

if sys.platform != "win32":
    import resource  # getrusage (`needs_rlimits`)

ESC = "\x1b"


def validate(root: Path, *extra: str, timeout: float = 60) -> tuple[int, dict[str, Any], str]:
    proc = run_cli("validate", root, "--format", "json", *extra, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode < 128, proc.returncode
    doc = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
    return proc.returncode, doc, proc.stderr


def rules_for(doc: dict[str, Any], name: str) -> set[str]:
    return {f["rule"] for f in doc.get("findings", []) if name in f["file"]}


# --- escape from the tree ---------------------------------------------------------------------


@needs_symlinks
def test_symlink_out_of_the_tree_is_not_read(make_content: ContentFactory, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(game_yaml("Secret"), encoding="utf-8")
    root = make_content()
    (root / "games" / "leak.md").symlink_to(secret)
    rc, doc, _ = validate(root)
    assert rc == 1
    assert rules_for(doc, "leak.md") == {"symlink-outside"}
    assert doc["summary"]["games"] == 2


@needs_symlinks
def test_symlink_out_of_the_tree_through_a_folder(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text(game_yaml("X"), encoding="utf-8")
    root = make_content()
    (root / "games" / "more").symlink_to(outside)
    rc, doc, _ = validate(root)
    assert rc == 1 and rules_for(doc, "more") == {"symlink-outside"}


@needs_symlinks
def test_symlink_inside_the_tree_is_read(make_content: ContentFactory) -> None:
    root = make_content()
    (root / "drafts").mkdir()
    (root / "drafts" / "gamma.md").write_text(game_yaml("Gamma"), encoding="utf-8")
    (root / "games" / "gamma.md").symlink_to(root / "drafts" / "gamma.md")
    rc, doc, _ = validate(root)
    assert rc == 0, doc
    assert doc["summary"]["games"] == 3


@needs_symlinks
def test_dangling_symlink_is_a_finding(make_content: ContentFactory) -> None:
    root = make_content()
    (root / "games" / "gone.md").symlink_to(root / "nowhere.md")
    rc, doc, _ = validate(root)
    assert rc == 1 and rules_for(doc, "gone.md") == {"broken-symlink"}


@needs_symlinks
def test_self_loop_symlink_is_a_finding(make_content: ContentFactory) -> None:
    root = make_content()
    (root / "games" / "loop.md").symlink_to(root / "games" / "loop.md")
    rc, doc, _ = validate(root)
    assert rc == 1 and rules_for(doc, "loop.md") == {"broken-symlink"}


@needs_symlinks
def test_folder_symlink_loop_is_a_finding(make_content: ContentFactory) -> None:
    root = make_content()
    (root / "games" / "again").symlink_to(root / "games")
    rc, doc, _ = validate(root, timeout=30)
    assert rc == 1 and rules_for(doc, "again") == {"broken-symlink"}


@needs_fifos
def test_fifo_is_a_finding_not_a_hang(make_content: ContentFactory) -> None:
    root = make_content()
    os.mkfifo(root / "games" / "pipe.md")
    rc, doc, _ = validate(root, timeout=30)
    assert rc == 1 and rules_for(doc, "pipe.md") == {"not-a-file"}


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        (PermissionError(13, "Permission denied"), "let catalogctl read it (chmod a+r)"),
        (OSError(0, "not a regular file"), "replace it with a regular file"),
        (OSError(5, "Input/output error"), "fix what the system reports"),
    ],
)
def test_unreadable_file_finding_gives_the_fix_for_its_cause(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch, error: OSError, fix: str
) -> None:
    """The fix follows the system's reason: permissions are fixed with chmod, a FIFO in a
    file's place is replaced, anything else is the system's to explain; a page may also be
    moved out of the tree, site.toml may not."""
    root = make_content()

    def refuse(path: str, limit: int) -> tuple[bytes, bool]:
        raise error

    monkeypatch.setattr(loader, "read_head", refuse)
    findings = [f for f in loader.load(root).findings if f.rule == "unreadable-file"]
    assert findings, "no unreadable-file finding"
    for finding in findings:
        assert fix in finding.message, finding.message
        assert ("chmod" in finding.message) is ("chmod" in fix), finding.message
        moved = "or move it out of the content tree" in finding.message
        assert moved is (Path(finding.file).name != "site.toml"), finding.message


@needs_fifos
def test_site_toml_fifo_is_a_finding_not_a_hang(make_content: ContentFactory) -> None:
    root = make_content()
    (root / "site.toml").unlink()
    os.mkfifo(root / "site.toml")
    rc, doc, _ = validate(root, timeout=30)
    found = [f for f in doc["findings"] if Path(f["file"]).name == "site.toml"]
    assert rc == 1 and [f["rule"] for f in found] == ["unreadable-file"]
    assert "replace it with a regular file" in found[0]["message"]


@needs_bytes_file_names
def test_non_utf8_file_name_is_a_finding(make_content: ContentFactory) -> None:
    root = make_content()
    name = os.fsencode(root / "games") + b"/caf\xe9\x1b.md"
    fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, game_yaml("Cafe").encode())
    os.close(fd)
    proc = run_cli("validate", root)
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "\x1b[" not in out.replace("\x1b[0m", "")
    assert "caf\\xe9" in out


def test_unreadable_file_is_a_finding(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root every file is readable: make reading fail where the loader reads.
    root = make_content()

    def refuse(path: str, limit: int) -> tuple[bytes, bool]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(loader, "read_head", refuse)
    content = loader.load(root)
    assert {f.rule for f in content.findings if f.file.endswith(".md")} == {"unreadable-file"}


@pytest.mark.parametrize("size", [0, 1, 99, 100, 101, 250])
@pytest.mark.parametrize("reported", ["true", "smaller", "larger"])
def test_read_head_reads_the_whole_file_or_exactly_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int, reported: str
) -> None:
    # fstat's size may be out of date by the time of the read (the file grew or shrank): the
    # file is still read to its end, or to the limit and no further.
    path = tmp_path / "page.md"
    data = bytes(i % 251 for i in range(size))
    path.write_bytes(data)
    real_fstat = os.fstat

    def fstat(fd: int) -> os.stat_result:
        st = list(real_fstat(fd))
        st[6] = {"true": size, "smaller": size // 3, "larger": size * 2 + 7}[reported]
        return os.stat_result(st)

    monkeypatch.setattr(files.os, "fstat", fstat)
    head, complete = files.read_head(str(path), 100)
    assert head == data[:100]
    assert complete == (size <= 100)


# --- parsers with limits ----------------------------------------------------------------------

DEEP = 25_000


@pytest.mark.parametrize(
    "text",
    [
        "---\na: " + "[" * DEEP + "]" * DEEP + "\n---\n",
        "---\n" + "- " * DEEP + "x\n---\n",
        '---\nb: "a\tb"\na: ' + "[" * DEEP + "]" * DEEP + "\n---\n",  # a tab: the pure loader
        "---\n" + "".join(" " * i + "k:\n" for i in range(0, 600, 2)) + "---\n",
        "+++\na = " + "[" * DEEP + "]" * DEEP + "\n+++\n",
        "+++\n" + ".".join(["a"] * 5000) + " = 1\n+++\n",
        '{"a": ' + "[" * DEEP + "]" * DEEP + "}\n",
        "---\na: " + "9" * 5000 + "\n---\n",
        "+++\na = " + "9" * 5000 + "\n+++\n",
        '{"a": ' + "9" * 5000 + "}\n",
        "---\n"
        + "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
        + "---\n",
        "---\na: &a [*a]\n---\n",
        "---\ndescription: " + "x" * (2 * 1024 * 1024) + "\n---\n",
        "---\na: [" + "x," * 200_001 + "x]\n---\n",
        "---\n" + "".join(f"k{i}: x\n" for i in range(100_001)) + "---\n",
    ],
    ids=[
        "yaml-flow",
        "yaml-block",
        "yaml-pure-loader",
        "yaml-indent",
        "toml-arrays",
        "toml-dotted",
        "json",
        "yaml-int",
        "toml-int",
        "json-int",
        "yaml-aliases",
        "yaml-recursive-alias",
        "size",
        "yaml-strings-in-a-list",
        "yaml-strings-in-a-mapping",
    ],
)
def test_over_limit_page_is_a_finding_naming_it(make_content: ContentFactory, text: str) -> None:
    root = make_content({"good": game_yaml("Good"), "evil": text})
    rc, doc, _ = validate(root, timeout=60)
    assert rc == 1
    assert rules_for(doc, "evil.md") == {"limit"}, doc["findings"]
    assert doc["summary"]["games"] == 1


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        (
            '+++\ntitle = "x"\n[a]\nb = [1, 2, ' + "9" * 200 + "]\n+++\n",
            "a number longer than 100 digits",
            (4, 12),
        ),
        ("+++\nx = 1\n" + ".".join(["a"] * 300) + " = 1\n+++\n", "nested deeper", (3, 1)),
        ('{"a": {"b": [1, ' + "9" * 200 + "]}}\n", "a number longer than 100 digits", (1, 17)),
    ],
    ids=["toml-number", "toml-dotted-depth", "json-number"],
)
def test_limit_in_parsed_data_points_at_the_value(
    text: str, message: str, where: tuple[int, int]
) -> None:
    with pytest.raises(Problem) as info:
        parse_page(text.encode(), "x.md", complete=True)
    assert info.value.rule == "limit"
    assert message in info.value.message
    assert (info.value.line, info.value.column) == where


@pytest.mark.parametrize("loader_name", ["PureLoader", "C_LOADER"])
def test_deep_yaml_never_reaches_either_composer(
    loader_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:

    from catalogctl.content import yamldoc, yamlload

    chosen = getattr(yamlload, loader_name)
    if chosen is None:
        pytest.skip("PyYAML without libyaml: the pure loader is the only one")
    monkeypatch.setattr(yamldoc, "loader_for", lambda _text: chosen)
    for text in (
        "a: " + "[" * DEEP + "]" * DEEP,
        "- " * DEEP + "x",
        "{a: " * DEEP + "b" + "}" * DEEP,
    ):
        with pytest.raises(Problem) as info:
            parse_page(f"---\n{text}\n---\n".encode(), "x.md", complete=True)
        assert info.value.rule == "limit"


def _capped_loader(cap: int) -> type:
    """A YAML loader refusing input nested `cap` levels deep, as a release with a cap would."""
    import yaml

    from catalogctl.content import yamlload

    class Capped(yamlload.FAST):  # type: ignore[misc,name-defined]
        depth = 0

        def get_event(self) -> Any:
            event = super().get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                self.depth += 1
                if self.depth >= cap:
                    raise yaml.MarkedYAMLError(problem="exceeded maximum nesting depth")
            return event

    return Capped


@pytest.mark.parametrize("cap", [65, 100, 1000])
def test_yaml_depth_limit_does_not_depend_on_the_parsers_own_cap(
    cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A YAML release that refuses deep input at a cap of its own (libyaml since PyYAML 6.0.4
    stops at 1000 flow levels, reading ahead of its events) still gives our `limit` finding."""
    from catalogctl.content import yamldoc

    capped = _capped_loader(cap)
    monkeypatch.setattr(yamldoc, "loader_for", lambda _text: capped)
    deep = "a: " + "[" * (cap + 10) + "]" * (cap + 10)
    with pytest.raises(Problem) as info:
        parse_page(f"---\n{deep}\n---\n".encode(), "x.md", complete=True)
    assert (info.value.rule, info.value.line) == ("limit", 2)
    assert "nested deeper than 64 levels" in info.value.message


def test_yaml_parser_refusal_under_our_limit_stays_a_syntax_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from catalogctl.content import yamldoc

    capped = _capped_loader(30)
    monkeypatch.setattr(yamldoc, "loader_for", lambda _text: capped)
    shallow = "a: " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "]" * 30
    with pytest.raises(Problem) as info:
        parse_page(f"---\n{shallow}\n---\n".encode(), "x.md", complete=True)
    assert info.value.rule == "syntax"


@pytest.mark.parametrize(
    ("site", "words"),
    [
        ("a = " + "[" * DEEP + "]" * DEEP + "\n", "nested"),
        ("x = " + "1" * 5000 + "\n", "digits"),
        ('title = "' + "x" * (2 * 1024 * 1024) + '"\n', "larger"),
        (SITE_TOML.replace("Example", "Caf\udce9"), "UTF-8"),
        (
            'base_url = "https://x.example/\\"><script>alert(1)</script>"\n'
            + SITE_TOML.split("\n", 1)[1],
            "quote",
        ),
    ],
    ids=["deep", "int", "size", "not-utf8", "injection"],
)
def test_hostile_site_toml_is_a_finding_naming_it(
    make_content: ContentFactory, site: str, words: str
) -> None:
    root = make_content()
    (root / "site.toml").write_bytes(site.encode("utf-8", "surrogateescape"))
    rc, doc, _ = validate(root, timeout=60)
    assert rc == 1
    mine = [f for f in doc["findings"] if f["file"].endswith("site.toml")]
    assert any(words in f["message"] for f in mine), mine


def test_control_characters_never_reach_the_terminal(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml("A", platforms='["\\e[31mRED\\a", Android]')})
    proc = run_cli("validate", root)
    assert proc.returncode == 1
    assert ESC not in proc.stdout and "\a" not in proc.stdout and "\a" not in proc.stderr
    assert "RED" in proc.stdout


@pytest.mark.parametrize("fmt", ["table", "github", "markdown", "junit"])
def test_bidirectional_controls_never_reorder_what_a_report_shows(
    make_content: ContentFactory, fmt: str
) -> None:
    """U+202E in a file name or a value (CVE-2021-42574): a report people read shows the
    text in the order it is stored; U+2028 does not start a line. (JSON and SARIF are data:
    a file's name there is the file's, a SARIF uri percent-encodes it.)"""
    root = make_content({"a": game_yaml("A", platforms='["i\u202eOS\u2028x", Android]')})
    (root / "games" / "a.md").rename(root / "games" / "trojan\u202edm.exe.md")
    proc = run_cli("validate", root, "--format", fmt)
    assert proc.returncode == 1, proc.stderr
    shown = proc.stdout + proc.stderr
    assert "\u202e" not in shown and "\u2028" not in shown
    assert "trojandm.exe.md" in shown


# --- the worker pool ---------------------------------------------------------------------------

# The start methods of this machine (Linux: fork, spawn and forkserver). catalogctl parses with
# fork where it is safe and serially elsewhere (pool.start_method), but the pool runs the same
# on each: a test forces each one (fork's in a process of one thread, as catalogctl forks).
METHODS = start_methods()


def _boom(x: int) -> int:
    if x == 7:
        os.kill(os.getpid(), signal.SIGKILL)
    if x == 0:
        time.sleep(60)  # the behaviour under test: a worker that hangs on its first item
    return x * 2 + _OFFSET[0]


_OFFSET = [0]  # what `_set_offset` sets in each worker


def _set_offset(value: int) -> None:
    _OFFSET[0] = value


@needs_posix_signals
@pytest.mark.parametrize("method", METHODS)
def test_pool_names_the_item_whose_worker_died_or_hung(
    monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    from catalogctl.content import pool

    monkeypatch.setattr(pool, "WORKER_FILE_SECONDS", 1.0)
    started = time.monotonic()
    out = parallel_map(
        _boom,
        list(range(40)),
        2,
        lambda x, why: f"{x}: {why}",
        chunk=5,
        method=method,
        initializer=_set_offset,
        initargs=(1000,),
    )
    assert time.monotonic() - started < 30
    assert out[7] == "7: ended with signal SIGKILL"
    assert out[0] == "0: took longer than 1 s"
    # In order, each from a worker set up by the initializer (a worker started again too).
    assert [out[i] for i in range(40) if i not in (0, 7)] == [
        i * 2 + 1000 for i in range(40) if i not in (0, 7)
    ]
    assert not multiprocessing.active_children()


def test_pool_times_an_item_from_when_it_saw_the_worker_start_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker is stopped once the parent has seen it on one item for longer than the limit,
    by the parent's clock. A worker paused just after it named its first item (a loaded
    machine) is not judged by a start time it has not written yet: that stopped a healthy
    worker at once and turned its page into a parser-crash finding."""
    from types import SimpleNamespace

    from catalogctl.content import pool

    clock = [1000.0]
    monkeypatch.setattr(pool, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    watched = pool._Pool(_boom, list(range(8)), 2, lambda x, why: -1, 4, "spawn", (None, ()))
    watched.current[0] = 3  # what a worker writes before it starts item 3, nothing more
    assert watched.hung(0) is None
    clock[0] += pool.WORKER_FILE_SECONDS
    assert watched.hung(0) is None
    clock[0] += 0.5
    assert watched.hung(0) == 3
    assert watched.hung(1) is None  # the other worker is idle
    watched.current[0] = 4  # it went on to the next item: its time starts again
    assert watched.hung(0) is None
    clock[0] += pool.WORKER_FILE_SECONDS + 0.5
    assert watched.hung(0) == 4
    watched.current[0] = -1  # idle between chunks, however long
    assert watched.hung(0) is None
    clock[0] += 10 * pool.WORKER_FILE_SECONDS
    assert watched.hung(0) is None


def _terminate_parent(x: int) -> int:
    if x == 3:
        # The pool's owner, set by the initializer (a fork server's child has another parent).
        os.kill(_OFFSET[0], signal.SIGTERM)
        time.sleep(60)  # still working when the signal arrives
    return x


@needs_posix_signals
@pytest.mark.parametrize("method", METHODS)
def test_pool_ends_on_sigterm_and_leaves_no_worker(method: str) -> None:
    """SIGTERM mid-run: the pool's workers die at once, parallel_map raises SystemExit(143)
    and the handler it replaced is back."""
    assert threading.current_thread() is threading.main_thread()  # else SIGTERM ends pytest
    before = signal.getsignal(signal.SIGTERM)
    started = time.monotonic()
    with pytest.raises(SystemExit) as ended:
        parallel_map(
            _terminate_parent,
            list(range(40)),
            2,
            lambda x, why: -1,
            chunk=2,
            method=method,
            initializer=_set_offset,
            initargs=(os.getpid(),),
        )
    assert ended.value.code == 128 + signal.SIGTERM
    assert time.monotonic() - started < 10
    assert signal.getsignal(signal.SIGTERM) == before
    assert not multiprocessing.active_children()


def test_pool_watch_parent_acts_once_the_parent_is_gone() -> None:
    """Where the kernel cannot end a worker with its parent (macOS, Windows, a fork server's
    child), a thread waits on the parent's sentinel (here a pipe) and ends the process."""
    from catalogctl.content.pool import watch_parent

    read, write = os.pipe()
    gone = threading.Event()
    watcher = watch_parent(read, gone.set)
    assert watcher.daemon and not gone.is_set()
    os.close(write)  # the parent's end closes when it dies
    assert gone.wait(timeout=30)
    watcher.join(timeout=30)
    os.close(read)


_CHECK_ONE = loader._check_one  # the loader's own, in this process and in a spawned worker


def _check_or_die(page: Any) -> Any:
    """The loader's page check, in a parse worker that dies on one page (game-00033)."""
    if page.id == "game-00033":
        os.kill(os.getpid(), signal.SIGKILL)
    return _CHECK_ONE(page)


@needs_posix_signals
@pytest.mark.parametrize("method", METHODS)
def test_validate_names_the_page_whose_parser_died(
    generated: Callable[[int], Path], monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    from catalogctl.content import pool

    root = generated(60)
    monkeypatch.setattr(loader, "_check_one", _check_or_die)
    monkeypatch.setattr(loader, "PARALLEL_THRESHOLD", 10)
    monkeypatch.setattr(pool, "start_method", lambda: method)
    content = loader.load(root)
    crashed = [f for f in content.findings if f.rule == "parser-crash"]
    assert [Path(f.file).name for f in crashed] == ["game-00033.md"]
    assert content.summary.published == 59


@pytest.fixture(scope="module")
def three_thousand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated tree of 3,000 games (validate only reads it)."""
    return generate_catalog(tmp_path_factory.mktemp("generated") / "generated-3000", 3000)


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_ends_a_parallel_validate_at_once(three_thousand: Path, sig: int) -> None:
    with Program(cli("validate", three_thousand)) as proc:
        # Mid-parse: the worker processes are running.
        proc.wait_until(lambda: children(proc.proc.pid), what="validate's parse workers")
        proc.signal(sig)
        sent = time.monotonic()
        code = proc.wait(timeout=10)
        assert time.monotonic() - sent < 5  # a hang would wait forever; a second is the aim
    assert "Traceback" not in proc.printed()
    assert code in (-sig, 128 + sig, 0)


# --- linear in the size of the input, findings included -----------------------------------------


@needs_rlimits
def test_ten_thousand_unknown_keys_stay_linear(make_content: ContentFactory) -> None:
    keys = "".join(f"nme{i}: x\n" if i % 2 else f"genre{i}: x\n" for i in range(10_000))
    root = make_content({"a": game_yaml("A", extra=keys)})
    done = measure(cli("validate", root, "--format", "json"))
    assert done.proc.returncode in (0, 1), done.proc.stderr
    assert done.seconds < 30 and done.peak_mib < 600, (done.seconds, done.peak_mib)


@needs_rlimits
def test_hundred_thousand_bad_platforms_stay_linear(make_content: ContentFactory) -> None:
    platforms = "[" + ", ".join(f"P{i}" for i in range(100_000)) + "]"
    root = make_content({"a": game_yaml("A", platforms=platforms)})
    done = measure(cli("validate", root, "--format", "json"))
    assert done.proc.returncode == 1, done.proc.stderr
    stdout = done.proc.stdout
    assert '"vocabulary"' in stdout or '"rule": "vocabulary"' in stdout or stdout
    assert done.seconds < 60 and done.peak_mib < 800, (done.seconds, done.peak_mib)


def test_thousands_of_findings_after_thousands_of_own_keys_are_placed_at_once(
    make_content: ContentFactory,
) -> None:
    """30,000 keys of the site's own, then 30,000 platforms outside the vocabulary and 30,000
    store entries that are not links: each finding's place was found by walking the keys
    before it (minutes for this page); the first 200 of each rule are placed, at their own
    lines, and the summary counts all 60,000."""
    n = 30_000
    own = "".join(f"k{i}: 1\n" for i in range(n))
    platforms = "platforms:\n" + "".join(f"  - P{i}\n" for i in range(n))
    stores = "stores:\n  ios: https://apps.apple.com/app/a/id1\n"
    stores += "".join(f"  k{i}x: 1\n" for i in range(n))
    head = "---\nname: A\ndescription: A game.\ngenres: [Puzzle]\nicon: /i.png\n"
    root = make_content({"a": head + own + platforms + stores + "---\n"})
    first_platform = 6 + n + 1  # "---", four keys, the own keys, "platforms:"
    first_store = first_platform + n + 2  # the platforms, "stores:", "ios:"
    rc, doc, _ = validate(root)  # within run_cli's deadline: seconds, not minutes
    assert rc == 1
    assert doc["summary"]["errors"] == 2 * n, doc["summary"]
    for rule, line, column in (("vocabulary", first_platform, 5), ("wrong-type", first_store, 8)):
        found = [f for f in doc["findings"] if f["rule"] == rule]
        assert len(found) == 201, (rule, len(found))
        assert (found[1]["line"], found[1]["column"]) == (line, column), found[1]
        assert found[-1]["line"] == line + 199, found[-1]
        assert found[0]["message"].startswith(f"and 29,800 more {rule} findings in this file")


@pytest.mark.parametrize("extra", [0, 1])
def test_a_run_lists_five_thousand_findings_of_a_rule_and_counts_the_rest(
    make_content: ContentFactory, extra: int
) -> None:
    """25 pages of 200 wrong-type findings each are listed in full; one more finding of the
    rule anywhere is counted, not listed: the report names how many more and where they
    start, the summary and exit status count it."""
    ints = "[" + ", ".join(["1"] * 200) + "]"
    pages = {f"p{i:02d}": game_yaml(f"P{i}", platforms=ints) for i in range(25)}
    if extra:
        pages["p99"] = game_yaml("P99", platforms="[iOS, 1]")
    rc, doc, _ = validate(make_content(pages))
    assert rc == 1
    found = [f for f in doc["findings"] if f["rule"] == "wrong-type"]
    assert doc["summary"]["errors"] == 5_000 + extra
    if not extra:
        assert len(found) == 5_000
        assert not any("more" in f["message"] for f in found)
        return
    assert len(found) == 5_001
    more = [f for f in found if "not listed" in f["message"]]
    assert [(m["file"].rsplit("/", 1)[-1], m["line"], m["severity"]) for m in more] == [
        ("p99.md", None, "error")
    ]
    assert more[0]["message"].startswith(
        "and 1 more wrong-type findings in this file, not listed (a run lists 5,000 findings "
        "of a rule)"
    )
    assert not any(f["file"].endswith("p99.md") for f in found if f not in more)


def test_the_run_cap_counts_what_the_file_caps_left_out(make_content: ContentFactory) -> None:
    """30 pages of 300 wrong-type findings, each listing 200 and one that counts 100: the run
    lists 5,000 of these 6,030 (24 pages and 176 of the 25th), and one finding counts the
    1,525 findings the others stand for; a draft's left out are a warning of their own."""
    ints = "[" + ", ".join(["1"] * 300) + "]"
    pages = {f"p{i:02d}": game_yaml(f"P{i}", platforms=ints) for i in range(30)}
    pages["q"] = game_yaml("Q", platforms="[1]", extra="draft: true\n")
    rc, doc, _ = validate(make_content(pages))
    assert rc == 1
    assert (doc["summary"]["errors"], doc["summary"]["warnings"]) == (9_000, 1), doc["summary"]
    more = [
        (f["file"].rsplit("/", 1)[-1], f["severity"], f["message"].split(", not listed")[0])
        for f in doc["findings"]
        if f["rule"] == "wrong-type" and "a run lists" in f["message"]
    ]
    assert more == [
        ("p24.md", "error", "and 1,525 more wrong-type findings in this file and 5 files after it"),
        ("q.md", "warning", "and 1 more wrong-type findings in this file"),
    ]


@needs_rlimits
def test_names_built_to_share_their_variants_cost_a_bounded_time(
    make_content: ContentFactory,
) -> None:
    """498 platforms of site.toml that share their deletion variants (`aaa…ab`, `aaa…ac`),
    and a page listing 700 words that reduce to them too: each lookup would measure its
    word against every name (two minutes); bounded, the page's findings come at once."""
    letters = "bcdefghijklmnopqrstuvwxyz"
    names = ["a" * 30 + x + y for x in letters for y in letters][:498]
    site = SITE_TOML.replace('platforms = ["iOS", "Android"]', f"platforms = {names!r}")
    site = site.replace("platforms = [", 'platforms = ["iOS", "Android", ', 1)
    words = ["a" * i + c + "a" * (30 - i) + "z" for i in range(31) for c in letters][:700]
    root = make_content({"a": game_yaml("A", platforms=f"[iOS, {', '.join(words)}]")}, site=site)
    done = measure(cli("validate", root, "--format", "json"))
    assert done.proc.returncode == 1, done.proc.stderr
    found = [f for f in json.loads(done.proc.stdout)["findings"] if f["rule"] == "vocabulary"]
    assert len(found) == 201
    assert any(f["message"].startswith("and 500 more vocabulary findings") for f in found)
    assert done.seconds < 20, done.seconds


def test_a_bounded_distance_is_the_distance_within_its_bound() -> None:
    """The distance measured within two edits of the diagonal is the whole one where that
    is within the bound, and one past the bound elsewhere."""

    def whole(a: str, b: str) -> int:
        prev2: list[int] = []
        prev = list(range(len(b) + 1))
        for i in range(1, len(a) + 1):
            cur = [i] + [0] * len(b)
            for j in range(1, len(b) + 1):
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
                if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                    cur[j] = min(cur[j], prev2[j - 2] + 1)
            prev2, prev = prev, cur
        return prev[-1]

    words = ["", "a", "ab", "ba", "abc", "acb", "bca", "abcd", "dcba", "aabb", "abab", "iOS"]
    words += ["android", "andriod", "androids", "adnroid", "ios", "puzzle", "puzle", "puzzles"]
    for a in words:
        for b in words:
            for limit in (1, 2):
                d = whole(a, b)
                assert osa_distance(a, b, limit) == (d if d <= limit else limit + 1), (a, b)


def test_a_suggestion_is_the_nearest_name_even_where_a_word_holds_letters_no_name_has() -> None:
    """Words are turned away before their variants are made when more than two of their
    letters are in no known name (`platfrm0123`, 60,000 such keys: 3.9 s to 0.6 s); the words
    within two edits of a name, digits and all, still get the nearest one."""
    import random

    from catalogctl.content.rules.suggest import Suggester

    names = ["name", "description", "platforms", "genres", "icon", "stores", "weight"]
    names += ["date", "publishDate", "expiryDate", "slug", "draft"]
    suggest = Suggester(names)
    rng = random.Random(7)
    extra = "0123456789_-xqz"

    def edited(word: str) -> str:
        for _ in range(rng.randint(0, 3)):
            i = rng.randrange(len(word) + 1)
            letter = rng.choice(extra + word)
            word = rng.choice([word[:i] + letter + word[i:], word[:i] + letter + word[i + 1 :]])
        return word

    def nearest(word: str) -> str | None:
        low = word.lower()
        found = sorted(
            (osa_distance(low, n.lower(), 1 if len(n) <= 5 else 2), n)
            for n in names
            if osa_distance(low, n.lower(), 1 if len(n) <= 5 else 2) <= (1 if len(n) <= 5 else 2)
        )
        return found[0][1] if found else None

    words = {edited(rng.choice(names)) for _ in range(3000)}
    words = {w for w in words if len(w) >= 3 and w.lower() not in {n.lower() for n in names}}
    assert len(words) > 1000
    assert sum(nearest(w) is not None for w in words) > 300  # many near misses among them
    assert {w: suggest(w) for w in words} == {w: nearest(w) for w in words}
    assert suggest("platfrm0123") is None and suggest("platfor0s") == "platforms"


@needs_rlimits
def test_a_syntax_error_at_the_end_of_a_long_yaml_is_not_parsed_twice(
    make_content: ContentFactory,
) -> None:
    """A megabyte of front matter with many brackets and a syntax error at its end: the
    error at its line, without the pure-Python parser reading it all again (five seconds a
    page). Timed beside the same pages without the error, read whole and checked: on one
    machine 1.3 s against 2.9 s, where reading them again took 10 s."""
    body = "".join(f"k{i}: [a, b]\n" for i in range(70_000))

    def pages(last: str) -> dict[str, str]:
        return dict.fromkeys(("a", "b"), "---\n" + body + last + "---\n")

    done = measure(cli("validate", make_content(pages("bad: [x\n")), "--format", "json"))
    whole = measure(cli("validate", make_content(pages("bad: [x]\n")), "--format", "json"))
    findings = json.loads(done.proc.stdout)["findings"]
    mine = [
        (f["rule"], f["line"] > 70_000) for f in findings if f["file"].endswith(("a.md", "b.md"))
    ]
    assert mine == [("syntax", True), ("syntax", True)], findings
    assert done.seconds < 1.5 * whole.seconds, (done.seconds, whole.seconds)


@needs_rlimits
def test_a_page_of_repeated_keys_reports_the_first_of_them_and_counts_the_rest(
    make_content: ContentFactory,
) -> None:
    """99,000 lines of `k: 1`: 200 duplicate-key findings and one that counts the others,
    in a report of kilobytes (it was 300 MB of memory for one page)."""
    root = make_content({"a": "---\nname: A\n" + "k: 1\n" * 99_000 + "---\n"})
    done = measure(cli("validate", root, "--format", "json"))
    assert done.proc.returncode == 1, done.proc.stderr
    dup = [f for f in json.loads(done.proc.stdout)["findings"] if f["rule"] == "duplicate-key"]
    assert len(dup) == 201 and all(f["file"].endswith("a.md") for f in dup)
    more = "and 98,799 more duplicate-key findings in this file"
    assert [f["line"] for f in dup if f["message"].startswith(more)] == [None]
    assert len(done.proc.stdout) < 1_000_000 and done.peak_mib < 250, done.peak_mib


def test_unknown_store_keys_name_a_few_of_many_stores(make_content: ContentFactory) -> None:
    """A page's findings grow with the page: each unknown store key names ten of site.toml's
    500 stores, not all of them (2,000 such keys would otherwise make a 100 MB report)."""
    stores = "".join(f'\n[stores.s{i:03d}{"x" * 95}]\nname = "S{i}"\n' for i in range(498))
    keys = "".join(f"  typo{i}: https://example.com/{i}\n" for i in range(2_000))
    root = make_content({"a": game_yaml("A", extra=keys)}, site=SITE_TOML + stores)
    found = [f for f in loader.load(root).findings if f.rule == "unknown-store"]
    assert len(found) == 201  # the first 200, and one that counts the others
    more = "and 1,800 more unknown-store findings in this file"
    assert len([f for f in found if f.message.startswith(more)]) == 1
    assert all(len(f.message) < 1_500 for f in found), max(len(f.message) for f in found)
    assert "ios, android, s000" in found[0].message and " and 490 more" in found[0].message


@needs_rlimits
def test_memory_of_a_child_is_what_getrusage_reports() -> None:
    # The bound above is meaningful: a child that allocates 200 MiB shows it.
    done = measure(
        [
            sys.executable,
            "-c",
            "x = bytearray(200 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096])",
        ]
    )
    assert done.proc.returncode == 0 and done.peak_mib > 150
    assert resource.RUSAGE_CHILDREN is not None


# --- did-you-mean and site.toml within their limits ---------------------------------------------


@pytest.fixture
def bounded_suggestions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fails the test at once when the did-you-mean index or a lookup takes the deletion
    variants of a word longer than it ever should (a 1,500-letter name has 1.1 million
    two-deletion variants: gigabytes). The lengths of the words it was given."""
    from catalogctl.content.limits import MAX_SUGGEST_LENGTH
    from catalogctl.content.rules import suggest

    real = suggest._deletes
    lengths: list[int] = []

    def counted(word: str, depth: int) -> set[str]:
        lengths.append(len(word))
        assert len(word) <= MAX_SUGGEST_LENGTH + 2, f"variants of a {len(word):,}-letter word"
        return real(word, depth)

    monkeypatch.setattr(suggest, "_deletes", counted)
    return lengths


TYPOS = game_yaml(
    "Typo",
    platforms="[iOs, Andriod]",
    genres="[Puzzel]",
    extra="nmae: x\nplatfrom: y\n",
)
LONG = "".join("abcdefghijklmnopqrstuvwxyz"[i * 7 % 26] for i in range(1500))


@pytest.mark.parametrize(
    ("site", "where", "words"),
    [
        (
            SITE_TOML.replace('platforms = ["iOS", "Android"]', f'platforms = ["iOS", "{LONG}"]'),
            (5, 21),
            "is longer than 200 characters, the limit of a name",
        ),
        (
            SITE_TOML.replace('genres = ["Puzzle",', f'genres = ["{LONG}", "Puzzle",'),
            (6, 11),
            "is longer than 200 characters, the limit of a name",
        ),
        (
            SITE_TOML + f'\n[fields]\nname = "{LONG}"\n',
            (20, 8),
            "is longer than 200 characters, the limit of a name",
        ),
        (
            SITE_TOML + f'\n[fields.stores]\nios = "{LONG}"\n',
            (20, 7),
            "is longer than 200 characters, the limit of a name",
        ),
        (
            SITE_TOML + f'\n[fields]\nname = "{LONG * 134}"\n',  # 201,000 letters
            (20, 8),
            "is longer than 200 characters, the limit of a name",
        ),
        (
            SITE_TOML.replace('title = "Example Games"', f'title = "{LONG * 3}"'),
            (2, 9),
            "is longer than 4,096 characters, the limit of a text",
        ),
        (
            SITE_TOML + f'\n[content]\n{LONG[:101]} = "x"\n',
            (20, 1),
            "is longer than 100 characters, the limit of a key",
        ),
        (
            SITE_TOML.replace(
                'genres = ["Puzzle",', "genres = [" + "".join(f'"G{i}", ' for i in range(501))
            ),
            (6, 10),
            "holds more than 500 items, the limit of a list or table",
        ),
    ],
    ids=[
        "platform",
        "genre",
        "fields",
        "fields-stores",
        "fields-200000",
        "title",
        "key",
        "genres-count",
    ],
)
def test_site_toml_over_a_limit_is_a_finding_before_any_suggestion(
    make_content: ContentFactory,
    bounded_suggestions: list[int],
    site: str,
    where: tuple[int, int],
    words: str,
) -> None:
    """A site.toml value over a limit is a `limit` finding at it, and is left out before any
    check uses it: the pages' typos still get their did-you-mean from the rest."""
    root = make_content({"ok": game_yaml("Ok"), "typo": TYPOS}, site=site)
    content = loader.load(root)
    limits = [f for f in content.findings if f.rule == "limit"]
    assert [(f.file.endswith("site.toml"), (f.line, f.column)) for f in limits] == [(True, where)]
    assert words in limits[0].message
    typos = {f.message.split(";")[0].split(":")[0] for f in content.findings if "typo" in f.file}
    assert "unknown key 'nmae'" in typos and "unknown key 'platfrom'" in typos
    assert bounded_suggestions  # suggestions were made, from names of bounded length


def test_suggestions_are_made_up_to_a_length_and_no_further(bounded_suggestions: list[int]) -> None:
    from catalogctl.content.limits import MAX_SUGGEST_LENGTH
    from catalogctl.content.rules.suggest import Suggester

    longest = "moonlanderdeluxeedition" + "x" * (MAX_SUGGEST_LENGTH - 23)
    too_long = "galacticpuzzleadventuresremastered"  # 34 letters
    assert len(longest) == MAX_SUGGEST_LENGTH < len(too_long)
    names = Suggester(["iOS", longest, too_long, LONG * 134], min_length=1)
    assert names("ios") == "iOS"
    assert names(longest[:-2] + "zz") == longest  # two edits of the longest indexed name
    assert names(longest + "zz") == longest  # a word two letters longer still looks
    assert names(too_long[:-1] + "x") is None  # not indexed: no suggestion
    assert names(too_long.upper()) == too_long  # but found in another case
    assert names((LONG * 134).upper()) == LONG * 134
    assert names(LONG[:-1]) is None  # a word longer than any indexed name is not looked up
    assert max(bounded_suggestions) <= MAX_SUGGEST_LENGTH + 2


def test_page_value_too_long_for_the_vocabulary_is_a_limit_finding(
    make_content: ContentFactory, bounded_suggestions: list[int]
) -> None:
    root = make_content({"a": game_yaml("A", genres=f"[Puzzle, {LONG}]")})
    content = loader.load(root)
    (finding,) = [f for f in content.findings if "a.md" in f.file]
    assert (finding.rule, finding.field, finding.line) == ("limit", "genres.1", 5)
    assert "longer than 200 characters, the limit of a name in the genres" in finding.message
    assert not bounded_suggestions  # not looked up
