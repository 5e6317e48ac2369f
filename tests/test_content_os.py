"""A content tree as macOS and Windows hand it over: names in decomposed Unicode, file systems
that ignore case, their own errno numbers, files saved with a byte-order mark.

- macOS (HFS+, and APFS through most tools) gives `café.md` back decomposed (NFD: e and a
  combining accent): the id is published composed (NFC), and two files whose names differ
  only so are one id, a `duplicate-id` finding that says why;
- ids equal but for case collide on macOS and Windows: an `id-case` finding;
- a symlink loop is ELOOP, 40 on Linux and 62 on macOS: named by the `errno` module;
- Notepad and other Windows editors may save UTF-8 with a byte-order mark: every TOML, YAML
  and JSON file catalogctl reads skips it.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from catalogctl.content.loader import load
from catalogctl.text import path_text
from tests.conftest import (
    SAMPLE,
    SITE_TOML,
    ContentFactory,
    game_yaml,
    needs_case_sensitive_fs,
    needs_nfc_and_nfd,
    needs_posix_names,
    needs_symlinks,
)
from tests.processes import run_cli

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
BOM = b"\xef\xbb\xbf"
NFC, NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")


def validate_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli("validate", root, "--format", "json", *args)
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def published_ids(root: Path) -> list[str]:
    return sorted(g["id"] for g in load(root).published())


# --- ids in NFC ---------------------------------------------------------------------------


def test_validate_publishes_a_decomposed_file_name_composed(make_content: ContentFactory) -> None:
    root = make_content({"alpha": game_yaml("Alpha"), NFD: game_yaml("Café")})
    assert published_ids(root) == ["alpha", NFC]
    assert published_ids(root)[1].encode() == b"caf\xc3\xa9"  # é as one character


def test_validate_composes_a_slug(make_content: ContentFactory) -> None:
    root = make_content({"alpha": game_yaml("Alpha", extra=f"slug: {NFD}\n")})
    assert published_ids(root) == [NFC]


@needs_nfc_and_nfd
def test_validate_two_names_differing_only_in_composition_are_one_id(
    make_content: ContentFactory,
) -> None:
    root = make_content({NFC: game_yaml("Café"), NFD: game_yaml("Café again")})
    code, report = validate_json(root)
    assert code == 1
    dup = [f for f in report["findings"] if f["rule"] == "duplicate-id"]
    assert len(dup) == 2
    shown = path_text(root)
    assert {f["file"] for f in dup} == {f"{shown}/games/{NFC}.md", f"{shown}/games/{NFD}.md"}
    assert all("differ only in how an accent is written" in f["message"] for f in dup)


# --- ids equal but for case ----------------------------------------------------------------


def test_validate_ids_equal_but_for_case_are_an_error(make_content: ContentFactory) -> None:
    root = make_content(
        {
            "gull-patrol": game_yaml("Gull Patrol"),
            "other": game_yaml("Other", extra="slug: Gull-Patrol\n"),
        }
    )
    code, report = validate_json(root)
    assert code == 1
    case = sorted(
        (f["file"], f["field"], f["severity"]) for f in report["findings"] if f["rule"] == "id-case"
    )
    assert case == [
        (f"{path_text(root)}/games/gull-patrol.md", "id", "error"),
        (f"{path_text(root)}/games/other.md", "slug", "error"),
    ]
    message = next(f["message"] for f in report["findings"] if f["rule"] == "id-case")
    assert "differs only in case from" in message
    assert "macOS and Windows ignore case" in message


@needs_case_sensitive_fs
def test_validate_case_collision_between_file_names(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "games").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    (root / "games" / "gull-patrol.md").write_text(game_yaml("Gull"), encoding="utf-8")
    (root / "games" / "Gull-Patrol.md").write_text(game_yaml("Gull 2"), encoding="utf-8")
    code, report = validate_json(root)
    assert code == 1
    assert {f["file"].rsplit("/", 1)[1] for f in report["findings"] if f["rule"] == "id-case"} == {
        "gull-patrol.md",
        "Gull-Patrol.md",
    }


def test_validate_many_pages_sharing_an_id_name_a_few_of_the_others(tmp_path: Path) -> None:
    """Forty pages with one slug (a template copied): each finding names three of the other
    pages and counts the rest, so the report grows with the pages, not with their square."""
    root = tmp_path / "content"
    (root / "games").mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    for i in range(40):
        slug = "same" if i < 20 else ("Same" if i % 2 else "SAME")
        page = game_yaml(f"G{i}").replace("---\nname:", f"---\nslug: {slug}\nname:", 1)
        (root / "games" / f"g{i:02d}.md").write_text(page, encoding="utf-8")
    findings = load(root).findings
    dup = [f for f in findings if f.rule == "duplicate-id" and f.file.endswith("g00.md")]
    assert len(dup) == 1 and dup[0].message.startswith("id 'same' is also used by ")
    assert "g01.md" in dup[0].message and " and 16 more;" in dup[0].message
    case = [f for f in findings if f.rule == "id-case" and f.file.endswith("g00.md")]
    assert len(case) == 1
    assert "differs only in case from 'SAME', 'Same' (" in case[0].message
    assert " and 17 more)" in case[0].message


def test_validate_id_case_can_be_a_warning(make_content: ContentFactory) -> None:
    site = SITE_TOML + '\n[rules]\nid-case = "warning"\n'
    root = make_content(
        {
            "gull-patrol": game_yaml("Gull"),
            "other": game_yaml("Other", extra="slug: Gull-Patrol\n"),
        },
        site=site,
    )
    code, report = validate_json(root)
    assert code == 0
    assert {f["severity"] for f in report["findings"] if f["rule"] == "id-case"} == {"warning"}
    assert published_ids(root) == ["Gull-Patrol", "gull-patrol"]


def test_validate_a_draft_twin_in_case_is_a_warning(make_content: ContentFactory) -> None:
    root = make_content(
        {
            "gull-patrol": game_yaml("Gull"),
            "other": game_yaml("Other", extra="slug: Gull-Patrol\ndraft: true\n"),
        }
    )
    code, report = validate_json(root)
    assert code == 0
    assert {f["severity"] for f in report["findings"] if f["rule"] == "id-case"} == {"warning"}


# --- errno by name --------------------------------------------------------------------------


@needs_posix_names
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("aux.md", "'aux' names a device on Windows"),
        ("COM1.md", "'COM1' names a device on Windows"),
        ("nul/index.md", "'nul' names a device on Windows"),
        ("CONIN$.md", "'CONIN$' names a device on Windows"),
        ("conout$/index.md", "'conout$' names a device on Windows"),
        ("aux .md", "'aux' names a device on Windows"),
        ("a:b.md", "Windows refuses the character ':' in a name"),
        ("what?.md", "Windows refuses the character '?' in a name"),
        ("tide./index.md", "Windows drops the dot or space a name ends with"),
    ],
)
def test_validate_a_name_windows_cannot_hold_is_portable_name(
    tmp_path: Path, name: str, said: str
) -> None:
    """A page or a bundle's folder named so that a Windows checkout fails: a portable-name
    error naming it, and the page is read all the same (its game is checked)."""
    root = tmp_path / "content"
    page = root / "games" / name
    page.parent.mkdir(parents=True)
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    page.write_text(game_yaml("Aux"), encoding="utf-8")
    content = load(root)
    (f,) = [f for f in content.findings if f.rule == "portable-name"]
    assert f.severity == "error" and said in f.message
    assert name.split("/", maxsplit=1)[0] in f.file
    assert content.summary.pages == 1


def _two_pages(root: Path, first: str, second: str) -> None:
    root.mkdir()
    (root / "site.toml").write_text(SITE_TOML, encoding="utf-8")
    for name, slug in ((first, "one"), (second, "two")):
        page = root / "games" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(game_yaml(slug.title()).replace("---\n", f"---\nslug: {slug}\n", 1))


@needs_case_sensitive_fs
@pytest.mark.parametrize(
    ("first", "second"),
    [("Alpha.md", "alpha.md"), ("Beta/index.md", "beta/index.md")],
    ids=["pages", "bundles"],
)
def test_validate_names_equal_but_for_case_are_portable_name(
    tmp_path: Path, first: str, second: str
) -> None:
    """Two pages of their own slugs whose files differ only in case: both publish here, and a
    checkout on Windows or macOS keeps one. An error naming both."""
    root = tmp_path / "content"
    _two_pages(root, first, second)
    content = load(root)
    (f,) = [f for f in content.findings if f.rule == "portable-name"]
    assert f.severity == "error"
    assert f.file.endswith(second.split("/", maxsplit=1)[0])
    assert f"differs from {first.split('/', maxsplit=1)[0]!r} only in case" in f.message


@needs_case_sensitive_fs
def test_validate_names_that_fold_alike_but_differ_in_case_are_two(tmp_path: Path) -> None:
    """`Straße.md` and `strasse.md`: no file system compares `ß` as `ss`, so both stay."""
    root = tmp_path / "content"
    _two_pages(root, "Stra\u00dfe.md", "strasse.md")
    assert [f for f in load(root).findings if f.rule == "portable-name"] == []


@needs_nfc_and_nfd
def test_validate_names_equal_but_for_their_encoding_are_portable_name(tmp_path: Path) -> None:
    root = tmp_path / "content"
    nfc, nfd = "caf\u00e9.md", "cafe\u0301.md"
    _two_pages(root, nfc, nfd)
    found = [f for f in load(root).findings if f.rule == "portable-name"]
    assert len(found) == 1 and "a checkout on macOS keeps only one" in found[0].message


@needs_symlinks
@pytest.mark.parametrize("eloop", [40, 62], ids=["linux", "macos"])
def test_validate_names_a_symlink_loop_by_its_errno(
    make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch, eloop: int
) -> None:
    """ELOOP is 40 on Linux and 62 on macOS: each system's own number says `loops`."""
    root = make_content({"alpha": game_yaml("Alpha")})
    (root / "games" / "loop.md").symlink_to("loop.md")
    realpath = os.path.realpath

    def system_realpath(path: Any, *, strict: bool = False) -> str:
        if strict and str(path).endswith("loop.md"):
            raise OSError(eloop, os.strerror(errno.ELOOP), str(path))
        return realpath(path, strict=strict)

    monkeypatch.setattr(errno, "ELOOP", eloop)
    monkeypatch.setattr(os.path, "realpath", system_realpath)
    (finding,) = [f for f in load(root).findings if f.rule == "broken-symlink"]
    assert "the symlink loops" in finding.message


