"""What a path, a URL or no argument means (`catalogctl.sources`), for every command.

The trees are laid out as real sites lay them out (tests/fixtures/sites): a Hugo site with
site.toml at its root beside Hugo's content/, a Jekyll blog whose games are its _posts, and
the default layout (content/site.toml, content/games/).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catalogctl.content.limits import json_too_deep
from catalogctl.content.loader import SITE_FILE, sample_content
from catalogctl.errors import ContentInvalid, InputError
from catalogctl.site.manifest import MANIFEST
from catalogctl.sources import locate as where
from catalogctl.sources.locate import ANY_KIND, CONTENT_KINDS, SERVED_KINDS, locate
from catalogctl.sources.schema import SCHEMA_FILE, generate
from catalogctl.sources.served import SiteInput
from catalogctl.sources.watch import content_files
from tests.conftest import SAMPLE, game_yaml
from tests.processes import run_cli
from tests.serve_process import ServeProcess

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
HUGO_GAMES = 5  # published by tests/fixtures/sites/hugo-bundles


ONE_LINE = os.environ | {"COLUMNS": "200"}  # messages on one line


@pytest.fixture
def hugo(tmp_path: Path) -> Path:
    """A Hugo site: site.toml and config.toml at the root, the games under content/games."""
    root = tmp_path / "hugo"
    shutil.copytree(SITES / "hugo-bundles", root)
    return root


@pytest.fixture
def default_layout(tmp_path: Path) -> Path:
    """A website repository with the content tree in content/ (site.toml inside it)."""
    root = tmp_path / "website"
    shutil.copytree(SAMPLE, root / "content")
    return root


def test_sources_marker_names_are_the_layers_own() -> None:
    assert (where.SITE_FILE, where.MANIFEST) == (SITE_FILE, MANIFEST)


# --- no argument: where you stand ---------------------------------------------------------------


def test_sources_generated_catalog_schema_is_up_to_date() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == generate(), (
        "catalogctl/sources/_catalog_schema.py is stale: run `python -m catalogctl.sources.schema`"
    )


def test_locate_site_toml_here_wins_over_a_content_folder(
    hugo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(hugo)
    found = locate(None, accept=CONTENT_KINDS)
    assert (found.kind, found.path, found.label) == ("content", Path(), ".")
    assert found.note is None  # Hugo's content/ is no site of its own: nothing to tell apart
    # Even when ./content holds a site.toml of its own, which the note then names.
    (hugo / "content" / SITE_FILE).write_text((hugo / SITE_FILE).read_text())
    found = locate(None, accept=CONTENT_KINDS)
    assert found.path == Path()
    assert found.note is not None and "not ./content" in found.note


def test_locate_default_content_folder(
    default_layout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(default_layout)
    found = locate(None, accept=CONTENT_KINDS)
    assert (found.path, found.label, found.note) == (Path("content"), "content", None)


@pytest.mark.parametrize("inside", ["content", "content/games", "content/games/mobile/kelp-garden"])
def test_locate_inside_a_site_finds_its_root(
    hugo: Path, inside: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(hugo / inside)
    found = locate(None, accept=CONTENT_KINDS)
    up = "/".join([".."] * len(Path(inside).parts))
    assert (found.kind, found.path, found.label) == ("content", hugo, up)
    assert found.note is not None and f"using the site at {up}" in found.note


def test_locate_nothing_near(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=r"no site here \(no ./content.*catalogctl build site/"):
        locate(None, command="build")
    found = locate(None, accept=SERVED_KINDS, sample=True)
    assert found.sample and found.path == sample_content()
    assert found.note is not None and "bundled sample content" in found.note


def test_locate_a_content_folder_without_site_toml_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate then reports what it lacks (site.toml) instead of passing on the sample."""
    (tmp_path / "content" / "games").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert locate(None, accept=SERVED_KINDS, sample=True).path == Path("content")


# --- an argument --------------------------------------------------------------------------------


