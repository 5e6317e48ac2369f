"""`catalogctl build`: the documents, golden output, reproducibility and atomicity."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import brotli
import pytest
from openapi_spec_validator import validate as validate_openapi

from catalogctl.content.loader import load_catalog
from catalogctl.contract.model import ApiNotFound, ApiVersionIndex, Game, GameCatalog
from catalogctl.errors import CatalogError, InputError
from catalogctl.site import build as build_module
from catalogctl.site.build import write_site
from catalogctl.site.readback import read_build
from catalogctl.site.render import render
from tests.conftest import ContentFactory, game_yaml, needs_posix_signals, needs_symlinks
from tests.processes import run, run_cli

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = FIXTURES / "small"
GOLDEN = Path(__file__).parent / "golden" / "small"
UPDATE = os.environ.get("CATALOGCTL_UPDATE_GOLDEN") == "1"


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for rel, data in tree(root).items():
        h.update(rel.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


@pytest.fixture(scope="module")
def small_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("small") / "dist"
    proc = run_cli("build", SMALL, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_build_golden(small_build: Path) -> None:
    """The identity documents, the manifest and the nginx files match the reviewed copies."""
    built = {
        rel: data for rel, data in tree(small_build).items() if not rel.endswith((".gz", ".br"))
    }
    # Only a build made by root runs nginx's workers as root (tests/test_nginx.py checks it).
    built["nginx/nginx.conf"] = built["nginx/nginx.conf"].replace(b"\nuser root;\n", b"\n")
    if UPDATE:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, data in built.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(data)
    assert built == tree(GOLDEN)


def test_build_compressed_siblings_match(small_build: Path) -> None:
    public = small_build / "public"
    identity = [p for p in public.rglob("*") if p.is_file() and p.suffix not in (".gz", ".br")]
    assert len(identity) == 7
    for p in identity:
        assert gzip.decompress(p.with_name(p.name + ".gz").read_bytes()) == p.read_bytes()
        assert brotli.decompress(p.with_name(p.name + ".br").read_bytes()) == p.read_bytes()


def test_build_documents_follow_the_contract(small_build: Path) -> None:
    public = small_build / "public"
    index = ApiVersionIndex.model_validate_json((public / "api/v1/index.json").read_bytes())
    assert index.documentation == "https://games.example.com/api"
    assert index.endpoints.games == "https://games.example.com/api/v1/games"
    raw = json.loads((public / "api/v1/games/index.json").read_bytes())
    catalog = GameCatalog.model_validate(raw)
    # Weighted first, then by name; the draft is left out; the slug replaces the file name.
    assert [g.id for g in catalog.games] == ["zeta", "alpha", "aerger"]
    assert list(raw["games"][0]) == list(Game.model_fields)
    zeta, alpha, aerger = catalog.games
    assert zeta.stores[0].url == (
        "https://apps.apple.com/app/zeta/id1?l=fr&pt=123456&ct=service_api_game_catalog&mt=8#top"
    )
    assert alpha.icon == "https://games.example.com/icons/alpha.png"
    assert [s.name for s in aerger.stores] == ["App Store", "Google Play"]
    assert aerger.url == "https://games.example.com/games/aerger/"
    assert aerger.name == "Ärger im Café"


def test_build_openapi_is_valid(small_build: Path) -> None:
    doc = json.loads((small_build / "public/openapi.json").read_bytes())
    validate_openapi(doc)
    assert doc["openapi"].startswith("3.1")
    assert doc["servers"] == [{"url": "https://games.example.com"}]
    assert doc["security"] == []
    for path in ("/api/v1", "/api/v1/games"):
        ops = doc["paths"][path]
        assert set(ops) == {"get", "head"}
        get = ops["get"]["responses"]
        assert "application/problem+json" in get["404"]["content"]
        assert "text/html" in get["403"]["content"]
    game = doc["components"]["schemas"]["Game"]
    assert game["properties"]["id"]["description"].startswith("Stable game slug")
    assert game["properties"]["platforms"]["minItems"] == 1


def test_build_openapi_examples_are_the_documents_served(small_build: Path) -> None:
    """/openapi.json shows an example of each response with a body, as API tools show them
    and mock servers answer: the real documents of this catalog, each valid against its
    schema (and the OpenAPI document still valid)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    doc = json.loads((small_build / "public/openapi.json").read_bytes())
    validate_openapi(doc)
    public = small_build / "public"

    def example(path: str, method: str, status: str, media: str) -> object:
        content = doc["paths"][path][method]["responses"][status].get("content", {})
        if media not in content:
            return None
        (only,) = content[media]["examples"].values()
        return only["value"]

    served_games = json.loads((public / "api/v1/games/index.json").read_bytes())
    served_index = json.loads((public / "api/v1/index.json").read_bytes())
    served_404 = json.loads(read_build(small_build).not_found.body("/api/v2"))
    assert example("/api/v1/games", "get", "200", "application/json") == {
        "schemaVersion": 1,
        "games": served_games["games"][:1],
    }
    assert example("/api/v1", "get", "200", "application/json") == served_index
    for path in ("/api/v1", "/api/v1/games"):
        assert example(path, "get", "404", "application/problem+json") == served_404
        assert example(path, "head", "200", "application/json") is None  # no body
    # Each example is valid against its schema, $refs resolved in the document.
    registry = Registry().with_resource("urn:openapi", DRAFT202012.create_resource(doc))
    checked = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                for media, content in response.get("content", {}).items():
                    for name, ex in content.get("examples", {}).items():
                        schema = {"$ref": "urn:openapi" + content["schema"]["$ref"]}
                        validator = Draft202012Validator(schema, registry=registry)
                        errors = list(validator.iter_errors(ex["value"]))
                        assert not errors, (path, method, status, media, name, errors[0])
                        checked += 1
    assert checked == 4  # each GET: its 200 and its 404


