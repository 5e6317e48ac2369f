"""Which site generator built a website, and what its own settings say.

Each generator is recognised by its configuration file (Hugo's hugo.toml or a config.toml with
`baseURL`, Zola's config.toml with `base_url`, Jekyll's _config.yml, Eleventy's
.eleventy.js or eleventy.config.*, Astro's astro.config.*, Next.js's next.config.*), or by its
package in package.json. Its settings give the site's address, title and description, the
language published, the folders where its pages live and the URL of a page. Every file is read
bounded in size (`configs`). What the configuration says of the folders of pages is in
`sections`, the URL of a page in `pageurl`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from catalogctl.content.scaffold.configs import (
    first_file,
    homepage,
    read_config,
    read_json,
    read_text,
    read_yaml,
)
from catalogctl.content.scaffold.configs import text_value as _str

# next-sitemap's `siteUrl: process.env.SITE_URL || 'https://studio.example'`, on a line that
# is not a comment; at most 300 characters between the key and the address.
_SITE_URL_RE = re.compile(r"""\bsiteUrl\s*:[^,\n]{0,300}?["'`](https?://[^"'`\s$]+)["'`]""")
_COMMENT_LINE = re.compile(r"\s*(?://|/\*|\*)")
_SITE_RE = re.compile(r"""\bsite\s*:\s*["'`](https?://[^"'`\s]+)["'`]""")  # astro.config: site: "…"
_INPUT_RE = re.compile(
    r"""\binput\s*:\s*["'`]([^"'`]+)["'`]"""
)  # .eleventy.js: dir: { input: "src" }


def site_folder(value: Any, default: str) -> str:
    """A folder a configuration names (Hugo's contentDir, Jekyll's collections_dir, Eleventy's
    input), when it is one inside the website: relative, without `..` or a NUL, of a length a
    file system takes; else `default` (an absolute contentDir elsewhere on the disk is not
    the website's to survey)."""
    text = _str(value)
    if text is None or "\0" in text or len(text) > 1024:
        return default
    path = Path(text)
    if path.is_absolute() or path.anchor or ".." in path.parts:
        return default
    if any(len(part.encode("utf-8", "surrogatepass")) > 255 for part in path.parts):
        return default
    return path.as_posix()


HOMEPAGE = "package.json's homepage"
# A language tag as a site names its language (`en`, `pt-br`, `zh_CN`, `fil`).
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}")


def _language(value: Any) -> str | None:
    """A configuration's language where it is a language tag (`English`, a path: none)."""
    text = _str(value)
    return text if text is not None and _LANGUAGE_TAG.fullmatch(text) else None


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
    base_from: str | None = None  # where base_url was read, when not from `config`
    title_from: str | None = None  # where title was read, when not from `config`
    description_from: str | None = None  # where description was read, when not from `config`

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


def _package_deps(root: Path) -> set[str]:
    data = read_json(root / "package.json") if (root / "package.json").is_file() else {}
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        if isinstance(data.get(key), dict):
            deps.update(str(k) for k in data[key])
    return deps


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
    path = first_file(root, names) or first_file(
        root / "config" / "_default", (*names, "config.toml")
    )
    if path is None:
        path = first_file(root, ("config.toml", "config.yaml", "config.yml", "config.json"))
    if path is None:
        return None
    data = read_config(path)
    keys = {k.lower(): k for k in data}
    shown = path.relative_to(root).as_posix()
    if "base_url" in data and "baseurl" not in keys:
        language = _language(data.get("default_language"))
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
    content_dir = site_folder(data.get(keys.get("contentdir", "")), "content")
    language = _language(data.get(keys.get("defaultcontentlanguage", "")))
    title, title_from = _str(data.get(keys.get("title", ""))), None
    description_from = None
    # The language's own title and description come first, as Hugo shows them: in the
    # configuration's [languages.<lang>], or in config/_default/languages(.<lang>).toml.
    for own, source in _hugo_language(root, path, data, keys, language or "en"):
        own_keys = {k.lower(): k for k in own}
        own_params = own.get(own_keys.get("params", ""), {})
        own_title = _str(own.get(own_keys.get("title", "")))
        if own_title and title_from is None:
            title, title_from = own_title, source
        own_description = (
            _str(own_params.get("description")) if isinstance(own_params, dict) else None
        )
        if own_description and description_from is None:
            description, description_from = own_description, source
    if description is None and path.parent.name == "_default":
        names = ("params.toml", "params.yaml", "params.yml", "params.json")
        found = first_file(path.parent, names)
        description = _str(read_config(found).get("description")) if found else None
        if description is not None and found is not None:
            description_from = found.relative_to(root).as_posix()
    return Generator(
        "hugo",
        "Hugo",
        shown,
        _str(data.get(keys.get("baseurl", ""))),
        title,
        description,
        language,
        (content_dir,),
        data,
        None,
        title_from,
        description_from,
    )


