"""What a path, a URL or no argument means: which site, build, games JSON or URL to read.

Every command asks here, so a path means the same to all of them:

- a folder holding site.toml is a content tree (a site); naming site.toml is naming its folder;
- a folder holding manifest.json is a build directory; a folder holding api/v1/games/index.json
  is a web root (a copy of a build's public/); any other file is a games JSON document;
- an `http(s)://` argument is a deployed catalog's base URL;
- a folder with no site.toml of its own, a page or a games folder belongs to the site of the
  nearest site.toml above it (a Hugo site keeps site.toml at its root, beside `content/`), or
  to `<folder>/content` when that holds site.toml;
- no argument is the current folder read the same way: site.toml here wins over ./content;
  with none here, inside or above, a ./content folder is the content tree, and `serve` alone
  falls back to the bundled sample content.

When the site used is not the folder that was named (or ./content, when none was), `note`
says which one was used and why, for the command to show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from catalogctl.errors import InputError
from catalogctl.text import path_text

Kind = Literal["content", "build", "web-root", "json", "url"]
CONTENT_KINDS: frozenset[Kind] = frozenset({"content"})
SERVED_KINDS: frozenset[Kind] = frozenset({"content", "build"})
ANY_KIND: frozenset[Kind] = frozenset({"content", "build", "web-root", "json", "url"})

DEFAULT_CONTENT = "content"  # the content tree when no argument is given and no site.toml is near
WEB_ROOT_GAMES = Path("api/v1/games/index.json")  # a web root: a build's public/ without manifest
# A file named with one of these is taken for a page of a site (Markdown, MDX).
PAGE_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})
# The two marker files, as the content and site layers name them (not imported from there:
# `diff` of two JSON files or builds starts without the content layer).
SITE_FILE = "site.toml"
MANIFEST = "manifest.json"

_WHAT = {
    "content": "a site (the folder of site.toml)",
    "build": "a build directory (the folder of manifest.json)",
    "web-root": "a web root (the folder of api/v1/games/index.json)",
    "json": "a games JSON file",
    "url": "an http(s) base URL",
}


@dataclass(frozen=True, slots=True)
class Located:
    """A catalog source: what it is, where, how to name it, and how it was found."""

    kind: Kind
    path: Path  # the folder or file; for a URL, the URL as a path is meaningless: see `url`
    label: str  # how messages and findings name it (relative to the current folder)
    note: str | None = None  # how it was found, when it is not what was named
    url: str = ""
    sample: bool = False  # the bundled sample content

    @property
    def spec(self) -> str:
        """The source as a command-line argument that names it exactly."""
        return self.url if self.kind == "url" else str(self.path)


def is_url(spec: str) -> bool:
    return spec.startswith(("http://", "https://"))


def expected(accept: frozenset[Kind]) -> str:
    """`a site (…), a build directory (…) or …`: the kinds a command reads."""
    names = [_WHAT[k] for k in ("content", "build", "web-root", "json", "url") if k in accept]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def locate(
    spec: str | Path | None,
    *,
    accept: frozenset[Kind] = ANY_KIND,
    command: str = "validate",
    sample: bool = False,
) -> Located:
    """The source that `spec` (None: no argument) names for a command reading `accept` kinds.

    `command` names the command in the message that says what to pass; `sample`: with no
    argument and no site near, the bundled sample content (serve). Raises `InputError`.
    """
    # How messages name it: as given, with `/` between folders on every OS.
    text = "." if spec is None else str(spec) if is_url(str(spec)) else path_text(spec)
    try:
        if spec is None:
            return _here(accept, command, sample=sample)
        return _named(spec, text, accept, command)
    except OSError as exc:  # a name too long, a folder that cannot be listed, …
        raise InputError(f"cannot read {text}: {exc.strerror or exc}") from None


def _named(spec: str | Path, text: str, accept: frozenset[Kind], command: str) -> Located:
    if is_url(text):
        if "url" not in accept:
            raise InputError(f"{text} is a URL; `catalogctl {command}` reads {expected(accept)}")
        return Located("url", Path(), text, url=text)
    path = Path(spec)
    if not path.exists():
        raise InputError(f"source not found: {text}; expected {expected(accept)}")
    if path.is_file():
        return _file(path, text, accept, command)
    if not path.is_dir():
        raise InputError(f"not a file or folder: {text}; expected {expected(accept)}")
    return _folder(path, text, accept, command)


def _here(accept: frozenset[Kind], command: str, *, sample: bool) -> Located:
    here = Path()
    if (here / SITE_FILE).is_file():
        return Located("content", here, ".", note=_note_here())
    default = Path(DEFAULT_CONTENT)
    if (default / SITE_FILE).is_file():
        return Located("content", default, DEFAULT_CONTENT)
    above = site_above(here)
    if above is not None:
        label = _relative(above)
        return Located(
            "content",
            above,
            label,
            note=f"using the site at {label}: its site.toml is the nearest above this folder",
        )
    if default.is_dir():  # a content tree still missing its site.toml: validate says so
        return Located("content", default, DEFAULT_CONTENT)
    if "build" in accept and _is_build(here):
        return Located("build", here, ".")
    if sample:
        from catalogctl.content.loader import sample_content

        found = sample_content()
        return Located(
            "content",
            found,
            path_text(found),
            note=f"no site here (no site.toml in this folder or any folder above it, no "
            f"./{DEFAULT_CONTENT}): serving the bundled sample content ({path_text(found)})",
            sample=True,
        )
    raise InputError(
        f"no site here (no ./{DEFAULT_CONTENT}, and no site.toml in this folder or any "
        f"folder above it): name the site's folder (the folder of site.toml), e.g. "
        f"`catalogctl {command} site/content`"
    )


def _note_here() -> str | None:
    # Only where ./content is a site of its own too: beside Hugo's content/ folder, which
    # holds no site.toml, the note would say on every run what nobody asked.
    if (Path(DEFAULT_CONTENT) / SITE_FILE).is_file():
        return (
            f"using the site in this folder (its site.toml), not ./{DEFAULT_CONTENT} "
            f"(name ./{DEFAULT_CONTENT} to read that instead)"
        )
    return None


def _folder(path: Path, text: str, accept: frozenset[Kind], command: str) -> Located:
    if (path / SITE_FILE).is_file():
        return _accepted(Located("content", path, text), accept, command)
    if _is_build(path):
        return _accepted(Located("build", path, text), accept, command)
    if (path / WEB_ROOT_GAMES).is_file() and "web-root" in accept:
        return Located("web-root", path, text)
    inner = path / DEFAULT_CONTENT
    if (inner / SITE_FILE).is_file() and "content" in accept:
        label = path_text(Path(text) / DEFAULT_CONTENT)
        return Located(
            "content", inner, label, note=f"using the site at {label}: {text} has no site.toml"
        )
    above = site_above(path)
    if above is not None and "content" in accept:
        label = _relative(above)
        return Located(
            "content",
            above,
            label,
            note=f"using the site at {label}: {text} has no site.toml of its own and is "
            f"inside that site (name {label} to skip this lookup)",
        )
    if "content" in accept and accept <= SERVED_KINDS:
        # No site.toml anywhere: the folder is the content tree, and validate (or serve)
        # reports what it lacks, site.toml first.
        return Located("content", path, text)
    raise InputError(
        f"{text} is a folder but not a catalog source: it has no {SITE_FILE} (content tree), "
        f"no {MANIFEST} (build directory)"
        + (f" and no {WEB_ROOT_GAMES} (web root)" if "web-root" in accept else "")
    )


def _file(path: Path, text: str, accept: frozenset[Kind], command: str) -> Located:
    name = path.name
    if name == SITE_FILE:
        label = path_text(Path(text).parent)
        return _accepted(Located("content", path.parent, label), accept, command)
    if name == MANIFEST:
        label = path_text(Path(text).parent)
        return _accepted(Located("build", path.parent, label), accept, command)
    if path.suffix.lower() in PAGE_SUFFIXES and "content" in accept:
        above = site_above(path.parent, inclusive=True)
        if above is None:
            raise InputError(
                f"{text} looks like a page, but neither its folder nor any folder above it "
                f"holds a site.toml; name the site's folder (the folder of site.toml)"
            )
        label = _relative(above)
        return Located(
            "content",
            above,
            label,
            note=f"checking the whole site at {label}, of which {text} is a page "
            "(ids are unique across a site)",
        )
    if "json" in accept:  # a games JSON document, whatever its name
        return Located("json", path, text)
    raise InputError(
        f"{text} is a file; `catalogctl {command}` reads {expected(accept)}"
        + (" — name that folder, or one of its pages" if "content" in accept else "")
    )


def _accepted(found: Located, accept: frozenset[Kind], command: str) -> Located:
    if found.kind in accept:
        return found
    raise InputError(
        f"{found.label} is {_WHAT[found.kind]}; `catalogctl {command}` reads {expected(accept)}"
    )


def _is_build(folder: Path) -> bool:
    return (folder / MANIFEST).is_file()


def site_above(start: Path, *, inclusive: bool = False) -> Path | None:
    """The nearest folder above `start` (or `start` itself, `inclusive`) holding site.toml."""
    # `..` removed as a shell does (`Path.absolute` keeps it, and `resolve` would follow
    # symlinks): the parents are then the folders the user sees above `start`.
    folder = Path(os.path.normpath(Path(start).absolute()))
    candidates = [folder, *folder.parents] if inclusive else list(folder.parents)
    for candidate in candidates:
        if (candidate / SITE_FILE).is_file():
            return candidate
    return None


def _relative(folder: Path) -> str:
    """`folder` as the user would type it from here: relative when it lies above or below."""
    here = Path.cwd()
    try:
        return path_text(folder.relative_to(here)) or "."
    except ValueError:
        pass
    for up, parent in enumerate(here.parents, start=1):
        if folder == parent:
            return "/".join([".."] * up)
    return path_text(folder)
