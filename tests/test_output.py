"""Report formats: the JSON envelope and its schema, SARIF, GitHub annotations, JUnit, Markdown,
--output FILE, and text from content or the network kept free of control characters."""

from __future__ import annotations

import ast
import errno
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from catalogctl.links.catalog import Link, LinkRef
from catalogctl.links.result import LinkReport, LinkResult
from catalogctl.output import console
from catalogctl.output.github import escape_data, escape_property
from catalogctl.output.reports import report_links
from tests.conftest import SITE_TOML, ContentFactory, game_yaml, needs_bytes_file_names
from tests.processes import cli, run, run_cli

ROOT = Path(__file__).resolve().parent.parent
# What the system says of a name longer than a file system takes (Windows words it its own way).
NAME_TOO_LONG = os.strerror(errno.ENAMETOOLONG) if os.name == "posix" else ""
ENVELOPE_SCHEMA = json.loads((ROOT / "schemas/catalogctl.v1.schema.json").read_text())
SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())
CONTROL = ("\x1b", "\x07", "\x9b", "\x00")


def check_envelope(doc: Any) -> None:
    jsonschema.Draft202012Validator(ENVELOPE_SCHEMA).validate(doc)


def check_sarif(doc: Any) -> None:
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)


@pytest.fixture
def pair(make_content: ContentFactory) -> tuple[Path, Path]:
    old = make_content({"a": game_yaml("A"), "b": game_yaml("B"), "c": game_yaml("C")})
    new = make_content(
        {
            "a": game_yaml("A", description="A new description."),
            "c": game_yaml("C", genres="[Arcade]"),
            "d": game_yaml("D"),
        }
    )
    return old, new


def games_file(tmp_path: Path) -> Path:
    game = {
        "id": "x",
        "name": "X",
        "description": "A game.",
        "platforms": ["iOS"],
        "genres": ["Puzzle"],
        "url": "https://games.example.com/games/x/",
        "icon": "ftp://example.com/x.png",
        "stores": [{"name": "App Store", "url": "https://exa mple.com/app"}],
    }
    path = tmp_path / "games.json"
    path.write_text(json.dumps({"schemaVersion": 1, "games": [game]}))
    return path


# --- the JSON envelope ---------------------------------------------------------------------


MISSING = {
    "validate": ["validate", "{missing}"],
    "build": ["build", "{missing}", "--out", "{tmp}/dist"],
    "check-links": ["check-links", "{missing}"],
    "diff": ["diff", "{missing}", "{missing}"],
}


@pytest.mark.parametrize("command", sorted(MISSING))
def test_json_on_a_missing_content_folder_is_the_error_envelope(
    command: str, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-content"
    args = [a.format(missing=missing, tmp=tmp_path) for a in MISSING[command]]
    proc = run_cli(*args, "--format", "json")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["schema"] == f"catalogctl/{command}/v1"
    assert doc["ok"] is False
    assert doc["error"]["code"] == 2 and doc["error"]["kind"] == "input"
    assert "no-such-content" in doc["error"]["message"]
    assert "no-such-content" in proc.stderr  # people reading the log see it too


def test_serve_with_json_logs_reports_a_start_up_error_as_the_envelope(tmp_path: Path) -> None:
    proc = run_cli("serve", tmp_path / "nothing-here", "--log-format", "json", "--port", "0")
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["schema"] == "catalogctl/serve/v1" and doc["error"]["kind"] == "input"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["validate", "--bogus"], "--bogus"),
        (["check-links", "--timeout", "soon"], "soon"),
        (["diff", "a"], "Missing argument"),
    ],
)
def test_usage_errors_with_json_are_the_error_envelope(args: list[str], words: str) -> None:
    proc = run_cli(*args, "--format", "json")
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["error"]["kind"] == "usage"
    assert words in doc["error"]["message"]


def test_usage_errors_without_json_keep_the_usage_message() -> None:
    proc = run_cli("validate", "--bogus")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "No such option" in proc.stderr and "Usage:" in proc.stderr


