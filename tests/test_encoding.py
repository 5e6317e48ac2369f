"""Output never fails on an encoding: every command on a Windows code page and a C locale.

pre-commit pipes a hook's output, so on Windows Python writes it in the ANSI code page
(cp1252; cp932 on Japanese Windows), which `PYTHONIOENCODING` reproduces here; a C locale
with Python's UTF-8 mode off (`LC_ALL=C PYTHONUTF8=0`) makes the streams ASCII and decodes
file names as ASCII with escapes. On each, every command runs on a site whose pages, names
and file names hold characters the encoding lacks (an emoji, accents, CJK, and the `·` and
`→` of catalogctl's own layout), and gives what the UTF-8 run gives: the same findings (rule,
file, line, field), the same build bytes, the same exit status, and no traceback. A person's
text (the table format, summaries, errors, help) is in the stream's encoding, with what it
lacks replaced (an escape, or ASCII for our symbols); a document for a program (json, sarif,
junit, markdown, github, a schema) is UTF-8, byte for byte the UTF-8 run's; `--output FILE`
is UTF-8.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pytest

from catalogctl.text import path_text
from tests.conftest import needs_bytes_file_names, needs_pty
from tests.processes import cli_bytes, run_cli
from tests.serve_process import ServeProcess

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"

# name: (environment, the encoding of the streams a person reads)
CONSOLES = {
    "cp1252-pipe": ({"PYTHONIOENCODING": "cp1252"}, "cp1252"),
    "cp932-pipe": ({"PYTHONIOENCODING": "cp932"}, "cp932"),
    "c-locale": ({"LC_ALL": "C", "PYTHONUTF8": "0"}, "ascii"),
}
UTF8: dict[str, str] = {"PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1"}
_LOCALE_VARS = ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LC_CTYPE", "LANG")


def environment(console: str | None) -> dict[str, str]:
    """This process's environment with a console's encoding (None: UTF-8)."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCALE_VARS}
    if console is None:
        return {**env, **UTF8}
    if console == "c-locale" and sys.platform == "win32":
        pytest.skip("a C locale is POSIX's: Windows has none")
    return {**env, **CONSOLES[console][0]}


@dataclass(frozen=True)
class Ran:
    code: int
    out: bytes  # exactly as written
    err: bytes


def ran(*args: str | Path, console: str | None, cwd: Path | None = None) -> Ran:
    proc = run_cli(
        *args,
        env=environment(console),
        cwd=cwd,
        encoding="utf-8",
        errors="surrogateescape",  # every byte kept, whatever the encoding
    )
    out, err = (s.encode("utf-8", "surrogateescape") for s in (proc.stdout, proc.stderr))
    assert b"Traceback" not in err and b"Traceback" not in out, err.decode("utf-8", "replace")
    assert b"Error" not in err, err.decode("utf-8", "replace")  # UnicodeEncodeError and kin
    return Ran(proc.returncode, out, err)


def text_of(raw: bytes, console: str) -> str:
    """A person's text as the console shows it: in its encoding (strictly: it is that)."""
    return raw.decode(CONSOLES[console][1])


_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")


def unescaped(text: str) -> str:
    """The characters an encoding lacked, back from their escapes."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)), text)


# One finding a line: `FILE:LINE:COL: SEVERITY RULE · FIELD: MESSAGE` (`·` is `-` where the
# encoding lacks it).
_FINDING = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?: (?:error|warning) (?P<rule>[a-z-]+) (?:·|-) "
    r"(?P<field>[^:]*): "
)


def table_findings(text: str) -> list[tuple[str, str, int, str]]:
    found = []
    for line in text.splitlines():
        m = _FINDING.match(unescaped(line))
        assert m is not None, line
        found.append((m["rule"], m["file"], int(m["line"]), m["field"]))
    return found


def json_findings(raw: bytes) -> list[tuple[str, str, int, str]]:
    doc = json.loads(raw.decode("utf-8"))
    return [(f["rule"], f["file"], f["line"], f["field"] or "") for f in doc["findings"]]


# --- the site: every page holds something one of the consoles cannot show ----------------

SITE_TOML = """\
base_url = "https://games.example.com"
title = "Example Games · Café"
description = "Mobile games by Example Games → everywhere."
platforms = ["iOS", "Android"]
genres = ["Rhythm", "Puzzle"]

