"""A deterministic mutation fuzzer of game pages and site.toml (no pytest here).

Inputs are the pages and site.toml files of the sample (`content/`) and of the fixtures
(`tests/fixtures/`), each changed by one to three mutations drawn from a seeded generator:
bits flipped, the text cut short, YAML tags and values their constructors refuse, deep
nesting, huge numbers, byte-order marks, CRLF and lone CR, NULs and control characters,
invalid UTF-8, lines repeated (keys given twice), one front-matter kind's fences swapped for
another's, extreme dates, alias bombs, merge keys, complex keys, !!set, !!omap, !!pairs and
!!binary values, keys that are not text (`~`, a date, a number), zero-width and
bidirectional characters in keys and values, very long lines, thousands of keys (near
misses of catalog keys among them), JSON keys given twice, and slices of other files
spliced in. The same seed
gives the same inputs, in the same order, on every machine.

`check_page` runs one input through the validate core as `validate` does (the file read, the
front matter parsed, every rule of a page), on both YAML loaders; `check_site` runs a
site.toml through the whole load of a small tree. Each returns what went wrong (an exception
other than a finding, a finding that names no file or no known rule), or None.

tests/test_content_property.py runs a few thousand inputs in CI, and a few hundred through
the real command. A longer run, by hand, prints each input that fails and saves it:

    python -m tests.fuzz --inputs 100000 [--seed 1] [--sites 0.15] [--slow 10] [--out fuzz-failures]

An input that takes longer than `--slow` seconds (both loaders, both sites) fails too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE_SUFFIXES = (".md", ".markdown", ".mdx")

# --- the corpus ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    pages: tuple[bytes, ...]
    sites: tuple[bytes, ...]


def corpus() -> Corpus:
    """Every page and site.toml of the sample and the fixtures, in a fixed order."""
    pages: list[bytes] = []
    sites: list[bytes] = []
    for top in (ROOT / "content", ROOT / "tests" / "fixtures"):
        for path in sorted(top.rglob("*")):
            if not path.is_file():
                continue
            if path.name == "site.toml":
                sites.append(path.read_bytes())
            elif path.suffix in PAGE_SUFFIXES:
                pages.append(path.read_bytes())
    return Corpus(tuple(pages), tuple(sites))


# --- mutations -------------------------------------------------------------------------------

TAGS = [
    b"!!timestamp ",
    b"!!int ",
    b"!!float ",
    b"!!bool ",
    b"!!null ",
    b"!!binary ",
    b"!!str ",
    b"!!seq ",
    b"!!map ",
    b"!!set ",
    b"!!omap ",
    b"!!pairs ",
    b"!!merge ",
    b"!!value ",
    b"!!yaml ",
    b"!!python/object:os.system ",
    b"!!python/name:os.system ",
    b"!!python/object/apply:os.system ",
    b"!!python/tuple ",
    b"!custom ",
    b"! ",
    b"!<tag:yaml.org,2002:int> ",
    b"!<tag:example.com,2024:x> ",
]
VALUES = [
    b'""',
    b"''",
    b'"-"',
    b'"_"',
    b'"+"',
    b"maybe",
    b"garbage",
    b"0x",
    b"0b_",
    b"0o",
    b"1:",
    b"1:2:3:4:5:6:7:8:9",
    b"@@@",
    b"aGVsbG8=",
    b"9999-12-31T23:59:59-14:00",
    b"0001-01-01T00:00:00+14:00",
    b'"9999-12-31T23:59:59-14:00"',
    b"2024-02-30",
    b"2024-13-01 25:61:61",
    b"0000-00-00",
    b".nan",
    b"-.inf",
    b"~",
    b"null",
    b"yes",
    b"1e999",
    b"-0",
    b"[]",
    b"{}",
    b"[[[]]]",
    b"*nothing",
    b"&a",
    b"<<",
    b"|",
    b">-",
    b'"\\ud800"',
    b'"\\x00"',
    b"true",
    b"inf",
    b"nan",
    b"1979-05-27T07:32:00Z",
    b"1979-05-27",
    b"07:32:00",
]
BAD_BYTES = [
    b"\xff",
    b"\xfe",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\x80",
]
CONTROLS = [b"\x00", b"\x1b[31m", b"\x07", b"\x08", b"\x7f", b"\xe2\x80\xa8", b"\xc2\x85", b"\t"]
BOMS = [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf"]
FENCES = [b"---", b"+++", b"...", b"{", b"}", b""]
NUMBERS = [
    b"9" * 99,
    b"9" * 100,
    b"9" * 101,
    b"9" * 5000,
    b"-" + b"1" * 150,
    b"0x" + b"f" * 200,
    b"1" + b"0" * 400 + b"e5",
    b"1e" + b"9" * 20,
    b"1_000_" * 40,
    b"0." + b"0" * 500 + b"1",
]


def _offset(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def _value_spots(data: bytes) -> list[int]:
    """Where a value starts: after `: ` or `= `."""
    spots = []
    for sep in (b": ", b"= "):
        start = data.find(sep)
        while start >= 0 and len(spots) < 500:
            spots.append(start + len(sep))
            start = data.find(sep, start + 1)
    return spots


def _at_value(data: bytes, rng: random.Random) -> int:
    spots = _value_spots(data)
    return rng.choice(spots) if spots else _offset(data, rng)


def flip(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    return data[: _offset(data, rng)]


def delete(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    i = _offset(data, rng)
    return data[:i] + data[i + rng.randint(1, 64) :]


def tag(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    i = _at_value(data, rng)
    return data[:i] + rng.choice(TAGS) + data[i:]


def value(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """A value replaced (to its line's end) by one a parser or a rule may refuse, tagged or not."""
    i = _at_value(data, rng)
    end = data.find(b"\n", i)
    end = len(data) if end < 0 else end
    new = rng.choice(VALUES)
    if rng.random() < 0.5:
        new = rng.choice(TAGS) + new
    return data[:i] + new + data[end:]


def nest(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    depth = rng.choice([10, 63, 64, 65, 200, 5000])
    shape = rng.choice(
        [
            b"[" * depth + b"]" * depth,
            b"{a: " * depth + b"x" + b"}" * depth,
            b"\n" + b"".join(b" " * i + b"k:\n" for i in range(0, min(depth, 300) * 2, 2)),
            b"\n" + b"- " * depth + b"x\n",
            b'{"a":' * depth + b"1" + b"}" * depth,
            b"{a = " * depth + b"1" + b"}" * depth,
            b"[{a = [" * (depth // 2) + b"1" + b"]}]" * (depth // 2),
            b".".join([b"a"] * depth) + b" = 1\n",
        ]
    )
    i = _at_value(data, rng)
    return data[:i] + shape + data[i:]


def number(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    i = _at_value(data, rng)
    return data[:i] + rng.choice(NUMBERS) + data[i:]


def bom(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    mark = rng.choice(BOMS)
    if rng.random() < 0.7:
        return mark + data
    i = _offset(data, rng)
    return data[:i] + mark + data[i:]


def crlf(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        return data.replace(b"\n", b"\r\n")
    if choice == 1:
        return data.replace(b"\n", b"\r")
    i = data.find(b"\n", _offset(data, rng))
    return data if i < 0 else data[:i] + b"\r" + data[i:]


def bad_bytes(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    i = _offset(data, rng)
    return data[:i] + rng.choice(BAD_BYTES + CONTROLS) + data[i:]


def duplicate_line(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    copies = rng.choice([1, 1, 1, 2, 1000])
    return b"\n".join(lines[: i + 1] + [lines[i]] * copies + lines[i + 1 :])


def switch_kind(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """One front-matter kind's fences swapped for another's (YAML, TOML, JSON or none)."""
    lines = data.split(b"\n")
    fences = [i for i, line in enumerate(lines) if line.strip() in (b"---", b"+++", b"...")]
    if not fences:
        return rng.choice(FENCES) + b"\n" + data
    new = rng.choice(FENCES)
    for i in fences[:2] if rng.random() < 0.8 else fences[:1]:
        lines[i] = new
    return b"\n".join(lines)


def splice(data: bytes, rng: random.Random, c: Corpus) -> bytes:
    other = rng.choice(c.pages + c.sites)
    start = _offset(other, rng)
    piece = other[start : start + rng.randint(1, 400)]
    i = _offset(data, rng)
    return data[:i] + piece + data[i:]


def aliases(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
        b"%c: &%c [%s]\n" % (c, c, b", ".join([b"*" + bytes([p])] * 10))
        for p, c in zip(b"abcdefgh", b"bcdefghi", strict=True)
    )
    shapes = [
        bomb,
        b"r: &r [*r]\n",
        b"m: &m {<<: *m}\n",
        b"<<: [*a, *b]\n",
        b"k: *undefined\n",
        b"s: &s {ios: x, name: y}\n<<: *s\n",
        b"<<: {name: [1], stores: {ios: 2}, 2024-01-01: 3, ~: 4}\n",
        b"? [a, b]\n: c\n",
        b"? {a: 1}\n: c\n",
        b"name: !!set {a, b}\n",
        b"stores: !!omap [ios: x]\n",
        b"stores: !!pairs [ios: x, ios: y]\n",
        b"icon: !!binary aGVsbG8=\n",
        b"k: !!python/object/apply:os.system [true]\n",
    ]
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    return b"\n".join([*lines[: i + 1], rng.choice(shapes), *lines[i + 1 :]])


EXTREME_DATES = [
    b"9999-12-31T23:59:59-14:00",
    b"0001-01-01T00:00:00+14:00",
    b"9999-12-31",
    b"0001-01-01",
    b"9999-12-31T23:59:59.999999-23:59",
    b"2024-02-29T24:00:00Z",
]


def dates(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """A date key at the calendar's ends, in the front matter's own syntax (a page), or an
    [api.v1] table of them (a site.toml)."""
    when = rng.choice(EXTREME_DATES)
    if data.lstrip().startswith(b"{"):  # JSON front matter: dates are strings
        key = rng.choice([b"date", b"publishDate", b"expiryDate"])
        return data.replace(b"{", b'{"%s": "%s", ' % (key, when), 1)
    if data.startswith((b"---", b"+++")):
        key = rng.choice([b"date", b"publishDate", b"expiryDate", b"lastmod"])
        sep = b" = " if data.startswith(b"+++") else b": "
        end = data.find(b"\n") + 1
        return data[:end] + key + sep + when + b"\n" + data[end:]
    other = rng.choice(EXTREME_DATES)
    return data + (
        b'\n[api.v1]\nstatus = "deprecated"\ndeprecation = %s\nsunset = %s\n'
        b'migration = "https://games.example.com/v2"\n' % (when, other)
    )


# Keys that YAML reads as something else than text: null, a date, numbers, true, a list.
ODD_KEYS = [b"~", b"null", b"2024-01-01", b"1.5", b".inf", b"0x1F", b"true", b"? [a, b]", b"1"]
_KEY_SPOT = re.compile(rb"(?m)^([ \t]*)([A-Za-z_][\w-]*)(?=[ \t]*:)")


def odd_key(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """A key of the front matter (a table's too: `stores:`'s `ios`) made one that is not
    text."""
    spots = list(_KEY_SPOT.finditer(data))
    if not spots:
        return data
    m = rng.choice(spots)
    return data[: m.start(2)] + rng.choice(ODD_KEYS) + data[m.end(2) :]


# Characters that show as nothing, or reorder what is shown: zero-width space and joiner, the
# word joiner, a BOM inside the text, the bidirectional overrides and isolates, soft hyphen.
INVISIBLE = [
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u202e",
    "\u202d",
    "\u2066",
    "\u2069",
    "\u061c",
    "\u00ad",
]


def invisible(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """An invisible or reordering character inside a key, a value or the file name's stand-in
    (`slug`), where a reviewer would not see it."""
    mark = rng.choice(INVISIBLE).encode("utf-8")
    spots = [m.start(2) + 1 for m in _KEY_SPOT.finditer(data)] + _value_spots(data)
    i = rng.choice(spots) if spots else _offset(data, rng)
    if rng.random() < 0.2:
        return data[:i] + b"slug" + (b" = " if data.startswith(b"+++") else b": ") + data[i:]
    return data[:i] + mark + data[i:]


def long_line(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """One value a very long line: letters, spaces, an escape repeated, or digits."""
    piece = rng.choice([b"a", b"ab ", b"\\u0041", b"9", "é".encode()])
    i = _at_value(data, rng)
    return data[:i] + piece * (rng.choice([10_000, 100_000]) // len(piece)) + data[i:]


def many_keys(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """Thousands of distinct keys in the front matter's own syntax, near misses of catalog keys
    (each asks the did-you-mean index), plain ones, or a table of them under `stores`."""
    base = rng.choice([b"platfrm", b"genre", b"nme", b"stors", b"k", b"publishdat"])
    count = rng.choice([100, 1_000])
    toml = data.startswith(b"+++")
    if data.lstrip().startswith(b"{"):
        keys = b"".join(b'"%s%d": %d, ' % (base, n, n) for n in range(count))
        return data.replace(b"{", b"{" + keys, 1)
    sep = b" = " if toml else b": "
    keys = b"".join(b"%s%d%s%d\n" % (base, n, sep, n) for n in range(count))
    end = data.find(b"\n") + 1
    return data[:end] + keys + data[end:]


def json_twice(data: bytes, rng: random.Random, _c: Corpus) -> bytes:
    """A JSON front matter's key given again (a catalog key, a store, a key of a nested
    object), or a YAML or TOML page made one of JSON with its keys given twice."""
    if not data.lstrip().startswith(b"{"):
        return b'{"name": "a", "name": "b", "stores": {"ios": 1, "ios": "x"}}\n' + data
    key = rng.choice([b"name", b"stores", b"platforms", b"slug", b"date", b"\\u006eame"])
    return data.replace(b"{", b'{"%s": 1, "%s": [], ' % (key, key), 1)


MUTATIONS: tuple[Callable[[bytes, random.Random, Corpus], bytes], ...] = (
    flip,
    truncate,
    delete,
    tag,
    tag,
    value,
    value,
    value,
    nest,
    number,
    bom,
    crlf,
    bad_bytes,
    duplicate_line,
    switch_kind,
    splice,
    aliases,
    dates,
    odd_key,
    odd_key,
    invisible,
    long_line,
    many_keys,
    json_twice,
)


@dataclass(frozen=True)
class Input:
    index: int
    kind: str  # "page" or "site"
    data: bytes
    steps: tuple[str, ...]  # the mutations, in the order applied


def inputs(seed: int, count: int, c: Corpus, *, sites: float = 0.15) -> Iterator[Input]:
    """`count` mutated pages and site.toml files (a share `sites` of them), from `seed`."""
    rng = random.Random(seed)
    for index in range(count):
        kind = "site" if rng.random() < sites else "page"
        data = rng.choice(c.sites if kind == "site" else c.pages)
        steps = []
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            mutation = rng.choice(MUTATIONS)
            data = mutation(data, rng, c)
            steps.append(mutation.__name__)
        yield Input(index, kind, data, tuple(steps))


# --- running them ----------------------------------------------------------------------------


class Bench:
    """A scratch content tree (the sample's site.toml and pages) to run inputs in."""

    def __init__(self, base: Path) -> None:
        from catalogctl.content import loader
        from catalogctl.content.fields import FieldMap
        from catalogctl.content.rules.values import PageContext

        self.root = base / "bench"
        shutil.copytree(ROOT / "content", self.root)
        self.site = (self.root / "site.toml").read_bytes()
        self.page = self.root / "games" / "fuzzed.md"
        checked, _doc, severities, _findings = loader._load_site(self.root, str(self.root))
        _site, usable, broken = checked
        assert usable is not None
        now = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
        plain = FieldMap.from_settings(usable.fields)
        # A site that maps catalog keys to its own, as Hugo and Zola sites do.
        hugo = FieldMap.from_settings(
            {"name": "title", "icon": "params.icon", "stores": {"ios": "links[p=ios].url"}}
        )
        self.contexts = [
            PageContext(usable, plain, severities, now, False, broken),
            PageContext(usable, hugo, severities, now, True, broken),
        ]


def check_page(bench: Bench, item: Input) -> str | None:
    """One page through validate's core on both YAML loaders (under one of the two sites'
    settings, in turn): what went wrong, or None."""
    from catalogctl.content import loader, yamldoc, yamlload
    from catalogctl.content.discovery import PageFile
    from catalogctl.content.rules.registry import RULES

    bench.page.write_bytes(item.data)
    page = PageFile(str(bench.page), "games/fuzzed.md", "fuzzed", None)
    chosen = yamldoc.loader_for
    loader._use_context(bench.contexts[item.index % 2])
    try:
        for pure in (False, True):
            if pure:
                yamldoc.loader_for = lambda _text: yamlload.PURE  # type: ignore[assignment]
            outcome = loader._check_one(page)
            for f in outcome.findings:
                if f.file != "games/fuzzed.md" or f.rule not in RULES:
                    return f"a finding of no file or rule: {f}"
                if f.line is not None and f.line < 1:
                    return f"a finding before the first line: {f}"
    except Exception:  # noqa: BLE001 - what the fuzzer is looking for
        return traceback.format_exc()
    finally:
        yamldoc.loader_for = chosen  # type: ignore[assignment]
        loader._use_context(None)
    return None


def check_site(bench: Bench, item: Input) -> str | None:
    """One site.toml through the load of the sample's pages: what went wrong, or None."""
    from catalogctl.content import loader
    from catalogctl.content.rules.registry import RULES

    site = bench.root / "site.toml"
    site.write_bytes(item.data)
    try:
        content = loader.load(bench.root, display="content")
        for f in content.findings:
            if not f.file.startswith("content") or f.rule not in RULES:
                return f"a finding of no file or rule: {f}"
        content.published()
    except Exception:  # noqa: BLE001 - what the fuzzer is looking for
        return traceback.format_exc()
    finally:
        site.write_bytes(bench.site)
    return None


def check(bench: Bench, item: Input) -> str | None:
    return (check_site if item.kind == "site" else check_page)(bench, item)


def tree(base: Path, site: bytes | None, pages: list[bytes]) -> Path:
    """A content tree of fuzzed pages (and a fuzzed site.toml) for the real command."""
    root = base
    shutil.copytree(ROOT / "content", root)
    if site is not None:
        (root / "site.toml").write_bytes(site)
    for i, data in enumerate(pages):
        (root / "games" / f"fuzzed-{i:03d}.md").write_bytes(data)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", type=int, help="run this input of the seed's sequence only")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument("--sites", type=float, default=0.15, help="the share of site.toml inputs")
    parser.add_argument(
        "--slow", type=float, default=10.0, help="seconds past which an input counts as failed"
    )
    args = parser.parse_args()
    c = corpus()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp))
        for item in inputs(args.seed, args.inputs, c, sites=args.sites):
            if args.only is not None and item.index != args.only:
                continue
            started = time.perf_counter()
            problem = check(bench, item)
            seconds = time.perf_counter() - started
            if problem is None and seconds > args.slow:
                problem = f"took {seconds:.1f} s (--slow {args.slow:g})"
            if item.index % 1000 == 0:
                print(f"{item.index:,} inputs, {failed} failed", file=sys.stderr)
            if problem is None:
                continue
            failed += 1
            args.out.mkdir(exist_ok=True)
            name = f"{args.seed}-{item.index}.{'toml' if item.kind == 'site' else 'md'}"
            (args.out / name).write_bytes(item.data)
            print(f"--- input {item.index} ({item.kind}: {', '.join(item.steps)}): {name}")
            print(problem.rstrip())
    print(f"{args.inputs:,} inputs from seed {args.seed}: {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