def test_validate_envelope(defective: Path) -> None:
    proc = run_cli("validate", defective, "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["schema"] == "catalogctl/validate/v1" and doc["ok"] is False
    assert doc["summary"]["errors"] == sum(f["severity"] == "error" for f in doc["findings"]) > 0
    assert doc["summary"]["warnings"] > 0
    # Published: the pages without errors (good, nostore); typo and icon have errors.
    assert doc["summary"]["games"] == 2
    assert doc["summary"]["read"]["failed"] == 2 and doc["summary"]["read"]["drafts"] == 1


def test_build_envelope(sample: Path, tmp_path: Path) -> None:
    proc = run_cli("build", sample, "--out", tmp_path / "dist", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["ok"] is True and "/api/v1/games" in doc["summary"]["routes"]


def test_build_reports_the_content_warnings(make_content: ContentFactory, tmp_path: Path) -> None:
    content = make_content({"a": game_yaml("A", genres="[Puzzle, Puzzle]")})
    proc = run_cli("build", content, "--out", tmp_path / "dist", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["summary"]["warnings"] == 1
    [warning] = doc["findings"]
    found = (warning["rule"], warning["field"], warning["line"])
    assert found == ("duplicate-value", "genres.1", 5)
    proc = run_cli("build", content, "--out", tmp_path / "dist")
    assert proc.returncode == 0, proc.stderr
    assert "a.md:5:" in proc.stderr and "warning duplicate-value · genres.1" in proc.stderr


def test_build_of_invalid_content_is_the_envelope_with_findings(
    defective: Path, tmp_path: Path
) -> None:
    proc = run_cli("build", defective, "--out", tmp_path / "dist", "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["error"]["kind"] == "content" and doc["error"]["code"] == 1
    assert any(f["field"] == "genres.0" for f in doc["findings"])


def test_diff_envelope(pair: tuple[Path, Path]) -> None:
    proc = run_cli("diff", *pair, "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    kinds = {(c["kind"], c.get("id")) for c in doc["changes"]}
    assert kinds >= {("added", "d"), ("removed", "b"), ("changed", "a"), ("changed", "c")}
    assert doc["summary"]["added"] == 1 and doc["summary"]["removed"] == 1
    assert all(c["rule"] for c in doc["changes"])


def test_check_links_envelope(tmp_path: Path) -> None:
    proc = run_cli("check-links", games_file(tmp_path), "--offline", "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    rules = {e["field"]: e["rule"] for e in doc["links"]}
    assert rules == {"url": None, "icon": "invalid-url", "stores.App Store": "invalid-url"}


def test_list_rules_lists_every_rule_in_each_format(tmp_path: Path) -> None:
    from catalogctl.content.rules.registry import RULES

    text = run_cli("validate", "--list-rules")
    assert text.returncode == 0, text.stderr
    listed = {line.split()[0]: line for line in text.stdout.splitlines()}
    assert set(listed) == set(RULES)
    assert "(always an error)" in listed["syntax"] and "(always" not in listed["unknown-key"]
    doc = json.loads(run_cli("validate", "--list-rules", "--format", "json").stdout)
    check_envelope(doc)
    assert doc["schema"] == "catalogctl/rules/v1" and doc["summary"]["rules"] == len(RULES)
    assert {r["id"]: r["configurable"] for r in doc["rules"]} == {
        r.id: r.configurable for r in RULES.values()
    }
    target = tmp_path / "rules.md"
    md = run_cli("validate", "--list-rules", "--format", "markdown", "--output", target)
    assert md.returncode == 0 and md.stdout == ""
    assert "| `unknown-key` | warning | yes |" in target.read_text()


def test_list_rules_in_a_format_it_has_no_shape_for_is_a_usage_error() -> None:
    proc = run_cli("validate", "--list-rules", "--format", "junit")
    assert proc.returncode == 2
    assert "--list-rules is written as table, json or markdown" in proc.stderr
    assert ET.fromstring(proc.stdout).find("testsuite/testcase/error") is not None


# --- Markdown ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "@octocat and @org/team, fixed in #12 (mail a@b.com, https://x.social/@studio#2)",
        "Tom &lt;3 &amp; &copy; &#8203;",
        "*bold* _it_ [link](https://x) <img src=x onerror=alert(1)> ~~gone~~ | cell \\ back",
        "# heading",
        "1. first",
        "12) twelfth",
        "- item",
        "+ item",
        "    indented like code",
        "> quoted",
        "`code`",
        "a - b 1. c",
    ],
)
def test_markdown_text_reads_as_written_and_pings_no_one(text: str) -> None:
    """Text from content in a Markdown report or release notes (a game's name, a message)
    renders as the text itself, in a paragraph and in a table cell (CommonMark, with GitHub's
    tables and strikethrough): no markup, list, code block or entity of its own, and no
    `@mention` (GitHub notifies) or `#12` (GitHub links an issue), while an address or a URL
    is left as written."""
    import html
    import re

    from markdown_it import MarkdownIt

    from catalogctl.text import clean, md_text

    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    escaped = md_text(text)
    for doc, wrapper in (
        (escaped, {"p"}),
        (f"| A |\n|---|\n| {escaped} |", {"table", "thead", "tbody", "tr", "th", "td"}),
    ):
        rendered = md.render(doc)
        assert set(re.findall(r"</?([a-z]+)", rendered)) <= wrapper, rendered
        shown = html.unescape(re.sub(r"<[^>]+>", " ", rendered)).replace("\u200b", "")
        assert " ".join(clean(text, tabs=False).split()) in " ".join(shown.split()), rendered
        visible = html.unescape(re.sub(r"<[^>]+>", " ", rendered))
        assert re.search(r"(?<![\w/.])[@#][A-Za-z0-9]", visible) is None, visible


# --- SARIF ------------------------------------------------------------------------------------


def test_validate_sarif_is_valid_sarif_2_1_0(defective: Path) -> None:
    proc = run_cli("validate", defective, "--format", "sarif")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_sarif(doc)
    (run_,) = doc["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert rules and all({"id", "name", "help", "defaultConfiguration"} <= set(r) for r in rules)
    ids = [r["id"] for r in rules]
    results = run_["results"]
    assert {r["level"] for r in results} == {"error", "warning"}
    for r in results:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        (loc,) = r["locations"]
        physical = loc["physicalLocation"]
        assert physical["artifactLocation"]["uri"].endswith(".md")
        assert physical["region"]["startLine"] >= 1


@pytest.mark.skipif(os.sep == "\\", reason="a backslash separates folders on Windows")
def test_validate_sarif_uri_names_the_file_whatever_its_characters(
    make_content: ContentFactory,
) -> None:
    """SARIF's artifact URI percent-encodes what a URI path cannot hold as it is; a
    backslash in a POSIX file name is a character of the name, not a folder separator."""
    root = make_content()
    name = "a b#c\\d%e.md"
    (root / "games" / name).write_text("---\nname: Broken\n", encoding="utf-8")
    proc = run_cli("validate", root, "--format", "sarif")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    check_sarif(doc)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
        if "Broken" in r["message"]["text"] or r["ruleId"] == "front-matter"
    ]
    assert uris and all(u.endswith("/games/a%20b%23c%5Cd%25e.md") for u in uris), uris


@needs_bytes_file_names
def test_validate_sarif_uri_of_a_name_that_is_not_utf8_is_its_bytes(
    make_content: ContentFactory,
) -> None:
    """A name holding the byte 0xE9 (Latin-1) is shown `caf\\xe9.md`; its URI is `caf%E9.md`,
    the file on disk."""
    root = make_content()
    fd = os.open(os.fsencode(root / "games") + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    proc = run_cli("validate", root, "--format", "sarif")
    doc = json.loads(proc.stdout)
    check_sarif(doc)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
        if r["ruleId"] == "file-name"
    ]
    assert len(uris) == 1 and uris[0].endswith("/games/caf%E9.md"), uris


def test_check_links_and_diff_sarif_are_valid(tmp_path: Path, pair: tuple[Path, Path]) -> None:
    links = json.loads(
        run_cli("check-links", games_file(tmp_path), "--offline", "--format", "sarif").stdout
    )
    check_sarif(links)
    assert {r["ruleId"] for r in links["runs"][0]["results"]} == {"invalid-url"}
    assert "broken-link" in {r["id"] for r in links["runs"][0]["tool"]["driver"]["rules"]}
    changes = json.loads(run_cli("diff", *pair, "--format", "sarif").stdout)
    check_sarif(changes)
    assert {"added-game", "removed-game", "changed-game"} <= {
        r["ruleId"] for r in changes["runs"][0]["results"]
    }


def test_a_failed_run_is_valid_sarif(tmp_path: Path) -> None:
    proc = run_cli("validate", tmp_path / "missing", "--format", "sarif")
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    check_sarif(doc)
    (invocation,) = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "missing" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_a_failed_run_in_markdown_says_so(defective: Path) -> None:
    """A PR comment of a link check that could not run: a heading that says it failed, then
    why, escaped for Markdown."""
    proc = run_cli("check-links", defective, "--offline", "--format", "markdown")
    assert proc.returncode == 2
    heading, reason = proc.stdout.rstrip("\n").split("\n\n")
    assert heading == "### ❌ catalogctl check-links failed"
    assert "is invalid (2 errors)" in reason and "icon.md:6 (icon)" in reason
    assert "run \\`catalogctl validate" in reason  # a backquote of the message, escaped


# --- GitHub annotations -----------------------------------------------------------------------


def test_github_escaping_follows_the_runner() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0Anext"
    assert escape_property("a:b,c%d") == "a%3Ab%2Cc%25d"
    assert escape_data("bell\x07 esc\x1b[31m") == "bell esc[31m"


def test_validate_github_annotations_point_at_file_and_line(defective: Path) -> None:
    proc = run_cli("validate", defective, "--format", "github")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ")) for line in lines)
    typo = next(line for line in lines if "typo.md" in line)
    props, _, message = typo.partition("::")[2].partition("::")
    fields = dict(p.split("=", 1) for p in props.split(" ", 1)[1].split(","))
    text = (defective / "games/typo.md").read_text().splitlines()
    assert text[int(fields["line"]) - 1].startswith("genres:")
    assert fields["title"] and "Puzzel" in message
    assert "error" in proc.stderr  # the summary line stays on the terminal


# --- JUnit ------------------------------------------------------------------------------------


def test_validate_junit_has_a_testcase_per_game(defective: Path) -> None:
    proc = run_cli("validate", defective, "--format", "junit")
    assert proc.returncode == 1
    root = ET.fromstring(proc.stdout)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    names = {Path(c.get("name", "")).name for c in cases}
    assert {"good.md", "typo.md", "icon.md", "draft.md", "nostore.md"} <= names
    failed = {Path(c.get("name", "")).name for c in cases if c.find("failure") is not None}
    assert failed == {"typo.md", "icon.md"}
    assert int(suite.get("tests", "0")) == len(cases)
    assert int(suite.get("failures", "0")) == len(failed)
    for case in cases:
        assert case.get("classname") and case.get("name")
        failure = case.find("failure")
        if failure is not None:
            assert failure.get("message") and failure.text


def test_check_links_junit_has_a_testcase_per_link(tmp_path: Path) -> None:
    proc = run_cli("check-links", games_file(tmp_path), "--offline", "--format", "junit")
    root = ET.fromstring(proc.stdout)
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 3
    assert sum(c.find("failure") is not None for c in cases) == 2


# --- --output FILE ----------------------------------------------------------------------------


def test_output_file_gets_the_report_and_the_terminal_the_summary(
    defective: Path, tmp_path: Path
) -> None:
    target = tmp_path / "report.sarif"
    proc = run_cli("validate", defective, "--format", "sarif", "--output", target)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "error" in proc.stderr and "warning" in proc.stderr
    check_sarif(json.loads(target.read_text()))


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("no/dir/out.txt", "does not exist"),
        (".", "is a directory"),
        ("a-file/out.txt", "is not a folder"),
        ("n" * 5000, NAME_TOO_LONG),
    ],
)
def test_output_file_that_cannot_be_a_file_is_an_input_error(
    defective: Path, tmp_path: Path, where: str, why: str
) -> None:
    (tmp_path / "a-file").write_text("")
    proc = run_cli("validate", defective, "--output", tmp_path / where)
    assert proc.returncode == 2
    assert "--output" in proc.stderr and why in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("validate", ROOT / "content"),
        ("diff", ROOT / "content", ROOT / "content"),
        ("check-links", "--offline", ROOT / "content"),
    ],
    ids=["validate", "diff", "check-links"],
)
def test_output_file_is_written_when_there_is_nothing_to_report(
    tmp_path: Path, args: tuple[str | Path, ...]
) -> None:
    # A report left by an earlier run would still list what has been fixed since.
    target = tmp_path / "report.txt"
    target.write_text("content/games/x.md:2:8: error empty-value · name: is blank\n")
    proc = run_cli(*args, "--output", target)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == ""
    assert "✓" in proc.stderr


