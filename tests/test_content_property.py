"""Property: whatever text a page's front matter or site.toml holds, loading it never raises,
never crashes the interpreter, and every problem is a finding naming its file.

Hypothesis writes text from the syntax of YAML, TOML and JSON; the mutation fuzzer
(tests/fuzz.py) changes the real pages and site.toml files of the sample and the fixtures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from catalogctl.content.loader import load
from tests import fuzz
from tests.conftest import SITE_TOML, game_yaml
from tests.processes import run_cli

# Text biased towards the syntax of YAML, TOML and JSON, with control and non-ASCII characters.
SYNTAX = [*"-:[]{}\"'#&*!|>%@`,.=+\t\n ", "---", "+++", "...", "<<", "\\u", "\\x"]
text = st.lists(
    st.one_of(
        st.sampled_from(SYNTAX),
        st.text(min_size=1, max_size=8),
        st.sampled_from(["name", "stores", "ios", "draft", "true", "1e9", "2024-02-30", "~"]),
    ),
    max_size=60,
).map("".join)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def tree(base: Path, page: str, site: str = SITE_TOML) -> Path:
    root = base / "content"
    (root / "games").mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_bytes(site.encode("utf-8", "surrogatepass"))
    (root / "games" / "ok.md").write_text(game_yaml("Ok"), encoding="utf-8")
    (root / "games" / "x.md").write_bytes(page.encode("utf-8", "surrogatepass"))
    return root


@SETTINGS
@given(body=text, opener=st.sampled_from(["---\n", "+++\n", "{", ""]))
def test_any_front_matter_is_findings_never_an_exception(
    tmp_path: Path, body: str, opener: str
) -> None:
    closer = {"---\n": "\n---\n", "+++\n": "\n+++\n", "{": "}\n", "": ""}[opener]
    content = load(tree(tmp_path, opener + body + closer))
    assert all(f.file.endswith(("x.md", "site.toml", "games")) for f in content.findings)
    assert all(f.rule for f in content.findings)


@SETTINGS
@given(site=text)
def test_any_site_toml_is_findings_never_an_exception(tmp_path: Path, site: str) -> None:
    content = load(tree(tmp_path, game_yaml("X"), site))
    assert all(f.rule for f in content.findings)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=text, site=text)
def test_the_command_never_tracebacks_or_dies_by_a_signal(
    tmp_path: Path, body: str, site: str
) -> None:
    root = tree(tmp_path, "---\n" + body + "\n---\n", site)
    proc = run_cli("validate", root)
    assert proc.returncode in (0, 1, 2), proc.returncode
    assert "Traceback" not in proc.stderr


@settings(max_examples=200, deadline=None)
@given(body=text)
def test_both_yaml_loaders_accept_the_same_pages(body: str) -> None:

    from catalogctl.content import yamldoc, yamlload
    from catalogctl.content.document import Problem

    if yamlload.C_LOADER is None:
        return  # nothing to compare the pure loader with
    results = []
    for chosen in (yamlload.PureLoader, yamlload.C_LOADER):
        original = yamldoc.loader_for
        yamldoc.loader_for = lambda _t, c=chosen: c  # type: ignore[assignment]
        try:
            results.append(("ok", yamldoc.read_yaml(body, "x.md", 2, (1, 1)).data))
        except Problem as p:
            results.append(("problem", p.rule))
        finally:
            yamldoc.loader_for = original  # type: ignore[assignment]
    assert results[0] == results[1], (body, results)


# Plain scalars that resolve to every tag of YAML 1.1's safe schema, and near misses.
SCALARS = [
    *["yes", "No", "ON", "off", "true", "False", "y", "n", "~", "null", "Null", ""],
    *["0", "-12", "+3", "0x1F", "0o17", "017", "0b101", "1_000", "1:30", "190:20:30"],
    *["1.5", "-.5", "1e3", "6.8523015e+5", ".inf", "-.Inf", ".NaN", ".", "-"],
    *["2024-01-01", "2024-1-1 10:00:00", "2001-12-14t21:59:43.10-05:00", "<<", "="],
    *["iOS", "https://x.test/a?b=1", "name", "x y", "Über", "夢", "@", "`"],
]
scalar = st.one_of(st.sampled_from(SCALARS), st.text(max_size=12))
yaml_value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(scalar, inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=yaml_value, flow=st.booleans(), quote=st.booleans())
@example(value=["!", "yes"], flow=True, quote=False)  # `[!, yes]`: `!` is libyaml's `!` tag
def test_yaml_tags_are_the_ones_pyyaml_resolves(value: object, flow: bool, quote: bool) -> None:
    import yaml

    from catalogctl.content import yamlload

    text = yaml.safe_dump(
        {"k": value}, default_flow_style=flow, default_style='"' if quote else None
    )
    plain = text.replace("'", "").replace('"', "") if not quote else text

    def tags(source: str, loader: type) -> list[str] | None:
        try:
            root = yaml.compose(source, Loader=loader)
        except yaml.YAMLError:
            return None
        out, todo = [], [root]
        while todo:
            node = todo.pop()
            out.append(node.tag)
            if isinstance(node, yaml.MappingNode):
                todo.extend(n for pair in node.value for n in pair)
            elif isinstance(node, yaml.SequenceNode):
                todo.extend(node.value)
        return out

    # libyaml is the reference (Jekyll and Hugo read YAML as it does); PyYAML's own pure
    # loader refuses some texts libyaml reads (`[https://x.test/a?b=1]`).
    reference = yaml.CSafeLoader if yamlload.C_LOADER is not None else yaml.SafeLoader
    for source in (text, plain):
        expected = tags(source, reference)
        assert tags(source, yamlload.PureLoader) == expected
        if yamlload.C_LOADER is not None:
            assert tags(source, yamlload.C_LOADER) == expected


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(scalar, yaml_value, min_size=1, max_size=6), flow=st.booleans())
def test_yaml_positions_found_from_nodes_are_the_full_scans(value: dict, flow: bool) -> None:
    import yaml

    from catalogctl.content import yamldoc, yamlload
    from catalogctl.content.document import Problem

    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True)
    try:
        doc = yamldoc.read_yaml(text, "x.md", 2, (1, 1))
    except Problem:
        return
    if doc._find is None:  # aliases, merges or a repeated key: the full scan locates them
        return
    # The whole located build, as read_yaml runs it for documents it cannot walk.
    loader_cls = yamldoc.loader_for(text)
    loader = loader_cls(text)
    located = yamldoc._Builder(
        loader, 2, loader_cls is yamlload.PureLoader, shared=False, locate=True
    )
    located.build(loader.get_single_node(), ())
    scanned = located.pos
    for path, where in scanned.values.items():
        if path:
            assert doc._find(path, False) == where, (text, path)
    for path, where in scanned.keys.items():
        assert doc._find(path, True) == where, (text, path)
    assert scanned.keys, text


def _toml_texts() -> list[str]:
    """Every TOML front matter and site.toml of the sample and the fixture sites."""
    root = Path(__file__).resolve().parent.parent
    texts = []
    for path in sorted([*root.glob("content/**/*.*"), *root.glob("tests/fixtures/**/*.*")]):
        if path.suffix not in (".md", ".toml"):
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".toml":
            texts.append(raw)
        elif raw.startswith("+++\n") and "\n+++" in raw[3:]:
            texts.append(raw[4 : raw.index("\n+++", 3) + 1])
    return texts


TOML_EXTRA = [
    'a = 1\n[t]\nb = [1, [2, 3], {c = "d"}]\n[[aot]]\nx = 1\n[[aot]]\nx = 2\n',
    '"quoted key" = 1\nd.o.t = "x" # comment\n\n# c\n[a.b]\n\'lit\' = """m\nl"""\n',
    # Statements a single match may or may not take: each must land where the token scan does.
    "a=\"x\\\"y\" #c\r\nb = '''m\nl'''\nc = 1979-05-27 07:32:00Z\nd = -1_000.5e+3 # x\n",
    'e = ["a, b", \'c]\', 1, true ,]\nf = [ ]\ng = [[1], 2]\nh = [\n  "x",\n]\ni = "" \nj = \'\'\n',
    'k = """\none"""\nl = "\\u00e9\\\\" # "q"\nm = [1979-05-27, "#", \'#\'] # c\n[t]\nn = inf\n',
]


@pytest.mark.parametrize("text", [*_toml_texts(), *TOML_EXTRA])
def test_toml_positions_found_on_demand_are_the_full_scans(text: str) -> None:
    from catalogctl.content.tomldoc import read_toml, scan_toml

    scanned = scan_toml(text, 2)
    assert scanned.keys
    values = list(scanned.values.items())
    # In text order (each lookup scans on from where the previous one stopped), and reversed.
    for order in (values, values[::-1]):
        doc = read_toml(text, "x.md", 2, (1, 1))
        assert doc._find is not None
        for path, where in order:
            assert doc._find(path, False) == where, path
        for path, where in scanned.keys.items():
            assert doc._find(path, True) == where, path
        assert doc._find(("no", "such", "key"), False) is None


_front_key = st.sampled_from(["name", "title", "description", "summary", "icon", "params", "x"])


@settings(max_examples=300, deadline=None)
@given(
    mapped=st.dictionaries(
        st.sampled_from(["name", "description", "icon", "weight", "slug"]),
        st.sampled_from(["title", "summary", "name", "description", "params.icon", "params"]),
        max_size=4,
    ),
    data=st.dictionaries(
        _front_key,
        st.one_of(st.integers(), st.dictionaries(_front_key, st.integers(), max_size=3)),
        max_size=6,
    ),
)
def test_reading_a_page_in_one_pass_reads_what_the_field_map_says(
    mapped: dict[str, str], data: dict[str, object]
) -> None:
    # A map of top-level keys reads a page in one pass over its keys: the same catalog keys
    # as reading each mapped path (renames, two keys from one, dotted paths).
    from catalogctl.content.fields import FieldMap, extract

    fmap = FieldMap.from_settings(mapped)
    assert extract(data, fmap) == extract(data, fmap._replace(top=None))


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", fullmatch=True),
        st.dates().map(str),
        st.sampled_from(["2024-02-30", "2023-02-29", "0000-01-01", "2024-13-01", "2024-00-10"]),
    ),
    explicit=st.booleans(),
)
def test_yaml_dates_are_what_pyyaml_makes_of_them(text: str, explicit: bool) -> None:
    # A date or an error for the same texts, with the same value or message, on either loader.
    import yaml

    from catalogctl.content import syntax_messages, yamldoc, yamlload
    from catalogctl.content.document import Problem

    source = f"d: {'!!timestamp ' if explicit else ''}{text}\n"
    try:
        expected: object = yaml.load(source, Loader=yaml.SafeLoader)["d"]
    except ValueError as exc:
        expected = syntax_messages.yaml_value(text, "tag:yaml.org,2002:timestamp", str(exc))
    for loader in (yamlload.PureLoader, yamlload.C_LOADER or yamlload.PureLoader):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(yamldoc, "loader_for", lambda _text, chosen=loader: chosen)
            try:
                got: object = yamldoc.read_yaml(source, "x.md", 2, (1, 1)).data["d"]
            except Problem as p:
                got = p.message
        assert got == expected, loader


# --- the mutation fuzzer (tests/fuzz.py) ------------------------------------------------------

FUZZ_SEED = 20261128
FUZZ_INPUTS = 3000  # in-process: each page on both YAML loaders and two sites' settings
FUZZ_TREES = 8  # through the real command: 40 fuzzed pages each, half with a fuzzed site.toml
FUZZ_PAGES = 40


@pytest.fixture(scope="module")
def fuzz_corpus() -> fuzz.Corpus:
    return fuzz.corpus()


def test_fuzzed_pages_and_site_toml_are_findings_never_a_traceback(
    tmp_path: Path, fuzz_corpus: fuzz.Corpus
) -> None:
    """Thousands of mutated pages (read as `validate` reads them, on both YAML loaders, under
    two sites' settings) and site.toml files (with the sample's pages): every problem is a
    finding naming its file and a known rule, never an exception."""
    assert len(fuzz_corpus.pages) >= 50 and len(fuzz_corpus.sites) >= 5
    bench = fuzz.Bench(tmp_path)
    failures = []
    for item in fuzz.inputs(FUZZ_SEED, FUZZ_INPUTS, fuzz_corpus):
        problem = fuzz.check(bench, item)
        if problem is not None:
            failures.append(
                f"input {item.index} ({item.kind}: {', '.join(item.steps)}; "
                f"`python -m tests.fuzz --seed {FUZZ_SEED} --only {item.index}` saves it): "
                f"{item.data[:300]!r}\n{problem}"
            )
    assert not failures, f"{len(failures)} inputs failed:\n" + "\n\n".join(failures[:3])


def test_fuzzed_trees_through_the_real_command(tmp_path: Path, fuzz_corpus: fuzz.Corpus) -> None:
    """`validate --format json` on trees of mutated pages and site.toml files: exit 0, 1 or 2,
    no traceback, a JSON report that parses, and every finding naming a file of the tree."""
    import json

    pages = [
        i.data for i in fuzz.inputs(FUZZ_SEED + 1, FUZZ_TREES * FUZZ_PAGES, fuzz_corpus, sites=0)
    ]
    sites = [i.data for i in fuzz.inputs(FUZZ_SEED + 2, FUZZ_TREES, fuzz_corpus, sites=1)]
    for n in range(FUZZ_TREES):
        root = fuzz.tree(
            tmp_path / f"tree-{n}",
            sites[n] if n % 2 else None,
            pages[n * FUZZ_PAGES : (n + 1) * FUZZ_PAGES],
        )
        proc = run_cli("validate", root, "--format", "json")
        assert proc.returncode in (0, 1, 2), (root, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        if proc.returncode == 2:
            assert proc.stderr.startswith("error: "), proc.stderr[-2000:]
            continue
        report = json.loads(proc.stdout)
        files = [f["file"] for f in report["findings"]]
        assert all(f.startswith(str(root)) for f in files), (root, files[:5])
