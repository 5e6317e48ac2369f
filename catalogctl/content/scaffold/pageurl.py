"""The URL of a game's page on the website, as its generator makes it (`game_url`)."""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import NamedTuple

from catalogctl.content.scaffold.configs import read_json, read_text
from catalogctl.content.scaffold.configs import text_value as _str
from catalogctl.content.scaffold.generators import Generator
from catalogctl.paths import is_dir, is_file


class PageUrl(NamedTuple):
    path: str  # the site path of a game's page, `{id}` in place of its id
    why: str  # what it rests on
    note: str | None = None  # why it cannot be right, when the generator's URL holds more


# A Jekyll permalink that holds nothing but the page's name: `/games/:title/`.
_SIMPLE_PERMALINK = re.compile(r"[A-Za-z0-9_/-]*:(?:name|title|slug)[A-Za-z0-9_/-]*")


def page_url(gen: Generator, root: Path, games: str) -> PageUrl:
    """The site path of a game's page, `{id}` in place of its id, and what it rests on."""
    folder = games.replace(os.sep, "/").strip("/")
    last = folder.rsplit("/", 1)[-1]
    if gen.name in ("hugo", "zola"):
        base = gen.search[0].strip("/")
        if folder == base:  # content/x.md is published at /x/
            return PageUrl("/{id}/", f"{gen.label}'s URL of a page in {games}")
        section = folder[len(base) + 1 :] if folder.startswith(base + "/") else last
        return PageUrl(f"/{section}/{{id}}/", f"{gen.label}'s URL of a page in {games}")
    if gen.name == "jekyll":
        # Posts in a folder of their own (`_posts/game`, `game/_posts`) are posts all the same.
        parts = folder.split("/")
        if "_posts" not in parts and not any(p.startswith("_") for p in parts):
            return _jekyll_page_url(gen, root, folder, games)
        return _jekyll_url(gen, "_posts" if "_posts" in parts else last)
    if gen.name == "eleventy":
        data = read_json(root / games / f"{last}.11tydata.json") or read_json(
            root / games / f"{last}.json"
        )
        permalink = _str(data.get("permalink"))
        if permalink and "page.fileSlug" in permalink:
            path = re.sub(r"\{\{\s*page\.fileSlug\s*\}\}", "{id}", permalink)
            return PageUrl("/" + path.strip("/") + "/", f"the permalink of {games}'s data file")
        return PageUrl(f"/{last}/{{id}}/", f"Eleventy's URL of a page in {games}")
    if gen.name == "astro":
        route = _astro_route(root, last)
        if route is not None:
            return PageUrl(f"/{route}/{{id}}/", f"the route src/pages/{route} of the collection")
    if gen.name in ("astro", "nextjs"):
        for pages in ("src/pages", "pages", "app", "src/app"):
            if is_dir(root / pages / last):
                return PageUrl(f"/{last}/{{id}}/", f"the route folder {pages}/{last}")
    return PageUrl(f"/{last}/{{id}}/", "the name of the games folder")


MAX_ROUTE_FILES = 500  # files of src/pages looked at for a collection's route
MAX_ROUTE_DEPTH = 8  # folders below src/pages
_DYNAMIC_ROUTE = re.compile(r"\[(?:\.\.\.)?[A-Za-z_][A-Za-z0-9_]*\]\.astro")


def _astro_route(root: Path, collection: str) -> str | None:
    """The folder of src/pages whose dynamic route (`[slug].astro`, `[...slug].astro`) lists
    the collection (`getCollection("games")`): `gry` for src/pages/gry/[...slug].astro. The
    walk is bounded (files, depth) and follows no symlink."""
    pages = root / "src" / "pages"
    if not is_dir(pages) or pages.is_symlink():
        return None
    wanted = re.compile(rf"""getCollection\s*\(\s*["']{re.escape(collection)}["']""")
    seen = 0
    todo: list[tuple[Path, int]] = [(pages, 0)]
    while todo:
        folder, depth = todo.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ROUTE_FILES:
                return None
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_ROUTE_DEPTH and not entry.name.startswith("."):
                    todo.append((Path(entry.path), depth + 1))
            elif (
                folder != pages
                and _DYNAMIC_ROUTE.fullmatch(entry.name)
                and wanted.search(read_text(Path(entry.path)) or "")
            ):
                return folder.relative_to(pages).as_posix()
    return None


MAX_LAYOUT_ENTRIES = 200  # entries of a Jekyll pages folder looked at for its layout


def _jekyll_page_url(gen: Generator, root: Path, folder: str, games: str) -> PageUrl:
    """Pages in a folder of the site, not a collection: Jekyll publishes `games/x/index.md`
    at /games/x/, and `games/x.md` at /games/x.html (at /games/x/ with `permalink: pretty`)."""
    bundles = flat = 0
    try:
        with os.scandir(root / games) as entries:
            for entry in itertools.islice(entries, MAX_LAYOUT_ENTRIES):
                if entry.is_dir(follow_symlinks=False):
                    bundles += any(
                        is_file(Path(entry.path) / f"index{ext}") for ext in (".md", ".markdown")
                    )
                elif entry.name.endswith((".md", ".markdown")) and not entry.name.startswith(
                    "index."
                ):
                    flat += 1
    except OSError:
        pass
    if bundles >= flat:
        return PageUrl(f"/{folder}/{{id}}/", f"Jekyll's URL of a page {games}/<id>/index.md")
    if _str(gen.settings.get("permalink")) == "pretty":
        return PageUrl(f"/{folder}/{{id}}/", f"permalink: pretty in {gen.config}")
    return PageUrl(
        f"/{folder}/{{id}}.html",
        f"Jekyll's URL of a page {games}/<id>.md (check the permalink in {gen.config})",
    )


def _jekyll_url(gen: Generator, last: str) -> PageUrl:
    collections = gen.settings.get("collections")
    name = last.removeprefix("_")
    spec = collections.get(name) if isinstance(collections, dict) else None
    permalink = _str(spec.get("permalink")) if isinstance(spec, dict) else None
    if last == "_posts":
        permalink = _str(gen.settings.get("permalink"))
    if permalink and _SIMPLE_PERMALINK.fullmatch(permalink):
        path = re.sub(r":(?:name|title|slug)", "{id}", permalink)
        return PageUrl("/" + path.strip("/") + "/", f"the permalink in {gen.config}")
    if last != "_posts":
        why = f"the name of the collection (check the permalink in {gen.config})"
        return PageUrl(f"/{name}/{{id}}/", why)
    # Jekyll's posts: by default /:categories/:year/:month/:day/:title.html.
    if permalink:
        follow = f"the posts' addresses follow the permalink {permalink!r} of {gen.config}"
    else:
        follow = (
            f"without a permalink in {gen.config}, Jekyll gives the posts addresses such as "
            "/<categories>/<year>/<month>/<day>/<id>.html"
        )
    return PageUrl(
        "/{id}/",
        f"the post's name alone; check it against the permalink in {gen.config}",
        f"check game_url: {follow}, which hold more than a page's id, while game_url can hold "
        "only {id}; write the address of a game's page in it, or give the posts a permalink "
        f"such as /games/:title/ in {gen.config}",
    )
