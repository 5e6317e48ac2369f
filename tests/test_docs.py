"""Docs that cannot drift: every command and config snippet of README.md and docs/ works as shown.

Each Markdown file is one test (new pages are picked up as they land); it stops at the first
snippet that does not work, naming the file and line. The conventions are those of
docs/contributing.md ("Docs that are tested"):

- `sh`, `bash`, `shell` blocks: every `catalogctl …` command of a line is run (other programs
  on the line are not); `console` blocks: the same for each `$ ` line. Commands run in a folder
  holding the bundled sample as `content/` and `site/content/`, its build as `dist/` and
  `dist-prev/`, its games document as `games.json` and `old.json`, and websites without
  site.toml for `init` (`website/`, `studio/`, `notes/`), with a timeout. A `serve`
  is started on a free port, asked for /api/v1 and stopped. A command must exit 0 or 1 (the
  check found problems), or 2 when its shown output has an `error:` line.
- A command line whose comment says `needs: …` (the network, a server, …) is not run; its
  options are still parsed as the command line parser would. A command that would reach the
  network and is not so marked fails the test.
- `toml` blocks are site.toml, checked against `catalogctl schema site` (merged into the
  sample's, so a piece of site.toml is fine), unless their title names another file;
  `markdown` blocks with front matter are checked against `catalogctl schema page`; `yaml`
  blocks must parse. A block whose title ends with `(invalid)` is wrong on purpose.

docs/reference/formats.md's examples, and those of init on the init and getting-started pages,
are compared with real output (tests at the end).

Why one module: the runner (scratch folder, serve, snippet checks) exists for these tests
alone; reading the Markdown is in tests/docs_snippets.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import ROOT, SAMPLE
from tests.docs_snippets import (
    NEEDS,
    SHELLS,
    Block,
    Command,
    blocks,
    catalogctl_runs,
    commands,
    front_matter,
    json_ready,
    matches,
    merged,
    parse_only,
    reaches_network,
)
from tests.processes import Program, cli, free_port, run, run_cli

DOCS = ROOT / "docs"
BODY_LINKS = ROOT / "tests" / "fixtures" / "body-links" / "example"  # store links in bodies
SITES = ROOT / "tests" / "fixtures" / "sites"
# Websites without site.toml, for `catalogctl init`: a Hugo site, a studio's Jekyll site whose
# _posts mixes games and a blog post (fixture -> folder in the scratch folder).
WEBSITES = {"hugo-bundles": "website", "jekyll-posts-category": "studio"}
# A website whose folders say nothing of games.
NOTES_SITE = {
    "content/notes/one.md": "---\ntitle: One\n---\n",
    "content/notes/two.md": "---\ntitle: Two\n---\n",
    "content/about.md": "---\ntitle: About\n---\n",
}
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
TIMEOUT = 60


# --- the folder commands run in ---------------------------------------------------------------


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs-build") / "dist"
    proc = run_cli("build", SAMPLE, "--out", out, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    return out


def sandbox(top: Path, build: Path) -> Path:
    """A folder laid out as the docs' commands expect (docs/contributing.md)."""
    here = top / "run"
    shutil.copytree(SAMPLE, here / "content")
    shutil.copytree(SAMPLE, here / "site" / "content")
    shutil.copytree(BODY_LINKS, here / "body-links")
    for fixture, folder in WEBSITES.items():
        shutil.copytree(
            SITES / fixture, here / folder, ignore=shutil.ignore_patterns("site.toml", "*.json")
        )
    for name, text in NOTES_SITE.items():
        (here / "notes" / name).parent.mkdir(parents=True, exist_ok=True)
        (here / "notes" / name).write_text(text, encoding="utf-8")
    shutil.copytree(build, here / "dist", symlinks=True)
    shutil.copytree(build, here / "dist-prev", symlinks=True)
    games = build / "public" / "api" / "v1" / "games" / "index.json"
    shutil.copyfile(games, here / "games.json")
    shutil.copyfile(games, here / "old.json")
    (here / "home").mkdir()
    return here