@needs_symlinks
def test_validate_a_real_symlink_loop_loops(make_content: ContentFactory) -> None:
    root = make_content({"alpha": game_yaml("Alpha")})
    (root / "games" / "loop.md").symlink_to("loop.md")
    (finding,) = [f for f in load(root).findings if f.rule == "broken-symlink"]
    assert "the symlink loops" in finding.message


# --- a byte-order mark, wherever a TOML, YAML or JSON file is read -------------------------


def with_bom(path: Path) -> None:
    path.write_bytes(BOM + path.read_bytes().removeprefix(BOM))


def test_schema_page_reads_a_site_toml_with_a_bom(make_content: ContentFactory) -> None:
    site = SITE_TOML + '\n[fields]\nname = "title"\n'
    root = make_content({"alpha": game_yaml("Alpha").replace("name:", "title:")}, site=site)
    with_bom(root / "site.toml")
    proc = run_cli("schema", "page", root)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert "title" in schema["properties"] and "name" not in schema["properties"]
    code, report = validate_json(root)
    assert code == 0, report["findings"]


def test_validate_reads_front_matter_with_a_bom(make_content: ContentFactory) -> None:
    root = make_content(
        {
            "yaml": BOM + game_yaml("Yaml").encode(),
            "toml": BOM
            + (
                b'+++\nname = "Toml"\ndescription = "A game."\nplatforms = ["iOS"]\n'
                b'genres = ["Puzzle"]\nicon = "/icons/t.png"\n'
                b'[stores]\nios = "https://apps.apple.com/app/t/id1"\n+++\n'
            ),
            "json": BOM
            + json.dumps(
                {
                    "name": "Json",
                    "description": "A game.",
                    "platforms": ["iOS"],
                    "genres": ["Puzzle"],
                    "icon": "/icons/j.png",
                    "stores": {"ios": "https://apps.apple.com/app/j/id2"},
                }
            ).encode(),
        }
    )
    with_bom(root / "site.toml")
    code, report = validate_json(root)
    assert code == 0, report["findings"]
    assert published_ids(root) == ["json", "toml", "yaml"]