def test_build_api_catalog_links_service_desc_and_doc(small_build: Path) -> None:
    manifest = json.loads((small_build / "manifest.json").read_bytes())
    route = manifest["routes"]["/.well-known/api-catalog"]
    assert route["content_type"] == (
        'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
    )
    linkset = json.loads((small_build / route["file"]).read_bytes())["linkset"]
    api = next(c for c in linkset if c["anchor"] == "https://games.example.com/api/v1")
    assert api["service-desc"][0]["href"] == "https://games.example.com/openapi.json"
    assert api["service-doc"][0]["href"] == "https://games.example.com/api"


def test_build_llms_txt(small_build: Path) -> None:
    text = (small_build / "public/llms.txt").read_text("utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Example Games"
    assert "> Mobile games by Example Games." in lines
    games = lines.index("## Games")
    assert lines[games + 2].startswith("- [Zeta](https://games.example.com/games/zeta/): ")
    assert "- [Ärger im Café](https://games.example.com/games/aerger/): " in text
    assert "(https://games.example.com/openapi.json)" in text


def test_build_llms_txt_shows_content_as_text_not_markdown(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    """A description holding Markdown or HTML (`[win](https://evil.example)`, `<img>`) is
    text in llms.txt: no link or tag of its own reaches the model that reads it."""
    desc = '"Tap [win a prize](https://evil.example) <img src=x> \\\\ now."'
    root = make_content({"a": game_yaml("A [b]", description=desc)})
    assert run_cli("build", root, "--out", tmp_path / "out").returncode == 0
    text = (tmp_path / "out/public/llms.txt").read_text("utf-8")
    line = next(x for x in text.splitlines() if x.startswith("- [A"))
    assert line == (
        "- [A \\[b\\]](https://games.example.com/games/a/): Tap \\[win a prize\\]"
        "(https://evil.example) \\<img src=x> \\\\ now. (iOS, Android)"
    )


def test_build_llms_txt_holds_no_control_character(
    make_content: ContentFactory, tmp_path: Path
) -> None:
    """A name, a description or a title holding ESC, BEL, NUL or U+202E, where the site lowers
    control-character to a warning, is published as it is in the JSON documents (which escape
    the C0 controls alone), and without them in llms.txt, a text file that a terminal would
    otherwise run as sequences; so are tag characters outside a flag, hidden text for the
    model that reads it."""
    name = '"Evil\\e]0;owned\\a\\e[2J\\u202e"'
    tags = "".join(f"\\U{0xE0000 + ord(c):08X}" for c in "gbeng")
    england = f"\\U0001F3F4{tags}\\U000E007F"  # the flag of England, as YAML escapes
    desc = f'"Line\\x00one\\x1b[31m red\\x07.\\U000E0041\\U000E0042 {england}"'
    root = make_content({"a": game_yaml(name, description=desc)})
    site = root / "site.toml"
    text = site.read_text().replace('title = "', 'title = "\\u001b[5m', 1)
    site.write_text(text + '\n[rules]\ncontrol-character = "warning"\n')
    assert run_cli("build", root, "--out", tmp_path / "out").returncode == 0
    public = tmp_path / "out/public"
    games = json.loads((public / "api/v1/games/index.json").read_text("utf-8"))["games"]
    assert games[0]["name"] == "Evil\x1b]0;owned\x07\x1b[2J\u202e"
    text = (public / "llms.txt").read_text("utf-8")
    assert not any(c in text for c in "\x00\x07\x1b\u202e\U000e0041\U000e0042"), repr(text)
    assert "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f" in text
    assert "- [Evil\\]0;owned\\[2J](https://games.example.com/games/a/): Lineone\\[31m red." in text
    assert text.startswith("# \\[5mExample Games\n")


def test_build_docs_page_is_self_contained(small_build: Path) -> None:
    html = (small_build / "public/api/index.html").read_text("utf-8")
    assert "<script src" not in html and "stylesheet" not in html and "@import" not in html
    for needle in (
        "/api/v1/games",
        "curl ",
        "application/problem+json",
        "schemaVersion",
        "Stable game slug",
        "deprecated",
        "Sunset",
        "migrate-v2",
    ):
        assert needle in html, needle


def test_build_lifecycle_headers_in_route_table(small_build: Path) -> None:
    routes = json.loads((small_build / "manifest.json").read_bytes())["routes"]
    headers = dict(routes["/api/v1/games"]["headers"])
    assert headers["Deprecation"] == "@1803859200"  # 2027-03-01T00:00:00Z
    assert headers["Sunset"] == "Tue, 01 Jun 2027 00:00:00 GMT"
    assert '<https://games.example.com/api/migrate-v2>; rel="deprecation"' in headers["Link"]
    assert "Deprecation" not in dict(routes["/llms.txt"]["headers"])


def test_build_supported_version_sends_no_lifecycle_headers(tmp_path: Path) -> None:
    site = render(load_catalog(Path(__file__).parent.parent / "content"), compress=False)
    for res in site.resources.values():
        names = {k for k, _ in res.headers}
        assert not names & {"Deprecation", "Sunset"}
        assert 'rel="deprecation"' not in dict(res.headers)["Link"]


def test_build_not_found_template_is_json_safe() -> None:
    site = render(load_catalog(SMALL), compress=False)
    hostile = '/api/a"b\\c\x01\u2028/../%2e%2e'
    body = json.loads(site.not_found.body(hostile))
    problem = ApiNotFound.model_validate(body)
    assert problem.instance == hostile
    assert list(body) == ["type", "title", "status", "detail", "instance", "error", "links"]


def test_build_is_reproducible(tmp_path: Path, generated) -> None:  # type: ignore[no-untyped-def]
    content = generated(200)
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli("build", content, "--out", a).returncode == 0
    assert run_cli("build", content, "--out", b, "--jobs", "1").returncode == 0
    assert digest(a) == digest(b)
    site = read_build(a)
    assert len(json.loads(site.resources["/api/v1/games"].identity.body)["games"]) == 200


def test_build_large_documents_use_faster_brotli(generated) -> None:  # type: ignore[no-untyped-def]
    """Brotli 11 for the usual documents; a games document over 1 MiB is compressed at 9."""
    site = render(load_catalog(generated(2500)))
    games = site.resources["/api/v1/games"]
    index = site.resources["/api/v1"]
    assert len(games.identity.body) > 1 << 20
    br = {v.encoding: v.body for v in games.encoded}["br"]
    assert brotli.decompress(br) == games.identity.body
    assert br == brotli.compress(games.identity.body, quality=9, mode=brotli.MODE_TEXT)
    small = {v.encoding: v.body for v in index.encoded}["br"]
    assert small == brotli.compress(index.identity.body, quality=11, mode=brotli.MODE_TEXT)


def test_build_same_bytes_in_any_directory(tmp_path: Path) -> None:
    """Like `diff -r`: two builds of the same content in different places are the same files."""
    near = tmp_path / "a"
    cwd = tmp_path / "somewhere" / "much deeper"
    cwd.mkdir(parents=True)
    assert run_cli("build", SMALL, "--out", near).returncode == 0
    # a relative --out, from another working directory
    proc = run_cli("build", SMALL, "--out", "catalog build", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    a, b = tree(near), tree(cwd / "catalog build")
    assert "nginx/catalog.conf" in a and "nginx/nginx.conf" in a
    assert sorted(a) == sorted(b)
    assert [rel for rel in a if a[rel] != b[rel]] == []
    assert not [rel for rel, data in a.items() if str(tmp_path).encode() in data]


def test_build_failed_build_leaves_previous_output(
    tmp_path: Path, make_content: ContentFactory
) -> None:
    out = tmp_path / "dist"
    good = make_content()
    assert run_cli("build", good, "--out", out).returncode == 0
    before = digest(out)
    bad = make_content({"broken": game_yaml("B", genres="[Nope]")})
    proc = run_cli("build", bad, "--out", out)
    assert proc.returncode == 1
    assert "broken.md" in proc.stdout
    assert digest(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]


def test_build_disk_error_leaves_previous_output(
    tmp_path: Path, make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dist"
    site = render(load_catalog(make_content()), compress=False)
    write_site(site, out)
    before = digest(out)
    calls = 0
    real_write = build_module._write

    def failing_write(root: Path, rel: str, data: bytes) -> None:
        nonlocal calls
        calls += 1
        if calls == 5:
            raise OSError(28, "No space left on device")
        real_write(root, rel, data)

    monkeypatch.setattr(build_module, "_write", failing_write)
    changed = render(load_catalog(make_content({"other": game_yaml("Other")})), compress=False)
    with pytest.raises(CatalogError, match="No space left"):
        write_site(changed, out)
    assert digest(out) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist")] == []


def test_build_replaces_previous_build(tmp_path: Path, make_content: ContentFactory) -> None:
    out = tmp_path / "dist"
    assert run_cli("build", make_content(), "--out", out).returncode == 0
    assert run_cli("build", make_content({"solo": game_yaml("Solo")}), "--out", out).returncode == 0
    games = json.loads((out / "public/api/v1/games/index.json").read_bytes())["games"]
    assert [g["id"] for g in games] == ["solo"]


def npm_installed(out: Path) -> None:
    """What `npm install` and `wrangler dev` leave in a Cloudflare build, and a CNAME."""
    (out / "node_modules" / "wrangler").mkdir(parents=True)
    (out / "node_modules" / "wrangler" / "package.json").write_text('{"version": "4.164.0"}')
    (out / "package-lock.json").write_text('{"lockfileVersion": 3}')
    (out / ".wrangler" / "state").mkdir(parents=True)
    (out / "CNAME").write_text("games.example.com\n")


KEPT = [".wrangler", "CNAME", "node_modules", "package-lock.json"]


def test_build_a_rebuild_keeps_what_is_not_the_builds_own(tmp_path: Path) -> None:
    """`npm install` in a Cloudflare build (as the Cloudflare page says) survives the next
    build; the build's own files are replaced, those another target wrote removed."""
    out = tmp_path / "dist"
    assert run_cli("build", SMALL, "--out", out, "--target", "cloudflare").returncode == 0
    npm_installed(out)
    (out / "wrangler.toml").write_text("edited by hand")  # the build's own: replaced
    proc = run_cli("build", SMALL, "--out", out, "--target", "cloudflare", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["kept"] == KEPT
    assert (out / "node_modules/wrangler/package.json").read_text() == '{"version": "4.164.0"}'
    assert (out / "package-lock.json").read_text() == '{"lockfileVersion": 3}'
    assert (out / ".wrangler" / "state").is_dir() and (out / "CNAME").is_file()
    assert (out / "wrangler.toml").read_text() != "edited by hand"
    proc = run_cli("build", SMALL, "--out", out)
    assert proc.returncode == 0
    assert f"kept from the previous build, not the build's own: {', '.join(KEPT)}" in proc.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([*KEPT, "errors", "manifest.json", "nginx", "public"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]


def test_build_owned_names_are_every_name_a_build_writes(tmp_path: Path) -> None:
    """Nothing a build of any target writes is kept as if it were the user's."""
    for target in ("static", "cloudflare"):
        out = tmp_path / target
        assert run_cli("build", SMALL, "--out", out, "--target", target).returncode == 0
        assert {p.name for p in out.iterdir()} <= build_module.OWNED


def test_build_kept_entries_survive_a_failed_swap(
    tmp_path: Path, make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dist"
    write_site(render(load_catalog(make_content()), compress=False), out)
    npm_installed(out)
    before = digest(out)

    def no_swap(staging: Path, out: Path, on_busy: object) -> Path:
        assert (staging / "node_modules").is_dir()  # moved in before the swap
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(build_module, "_replace", no_swap)
    with pytest.raises(CatalogError, match="left as it was"):
        write_site(render(load_catalog(make_content()), compress=False), out)
    assert digest(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]

    # When they cannot be moved back either, they are left where they are, and the error says.
    real_move = build_module._move

    def move(names: object, src: Path, dst: Path, on_busy: object = None) -> None:
        if dst == out:
            raise OSError(5, "Input/output error")
        real_move(names, src, dst, on_busy)  # type: ignore[arg-type]

    monkeypatch.setattr(build_module, "_move", move)
    with pytest.raises(CatalogError, match="could not be moved back") as caught:
        write_site(render(load_catalog(make_content()), compress=False), out)
    (staging,) = [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]
    assert str(staging) in str(caught.value)
    assert (staging / "node_modules/wrangler/package.json").is_file()


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_build_kept_entries_survive_an_interrupt_between_two_renames(
    tmp_path: Path,
    make_content: ContentFactory,
    monkeypatch: pytest.MonkeyPatch,
    interrupt: type[BaseException],
) -> None:
    """Ctrl+C (or SIGTERM, an exit) right after a kept entry was moved into the new build,
    before anything could record it: every kept entry goes back, none is removed with the
    staging directory."""
    out = tmp_path / "dist"
    write_site(render(load_catalog(make_content()), compress=False), out)
    npm_installed(out)
    before = digest(out)
    real_rename, renamed = Path.rename, []

    def rename(self: Path, target: Path) -> Path:
        moved = real_rename(self, target)
        renamed.append(self.name)
        if len(renamed) == 2:  # the second kept entry has just moved
            raise interrupt
        return moved

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(interrupt):
        write_site(render(load_catalog(make_content()), compress=False), out)
    monkeypatch.undo()
    assert renamed[:2] == KEPT[:2]
    assert digest(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]


@needs_posix_signals
def test_build_gives_back_what_a_killed_build_left_beside_out(tmp_path: Path) -> None:
    """A build killed outright (SIGKILL) mid-swap leaves kept entries in its staging
    directory: the next build moves them back into --out, or, where --out has the same name
    again, leaves the directory and names it."""
    out = tmp_path / "dist"
    assert run_cli("build", SMALL, "--out", out).returncode == 0
    # A process that was, as the killed build.
    gone = int(run([sys.executable, "-c", "import os; print(os.getpid())"]).stdout)

    def leftover(suffix: str, cname: str) -> Path:
        left = tmp_path / f".dist.catalogctl-staging-{gone}.{suffix}"
        (left / "public").mkdir(parents=True)  # the killed build's own: removed
        (left / ".git").mkdir()
        (left / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (left / "CNAME").write_text(cname)
        return left

    first = leftover("a1", "games.example.com\n")
    proc = run_cli("build", SMALL, "--out", out, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["kept"] == [".git", "CNAME"] and summary["stranded"] == []
    assert (out / "CNAME").read_text() == "games.example.com\n"
    assert (out / ".git" / "HEAD").is_file() and not first.exists()

    second = leftover("b2", "old.example.com\n")  # CNAME is in --out again
    proc = run_cli("build", SMALL, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert f"{second} was left by an interrupted build" in " ".join(proc.stderr.split())
    assert (second / "CNAME").read_text() == "old.example.com\n"
    assert (out / "CNAME").read_text() == "games.example.com\n"


@needs_posix_signals
def test_build_sigterm_goes_through_the_clean_up_and_exits_143(
    tmp_path: Path, make_content: ContentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM (a CI job cancelled) while the build swaps: --out as it was, kept entries
    back, no staging directory left, exit status 143; the handler is the default again."""
    out = tmp_path / "dist"
    write_site(render(load_catalog(make_content()), compress=False), out)
    npm_installed(out)
    before = digest(out)

    def terminated(staging: Path, out: Path, on_busy: object) -> Path:
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs before the next line
        raise AssertionError("SIGTERM did not stop the build")

    monkeypatch.setattr(build_module, "_replace", terminated)
    with pytest.raises(SystemExit) as stopped:
        write_site(render(load_catalog(make_content()), compress=False), out)
    assert stopped.value.code == 143
    assert digest(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist")]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_build_force_replaces_a_foreign_directory_whole(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("not a build")
    assert run_cli("build", SMALL, "--out", out, "--force").returncode == 0
    assert not (out / "notes.txt").exists()


def test_build_refuses_to_replace_foreign_directory(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("do not delete")
    proc = run_cli("build", SMALL, "--out", out)
    assert proc.returncode == 2
    assert "--force" in proc.stderr
    assert (out / "thesis.tex").read_text() == "do not delete"


@pytest.mark.parametrize(
    "out",
    ["site", ".", "site/games", "site/games/api", "link-to-site"],
    ids=["the-content-folder", "a-folder-holding-it", "the-games-folder", "inside-games", "link"],
)
def test_build_force_never_replaces_the_site_it_reads(tmp_path: Path, out: str) -> None:
    """`--out content --force` (or a folder holding it, or the games folder) would delete the
    pages the build was made from: refused before anything is written, --force or not."""
    site = tmp_path / "site"
    shutil.copytree(SMALL, site)
    if out == "link-to-site":
        (tmp_path / out).symlink_to(site, target_is_directory=True)
    before = tree(tmp_path)
    proc = run_cli("build", site, "--out", out, "--force", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "nothing was written" in proc.stderr and "Traceback" not in proc.stderr
    assert tree(tmp_path) == before
    assert not list(tmp_path.rglob(".*"))  # no staging folder left beside it either


def test_build_may_write_into_the_content_folder_beside_the_games(tmp_path: Path) -> None:
    """A Hugo site root holds its own `public/`: a build folder beside the games folder is
    not read as pages, so it is allowed."""
    site = tmp_path / "site"
    shutil.copytree(SMALL, site)
    assert run_cli("build", site, "--out", site / "dist", "--force").returncode == 0
    assert (site / "dist/public/api/v1/games/index.json").is_file()
    assert run_cli("validate", site).returncode == 0


@needs_symlinks
@pytest.mark.parametrize("rel", ["public/api/v1/index.json", "manifest.json"])
def test_a_build_file_that_links_out_of_the_build_is_not_read(tmp_path: Path, rel: str) -> None:
    """A file of a build replaced by a symlink to /etc/passwd (or any file outside it) was
    served as the document: serve, diff and check-links refuse the build instead. A symlink
    to another file of the build is read."""
    out = tmp_path / "dist"
    write_site(render(load_catalog(SMALL), compress=False), out)
    secret = tmp_path / "secret"
    secret.write_bytes((out / rel).read_bytes())  # valid as the file it replaces
    (out / rel).unlink()
    (out / rel).symlink_to(secret)
    with pytest.raises(InputError, match="symlink to a file outside the build"):
        read_build(out)
    (out / rel).unlink()
    (out / rel).parent.joinpath("copy.json").write_bytes(secret.read_bytes())
    (out / rel).symlink_to("copy.json")
    read_build(out)


def test_build_base_url_override(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert (
        run_cli("build", SMALL, "--out", out, "--base-url", "http://127.0.0.1:8000").returncode == 0
    )
    index = json.loads((out / "public/api/v1/index.json").read_bytes())
    assert index["endpoints"]["games"] == "http://127.0.0.1:8000/api/v1/games"
    proc = run_cli("build", SMALL, "--out", tmp_path / "x", "--base-url", "http://h/")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_build_read_build_round_trips(small_build: Path) -> None:
    site = read_build(small_build)
    fresh = render(load_catalog(SMALL))
    assert site.resources.keys() == fresh.resources.keys()
    for path, res in fresh.resources.items():
        assert site.resources[path].identity == res.identity
        assert site.resources[path].headers == res.headers
        assert [v.etag for v in site.resources[path].encoded] == [v.etag for v in res.encoded]
    assert site.not_found.body("/api/x") == fresh.not_found.body("/api/x")


def test_build_gzip_siblings_are_the_same_bytes_on_every_python() -> None:
    # The gzip header names no time and the operating system "unknown" (255), whichever
    # Python builds: gzip.compress writes 3 before Python 3.13 and 255 from it, which would
    # change the published ETags of the .gz siblings with the Python that built them.
    from catalogctl.site.render import gzip_member

    body = b'{"games": []}\n' * 100
    member = gzip_member(body)
    assert member[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    assert gzip.decompress(member) == body