def _hugo_language(
    root: Path, path: Path, data: dict[str, Any], keys: dict[str, str], language: str
) -> list[tuple[dict[str, Any], str]]:
    """The settings of the published language, with the file they are in: the
    configuration's [languages.<lang>], config/_default/languages.<lang>.toml, and
    config/_default/languages.toml's [<lang>]."""
    found: list[tuple[dict[str, Any], str]] = []
    languages = data.get(keys.get("languages", ""))
    if isinstance(languages, dict) and isinstance(languages.get(language), dict):
        found.append((languages[language], path.relative_to(root).as_posix()))
    if path.parent.name == "_default":
        exts = ("toml", "yaml", "yml", "json")
        own = first_file(path.parent, tuple(f"languages.{language}.{e}" for e in exts))
        if own is not None:
            found.append((read_config(own), own.relative_to(root).as_posix()))
        every = first_file(path.parent, tuple(f"languages.{e}" for e in exts))
        table = read_config(every) if every is not None else {}
        if every is not None and isinstance(table.get(language), dict):
            found.append((table[language], every.relative_to(root).as_posix()))
    return found


def _jekyll(root: Path, deps: set[str]) -> Generator | None:
    path = first_file(root, ("_config.yml", "_config.yaml"))
    if path is None:
        return None
    data = read_yaml(path)
    url, base = _str(data.get("url")), _str(data.get("baseurl")) or ""
    collections = site_folder(data.get("collections_dir"), ".")
    return Generator(
        "jekyll",
        "Jekyll",
        path.name,
        (url.rstrip("/") + "/" + base.strip("/")).rstrip("/") if url else None,
        _str(data.get("title")),
        _str(data.get("description")),
        _language(data.get("lang")),
        (collections,) if collections == "." else (collections, "."),
        data,
    )


def _eleventy(root: Path, deps: set[str]) -> Generator | None:
    names = tuple(
        f"{stem}.{ext}"
        for stem in (".eleventy", "eleventy.config")
        for ext in ("js", "cjs", "mjs", "ts")
    )
    path = first_file(root, names)
    if path is None and "@11ty/eleventy" not in deps:
        return None
    source = read_text(path) if path is not None else None
    m = _INPUT_RE.search(source or "")
    input_dir = site_folder(m.group(1).strip("./"), ".") if m else "."
    meta_file = Path(input_dir, "_data", "metadata.json")
    meta = read_json(root / meta_file)
    return Generator(
        "eleventy",
        "Eleventy",
        meta_file.as_posix() if meta else path.name if path is not None else "package.json",
        _str(meta.get("url")) or homepage(root),
        _str(meta.get("title")),
        _str(meta.get("description")),
        _language(meta.get("language")),
        (input_dir,),
        {},
        None if _str(meta.get("url")) else HOMEPAGE,
    )


def _astro(root: Path, deps: set[str]) -> Generator | None:
    path = first_file(
        root, tuple(f"astro.config.{ext}" for ext in ("mjs", "js", "ts", "cjs", "mts"))
    )
    if path is None and "astro" not in deps:
        return None
    m = _SITE_RE.search(read_text(path) or "") if path is not None else None
    return Generator(
        "astro",
        "Astro",
        path.name if path is not None else "package.json",
        m.group(1) if m else homepage(root),
        None,
        None,
        None,
        ("src/content", "src"),
        {},
        None if m else HOMEPAGE,
    )


def _nextjs(root: Path, deps: set[str]) -> Generator | None:
    path = first_file(root, tuple(f"next.config.{ext}" for ext in ("js", "mjs", "ts", "cjs")))
    if path is None and "next" not in deps:
        return None
    # next-sitemap's configuration names the site's address (`siteUrl`), often after an
    # environment variable: `process.env.SITE_URL || 'https://studio.example'`.
    sitemap = first_file(root, tuple(f"next-sitemap.config.{e}" for e in ("js", "mjs", "cjs")))
    lines = (read_text(sitemap) or "").splitlines() if sitemap is not None else []
    m = next(
        (
            found
            for line in lines
            if not _COMMENT_LINE.match(line) and (found := _SITE_URL_RE.search(line))
        ),
        None,
    )
    return Generator(
        "nextjs",
        "Next.js",
        path.name if path is not None else "package.json",
        m.group(1) if m else homepage(root),
        None,
        None,
        None,
        (".",),
        {},
        sitemap.name if m and sitemap is not None else HOMEPAGE,
    )
