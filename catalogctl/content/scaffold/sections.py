"""What a generator's own configuration says of its folders of pages: Jekyll collections,
Astro content collections (and the store keys of their schema), Hugo and Zola sections,
Eleventy directory data files."""

from __future__ import annotations

import re
from pathlib import Path

from catalogctl.content.scaffold.configs import first_file, read_json, read_text
from catalogctl.content.scaffold.configs import text_value as _str
from catalogctl.content.scaffold.generators import Generator, site_folder
from catalogctl.content.storehosts import KNOWN_STORES, KnownStore, known_store
from catalogctl.paths import is_dir

# The words of a camelCase, snake_case or kebab-case key: `googlePlayURL` -> google, Play, URL.
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_GAME_WORD_RE = re.compile(r"(?i)(?:^|[-_/])(?:games?|apps?|showcase|released)(?:$|[-_/])")
_ASTRO_CONFIGS = tuple(
    f"{where}.{ext}"
    for where in ("src/content/config", "src/content.config", "content.config")
    for ext in ("ts", "mts", "js", "mjs")
)
# `'released-games': defineCollection(`, `games: defineCollection(`, `const games = …`
# Each tried at the start of a name only (the look-behind), and bounded: a configuration of
# 256 KiB is read in one pass, never once per character of a long word.
_ASTRO_NAMED = re.compile(
    r"""["']?(?<![A-Za-z0-9_-])([A-Za-z0-9_-]+)["']?\s*[:=]\s*defineCollection\s*\("""
)
_ASTRO_EXPORT = re.compile(r"export\s+const\s+collections\s*=\s*\{")
MAX_EXPORT = 10_000  # characters of the exported collections object read
_ASTRO_BASE = re.compile(r"""\bbase\s*:\s*["'`]([^"'`]+)["'`]""")
# A schema key naming a store's URL: `steamUrl: z.string().url().optional()`.
_SCHEMA_STORE = re.compile(
    r"""["']?(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_]*)["']?\s*:\s*z\s*\.\s*string\s*\(\s*\)"""
)


def declared_folders(root: Path, gen: Generator) -> dict[str, tuple[str, bool]]:
    """Folder (relative to `root`) → (what declares it, as a reason reads; whether it says
    games), from the generator's own configuration."""
    out: dict[str, tuple[str, bool]] = {}
    if gen.name == "jekyll":
        collections = gen.settings.get("collections")
        base = site_folder(gen.settings.get("collections_dir"), ".")
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
            data = read_json(folder / name)
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
    path = first_file(root, _ASTRO_CONFIGS)
    source = read_text(path) if path is not None else None
    if path is None or source is None:
        return None
    names = [m.group(1) for m in _ASTRO_NAMED.finditer(source)]
    exported = _ASTRO_EXPORT.search(source)  # the first one: each other would be read again
    body = source[exported.end() : exported.end() + MAX_EXPORT + 1] if exported else ""
    close = body.find("}")
    if 0 <= close <= MAX_EXPORT:
        for item in body[:close].split(","):
            key = item.split(":", 1)[0].strip().strip("'\"")
            if re.fullmatch(r"[A-Za-z0-9_-]+", key):
                names.append(key)
    folders = [m.group(1).strip("./") for m in _ASTRO_BASE.finditer(source)]
    # A variable's name is not a collection's: keep the exported names and the named ones
    # that have a folder.
    for name in dict.fromkeys(names):
        folder = f"src/content/{name}"
        if is_dir(root / folder):
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


def schema_store(key: str) -> KnownStore | None:
    """The known store a schema key names by its words (`steamUrl`, `googlePlayURL`,
    `app_store_link`), when it ends in url, link or href; or by its usual key alone
    (`steam`, `gamejolt`, `itch`)."""
    words = [w.lower() for w in _CAMEL.findall(key)]
    if len(words) >= 2 and words[-1] in ("url", "link", "href"):
        return known_store(" ".join(words[:-1]))
    return next((s for s in KNOWN_STORES if s.key == key.lower()), None)


def astro_schema(root: Path) -> tuple[str, list[str]] | None:
    """(config file, store keys of its schema) of an Astro site."""
    astro = _astro_collections(root)
    return None if astro is None else (astro[0], astro[2])