[rules]
vocabulary = "warning"

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
"""


def page(name: str, description: str, genre: str, n: int) -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\nplatforms: [iOS, Android]\n"
        f"genres: [{genre}]\nicon: /icons/g{n}.png\nstores:\n"
        f"  ios: https://apps.apple.com/app/g/id{n}\n"
        f"  android: https://play.google.com/store/apps/details?id=com.example.g{n}\n"
        "---\nBody.\n"
    )


PAGES = {
    # The pre-commit hook of the report: an emoji in a finding's message.
    "gull-patrol.md": page("Gull Patrol", "Gulls · fish.", '"Rhythm 🎵"', 1),
    # CJK in a file name, an id and a name (an id-style warning names it).
    "波の音.md": page("波の音", "Waves · tides → the sea.", "Rhythm", 2),
    # Accents, which cp932 lacks, in a file name and an id.
    "café.md": page("Café Olé", "Un café au lait.", "Puzzle", 3),
    "moon-lander.md": page("Moon Lander", "Land softly.", "Puzzle", 4),
}


def write_site(root: Path, pages: dict[str, str] = PAGES, site: str = SITE_TOML) -> Path:
    (root / "games").mkdir(parents=True)
    (root / "site.toml").write_text(site, encoding="utf-8")
    for name, text in pages.items():
        (root / "games" / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site (`site/`), its next release (`next/`), and the UTF-8 runs' results."""
    top = tmp_path_factory.mktemp("encodings")
    write_site(top / "site")
    changed = {**PAGES, "gull-patrol.md": PAGES["gull-patrol.md"].replace("Gull", "Gull 🐦")}
    del changed["moon-lander.md"]
    write_site(top / "next", changed)
    return top


CONSOLE_NAMES = sorted(CONSOLES)
REPORTS = ["table", "json", "github", "sarif", "junit", "markdown"]


def same_document(fmt: str, mine: bytes, theirs: bytes) -> None:
    """A document is the UTF-8 run's, byte for byte (but the time a run took)."""
    if fmt == "junit":
        mine, theirs = (re.sub(rb' time="[0-9.]+"', b"", raw) for raw in (mine, theirs))
    if fmt == "json":
        mine, theirs = (re.sub(rb'"seconds": [0-9.]+', b"", raw) for raw in (mine, theirs))
    mine.decode("utf-8")  # UTF-8, whatever the console's encoding
    assert mine == theirs


# --- validate (the pre-commit hook) -------------------------------------------------------


@pytest.mark.parametrize("fmt", REPORTS)
@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_validate_reports_every_finding_on_every_console(
    work: Path, console: str, fmt: str
) -> None:
    args = ("validate", "site", "--strict", "--format", fmt)
    utf8 = ran(*args, console=None, cwd=work)
    mine = ran(*args, console=console, cwd=work)
    assert mine.code == utf8.code == 1
    text_of(mine.err, console)
    if fmt == "table":
        findings = table_findings(text_of(mine.out, console))
        assert findings == table_findings(utf8.out.decode("utf-8"))
        assert len(findings) == 3
        summary = text_of(mine.err, console)
        assert "0 errors, 3 warnings in 5 files" in summary
    else:
        same_document(fmt, mine.out, utf8.out)
    if fmt == "json":
        rules = {f[0] for f in json_findings(mine.out)}
        assert rules == {"vocabulary", "id-style"}