def run_env(here: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["HOME"] = str(here / "home")
    env["PWD"] = str(here)
    return env


def serve_args(args: list[str], here: Path) -> tuple[list[str], Path | None]:
    """serve's arguments on loopback and a free port (a Unix socket in the folder)."""
    out: list[str] = []
    unix: Path | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, _ = arg.partition("=")
        takes = name in ("--port", "-p", "--host", "--unix", "--metrics") and not eq
        if name in ("--port", "-p", "--host"):
            i += 2 if takes else 1
            continue
        if name == "--unix":
            unix = here / "http.sock"
            out += ["--unix", str(unix)]
            i += 2 if takes else 1
            continue
        if name == "--metrics":
            out += ["--metrics", f"127.0.0.1:{free_port()}"]
            i += 2 if takes else 1
            continue
        out.append(arg)
        i += 1
    if unix is None:
        out += ["--host", "127.0.0.1", "--port", "0"]
    return out, unix


def _http_get(url: str | None, unix: Path | None) -> tuple[int, bytes]:
    import http.client

    if unix is not None:

        class UnixConnection(http.client.HTTPConnection):
            def connect(self) -> None:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(10)
                self.sock.connect(str(unix))

        conn: http.client.HTTPConnection = UnixConnection("localhost", timeout=10)
    else:
        assert url is not None
        host, _, port = url.removeprefix("http://").partition(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", "/api/v1")
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def run_serve(where: str, args: list[str], here: Path, env: dict[str, str]) -> None:
    args, unix = serve_args(args, here)
    shown = f"{where}: `catalogctl {shlex.join(args)}`"

    def started(line: str) -> bool:
        return bool(re.search(r" at http://127\.0\.0\.1:\d+", line)) or (
            unix is not None and " at unix:" in line
        )

    with Program(cli(*args), cwd=here, env=env, stdout=subprocess.PIPE) as proc:
        try:
            line = proc.wait_for_line(started, timeout=TIMEOUT)
        except AssertionError as failed:
            pytest.fail(f"{shown} did not start serving: {failed}", pytrace=False)
        m = re.search(r" at (http://127\.0\.0\.1:\d+)", line)
        status, body = _http_get(m.group(1) if m else None, unix)
        assert status == 200 and json.loads(body)["version"] == "v1", (where, status, body)
        code = proc.stop(timeout=TIMEOUT)
    if code != 0:
        pytest.fail(f"{shown} exited {code} on SIGTERM:\n{proc.printed()}", pytrace=False)


def check_command(cmd: Command, here: Path, env: dict[str, str]) -> None:
    for assign, args in catalogctl_runs(cmd.line, env):
        shown = f"{cmd.where}: `catalogctl {shlex.join(args)}`"
        for arg in args:  # the folders of paths moved under root/ (see _expand)
            if arg.startswith(str(here / "root")):
                Path(arg).parent.mkdir(parents=True, exist_ok=True)
        if NEEDS.search(cmd.comment):
            problem = parse_only(args)
            assert problem is None, f"{shown} (needs: not run) does not parse: {problem}"
            continue
        network = reaches_network(args)
        if network:
            pytest.fail(
                f"{shown} would reach the network ({network}): mark the line with a "
                "`# needs: network` comment (docs/contributing.md)",
                pytrace=False,
            )
        if args and args[0] == "serve":
            run_serve(cmd.where, args, here, {**env, **assign})
            continue
        proc = run_cli(*args, cwd=here, env={**env, **assign}, timeout=TIMEOUT)
        expected = {0, 1}
        if any(line.startswith("error:") for line in cmd.output):
            expected = {2}
        output = proc.stdout[-2000:] + proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr, f"{shown} crashed:\n{output}"
        assert proc.returncode in expected, f"{shown} exited {proc.returncode}:\n{output}"


# --- config snippets --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    empty = tmp_path_factory.mktemp("schema")  # no ./content: the default page schema
    out = {}
    for kind in ("site", "page"):
        proc = run_cli("schema", kind, cwd=empty, timeout=TIMEOUT)
        assert proc.returncode == 0, proc.stderr
        out[kind] = json.loads(proc.stdout)
    return out


BASE_SITE = tomllib.loads((SAMPLE / "site.toml").read_text(encoding="utf-8"))
BASE_PAGE = {
    "name": "Moon Lander",
    "description": "Land softly on twelve moons.",
    "platforms": ["iOS"],
    "genres": ["Arcade"],
    "icon": "/icons/moon-lander.png",
    "stores": {"ios": "https://apps.apple.com/app/moon-lander/id1234567890"},
}


def check_snippet(block: Block, schemas: dict[str, Any]) -> None:
    where = f"{block.file}:{block.line}"
    if block.title.endswith("(invalid)"):
        return
    text = "\n".join(t for _, t in block.lines) + "\n"
    try:
        if block.language == "toml":
            data = tomllib.loads(text)
            if block.title and not block.title.endswith("site.toml"):
                return
            site = json_ready(merged(BASE_SITE, data))
            error = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(schemas["site"]).iter_errors(site)
            )
            assert error is None, (
                f"{where}: not a valid site.toml: {error.message} at {error.json_path}"
            )  # type: ignore[union-attr]
        elif block.language in ("markdown", "md"):
            matter = front_matter(text)
            if matter is None:
                return
            page = json_ready(merged(BASE_PAGE, matter))
            error = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(schemas["page"]).iter_errors(page)
            )
            assert error is None, (
                f"{where}: front matter not valid: {error.message} at {error.json_path}"
            )  # type: ignore[union-attr]
        elif block.language in ("yaml", "yml"):
            yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError, json.JSONDecodeError) as exc:
        pytest.fail(f"{where}: the {block.language} snippet does not parse: {exc}", pytrace=False)


# --- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_commands_and_snippets_work_as_shown(
    page: Path, tmp_path: Path, sample_build: Path, schemas: dict[str, Any]
) -> None:
    here = sandbox(tmp_path, sample_build)
    env = run_env(here)
    for block in blocks(page):
        if block.language in SHELLS:
            for cmd in commands(block):
                check_command(cmd, here, env)
        else:
            check_snippet(block, schemas)