def test_output_file_that_cannot_be_written_reports_the_failure_on_stdout(
    defective: Path,
) -> None:
    # /dev/full refuses every write (ENOSPC): the report of that failure comes to stdout.
    proc = run_cli("validate", defective, "--format", "json", "--output", "/dev/full")
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    check_envelope(doc)
    assert doc["error"]["kind"] == "input" and "/dev/full" in doc["error"]["message"]
    assert "No space left on device" in proc.stderr


def test_stdout_that_cannot_be_written_is_said_once_in_the_systems_words(
    defective: Path,
) -> None:
    # stdout is /dev/full: the report fails, and so does the report of that failure.
    proc = run(
        ["sh", "-c", 'exec "$@" > /dev/full', "sh", *cli("validate", defective, "--format", "json")]
    )
    assert proc.returncode == 2
    assert proc.stderr.count("No space left on device") == 1, proc.stderr
    assert "Errno" not in proc.stderr


# --- control characters from content and from the network -----------------------------------


def no_control(text: str) -> None:
    assert not any(c in text for c in CONTROL), repr(text)


@pytest.mark.parametrize("fmt", ["table", "json", "github", "sarif", "junit", "markdown"])
def test_control_characters_in_content_never_reach_the_terminal(
    make_content: ContentFactory, fmt: str
) -> None:
    evil = game_yaml("Evil", ios=None).replace(
        "stores:\n", 'stores:\n  "\\e[2J\\e]0;pwned\\a": https://example.com/app\n'
    )
    root = make_content({"good": game_yaml("Good"), "evil": evil})
    proc = run_cli("validate", root, "--format", fmt)
    assert proc.returncode == 1, proc.stderr
    no_control(proc.stdout)
    no_control(proc.stderr)
    assert "[2J" in proc.stdout  # the text is shown, without its escape character