def test_locate_games_folder_or_page_means_its_site(
    default_layout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(default_layout)
    games = locate("content/games", accept=CONTENT_KINDS)
    assert (games.path, games.label) == (default_layout / "content", "content")
    assert games.note is not None and "content/games has no site.toml" in games.note
    page = locate("content/games/tidal-drift.md", accept=CONTENT_KINDS)
    assert (page.path, page.label) == (default_layout / "content", "content")
    assert page.note is not None and "tidal-drift.md is a page" in page.note
    # The folder of the site: as named, nothing to say.
    named = locate("content", accept=CONTENT_KINDS)
    assert (named.path, named.label, named.note) == (Path("content"), "content", None)
    # A repository root whose content/ holds the site.
    outer = locate(".", accept=CONTENT_KINDS)
    assert outer.path == Path("content") and outer.note is not None


def test_locate_what_each_command_reads(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / MANIFEST).write_text("{}")
    (tmp_path / "games.json").write_text("{}")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.md").write_text("# Notes\n")
    dist, games = str(tmp_path / "dist"), str(tmp_path / "games.json")
    assert locate(dist, accept=SERVED_KINDS).kind == "build"
    assert locate(str(tmp_path / "dist" / MANIFEST)).kind == "build"
    assert locate(games).kind == "json"
    assert locate("https://games.example.com").url == "https://games.example.com"
    with pytest.raises(InputError, match=r"is a build directory.*`catalogctl validate` reads a"):
        locate(dist, accept=CONTENT_KINDS)
    with pytest.raises(InputError, match=r"is a URL; `catalogctl build` reads a site"):
        locate("https://games.example.com", accept=CONTENT_KINDS, command="build")
    with pytest.raises(InputError, match=r"games.json is a file; `catalogctl serve` reads"):
        locate(games, accept=SERVED_KINDS, command="serve")
    with pytest.raises(InputError, match="not a catalog source"):
        locate(str(tmp_path / "empty"), accept=ANY_KIND)
    with pytest.raises(InputError, match="source not found"):
        locate(str(tmp_path / "nope"))
    with pytest.raises(InputError, match=r"notes.md looks like a page, but .* holds a site.toml"):
        locate(str(tmp_path / "notes.md"), accept=CONTENT_KINDS)
    with pytest.raises(InputError, match=r"cannot read a+: File name too long"):
        locate("a" * 5000)


# --- the commands -------------------------------------------------------------------------------


def test_validate_at_a_hugo_root_reads_the_site_not_hugos_content(hugo: Path) -> None:
    proc = run_cli("validate", "--format", "json", env=ONE_LINE, cwd=hugo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["summary"]["games"] == HUGO_GAMES
    assert proc.stderr == ""  # no note on every run: Hugo's content/ is no site of its own


def test_validate_a_games_folder_reads_its_site_without_phantoms(default_layout: Path) -> None:
    proc = run_cli(
        "validate", "content/games", "--format", "json", env=ONE_LINE, cwd=default_layout
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    files = {f["file"] for f in report["findings"]}
    assert not {f for f in files if f.startswith("content/games/games")}, files
    assert "content/games/site.toml" not in files
    assert report["summary"]["games"] >= 12
    assert "using the site at content: content/games has no site.toml" in proc.stderr


@pytest.mark.parametrize(
    "command", [("validate",), ("build", "--out", "../../../dist"), ("check-links", "--offline")]
)
def test_commands_inside_a_site_use_its_root_and_say_so(hugo: Path, command: tuple[str]) -> None:
    proc = run_cli(*command, env=ONE_LINE, cwd=hugo / "content" / "games" / "mobile")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "using the site at ../../..: its site.toml is the nearest above" in proc.stderr
    if command[0] == "build":
        games = json.loads((hugo / "dist/public/api/v1/games/index.json").read_text("utf-8"))
        assert len(games["games"]) == HUGO_GAMES


def test_validate_a_page_checks_its_whole_site(hugo: Path) -> None:
    other = hugo / "content" / "games" / "shoreline-sudoku.md"
    other.write_text(other.read_text().replace("title:", "tilte:", 1))
    proc = run_cli(
        "validate", "content/games/tidal-drift/index.md", "--format", "json", env=ONE_LINE, cwd=hugo
    )
    assert proc.returncode == 1
    assert "shoreline-sudoku.md" in {
        Path(f["file"]).name for f in json.loads(proc.stdout)["findings"]
    }
    assert "checking the whole site at ., of which content/games/tidal-drift" in proc.stderr


def test_serve_inside_a_site_serves_it(hugo: Path) -> None:
    proc = ServeProcess(cwd=hugo / "content")
    try:
        assert proc.events[-1]["games"] == HUGO_GAMES
        messages = " ".join(str(e.get("message", "")) for e in proc.events)
        assert "using the site at .." in messages and "sample" not in messages
    finally:
        assert proc.stop() == 0


def test_serve_inside_a_site_with_errors_refuses_like_validate(hugo: Path) -> None:
    page = hugo / "content" / "games" / "tidal-drift" / "index.md"
    page.write_text(page.read_text().replace("title:", "tilte:", 1))
    proc = run_cli("serve", "--port", "0", env=ONE_LINE, cwd=hugo / "content" / "games")
    assert proc.returncode == 1, proc.stderr
    assert "content is invalid" in proc.stderr and "sample" not in proc.stderr
    assert run_cli("validate", env=ONE_LINE, cwd=hugo / "content" / "games").returncode == 1


def test_serve_with_no_site_near_serves_the_sample_and_says_so(tmp_path: Path) -> None:
    proc = ServeProcess(cwd=tmp_path)
    try:
        messages = " ".join(str(e.get("message", "")) for e in proc.events)
        assert "no site here" in messages and "serving the bundled sample content" in messages
        assert proc.events[-1]["games"] == 13
    finally:
        assert proc.stop() == 0


# --- what a content tree reads (serve --watch) --------------------------------------------------


def _relative(root: Path, files: tuple[str, ...]) -> set[str]:
    return {Path(f).relative_to(root).as_posix() for f in files}


def test_content_files_are_the_pages_validate_reads(hugo: Path) -> None:
    files = content_files(hugo)
    assert files.site == str(hugo / SITE_FILE)
    assert _relative(hugo, files.pages) == {
        "content/games/lighthouse-keeper.md",
        "content/games/message-in-a-bottle.md",
        "content/games/shoreline-sudoku.md",
        "content/games/tidal-drift/index.md",
        "content/games/mobile/gull-patrol.md",
        "content/games/mobile/harbour-master.md",
        "content/games/mobile/kelp-garden/index.md",
        "content/games/mobile/storm-chaser/index.md",
    }
    jekyll = content_files(SITES / "jekyll-posts")
    assert _relative(SITES / "jekyll-posts", jekyll.pages) == {
        "_posts/2015-12-20-deep.markdown",
        "_posts/2015-12-25-meeru.markdown",
        "_posts/2016-01-10-tally.markdown",
    }


def test_fingerprint_changes_with_what_the_site_reads_only(hugo: Path) -> None:
    source = SiteInput.open(hugo)
    seen = source.fingerprint()

    def changed() -> bool:
        nonlocal seen
        now = source.fingerprint()
        was, seen = seen, now
        return now != was

    # Files the catalog does not read: a bundle's resource, a page outside the games folder.
    (hugo / "content" / "games" / "tidal-drift" / "icon.png").write_bytes(b"\x89PNG new")
    (hugo / "content" / "about" / "index.md").write_text("---\ntitle: About us\n---\n")
    assert not changed()
    # A page in a new nested section, a translation now read, site.toml moving the games.
    section = hugo / "content" / "games" / "puzzles" / "tide-pool"
    section.mkdir(parents=True)
    (section / "index.md").write_text(game_yaml("Tide Pool"))
    assert changed()
    (section / "index.md").unlink()
    assert changed()
    site = hugo / SITE_FILE
    site.write_text(site.read_text().replace('language = "en"', 'language = "fr"'))
    assert changed()
    site.write_text(site.read_text().replace('games = "content/games"', 'games = "games"'))
    assert changed()
    (hugo / "games").mkdir()
    (hugo / "games" / "new.md").write_text(game_yaml("New"))
    assert changed()


def test_served_build_with_a_deep_manifest_is_an_input_error(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / MANIFEST).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match=r"manifest.json of the build .* deeper than 64 levels"):
        SiteInput.open(dist).load()


def test_served_build_files_stay_inside_the_build(tmp_path: Path) -> None:
    from catalogctl.content.loader import load_catalog
    from catalogctl.site.build import write_site
    from catalogctl.site.render import render

    dist = tmp_path / "dist"
    write_site(render(load_catalog(SAMPLE), compress=False), dist)
    manifest = json.loads((dist / MANIFEST).read_text("utf-8"))
    (tmp_path / "secret.txt").write_text("secret")
    manifest["routes"]["/api/v1/games"]["file"] = "../secret.txt"
    (dist / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=r"'../secret.txt', which is outside the build"):
        SiteInput.open(dist).load()


def test_serving_invalid_content_raises_its_findings(tmp_path: Path) -> None:
    root = tmp_path / "content"
    (root / "games").mkdir(parents=True)
    (root / SITE_FILE).write_text((SAMPLE / SITE_FILE).read_text())
    (root / "games" / "bad.md").write_text("---\nname: X\n---\n")
    with pytest.raises(ContentInvalid):
        SiteInput.open(root).load()


# --- the JSON depth check ----------------------------------------------------------------------


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


# Strings full of what the check must see through: brackets, quotes, backslashes.
_TEXT = st.text(alphabet=st.sampled_from('[]{}"\\\\a é/'), max_size=6)
_JSON = st.recursive(
    st.none() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=40,
)


@given(value=_JSON, limit=st.integers(min_value=0, max_value=8), ascii_only=st.booleans())
def test_json_too_deep_is_exact(value: object, limit: int, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert json_too_deep(data, limit) == (_depth(value) > limit)


def test_json_too_deep_on_text_that_is_not_json() -> None:
    assert json_too_deep(b"[" * 100_000)  # never closed: still deep
    assert json_too_deep(b"]" * 10 + b"[" * 70)
    assert not json_too_deep(b'"' + b"[" * 100_000)  # all inside one (unterminated) string


class _Breaks:
    """A source whose load fails as nothing in a content tree makes it fail (picklable, so a
    loading process can be given it)."""

    display = "broken"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def load(self) -> object:
        raise self.error


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (
            MemoryError(),
            "the loading process ran out of memory; give the server more memory, or serve a build",
        ),
        (
            PermissionError(13, "Permission denied", "/srv/content/games/x.md"),
            "cannot read /srv/content/games/x.md: Permission denied; check the files",
        ),
        (
            AssertionError("daemonic processes are not allowed to have children"),
            "catalogctl failed while loading (AssertionError: daemonic processes are not "
            "allowed to have children); this is a bug, please report it",
        ),
    ],
    ids=["memory", "unreadable", "bug"],
)
def test_a_load_in_its_own_process_says_why_it_failed(error: BaseException, words: str) -> None:
    """What a reload's log line gives as the reason, for failures no check of the content
    foresaw: words a user can act on, the error's own text only where it is a bug."""
    from catalogctl.errors import CatalogError
    from catalogctl.sources.isolated import IsolatedLoad

    load = IsolatedLoad(_Breaks(error), timeout=60)  # type: ignore[arg-type]
    with pytest.raises(CatalogError) as failed:
        load.result(timeout=60)
    assert failed.value.message.startswith(words), failed.value.message


def test_a_load_whose_process_dies_says_how() -> None:
    from catalogctl.errors import CatalogError
    from catalogctl.sources.isolated import IsolatedLoad

    load = IsolatedLoad(_Breaks(SystemExit(3)), timeout=60)  # type: ignore[arg-type]
    with pytest.raises(CatalogError) as failed:
        load.result(timeout=60)
    assert failed.value.message.startswith(
        "the loading process ended (exit status 3) before it finished; if it was killed for "
        "lack of memory"
    ), failed.value.message


def test_a_load_given_up_is_killed() -> None:
    from catalogctl.errors import CatalogError
    from catalogctl.sources.isolated import IsolatedLoad

    load = IsolatedLoad(_Breaks(MemoryError()), timeout=60)  # type: ignore[arg-type]
    with pytest.raises(CatalogError, match="loading took longer than 0 s"):
        load.result(timeout=0)
    assert not load._process.is_alive()