@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_validate_output_file_is_utf8_on_every_console(
    work: Path, tmp_path: Path, console: str
) -> None:
    mine = ran("validate", "site", "--output", tmp_path / "mine.txt", console=console, cwd=work)
    utf8 = ran("validate", "site", "--output", tmp_path / "utf8.txt", console=None, cwd=work)
    assert mine.code == utf8.code == 0
    assert (tmp_path / "mine.txt").read_bytes() == (tmp_path / "utf8.txt").read_bytes()
    assert "Rhythm 🎵" in (tmp_path / "mine.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["json", "sarif", "markdown"])
def test_a_report_has_the_same_bytes_on_stdout_and_in_its_file_on_every_system(
    work: Path, tmp_path: Path, fmt: str
) -> None:
    """Lines end in LF in a report written to a pipe or to --output, on Windows too (whose
    text mode writes CRLF): the report of a run has one set of bytes on every system. (On
    Linux and macOS text mode already writes LF: the Windows runs of CI are the ones this
    guards.)"""
    report = tmp_path / "report"
    code, piped = cli_bytes("validate", "site", "--format", fmt, cwd=work)
    filed = run_cli("validate", "site", "--format", fmt, "--output", report, cwd=work)
    assert code == filed.returncode == 0
    assert b"\r\n" not in piped
    assert report.read_bytes() == piped


def test_a_console_gets_ascii_for_our_symbols_and_escapes_for_the_rest(
    work: Path, tmp_path: Path
) -> None:
    mine = text_of(ran("validate", "site", console="cp932-pipe", cwd=work).out, "cp932-pipe")
    assert "gull-patrol.md:5:10: warning vocabulary - genres.0: 'Rhythm \\U0001f3b5'" in mine
    assert "caf\\u00e9.md:1:1: warning id-style - " in mine  # cp932 has no é
    assert "波の音.md" in mine  # and has these
    plain = write_site(tmp_path / "plain", {"moon-lander.md": PAGES["moon-lander.md"]})
    err = text_of(ran("validate", plain, console="c-locale").err, "c-locale")
    assert err.startswith("OK 0 errors, 0 warnings")  # ✓


@needs_pty
def test_c_locale_terminal_gets_the_tables_in_ascii(work: Path) -> None:
    proc = run_cli("validate", "site", env=environment("c-locale"), cwd=work, terminal=100)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.isascii(), proc.stdout
    shown = re.sub("\x1b\\[[0-9;]*m", "", proc.stdout)
    assert "| site/games/caf\\u00e9.md " in shown  # rich draws ASCII boxes (+--+)
    assert "'Rhythm \\U0001f3b5'" in shown


@needs_bytes_file_names
def test_a_console_tells_a_character_from_a_byte_and_keeps_a_pages_own_dash(
    tmp_path: Path,
) -> None:
    """é (U+00E9) is escaped `\\u00e9`; the byte 0xE9 of a name that is not UTF-8 `\\xe9`, as
    every report shows it. An en dash of a page's own text is escaped too, not made a hyphen:
    'Co–op' is not the 'Co-op' it is told to use."""
    site = SITE_TOML.replace('genres = ["Rhythm", "Puzzle"]', 'genres = ["Co-op", "Puzzle"]')
    root = write_site(tmp_path / "site", {"café.md": page("Café", "A game.", "Co–op", 1)}, site)
    fd = os.open(os.fsencode(root / "games") + b"/caf\xe9-latin.md", os.O_WRONLY | os.O_CREAT)
    os.close(fd)
    mine = text_of(ran("validate", root, console="cp932-pipe").out, "cp932-pipe")
    assert "games/caf\\u00e9.md:5:10: warning vocabulary" in mine
    assert "'Co\\u2013op' is not in the genres of site.toml; did you mean 'Co-op'?" in mine
    assert "games/caf\\xe9-latin.md: error file-name" in mine


def test_the_escapes_tell_a_character_from_a_byte() -> None:
    import catalogctl.output.console  # noqa: F401 - registers the error handler

    assert "é\udce9 → 🎵".encode("ascii", "catalogctl") == b"\\u00e9\\xe9 -> \\U0001f3b5"


# --- file names under a C locale ----------------------------------------------------------


def test_c_locale_reads_file_names_by_their_bytes(work: Path) -> None:
    """`LC_ALL=C` decodes `café.md` as ASCII with escapes: still a UTF-8 name, the same id."""
    args = ("validate", "site", "--format", "json")
    mine = json_findings(ran(*args, console="c-locale", cwd=work).out)
    assert mine == json_findings(ran(*args, console=None, cwd=work).out)
    assert "file-name" not in {f[0] for f in mine}
    assert ("id-style", "site/games/café.md", 1, "(front matter)") in mine


@needs_bytes_file_names
def test_c_locale_still_reports_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"moon-lander.md": PAGES["moon-lander.md"]})
    fd = os.open(os.fsencode(root / "games") + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    for console in (None, "c-locale"):
        out = ran("validate", root, "--format", "json", console=console).out
        files = [(f[0], f[1]) for f in json_findings(out)]
        assert files == [("file-name", f"{path_text(root)}/games/caf\\xe9.md")], console


@needs_bytes_file_names
def test_init_names_a_file_that_is_not_utf8_as_validate_does(tmp_path: Path) -> None:
    """A page init cannot read, whose name is not UTF-8: its text and its JSON report name it
    `caf\\xe9.md`, as validate's findings do (no U+FFFD, no lone surrogate in the JSON)."""
    root = write_site(tmp_path / "site", {"moon-lander.md": PAGES["moon-lander.md"]})
    fd = os.open(os.fsencode(root / "games") + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    (root / "site.toml").unlink()
    text = ran("init", root, console=None).out.decode("utf-8")
    assert "games/caf\\xe9.md" in text.split("could not be read")[1].split("\n")[0], text
    assert "\ufffd" not in text
    (root / "site.toml").unlink()
    out = ran("init", root, "--format", "json", console=None).out
    assert b"\\udc" not in out
    summary = json.loads(out)["summary"]
    assert {"file": "games/caf\\xe9.md"}.items() <= summary["unread"][0].items()
    assert "caf\\xe9.md" in " ".join(summary["notes"])


# --- build, diff, check-links, schema, init ------------------------------------------------


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_build_writes_the_same_bytes_on_every_console(
    work: Path, tmp_path: Path, console: str
) -> None:
    utf8 = ran("build", work / "site", "--out", tmp_path / "utf8", console=None)
    mine = ran("build", work / "site", "--out", tmp_path / "mine", console=console)
    assert mine.code == utf8.code == 0
    assert tree_bytes(tmp_path / "mine") == tree_bytes(tmp_path / "utf8")
    assert "café" in (tmp_path / "mine" / "public/api/v1/games/index.json").read_text("utf-8")
    assert text_of(mine.err, console).count("warning") == 3
    # The JSON report: UTF-8, the same document.
    args = ("build", work / "site", "--format", "json", "--out")
    utf8 = ran(*args, tmp_path / "utf8-json", console=None)
    mine = ran(*args, tmp_path / "mine-json", console=console)
    assert mine.code == utf8.code == 0
    summary = [json.loads(r.out)["summary"] for r in (mine, utf8)]
    assert [{k: v for k, v in s.items() if k not in ("seconds", "out")} for s in summary] == [
        {k: v for k, v in summary[1].items() if k not in ("seconds", "out")}
    ] * 2
    assert json.loads(mine.out)["findings"] == json.loads(utf8.out)["findings"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "github"])
@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_diff_on_every_console(work: Path, console: str, fmt: str) -> None:
    args = ("diff", "site", "next", "--format", fmt)
    utf8 = ran(*args, console=None, cwd=work)
    mine = ran(*args, console=console, cwd=work)
    assert mine.code == utf8.code
    text_of(mine.err, console)
    if fmt == "table":
        text = text_of(mine.out, console)
        assert len(text.splitlines()) == len(utf8.out.decode("utf-8").splitlines())
        assert "Gull \\U0001f426 Patrol" in unescaped(text) or "Gull 🐦 Patrol" in unescaped(text)
    else:
        same_document(fmt, mine.out, utf8.out)


def test_diff_of_ascii_catalogs_on_a_code_page(tmp_path: Path) -> None:
    """The arrows of the report itself: `site → next`, `position 1 → 2`."""
    old = write_site(tmp_path / "old", {"moon-lander.md": PAGES["moon-lander.md"]})
    moved = PAGES["moon-lander.md"].replace("name: Moon Lander", "name: Moon Lander 2")
    new = write_site(tmp_path / "new", {"moon-lander.md": moved})
    for fmt in ("table", "markdown"):
        utf8 = ran("diff", old, new, "--format", fmt, console=None)
        mine = ran("diff", old, new, "--format", fmt, console="cp1252-pipe")
        assert mine.code == utf8.code
        if fmt == "markdown":
            assert mine.out == utf8.out
            assert "→".encode() in mine.out
        else:
            assert "Moon Lander -> Moon Lander 2" in text_of(mine.out, "cp1252-pipe")


@pytest.mark.parametrize("fmt", ["table", "json", "github"])
@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_check_links_offline_on_every_console(
    work: Path, tmp_path: Path, console: str, fmt: str
) -> None:
    ran("build", work / "site", "--out", tmp_path / "dist", console=None)
    doc = json.loads((tmp_path / "dist/public/api/v1/games/index.json").read_bytes())
    doc["games"][0]["icon"] = "https://cdn.example.com/icônes/波.png"  # not percent-encoded
    games = tmp_path / "games.json"
    games.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    args = ("check-links", games, "--offline", "--format", fmt)
    utf8 = ran(*args, console=None)
    mine = ran(*args, console=console)
    assert mine.code == utf8.code == 1
    text_of(mine.err, console)
    if fmt == "table":
        (line,) = text_of(mine.out, console).splitlines()
        assert unescaped(line) == utf8.out.decode("utf-8").rstrip("\n").replace(
            "·", "-" if console != "cp1252-pipe" else "·"
        )
    else:
        same_document(fmt, mine.out, utf8.out)


@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_schema_on_every_console(work: Path, console: str) -> None:
    for args in (("schema", "page", "site"), ("schema", "site")):
        utf8 = ran(*args, console=None, cwd=work)
        mine = ran(*args, console=console, cwd=work)
        assert mine.code == utf8.code == 0
        assert mine.out == utf8.out
        if args[1] == "page":
            assert "Store key → plain download URL".encode() in mine.out


@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_init_on_every_console(tmp_path: Path, console: str) -> None:
    sites = {}
    for name in ("utf8", "mine"):
        root = tmp_path / name
        shutil.copytree(SITES / "hugo-bundles", root)
        (root / "site.toml").unlink()
        (root / "expected.json").unlink()
        sites[name] = root
    utf8 = ran("init", sites["utf8"], console=None)
    mine = ran("init", sites["mine"], console=console)
    assert mine.code == utf8.code == 0
    text = text_of(mine.out, console)
    assert "Keys: name" in text  # `name ← title`: ← as `<-` in cp1252 and ASCII
    written = [(sites[n] / "site.toml").read_bytes() for n in ("mine", "utf8")]
    assert written[0] == written[1]


@pytest.mark.parametrize("console", CONSOLE_NAMES)
def test_help_errors_and_completion_on_every_console(work: Path, console: str) -> None:
    for args in (("--help",), ("validate", "--help"), ("diff", "--help"), ("--version",)):
        mine = ran(*args, console=console, cwd=work)
        assert mine.code == 0
        text_of(mine.out, console)
    mine = ran("validate", "nowhere-ü", console=console, cwd=work)
    assert mine.code == 2
    assert "nowhere-" in text_of(mine.err, console)
    for shell in ("bash", "zsh", "fish"):
        assert (
            ran("completion", shell, console=console).out
            == ran("completion", shell, console=None).out
        )


@pytest.mark.parametrize("console", ["cp932-pipe", "c-locale"])
def test_serve_answers_the_built_bytes_on_every_console(
    work: Path, tmp_path: Path, console: str
) -> None:
    ran("build", work / "site", "--out", tmp_path / "dist", console=None)
    built = (tmp_path / "dist/public/api/v1/games/index.json").read_bytes()
    with (
        ServeProcess(str(work / "site"), env=environment(console)) as server,
        urllib.request.urlopen(f"{server.url}/api/v1/games", timeout=10) as resp,
    ):
        assert resp.read() == built


# --- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (PureWindowsPath(r"content\games\x.md"), "content/games/x.md"),
        (PureWindowsPath(r"C:\Users\ana\site"), "C:/Users/ana/site"),
        (PurePosixPath("content/games/x.md"), "content/games/x.md"),
        ("content/games/caf\udcc3\udca9.md", "content/games/café.md"),  # a C locale's decoding
        ("content/games/caf\udce9.md", "content/games/caf\\xe9.md"),  # not UTF-8
        ("content/games/波.md", "content/games/波.md"),
    ],
)
def test_paths_are_shown_with_slashes_and_utf8_names(path: Any, shown: str) -> None:
    assert path_text(path) == shown