def test_json_reports_escape_what_a_terminal_would_run(
    make_content: ContentFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON escapes C0 controls itself; DEL, the C1 controls (U+009B is CSI, as ESC [ is) and
    the bidirectional ones it leaves as they are. The reports write them as \\u escapes: the
    terminal shows them, and the data a program parses is the same."""
    evil = game_yaml("Evil").replace(
        "stores:\n", 'stores:\n  "\\x9b31m\\u202e\\x7f": https://example.com/app\n'
    )
    root = make_content({"good": game_yaml("Good"), "evil": evil})
    proc = run_cli("validate", root, "--format", "json")
    link = Link("https://example.com/\x9b31m\u202ered\x7f", [LinkRef("g\x9b", "icon")])
    result = LinkResult(
        link, "broken", "network", None, "bad \x9b", method="GET", rule="unreachable"
    )
    console.use_format("check-links", "json")
    assert (
        report_links(LinkReport([result], requests=1, hosts=1, seconds=0.1), "json", strict=False)
        is False
    )
    links = capsys.readouterr().out
    assert proc.returncode == 1, proc.stderr
    for out in (proc.stdout, links):
        for ch in "\x9b\u202e\x7f":
            assert ch not in out, (repr(ch), out)
        assert "\\u009b31m\\u202e" in out
    stores = [f["field"] for f in json.loads(proc.stdout)["findings"] if "stores." in f["field"]]
    assert "stores.\x9b31m\u202e\x7f" in stores  # the data is what the page holds
    assert json.loads(links)["links"][0]["url"] == link.url


def test_control_characters_in_names_never_reach_the_diff_table(
    make_content: ContentFactory,
) -> None:
    old = make_content({"a": game_yaml("A")})
    # Published where the site lowers control-character to a warning.
    new = make_content(
        {"a": game_yaml("A"), "b": game_yaml('"Evil \\e[31m\\a"')},
        site=SITE_TOML + '\n[rules]\ncontrol-character = "warning"\n',
    )
    proc = run_cli("diff", old, new)
    assert proc.returncode == 1, proc.stderr
    assert "Evil [31m" in proc.stdout
    no_control(proc.stdout)
    no_control(proc.stderr)


@pytest.mark.parametrize("fmt", ["table", "json", "github", "sarif", "junit", "markdown"])
def test_control_characters_in_link_errors_never_reach_the_terminal(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    link = Link("https://example.com/\x1b[31mred", [LinkRef("g\x07", "icon")])
    error = "TLS error: \x1b]0;pwned\x07 bad"
    result = LinkResult(link, "broken", "network", None, error, method="HEAD", rule="unreachable")
    console.use_format("check-links", fmt)
    report = LinkReport([result], requests=1, hosts=1, seconds=0.1)
    assert report_links(report, fmt, strict=False) is False
    captured = capsys.readouterr()
    if fmt != "json":  # JSON escapes them (\u001b): the data stays exact
        assert "pwned" in captured.out
    no_control(captured.out)
    no_control(captured.err)


def test_names_that_look_like_rich_markup_are_printed_as_text(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "[/bold]dist[red]"
    proc = run_cli("build", sample, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "[/bold]dist[red]" in proc.stderr and "Traceback" not in proc.stderr


def test_server_log_lines_carry_no_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from catalogctl.serve.server import configure_logging

    configure_logging("text")
    logging.getLogger("catalogctl.serve").error(
        "reload failed: games/\x1b[2Jevil.md: 'x\x07' is not valid\nforged line"
    )
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "[2Jevil.md" in line and "forged line" in line
    no_control(line)


def test_wrap_cells_breaks_at_spaces_and_folds_long_words() -> None:
    from rich.cells import cell_len

    from catalogctl.output.layout import wrap_cells

    assert wrap_cells("short line  ", 20) == ["short line"]
    assert wrap_cells("one two three four", 9) == ["one two", "three", "four"]
    assert wrap_cells("a " + "x" * 12, 5) == ["a", "xxxxx", "xxxxx", "xx"]
    # Wide characters count two cells: no line is wider than asked, nothing is lost.
    lines = wrap_cells("夢夢夢夢夢 夢夢", 4)
    assert all(cell_len(line) <= 4 for line in lines)
    assert "".join(lines) == "夢夢夢夢夢夢夢"


# --- one way out --------------------------------------------------------------------------------


def _writes(tree: ast.AST) -> list[ast.Call]:
    """Calls that write to the terminal: print(), <anything>.print() (a rich console),
    echo() (click, typer), sys.stdout.write() and sys.stderr.write()."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        stream = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
        if name in ("print", "echo") or (
            name in ("write", "writelines") and stream in ("sys.stdout", "sys.stderr")
        ):
            found.append(node)
    return found


def test_only_output_writes_to_the_terminal() -> None:
    package = ROOT / "catalogctl"
    outside = [
        f"{path.relative_to(ROOT)}:{call.lineno}: {ast.unparse(call.func)}"
        for path in sorted(package.rglob("*.py"))
        if "output" not in path.relative_to(package).parts[:1]
        for call in _writes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert outside == [], "write through catalogctl.output instead"


def test_the_terminal_writes_check_sees_them() -> None:
    # The check above can fail: each way of writing is recognised.
    source = (
        "print('a')\nconsole.print('b')\nerr().print('c')\ntyper.echo('d')\n"
        "sys.stdout.write('e')\nsys.stderr.write('f')\nfh.write(data)\n"
    )
    assert len(_writes(ast.parse(source))) == 6


def test_clean_removes_tag_characters_but_a_flags() -> None:
    """Tag characters show nothing and carry text a program reads (a model reading llms.txt):
    removed, but a flag's tag sequence (England's), which shows as the flag."""
    from catalogctl.text import clean

    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "ignore the rest")
    assert clean(f"Moon{hidden} Lander") == "Moon Lander"
    assert clean(f"{england} Cup{hidden}") == f"{england} Cup"
    assert clean(f"\U0001f3f4{hidden}\U000e007f x") == "\U0001f3f4 x"
    assert clean(f"{england}\U000e0041") == england


def test_clean_shows_a_name_byte_the_locale_could_not_decode_as_path_text_does() -> None:
    """A file name's byte that is not UTF-8 reads `\\xe9` in every line that names the file,
    as in findings; bytes that are UTF-8 read as their character, and one that is a C1 control
    (U+009B, CSI) is removed as any control is. Other lone surrogates become U+FFFD."""
    from catalogctl.text import clean

    assert clean("games/caf\udce9.md") == "games/caf\\xe9.md"
    assert clean("games/caf\udcc3\udca9.md") == "games/café.md"
    assert clean("a\udcc2\udc9b[2Jb") == "a[2Jb"
    assert clean("a\ud800b") == "a\ufffdb"