def test_mkdocs_build_is_strict_clean(tmp_path: Path) -> None:
    """Every page is in the nav, and every link and anchor between pages resolves."""
    proc = run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", tmp_path],
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "reference" / "rules" / "index.html").is_file()


# --- the tests of the tests -------------------------------------------------------------------


def test_shell_lines_run_only_their_catalogctl_commands() -> None:
    env = {"HOME": "/w/home", "PWD": "/w"}
    runs = catalogctl_runs(
        "mkdir -p .schemas && COLUMNS=80 catalogctl schema page > .schemas/p.json "
        "| jq . && catalogctl serve ~/dist 2>/dev/null",
        env,
    )
    assert runs == [({"COLUMNS": "80"}, ["schema", "page"]), ({}, ["serve", "/w/home/dist"])]
    moved = catalogctl_runs("catalogctl build --out /srv/x", env)
    assert moved == [({}, ["build", "--out", "/w/root/srv/x"])]
    assert catalogctl_runs("python3 -m venv .venv && pip install .", env) == []


def test_console_blocks_pair_commands_with_their_output() -> None:
    block = Block(
        "x.md", 1, "console", "", [(2, "$ catalogctl validate  # a comment"), (3, "✓ ok")]
    )
    (cmd,) = commands(block)
    assert (cmd.where, cmd.line, cmd.comment, cmd.output) == (
        "x.md:2",
        "catalogctl validate",
        "a comment",
        ["✓ ok"],
    )


def test_an_unmarked_network_command_fails_and_a_marked_one_is_parsed() -> None:
    assert reaches_network(["check-links", "content"]) is not None
    assert reaches_network(["check-links", "content", "--offline"]) is None
    assert reaches_network(["diff", "https://games.example.com", "content"]) is not None
    assert parse_only(["check-links", "https://games.example.com", "--timeout", "5"]) is None
    assert "no such option" in (parse_only(["check-links", "--timeuot", "5"]) or "").lower()


def test_a_wrong_site_snippet_is_caught(schemas: dict[str, Any]) -> None:
    bad = Block("x.md", 7, "toml", "", [(8, "[content]"), (9, "gamez = 'g'")])
    with pytest.raises(AssertionError, match=r"x\.md:7: not a valid site\.toml"):
        check_snippet(bad, schemas)
    page = Block("x.md", 3, "markdown", "", [(4, "---"), (5, "platforms: iOS"), (6, "---")])
    with pytest.raises(AssertionError, match=r"x\.md:3: front matter not valid"):
        check_snippet(page, schemas)


# --- docs/reference/formats.md: real output ---------------------------------------------------

FORMATS_FIXTURE = ROOT / "tests" / "fixtures" / "docs"


def test_formats_page_examples_are_real_output(tmp_path: Path) -> None:
    here = tmp_path / "run"
    shutil.copytree(FORMATS_FIXTURE, here)
    env = run_env(here)
    page = DOCS / "reference" / "formats.md"
    checked = 0
    for block in blocks(page):
        if block.language != "console":
            continue
        for cmd in commands(block):
            ((assign, args),) = catalogctl_runs(cmd.line, env)
            proc = run_cli(*args, cwd=here, env={**env, **assign}, timeout=TIMEOUT)
            actual = (proc.stdout + proc.stderr).splitlines()
            shown = [line for line in cmd.output if line.strip()]
            actual = [line for line in actual if line.strip()]
            problem = matches(shown, actual)
            assert problem is None, (
                f"{cmd.where}: `{cmd.line}` no longer prints what the page shows: {problem}. "
                "Update the example with the command's output, run in tests/fixtures/docs."
            )
            checked += 1
    assert checked >= 6


# --- init on the init and getting-started pages: real output ----------------------------------


@pytest.mark.parametrize("name", ["content/init.md", "getting-started.md"])
def test_init_examples_are_real_output(name: str, tmp_path: Path, sample_build: Path) -> None:
    """What the pages show init (and validate after it) print is what they print on the
    websites the docs' commands run on; the commands run in the page's order."""
    here = sandbox(tmp_path, sample_build)
    env = run_env(here)
    checked = 0
    for block in blocks(DOCS / name):
        if block.language != "console":
            continue
        for cmd in commands(block):
            ((assign, args),) = catalogctl_runs(cmd.line, env)
            proc = run_cli(*args, cwd=here, env={**env, **assign}, timeout=TIMEOUT)
            if args[0] not in ("init", "validate") or not cmd.output:
                continue
            actual = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
            shown = [line for line in cmd.output if line.strip()]
            problem = matches(shown, actual)
            assert problem is None, (
                f"{cmd.where}: `{cmd.line}` no longer prints what the page shows: {problem}. "
                "Update the example with the command's output (tests/test_docs.py runs it)."
            )
            checked += 1
    assert checked >= 2
