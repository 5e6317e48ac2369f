"""Which site generator built a website, and what its own settings say.

Each generator is recognised by its configuration file (Hugo's hugo.toml or a config.toml with
`baseURL`, Zola's config.toml with `base_url`, Jekyll's _config.yml, Eleventy's
.eleventy.js or eleventy.config.*, Astro's astro.config.*, Next.js's next.config.*), or by its
package in package.json. Its settings give the site's address, title and description, the
language published, the folders where its pages live and the URL of a page. Every file is read
bounded in size, and a file that cannot be read or parsed is a setting not found, never an
error: init guesses, the user decides.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.discovery import read_head

_MAX_CONFIG = 256 * 1024  # a generator's configuration file, as much as is read of it
_SITE_RE = re.compile(r"""\bsite\s*:\s*["'`](https?://[^"'`\s]+)["'`]""")  # astro.config: site: "…"
_INPUT_RE = re.compile(
    r"""\binput\s*:\s*["'`]([^"'`]+)["'`]"""
)  # .eleventy.js: dir: { input: "src" }


class Generator(NamedTuple):
    """A website's generator and what its settings say (None: not found)."""

    name: str  # hugo | zola | jekyll | eleventy | astro | nextjs | unknown
    label: str  # as a user names it: "Hugo", "Next.js"
    config: str | None  # the file its settings (base URL, title) were read from
    base_url: str | None
    title: str | None
    description: str | None
    language: str | None  # the language published, when the site has several
    search: tuple[str, ...]  # folders (relative to the root) where its pages live
    settings: dict[str, Any]  # the parsed configuration, for page URLs

    @property
    def site(self) -> str:
        """The website as a sentence names it: "a Hugo site", "an Astro site"."""
        if self.name == "unknown":
            return "a site whose generator is not recognised"
        return f"{'an' if self.label[0] in 'AEIOU' else 'a'} {self.label} site"


LABELS = {
    "hugo": "Hugo",
    "zola": "Zola",
    "jekyll": "Jekyll",
    "eleventy": "Eleventy",
    "astro": "Astro",
    "nextjs": "Next.js",
    "unknown": "unknown",
}


def _text(path: Path) -> str | None:
    try:
        raw, _ = read_head(os.path.realpath(path), _MAX_CONFIG)
    except OSError:
        return None
    return raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")  # a BOM: not text


def _toml(path: Path) -> dict[str, Any]:
    import tomli

    text = _text(path)
    try:
        return tomli.loads(text) if text is not None else {}
    except (tomli.TOMLDecodeError, ValueError, RecursionError):
        return {}


def _yaml(path: Path) -> dict[str, Any]:
    import yaml

    text = _text(path)
    try:
        data = yaml.safe_load(text) if text is not None else None
    except (yaml.YAMLError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _json(path: Path) -> dict[str, Any]:
    text = _text(path)
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _config(path: Path) -> dict[str, Any]:
    if path.suffix == ".toml":
        return _toml(path)
    if path.suffix in (".yaml", ".yml"):
        return _yaml(path)
    return _json(path)


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _package_deps(root: Path) -> set[str]:
    data = _json(root / "package.json") if (root / "package.json").is_file() else {}
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        if isinstance(data.get(key), dict):
            deps.update(str(k) for k in data[key])
    return deps


def _first(root: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (root / name).is_file():
            return root / name
    return None


def detect(root: Path) -> Generator:
    """The generator of the website whose root is `root`."""
    deps = _package_deps(root)
    for find in (_hugo_or_zola, _jekyll, _eleventy, _astro, _nextjs):
        found = find(root, deps)
        if found is not None:
            return found
    return Generator("unknown", LABELS["unknown"], None, None, None, None, None, (".",), {})


def _hugo_or_zola(root: Path, _deps: set[str]) -> Generator | None:
    names = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json")
    path = _first(root, names) or _first(root / "config" / "_default", (*names, "config.toml"))
    if path is None:
        path = _first(root, ("config.toml", "config.yaml", "config.yml", "config.json"))
    if path is None:
        return None
    data = _config(path)
    keys = {k.lower(): k for k in data}
    shown = str(path.relative_to(root))
    if "base_url" in data and "baseurl" not in keys:
        language = _str(data.get("default_language"))
        return Generator(
            "zola",
            "Zola",
            shown,
            _str(data.get("base_url")),
            _str(data.get("title")),
            _str(data.get("description")),
            language,
            ("content",),
            data,
        )
    if "baseurl" not in keys and not path.name.startswith("hugo."):
        return None
    params = data.get(keys.get("params", ""), {})
    description = _str(params.get("description")) if isinstance(params, dict) else None
    content_dir = _str(data.get(keys.get("contentdir", ""))) or "content"
    return Generator(
        "hugo",
        "Hugo",
        shown,
        _str(data.get(keys.get("baseurl", ""))),
        _str(data.get(keys.get("title", ""))),
        description,
        _str(data.get(keys.get("defaultcontentlanguage", ""))),
        (content_dir,),
        data,
    )


def _jekyll(root: Path, deps: set[str]) -> Generator | None:
    path = _first(root, ("_config.yml", "_config.yaml"))
    if path is None:
        return None
    data = _yaml(path)
    url, base = _str(data.get("url")), _str(data.get("baseurl")) or ""
    collections = _str(data.get("collections_dir")) or "."
    return Generator(
        "jekyll",
        "Jekyll",
        path.name,
        (url.rstrip("/") + "/" + base.strip("/")).rstrip("/") if url else None,
        _str(data.get("title")),
        _str(data.get("description")),
        _str(data.get("lang")),
        (collections,) if collections == "." else (collections, "."),
        data,
    )


def _eleventy(root: Path, deps: set[str]) -> Generator | None:
    names = tuple(
        f"{stem}.{ext}"
        for stem in (".eleventy", "eleventy.config")
        for ext in ("js", "cjs", "mjs", "ts")
    )
    path = _first(root, names)
    if path is None and "@11ty/eleventy" not in deps:
        return None
    source = _text(path) if path is not None else None
    m = _INPUT_RE.search(source or "")
    input_dir = m.group(1).strip("./") or "." if m else "."
    meta_file = Path(input_dir, "_data", "metadata.json")
    meta = _json(root / meta_file)
    return Generator(
        "eleventy",
        "Eleventy",
        meta_file.as_posix() if meta else path.name if path is not None else "package.json",
        _str(meta.get("url")) or _homepage(root),
        _str(meta.get("title")),
        _str(meta.get("description")),
        _str(meta.get("language")),
        (input_dir,),
        {},
    )


def _astro(root: Path, deps: set[str]) -> Generator | None:
    path = _first(root, tuple(f"astro.config.{ext}" for ext in ("mjs", "js", "ts", "cjs", "mts")))
    if path is None and "astro" not in deps:
        return None
    m = _SITE_RE.search(_text(path) or "") if path is not None else None
    return Generator(
        "astro",
        "Astro",
        path.name if path is not None else "package.json",
        m.group(1) if m else _homepage(root),
        None,
        None,
        None,
        ("src/content", "src"),
        {},
    )


def _nextjs(root: Path, deps: set[str]) -> Generator | None:
    path = _first(root, tuple(f"next.config.{ext}" for ext in ("js", "mjs", "ts", "cjs")))
    if path is None and "next" not in deps:
        return None
    return Generator(
        "nextjs",
        "Next.js",
        path.name if path is not None else "package.json",
        _homepage(root),
        None,
        None,
        None,
        (".",),
        {},
    )


def _homepage(root: Path) -> str | None:
    return (
        _str(_json(root / "package.json").get("homepage"))
        if (root / "package.json").is_file()
        else None
    )


def page_url(gen: Generator, root: Path, games: str) -> tuple[str, str]:
    """The site path of a game's page, `{id}` in place of its id, and what it rests on."""
    folder = games.replace(os.sep, "/").strip("/")
    last = folder.rsplit("/", 1)[-1]
    if gen.name in ("hugo", "zola"):
        base = gen.search[0].strip("/")
        section = folder[len(base) + 1 :] if folder.startswith(base + "/") else last
        return f"/{section}/{{id}}/", f"{gen.label}'s URL of a page in {games}"
    if gen.name == "jekyll":
        return _jekyll_url(gen, last)
    if gen.name == "eleventy":
        data = _json(root / games / f"{last}.11tydata.json") or _json(root / games / f"{last}.json")
        permalink = _str(data.get("permalink"))
        if permalink and "page.fileSlug" in permalink:
            path = re.sub(r"\{\{\s*page\.fileSlug\s*\}\}", "{id}", permalink)
            return "/" + path.strip("/") + "/", f"the permalink of {games}'s data file"
        return f"/{last}/{{id}}/", f"Eleventy's URL of a page in {games}"
    if gen.name in ("astro", "nextjs"):
        for pages in ("src/pages", "pages", "app", "src/app"):
            if (root / pages / last).is_dir():
                return f"/{last}/{{id}}/", f"the route folder {pages}/{last}"
    return f"/{last}/{{id}}/", "the name of the games folder"


def _jekyll_url(gen: Generator, last: str) -> tuple[str, str]:
    collections = gen.settings.get("collections")
    name = last.removeprefix("_")
    spec = collections.get(name) if isinstance(collections, dict) else None
    permalink = _str(spec.get("permalink")) if isinstance(spec, dict) else None
    if last == "_posts":
        permalink = _str(gen.settings.get("permalink"))
    if permalink and re.fullmatch(r"[A-Za-z0-9_/-]*:(?:name|title|slug)[A-Za-z0-9_/-]*", permalink):
        path = re.sub(r":(?:name|title|slug)", "{id}", permalink)
        return "/" + path.strip("/") + "/", f"the permalink in {gen.config}"
    return f"/{name}/{{id}}/", f"the name of the collection (check the permalink in {gen.config})"


# What the generator's configuration says of its folders of pages.
_GAME_WORD_RE = re.compile(r"(?i)(?:^|[-_/])(?:games?|apps?|showcase|released)(?:$|[-_/])")
_ASTRO_CONFIGS = tuple(
    f"{where}.{ext}"
    for where in ("src/content/config", "src/content.config", "content.config")
    for ext in ("ts", "mts", "js", "mjs")
)
# `'released-games': defineCollection(`, `games: defineCollection(`, `const games = …`
_ASTRO_NAMED = re.compile(r"""["']?([A-Za-z0-9_-]+)["']?\s*[:=]\s*defineCollection\s*\(""")
_ASTRO_EXPORT = re.compile(r"export\s+const\s+collections\s*=\s*\{([^}]*)\}", re.DOTALL)
_ASTRO_BASE = re.compile(r"""\bbase\s*:\s*["'`]([^"'`]+)["'`]""")
# A schema key naming a store's URL: `steamUrl: z.string().url().optional()`.
_SCHEMA_STORE = re.compile(r"""["']?([A-Za-z][A-Za-z0-9_]*)["']?\s*:\s*z\s*\.\s*string\s*\(\s*\)""")
SCHEMA_STORES: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("steam", ("other", "Steam", "steam")),
    ("itch", ("other", "itch.io", "itch")),
    ("googleplay", ("google-play", "Google Play", "android")),
    ("playstore", ("google-play", "Google Play", "android")),
    ("android", ("google-play", "Google Play", "android")),
    ("appleplay", ("apple", "App Store", "ios")),
    ("appstore", ("apple", "App Store", "ios")),
    ("apple", ("apple", "App Store", "ios")),
    ("ios", ("apple", "App Store", "ios")),
    ("gog", ("other", "GOG", "gog")),
    ("epic", ("other", "Epic Games Store", "epic")),
    ("gamejolt", ("other", "Game Jolt", "gamejolt")),
)


def declared_folders(root: Path, gen: Generator) -> dict[str, tuple[str, bool]]:
    """Folder (relative to `root`) → (what declares it, as a reason reads; whether it says
    games), from the generator's own configuration."""
    out: dict[str, tuple[str, bool]] = {}
    if gen.name == "jekyll":
        collections = gen.settings.get("collections")
        base = _str(gen.settings.get("collections_dir")) or "."
        names = list(collections) if isinstance(collections, dict | list) else []
        for name in names[:100]:
            if isinstance(name, str) and name:
                folder = Path(base, f"_{name}").as_posix()
                out[folder] = (f"a collection in {gen.config}", bool(_GAME_WORD_RE.search(name)))
    if gen.name == "astro":
        astro = _astro_collections(root)
        if astro is not None:
            config, folders, stores = astro
            for folder in folders:
                why = f"a collection in {config}"
                gamelike = bool(_GAME_WORD_RE.search(folder))
                if stores:
                    why += f" whose schema has store keys ({', '.join(stores[:4])})"
                out[folder] = (why, gamelike or bool(stores))
    if gen.name in ("hugo", "zola"):
        content = root / gen.search[0]
        for index in _section_pages(content):
            folder = index.parent.relative_to(root).as_posix()
            if folder != gen.search[0]:
                name = index.parent.name
                out[folder] = (f"a section ({index.name})", bool(_GAME_WORD_RE.search(name)))
    if gen.name == "eleventy":
        for folder, why, gamelike in _eleventy_data_files(root, gen.search[0]):
            out[folder] = (why, gamelike)
    return out


def _section_pages(content: Path, depth: int = 0) -> list[Path]:
    """The `_index.md` of each section under Hugo's or Zola's content folder (three levels)."""
    out: list[Path] = []
    try:
        entries = sorted(content.iterdir())[:1000]
    except OSError:
        return out
    for entry in entries:
        if entry.name.startswith(".") or entry.is_symlink() or not entry.is_dir():
            continue
        index = entry / "_index.md"
        if index.is_file():
            out.append(index)
        if depth < 2:
            out += _section_pages(entry, depth + 1)
    return out


def _eleventy_data_files(root: Path, top: str, depth: int = 0) -> list[tuple[str, str, bool]]:
    """Folders with a directory data file (`games/games.json`, `games/games.11tydata.json`),
    two levels below the input folder."""
    out: list[tuple[str, str, bool]] = []
    start = root / top
    try:
        folders = sorted(p for p in start.iterdir() if p.is_dir() and not p.is_symlink())[:1000]
    except OSError:
        return out
    for folder in folders:
        if folder.name.startswith((".", "_")) or folder.name == "node_modules":
            continue
        for name in (f"{folder.name}.11tydata.json", f"{folder.name}.json"):
            if not (folder / name).is_file():
                continue
            data = _json(folder / name)
            tags = data.get("tags")
            values = [tags] if isinstance(tags, str) else tags if isinstance(tags, list) else []
            words = [v for v in values[:20] if isinstance(v, str)]
            layout = _str(data.get("layout")) or ""
            gamelike = any(_GAME_WORD_RE.search(v) for v in [*words, layout])
            said = f"tags {', '.join(words)}" if words else f"layout {layout}" if layout else ""
            why = f"a directory data file ({name}{': ' + said if said else ''})"
            out.append((folder.relative_to(root).as_posix(), why, gamelike))
            break
        if depth < 1:
            out += _eleventy_data_files(root, folder.relative_to(root).as_posix(), depth + 1)
    return out


def _astro_collections(root: Path) -> tuple[str, list[str], list[str]] | None:
    """(config file, the collections' folders, its schema's store keys) of an Astro site."""
    path = _first(root, _ASTRO_CONFIGS)
    source = _text(path) if path is not None else None
    if path is None or source is None:
        return None
    names = [m.group(1) for m in _ASTRO_NAMED.finditer(source)]
    exported = _ASTRO_EXPORT.search(source)
    if exported is not None:
        for item in exported.group(1).split(","):
            key = item.split(":", 1)[0].strip().strip("'\"")
            if re.fullmatch(r"[A-Za-z0-9_-]+", key):
                names.append(key)
    folders = [m.group(1).strip("./") for m in _ASTRO_BASE.finditer(source)]
    # A variable's name is not a collection's: keep the exported names and the named ones
    # that have a folder.
    for name in dict.fromkeys(names):
        folder = f"src/content/{name}"
        if (root / folder).is_dir():
            folders.append(folder)
    return path.relative_to(root).as_posix(), list(dict.fromkeys(folders)), schema_stores(source)


def schema_stores(source: str) -> list[str]:
    """The keys of a content schema that name a store's URL (`steamUrl`, `googlePlayUrl`)."""
    out = []
    for m in _SCHEMA_STORE.finditer(source):
        key = m.group(1)
        if schema_store(key) is not None:
            out.append(key)
    return list(dict.fromkeys(out))


def schema_store(key: str) -> tuple[str, str, str] | None:
    """(kind, name, usual key) of the store a schema key names, by its words."""
    words = re.sub(r"[^a-z]", "", key.lower())
    if not words.endswith(("url", "link", "href")):
        return None
    for word, store in SCHEMA_STORES:
        if words.startswith(word):
            return store
    return None


def astro_schema(root: Path) -> tuple[str, list[str]] | None:
    """(config file, store keys of its schema) of an Astro site."""
    astro = _astro_collections(root)
    return None if astro is None else (astro[0], astro[2])