@pytest.mark.parametrize(
    ("name", "config", "base_url"),
    [
        ("hugo-bundles", "config.toml", "https://games.tidewater.example"),
        ("jekyll-collection", "_config.yml", "https://lanternforge.example"),
        ("eleventy-games", "package.json", None),
    ],
)
def test_init_reads_a_generator_config_with_a_bom(
    tmp_path: Path, name: str, config: str, base_url: str | None
) -> None:
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    (root / "site.toml").unlink()
    (root / "expected.json").unlink()
    with_bom(root / config)
    proc = run_cli("init", root, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["generator"] == name.split("-", maxsplit=1)[0]
    written = (root / "site.toml").read_text(encoding="utf-8")
    if base_url is not None:
        assert f'base_url = "{base_url}"  # from {config}' in written


@pytest.mark.parametrize(
    ("name", "config", "base_url"),
    [
        ("hugo-bundles", "config.toml", "https://games.tidewater.example"),
        ("jekyll-collection", "_config.yml", "https://lanternforge.example"),
    ],
)
@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_init_reads_a_generator_config_saved_as_utf16(
    tmp_path: Path, name: str, config: str, base_url: str, codec: str
) -> None:
    """Notepad's "Unicode" is UTF-16 with a byte-order mark: such a config is read as that,
    where it was read as UTF-8 (nothing found in it, base_url guessed)."""
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    (root / "site.toml").unlink()
    (root / "expected.json").unlink()
    text = (root / config).read_text(encoding="utf-8")
    mark = {"utf-16": b"", "utf-16-be": codecs.BOM_UTF16_BE, "utf-32": b""}[codec]
    (root / config).write_bytes(mark + text.encode(codec))
    proc = run_cli("init", root, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    written = (root / "site.toml").read_text(encoding="utf-8")
    assert f'base_url = "{base_url}"  # from {config}' in written


@pytest.mark.parametrize("where", ["file", "games", "openapi"])
def test_diff_names_a_json_document_saved_as_utf16(tmp_path: Path, where: str) -> None:
    """A games JSON file, or a build's games or OpenAPI document, saved as UTF-16: the error
    names the encoding, where it was "Invalid JSON: expected value at line 1 column 1"."""
    sample = Path(__file__).resolve().parent.parent / "content"
    assert run_cli("build", sample, "--out", tmp_path / "dist").returncode == 0
    games = tmp_path / "dist/public/api/v1/games/index.json"
    shutil.copy(games, tmp_path / "old.json")
    file = {"file": tmp_path / "old.json", "games": games}.get(
        where, tmp_path / "dist/public/openapi.json"
    )
    file.write_bytes(file.read_text(encoding="utf-8").encode("utf-16"))
    other = tmp_path / "dist" if where == "file" else sample
    proc = run_cli("diff", tmp_path / ("old.json" if where == "file" else "dist"), other)
    assert proc.returncode == 2, proc.stderr
    assert "is saved as UTF-16 (little-endian), with a byte-order mark; save it as UTF-8" in (
        " ".join(proc.stderr.split())
    )


def test_diff_reads_games_json_with_a_bom(tmp_path: Path) -> None:
    proc = run_cli(
        "build", Path(__file__).resolve().parent.parent / "content", "--out", tmp_path / "dist"
    )
    assert proc.returncode == 0, proc.stderr
    games = (tmp_path / "dist/public/api/v1/games/index.json").read_bytes()
    (tmp_path / "old.json").write_bytes(games)
    (tmp_path / "new.json").write_bytes(BOM + games)
    proc = run_cli("diff", tmp_path / "old.json", tmp_path / "new.json")
    assert proc.returncode == 0, proc.stderr
    assert "no differences (13 games)" in proc.stderr


def test_a_builds_manifest_and_a_link_cache_are_read_with_a_bom(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parent.parent / "content"
    assert run_cli("build", sample, "--out", tmp_path / "dist").returncode == 0
    with_bom(tmp_path / "dist" / "manifest.json")
    proc = run_cli("diff", tmp_path / "dist", sample)
    assert proc.returncode == 0, proc.stderr
    assert "no differences (13 games)" in proc.stderr
    cache = tmp_path / "links.json"
    cache.write_bytes(BOM + b'{"catalogctl-link-cache": {}}')  # as a text editor saves it
    proc = run_cli("check-links", "--offline", tmp_path / "dist", "--cache", cache)
    assert proc.returncode == 0, proc.stderr


# --- the games folder as Windows users write it ------------------------------------------------


def _site_games(tmp_path: Path, games: str) -> Path:
    """The sample, its games moved to content/games, site.toml naming them `games`."""
    root = tmp_path / "site"
    shutil.copytree(SAMPLE, root)
    (root / "content").mkdir()
    (root / "games").rename(root / "content" / "games")
    text = (root / "site.toml").read_text("utf-8")
    (root / "site.toml").write_text(
        text.replace("[api.v1]", f"[content]\ngames = {json.dumps(games)}\n\n[api.v1]", 1),
        encoding="utf-8",
    )
    return root


@pytest.mark.parametrize("games", ["content\\games", ".\\content\\games\\"])
def test_validate_a_games_folder_with_backslashes_is_one_finding_everywhere(
    tmp_path: Path, games: str
) -> None:
    """`games = "content\\games"` works on Windows only: on every system one games-folder
    error saying to write `content/games` (not a folder that "does not exist" here)."""
    found = load(_site_games(tmp_path, games)).findings
    assert [(f.rule, f.severity) for f in found] == [("games-folder", "error")]
    assert "write 'content/games'" in found[0].message


def test_validate_a_games_folder_spelled_in_another_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`games = "content/Games"`: Linux finds no such folder and says which one there is; a
    file system that ignores case (Windows, macOS) finds it, and the same error says that
    Linux would not."""
    root = _site_games(tmp_path, "content/Games")
    (f,) = load(root).findings
    assert f.rule == "games-folder" and "('content/games' does: names differ in case)" in f.message
    isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: isdir(str(p).replace("Games", "games")))
    (f,) = load(root).findings
    assert f.rule == "games-folder"
    assert "is 'content/games' on disk, not 'content/Games'" in f.message


def test_init_writes_a_games_folder_typed_on_windows_with_slashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import PureWindowsPath

    from catalogctl.content.scaffold import run as init_run

    root = _site_games(tmp_path, "content/games")
    (root / "site.toml").unlink()
    monkeypatch.setattr(init_run, "PurePath", PureWindowsPath)  # `init --games content\games`
    init_run.init_site(root, games="content\\games")
    assert 'games = "content/games"' in (root / "site.toml").read_text("utf-8")
