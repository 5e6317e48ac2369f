"""The loader and the model: order, ids, store URLs, locating fields, start-up imports."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pydantic_core import ValidationError

from catalogctl.content import loader as content_module
from catalogctl.content.frontmatter import parse_page
from catalogctl.content.loader import load, load_catalog, with_params
from catalogctl.content.settings import SCHEMA_FILE, generate, validator
from catalogctl.contract.model import Game, GameCatalog
from tests.conftest import ContentFactory, game_yaml, generate_catalog, start_methods
from tests.processes import run


def test_content_catalog_order_is_hugo_weight_order(make_content: ContentFactory) -> None:
    root = make_content(
        {
            "c": game_yaml("Beta"),
            "a": game_yaml("Alpha"),
            "w2": game_yaml("Zed", extra="weight: 2\n"),
            "w1": game_yaml("Yak", extra="weight: 1\n"),
            "b": game_yaml("Beta"),  # same name as c: ties broken by id
        }
    )
    assert [g["id"] for g in load_catalog(root).games] == ["w1", "w2", "a", "b", "c"]


def test_content_drafts_are_left_out(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml("A"), "d": game_yaml("D", extra="draft: true\n")})
    assert [g["id"] for g in load_catalog(root).games] == ["a"]


def test_content_slug_override_sets_id_and_url(make_content: ContentFactory) -> None:
    root = make_content({"working-title": game_yaml("A", extra="slug: final-name\n")})
    (game,) = load_catalog(root).games
    assert game["id"] == "final-name"
    assert game["url"] == "https://games.example.com/games/final-name/"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://s/app?id=x", "https://s/app?id=x&a=1&b=2"),
        ("https://s/app", "https://s/app?a=1&b=2"),
        ("https://s/app?a=old&id=x#frag", "https://s/app?id=x&a=1&b=2#frag"),
        ("https://s/app?", "https://s/app?a=1&b=2"),
    ],
)
def test_content_attribution_params_keep_the_url_own(url: str, expected: str) -> None:
    assert with_params(url, {"a": "1", "b": "2"}) == expected


@pytest.mark.parametrize(
    "text",
    [
        b"---\nname: x\nstores:\n  ios: a\n  android:   b\n---\n",
        b'+++\nname = "x"\n[stores]\nios = "a"\nandroid =   "b"\n+++\n',
        b'{\n"name": "x",\n"stores": {"ios": "a",\n  "android":   "b"}}\n',
        b"---\nname: x\nstores: {ios: a,\n  android:   b}\n---\n",
        b'+++\nname = "x"\nstores = {ios = "a", android =   "b"}\n+++\n',
    ],
    ids=["yaml", "toml", "json", "yaml-flow", "toml-inline"],
)
def test_content_positions_are_the_values_line_and_column(text: bytes) -> None:
    doc = parse_page(text, "x.md", complete=True)
    line, column = doc.value_pos(("stores", "android"))
    lines = text.decode().splitlines()
    assert lines[line - 1][column - 1 :].lstrip('"').startswith("b"), (line, column)
    assert doc.value_pos(("missing",)) == (1, 1)


def test_content_toml_and_yaml_give_the_same_game(make_content: ContentFactory) -> None:
    toml = (
        '+++\nname = "A"\ndescription = "A game."\nplatforms = ["iOS", "Android"]\n'
        'genres = ["Puzzle"]\nicon = "/icons/game.png"\n\n[stores]\n'
        'ios = "https://apps.apple.com/app/game/id1"\n'
        'android = "https://play.google.com/store/apps/details?id=com.example.game"\n+++\n'
    )
    a = load_catalog(make_content({"g": game_yaml("A")})).games
    b = load_catalog(make_content({"g": toml})).games
    assert a == b


def test_content_unknown_front_matter_keys_are_ignored(make_content: ContentFactory) -> None:
    root = make_content({"a": game_yaml("A", extra="tags: [new]\nlayout: game\n")})
    content = load(root)
    assert content.findings == []


def test_content_published_games_follow_the_contract_model(sample: Path) -> None:
    catalog = load_catalog(sample)
    parsed = GameCatalog.model_validate({"schemaVersion": 1, "games": catalog.games})
    assert len(parsed.games) == len(catalog.games)
    assert all(list(g) == list(Game.model_fields) for g in catalog.games)


def test_content_source_model_is_strict() -> None:
    with pytest.raises(ValidationError) as info:
        validator("game").validate_python(
            {
                "name": 1,
                "description": "d",
                "platforms": "iOS",
                "genres": ["x"],
                "icon": "/i",
                "stores": {"ios": "https://a"},
            }
        )
    assert {e["loc"][0] for e in info.value.errors()} == {"name", "platforms"}


@pytest.fixture(scope="module")
def at_threshold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated tree of exactly PARALLEL_THRESHOLD pages, one in 40 of them with problems
    (a finding or several, a page that does not parse, a duplicate id)."""
    root = generate_catalog(
        tmp_path_factory.mktemp("threshold") / "content", content_module.PARALLEL_THRESHOLD
    )
    broken = [
        "---\nname: [\n---\n",
        game_yaml("Bad", platforms="[ios, Androd]", extra="nmae: x\n"),
        "+++\nname = 1\n+++\n",
        game_yaml("Twin", extra="slug: game-00003\n"),
    ]
    for i in range(0, content_module.PARALLEL_THRESHOLD, 40):
        (root / "games" / f"game-{i:05d}.md").write_text(broken[i // 40 % 4], encoding="utf-8")
    return root


def _loaded(root: Path) -> tuple[object, ...]:
    content = load(root)
    return (content.findings, content.summary, content.published())


@pytest.mark.parametrize("method", start_methods())
def test_content_parallel_parse_gives_the_serial_findings_in_order(
    at_threshold: Path, monkeypatch: pytest.MonkeyPatch, method: str, pool_calls: list[str]
) -> None:
    """At the threshold, the pages are parsed by the pool, on each start method; one page
    below it, in this process: the same findings, in the same order, either way."""
    from catalogctl.content import pool

    monkeypatch.setattr(pool, "start_method", lambda: None)
    serial = _loaded(at_threshold)
    assert len(serial[0]) > 100  # type: ignore[arg-type]
    assert pool_calls == []
    monkeypatch.setattr(pool, "start_method", lambda: method)
    assert _loaded(at_threshold) == serial
    assert pool_calls == [method]
    monkeypatch.setattr(content_module, "PARALLEL_THRESHOLD", len(serial[2]) + 100)
    assert _loaded(at_threshold) == serial
    assert pool_calls == [method]  # below the threshold: no pool


def test_content_start_method_is_fork_only_where_it_is_safe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """fork on Linux in a process of one thread; serially (None) where another thread runs,
    started by Python's threading or outside it (as a C library starts its own), and on a
    system without fork or where it is unsafe (macOS)."""
    from catalogctl.content import pool

    # A fresh interpreter: this test's process may run threads earlier tests left.
    code = (
        "import _thread, threading\n"
        "from catalogctl.content import pool\n"
        "print(pool.start_method())\n"
        "stop = threading.Event()\n"
        "other = threading.Thread(target=stop.wait, args=(30,)); other.start()\n"
        "print(pool.start_method()); stop.set(); other.join(30)\n"
        "lock = _thread.allocate_lock(); lock.acquire(); held = _thread.allocate_lock()\n"
        "held.acquire()\n"
        "_thread.start_new_thread(lambda: (held.release(), lock.acquire()), ())\n"
        "held.acquire(timeout=30)\n"
        "print(threading.active_count(), pool.start_method()); lock.release()\n"
    )
    proc = run([sys.executable, "-c", code], check=True)
    assert proc.stdout.split("\n")[:3] == ["fork", "None", "1 None"]
    monkeypatch.setattr(pool.sys, "platform", "darwin")
    assert pool.start_method() is None
    monkeypatch.setattr(pool.sys, "platform", "linux")
    monkeypatch.delattr(pool.os, "fork")
    assert pool.start_method() is None


def test_content_validate_does_not_import_the_server_stack(sample: Path) -> None:
    code = (
        "import sys; from catalogctl.cli.app import main; sys.argv = ['catalogctl', 'validate', "
        f"{str(sample)!r}]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'aiohttp', 'brotli', 'uvloop', 'multiprocessing'} or m.startswith('catalogctl.cli.')))"
    )
    # Unmeasured: a coverage run's start-up hook imports modules of its own (multiprocessing).
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    proc = run([sys.executable, "-c", code], check=True, env=env)
    # Only validate's own command module (and the shared options) are imported.
    assert proc.stdout.strip().splitlines()[-1] == str(
        ["catalogctl.cli.app", "catalogctl.cli.common", "catalogctl.cli.validate"]
    )


def test_content_generated_source_schema_is_up_to_date() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == generate(), (
        "catalogctl/content/_schemas.py is stale: run `python -m catalogctl.content.settings`"
    )


def test_content_settings_compare_print_and_copy_as_dataclasses_do() -> None:
    data = {
        "base_url": "https://example.com",
        "title": "T",
        "description": "D",
        "stores": {"ios": {"name": "App Store"}},
    }
    site = validator("site").validate_python(data)
    # Defaults, including the nested tables made by their classes' default factories.
    assert (site.content.games, site.api.v1.status, site.stores["ios"].params) == (
        "games",
        "supported",
        {},
    )
    assert site == validator("site").validate_python(data)
    assert site != validator("site").validate_python({**data, "title": "U"})
    moved = site.replace(base_url="https://other.example")
    assert moved.base_url == "https://other.example" and moved.title == "T"
    assert site.base_url == "https://example.com"
    assert repr(site.stores["ios"]) == (
        "StoreSettings(name='App Store', kind=None, params={}, hosts=None)"
    )
    assert repr(site).startswith("SiteSettings(base_url='https://example.com', title='T', ")
    with pytest.raises(TypeError, match="hash"):
        hash(site)
    with pytest.raises(TypeError, match="titel"):
        site.replace(titel="x")
    with pytest.raises(TypeError, match="name"):
        type(site.stores["ios"])()


def test_content_validate_compiles_no_source_at_start_up(sample: Path) -> None:
    """String annotations are compiled each time a NamedTuple is made or typer reads a command's
    signature (about 50,000 instructions each): the modules `validate` runs evaluate theirs."""
    code = (
        "import builtins, os, sys, sysconfig\n"
        "import catalogctl\n"
        "package = os.path.dirname(catalogctl.__file__) + os.sep\n"
        "stdlib = sysconfig.get_paths()['stdlib']\n"
        "compile_, seen = builtins.compile, []\n"
        "def spy(*args, **kwargs):\n"
        "    frame = sys._getframe(1)\n"
        "    if frame.f_code.co_filename.startswith('<frozen importlib'):\n"
        "        return compile_(*args, **kwargs)  # a module without bytecode yet\n"
        "    while frame and frame.f_code.co_filename.startswith((stdlib, '<')):\n"
        "        frame = frame.f_back\n"
        "    where = frame.f_code.co_filename if frame else '?'\n"
        "    if where.startswith(package) or where.endswith('typer/utils.py'):\n"
        "        seen.append(f'{where}:{frame.f_lineno}')\n"
        "    return compile_(*args, **kwargs)\n"
        "builtins.compile = spy\n"
        "from catalogctl.cli.entry import main\n"
        f"sys.argv = ['catalogctl', 'validate', {str(sample)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(seen)\n"
    )
    proc = run([sys.executable, "-c", code], check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_content_yaml_merge_keys_fill_in_and_explicit_keys_win() -> None:
    text = (
        b"---\n"
        b"defaults: &d\n  platforms: [iOS]\n  genres: [Puzzle]\n  name: Default\n"
        b"more: &m\n  weight: 3\n  name: Other\n"
        b"name: A\n"
        b"<<: [*d, *m]\n"
        b"---\n"
    )
    data = parse_page(text, "a.md", complete=True).data
    assert data["name"] == "A"  # an explicit key wins over every merge
    assert (data["platforms"], data["genres"], data["weight"]) == (["iOS"], ["Puzzle"], 3)


def test_content_yaml_merge_of_a_scalar_is_a_syntax_finding(make_content: ContentFactory) -> None:
    from catalogctl.content.document import Problem

    with pytest.raises(Problem) as info:
        parse_page(b"---\nx: &x 1\nname: A\n<<: *x\n---\n", "a.md", complete=True)
    assert info.value.rule == "syntax"
    assert "'<<' merges a mapping" in info.value.message


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_content_json_front_matter_refuses_non_json_numbers(constant: str) -> None:
    from catalogctl.content.document import Problem

    with pytest.raises(Problem) as info:
        parse_page(f'{{"name": "A", "weight": {constant}}}\n'.encode(), "a.md", complete=True)
    assert info.value.rule == "syntax"
    assert constant.lstrip("-") in info.value.message