@pytest.mark.skipif(
    sys.platform == "win32", reason="Windows passes arguments as UTF-16: none holds a stray byte"
)
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("build", "{sample}", "-o", "out", "--base-url", "https://x.example/p\udce9"),
            "contains the byte \\xe9 at position 20, which is not UTF-8 text; encode it as %E9",
        ),
        (("serve", "{sample}", "--host", "h\udce9"), "'h\\xe9' is not a host name"),
        (("validate", "--format", "j\udce9"), "'j\\xe9' is not one of"),
        (("validate", "a", "b\udce9\x1b[2J"), "argument(s) (b\\xe9"),
        (("validate", "--explain", "\udcff\udcfe"), "no rule '\\xff\\xfe'"),
        (("validate", "--explain", "unknown-ke\udce9"), "no rule 'unknown-ke\\xe9'"),
        (
            ("diff", "https://h\udce9/", "{sample}"),
            "not a valid URL: 'https://h\\xe9/' contains the byte \\xe9 at position 10",
        ),
        (("diff", "http://[\udce9]/", "{sample}"), "'http://[\\xe9]/' contains the byte \\xe9"),
        (("check-links", "http://h\udce9/"), "not a valid URL: 'http://h\\xe9/'"),
        (("check-links", "{sample}", "--max-cache-age", "1\udce9"), "not a duration: '1\\xe9'"),
        (
            ("check-links", "{sample}", "--accept", "2\udce9"),
            "not a status code or range: '2\\xe9'",
        ),
    ],
    ids=[
        "base-url",
        "host",
        "click-choice",
        "click-extra-argument",
        "explain",
        "explain-suggested",
        "diff-url-host",
        "diff-url-ipv6",
        "check-links-url",
        "max-cache-age",
        "accept",
    ],
)
def test_an_argument_byte_that_is_not_utf8_is_shown_as_such(
    sample: Path, tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """An argument the locale could not decode (a Latin-1 é in a UTF-8 shell): messages show
    the byte as \\xe9, as file names show one, and its percent-encoding is the byte's, never
    Python's surrogate escape (\\udce9, %ED%B3%A9) nor a control character."""
    argv = [a.format(sample=sample) for a in args]
    proc = run_cli(*argv, cwd=tmp_path, encoding="utf-8", errors="surrogateescape")
    assert proc.returncode == 2, proc.stderr
    text = " ".join(proc.stderr.split()).replace("│", "").replace("|", "")
    text = " ".join(text.split())
    assert said in text, proc.stderr
    assert "udce9" not in proc.stderr and "%ED%B3%A9" not in proc.stderr
    assert "\x1b" not in proc.stderr and "Traceback" not in proc.stderr


def test_findings_name_nested_files_with_slashes(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"moon-lander.md": PAGES["moon-lander.md"]})
    (root / "games" / "arcade" / "retro").mkdir(parents=True)
    (root / "games" / "arcade" / "retro" / "Gull.md").write_text(
        page("Gull", "Gulls.", "Puzzle", 9), encoding="utf-8"
    )
    out = ran("validate", "site", "--format", "json", console=None, cwd=tmp_path).out
    assert {f[1] for f in json_findings(out)} == {"site/games/arcade/retro/Gull.md"}
