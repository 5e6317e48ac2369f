"""Finding the game pages under the games folder, as Hugo, Zola, Jekyll, Eleventy, Astro and
Next.js lay them out.

- `<id>.md`, `<id>.markdown`, `<id>.mdx` at any depth (sections are folders); a Jekyll-style
  `YYYY-MM-DD-<id>.md` name gives the id and, unless the page sets one, the date;
- `<id>/index.md` is a leaf bundle: the id is the folder's name, its other files are resources;
- `_index.md` (a section's own page) is skipped and counted; with `[content] sections`, one
  below the games folder is a game named by its folder (`<id>/_index.md`: a game with pages
  of its own);
- `<id>.<lang>.md` and `index.<lang>.md` are translations: only `[content] language` is read (an
  untagged page is in that language), the others are skipped and counted;
- pages that `[content] exclude` names (a privacy policy, a game's own sub-pages) are counted,
  not read;
- files whose names start with `.` or `_` (templates, drafts kept aside), repository files
  (README, LICENSE, CHANGELOG, CONTRIBUTING, AUTHORS) and files that are not pages are ignored,
  and counted by extension.

The content tree is a boundary: a symlink is followed only when its target stays inside the
tree (a loop, a dangling link or a target outside is a finding naming it); anything that is not
a regular file where a page is expected (a FIFO, a socket, a device) is a finding; a file name
whose bytes are not UTF-8 is a finding. A name is judged on its bytes, not on the locale's
decoding of them: under a C locale Python decodes `café.md` as ASCII with escapes, and it is
still a good name. Findings name files with `/` between folders on every OS. Nothing is
skipped without being counted or reported.

Why one module: the walk, the page-name rules and the boundary checks are one pass over the
tree, and each finding is made where the walk meets the file it names.
"""

import errno
import fnmatch
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Sequence
from typing import NamedTuple

from catalogctl.content.limits import MAX_DIR_DEPTH, MAX_PAGES

PAGE_SUFFIXES = (".md", ".markdown", ".mdx")
# A language tag in a file name: a two-letter code, with a region (`fr`, `pt-br`, `zh_CN`), or
# the configured language. `com.example.app.md` keeps its dots: "app" is not a language.
_LANG_RE = re.compile(r"[A-Za-z]{2}(?:[-_][A-Za-z0-9]{2,8})?")
# Repository files that live beside pages and are not pages.
NOT_PAGES = frozenset({"readme", "license", "licence", "changelog", "contributing", "authors"})
_JEKYLL_DATE_RE = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})-(.+)$")


_CANT_RESOLVE = 1921  # Windows' ERROR_CANT_RESOLVE_FILENAME: a symlink loop


class PageFile(NamedTuple):
    path: str  # what to open: the file, or the target of a symlink inside the tree
    file: str  # how findings name it
    id: str  # the id it gives unless the page sets a slug
    date: str | None = None  # from a Jekyll-style file name
    tagged: bool = False  # named with the language (`x.fr.md`), not untagged (`x.md`)
    key: str = ""  # the page and its translations share it: folder and name without language


class TreeProblem(NamedTuple):
    rule: str
    file: str
    message: str


class Discovery:
    """The pages found under a games folder, and what was skipped."""

    __slots__ = (
        "excluded",
        "ignored",
        "pages",
        "problems",
        "resources",
        "sections",
        "translations",
        "unmatched",
    )

    def __init__(self) -> None:
        self.pages: list[PageFile] = []
        self.unmatched: list[int] = []  # [content] exclude patterns (their index) naming none
        self.problems: list[TreeProblem] = []
        self.translations = 0
        self.sections = 0
        self.excluded = 0  # pages that [content] exclude names
        self.ignored: dict[str, int] = {}  # extension (".png", "" for none) -> files
        self.resources = 0

    def ignore(self, name: str, folder: bool = False) -> None:
        kind = "folder" if folder else os.path.splitext(name)[1].lower()
        self.ignored[kind] = self.ignored.get(kind, 0) + 1


def unreadable(exc: OSError, *, folder: bool = False, what: str = "") -> str:
    """What an `unreadable-file` finding says: the system's reason, and what to do about
    that reason (permissions, a FIFO or device where a file belongs, anything else)."""
    reason = exc.strerror or str(exc)
    denied = exc.errno in (errno.EACCES, errno.EPERM)
    if folder:
        fix = "let catalogctl read it (chmod a+rx)" if denied else "move it out of the content tree"
        return f"the folder cannot be listed ({reason}); {fix}"
    if denied:
        fix = "let catalogctl read it (chmod a+r)"
    elif exc.errno == 0:  # read_head: a FIFO, socket or device put in a file's place
        fix = "replace it with a regular file"
    else:
        fix = "fix what the system reports"
    if what != "site.toml":
        fix += ", or move it out of the content tree"
    return f"{what or 'the file'} cannot be read ({reason}); {fix}"


def safe_name(name: str) -> str:
    """A file name fit for a terminal: undecodable bytes and control characters escaped."""
    if name.isprintable():
        return name
    out = []
    for ch in name:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


# Names Windows gives to devices, whatever their extension and spaces before it (`aux.md`,
# `CON`, `com1.txt`, `nul .md`), the console's among them (`conin$.md`, `CONOUT$`).
_WINDOWS_DEVICES = re.compile(
    r"(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)"
    r" *(?:\..*)?",
    re.IGNORECASE,
)
_WINDOWS_REFUSES = re.compile(r'[<>:"|?*\\\x00-\x1f]')


def windows_name_problem(name: str) -> str | None:
    """Why Windows cannot hold a file or folder of this name (a checkout there fails), or
    None."""
    if _WINDOWS_DEVICES.fullmatch(name.rstrip(" .")):
        return f"{name.split('.', 1)[0].rstrip(' ')!r} names a device on Windows"
    m = _WINDOWS_REFUSES.search(name)
    if m is not None:
        return f"Windows refuses the character {m.group()!r} in a name"
    if name.endswith((".", " ")):
        return "Windows drops the dot or space a name ends with"
    return None


def name_text(name: str) -> str | None:
    """A file name as text: its bytes (`os.fsencode`) decoded as UTF-8; None when they are not
    UTF-8. The bytes, not the locale: a C locale decodes every byte above 0x7F as an escape."""
    if name.isascii():
        return name
    try:
        return os.fsencode(name).decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def split_page_name(name: str, language: str = "") -> tuple[str, str | None] | None:
    """`tidal.fr.md` → ("tidal", "fr"); `tidal.md` → ("tidal", None); None: not a page."""
    lower = name.lower()
    for suffix in PAGE_SUFFIXES:
        if lower.endswith(suffix):
            stem = name[: -len(suffix)]
            break
    else:
        return None
    base, dot, tag = stem.rpartition(".")
    if dot and base and (_LANG_RE.fullmatch(tag) or (language and tag.lower() == language)):
        return base, tag.lower().replace("_", "-")
    return stem, None


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _upper(name: str) -> str:
    """`name` as a case-insensitive file system compares it: each letter by its one-letter
    upper case, as NTFS's table maps it, so `ß` stays `ß` (`Straße.md` and `strasse.md` are
    two names there)."""
    return "".join(u if len(u := c.upper()) == 1 else c for c in name)


class _Walker:
    def __init__(
        self,
        root_real: str,
        language: str,
        excluded: Callable[[str], bool] | None = None,
        top: str = "",
        sections: bool = False,
    ) -> None:
        self.root_real = root_real
        self.language = language.lower().replace("_", "-")
        self.excluded = excluded
        self.sections = sections
        self.top = top.rstrip("/") + "/"  # how findings name the games folder, and a `/`
        self.found = Discovery()
        self.visited: set[tuple[int, int]] = set()

    def problem(self, rule: str, file: str, message: str) -> None:
        self.found.problems.append(TreeProblem(rule, file, message))

    def collides(self, name: str, shown: str, folded: dict[str, str]) -> None:
        """Two names of one folder that differ only in case (`Alpha.md`, `alpha.md`) or in
        how their accents are encoded (`café.md` composed and decomposed): a Windows or
        macOS checkout, whose file system takes them for one name, keeps only one."""
        key = _upper(unicodedata.normalize("NFC", name))
        other = folded.setdefault(key, name)
        if other != name:
            if _upper(other) == _upper(name):
                how, where = "in case", "Windows or macOS"
            else:
                how, where = "in how its accents are encoded (NFC, NFD)", "macOS"
            self.problem(
                "portable-name",
                shown,
                f"the name differs from {other!r} only {how}, so a checkout on {where} keeps "
                "only one of the two; rename one",
            )

    def portable(self, name: str, shown: str) -> None:
        """A name Windows cannot hold is a finding; the file is read all the same (the site
        works here, a checkout on Windows fails)."""
        windows = windows_name_problem(name)
        if windows is not None:
            self.problem(
                "portable-name",
                shown,
                f"{windows}, so the repository cannot be checked out there; rename it",
            )

    def resolve(self, path: str, shown: str) -> tuple[str, os.stat_result] | None:
        """The target of a symlink inside the tree and its stat, or None (a finding)."""
        try:
            real = os.path.realpath(path, strict=True)
        except OSError as exc:
            # ELOOP: 40 on Linux, 62 on macOS and the BSDs; Windows has none, and tells a loop
            # by ERROR_CANT_RESOLVE_FILENAME (errno EINVAL).
            loops = exc.errno == errno.ELOOP or getattr(exc, "winerror", None) == _CANT_RESOLVE
            what = "loops" if loops else "is dangling (its target does not exist)"
            self.problem(
                "broken-symlink",
                shown,
                f"the symlink {what}; point it at a file in the content tree, or remove it",
            )
            return None
        if not _inside(real, self.root_real):
            self.problem(
                "symlink-outside",
                shown,
                "the symlink leads out of the content tree, so it is not read; copy the file "
                "into the tree instead",
            )
            return None
        try:
            return real, os.stat(real)
        except OSError as exc:
            self.problem("unreadable-file", shown, unreadable(exc))
            return None

    def walk(self, top: str, shown_top: str) -> Discovery:
        stack: list[tuple[str, str, int]] = [(top, shown_top, 0)]
        try:
            st = os.stat(top)
            self.visited.add((st.st_dev, st.st_ino))
        except OSError:
            pass
        while stack:
            folder, shown, depth = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.problem("unreadable-file", shown, unreadable(exc, folder=True))
                continue
            subdirs = self.folder(folder, shown, depth, entries)
            stack.extend(reversed(subdirs))
        # A page written in the published language (`x.fr.md`) is read instead of its untagged
        # original (`x.md`, in the site's default language), as Hugo would show it.
        tagged = {p.key for p in self.found.pages if p.tagged}
        if tagged:
            kept = [p for p in self.found.pages if p.tagged or p.key not in tagged]
            self.found.translations += len(self.found.pages) - len(kept)
            self.found.pages = kept
        return self.found

    def folder(
        self, folder: str, shown: str, depth: int, entries: list[os.DirEntry[str]]
    ) -> list[tuple[str, str, int]]:
        found = self.found
        names = {e.name: e for e in entries}
        # A leaf bundle: the folder is the page, named by index.md (or index.<lang>.md).
        if depth > 0:
            index = [
                n
                for n in names
                if (s := split_page_name(n, self.language)) is not None and s[0] == "index"
            ]
            if index:
                base = os.path.basename(folder)
                bundle_id = name_text(base) or safe_name(base)
                for name in sorted(index):
                    self.page(names[name], name, shown, bundle_id)
                found.resources += len(entries) - len(index)
                return []
        # With [content] sections, a section's own page below the games folder is a game
        # named by its folder (a game with pages of its own: its privacy policy).
        section_id = None
        if depth > 0 and self.sections:
            base = os.path.basename(folder)
            section_id = name_text(base) or safe_name(base)
        subdirs: list[tuple[str, str, int]] = []
        prefix = shown if shown.endswith("/") else shown + "/"  # a child's name follows
        folded: dict[str, str] = {}  # a name as a case-insensitive file system sees it -> name
        for entry in entries:
            text = name_text(entry.name)
            if text is None:
                child = prefix + safe_name(entry.name)
                self.problem("file-name", child, "file name is not valid UTF-8; rename it")
                continue
            name = text
            child = prefix + name
            if name.startswith("."):
                found.ignore(name, entry.is_dir(follow_symlinks=False))
                continue
            self.collides(name, child, folded)
            self.portable(name, child)
            if self.excluded is not None and self._excluded_page(name, child, section_id):
                found.excluded += 1  # not read, nor looked at: a symlink, a FIFO, a page
                continue
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                is_link, is_dir = False, False
            if is_link:
                target = self.resolve(entry.path, child)
                if target is None:
                    continue
                if stat.S_ISDIR(target[1].st_mode):
                    self.subdir(target[0], target[1], child, depth, subdirs)
                else:
                    self.page(entry, name, shown, None, target, child, section_id)
                continue
            if is_dir:
                try:
                    # os.lstat, not entry.stat: on Windows a directory entry's stat has no
                    # device or inode (both 0), which tell a folder reached twice.
                    self.subdir(entry.path, os.lstat(entry.path), child, depth, subdirs)
                except OSError as exc:
                    self.problem("unreadable-file", child, unreadable(exc))
                continue
            self.page(entry, name, shown, None, None, child, section_id)
        return subdirs

    def _excluded_page(self, name: str, child: str, section_id: str | None) -> bool:
        """Whether an entry is a page (by its name) that [content] exclude names."""
        split = split_page_name(name, self.language)
        if split is None or split[0].lower() in NOT_PAGES:
            return False
        if split[0] == "_index" and section_id is None:
            return False  # a section page: counted as one
        assert self.excluded is not None
        return self.excluded(child.removeprefix(self.top))

    def subdir(
        self,
        path: str,
        st: os.stat_result,
        shown: str,
        depth: int,
        subdirs: list[tuple[str, str, int]],
    ) -> None:
        key = (st.st_dev, st.st_ino)
        if key in self.visited:
            self.problem(
                "broken-symlink",
                shown,
                "the folder is reached twice (a symlink that leads back, or a second way to "
                "it), so it is read once; remove the symlink that leads to it again",
            )
            return
        if depth + 1 > MAX_DIR_DEPTH:
            self.problem(
                "limit",
                shown,
                f"folders are nested deeper than {MAX_DIR_DEPTH} levels below the games folder, "
                "the limit, so the deeper ones are not read; move the pages up",
            )
            return
        self.visited.add(key)
        subdirs.append((path, shown, depth + 1))

    def page(
        self,
        entry: os.DirEntry[str],
        name: str,  # its name as text (`name_text`)
        shown: str,
        bundle_id: str | None,
        target: tuple[str, os.stat_result] | None = None,
        child: str = "",  # how findings name it, when the caller has it already
        section_id: str | None = None,  # the id a section's own page gives (`sections`)
    ) -> None:
        found = self.found
        child = child or f"{shown}/{name}"
        split = split_page_name(name, self.language)
        if split is None or split[0].lower() in NOT_PAGES:
            found.ignore(name)
            return
        stem, lang = split
        if stem == "_index":
            if section_id is None:
                found.sections += 1
                return
            bundle_id = section_id
        if bundle_id is None and (stem.startswith("_") or stem == "index"):
            # `index.md` directly in the games folder is the folder's own page, like `_index.md`.
            if stem == "index":
                found.sections += 1
            else:
                found.ignore(name)
            return
        if self.excluded is not None and self.excluded(child.removeprefix(self.top)):
            found.excluded += 1
            return
        if lang is not None and lang != self.language:
            found.translations += 1
            return
        path = self.regular_file(entry, target, child)
        if path is None:
            return
        if len(found.pages) >= MAX_PAGES:
            if len(found.pages) == MAX_PAGES:
                self.problem(
                    "limit",
                    child,
                    f"more than {MAX_PAGES:,} pages, the limit, so the rest are not read; keep "
                    "other files out of the games folder",
                )
            return
        game_id, date = (bundle_id, None) if bundle_id is not None else (stem, None)
        if bundle_id is None:
            m = _JEKYLL_DATE_RE.match(stem)
            if m:
                date, game_id = m.group(1), m.group(2)
        # What a page and its translations share: the folder and the stem (a bundle: the folder).
        key = f"{shown}/{stem if bundle_id is None else ''}"
        found.pages.append(PageFile(path, child, game_id, date, lang is not None, key))

    def regular_file(
        self, entry: os.DirEntry[str], target: tuple[str, os.stat_result] | None, child: str
    ) -> str | None:
        """The path to read a page from (a symlink's target inside the tree), or None (a
        finding: a link out of the tree, a FIFO, a device, …)."""
        path = entry.path
        try:
            if target is None and entry.is_symlink():
                target = self.resolve(path, child)
                if target is None:
                    return None
            if target is not None:
                path, st = target
                regular = stat.S_ISREG(st.st_mode)
            else:
                # The directory entry's own type where the file system gives it (no stat call);
                # read_head checks the type again on the opened file.
                regular = entry.is_file(follow_symlinks=False)
                if not regular:
                    st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            self.problem("unreadable-file", child, unreadable(exc))
            return None
        if regular:
            return path
        what = (
            "a FIFO"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a folder"
            if stat.S_ISDIR(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "not a regular file"
        )
        self.problem(
            "not-a-file",
            child,
            f"this is {what}, not a page file, so it is not read; replace it with a regular "
            "file, or move it out of the games folder",
        )
        return None


def discover(
    games_dir: str,
    shown: str,
    root: str,
    language: str,
    exclude: Sequence[str] = (),
    sections: bool = False,
) -> Discovery:
    """The pages under `games_dir` (inside the content tree `root`), and what was skipped;
    `exclude`: `[content] exclude`, the patterns of pages that are not games; `sections`:
    `[content] sections`, a section's own page below the games folder is a game."""
    excluding = excluder(exclude)
    walker = _Walker(os.path.realpath(root), language, excluding, shown, sections)
    found = walker.walk(games_dir, shown)
    if excluding is not None:
        found.unmatched = [i for i in range(len(exclude)) if i not in excluding.matched]
    return found


class Excluder:
    """`[content] exclude` as a test of a page's path (see `excluder`), which remembers every
    pattern that named a page (their index), so that one naming none can be reported. What
    the folders of a path match is worked out once per folder, not once per page in it."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.matched: set[int] = set()
        self.names: list[tuple[int, re.Pattern[str], bool]] = []  # (index, regex, folders only)
        self.paths: list[tuple[int, re.Pattern[str], bool]] = []
        self._folders: dict[str, frozenset[int]] = {}
        for i, pattern in enumerate(patterns):
            folders = pattern.endswith("/")
            core = pattern.strip("/")
            if not core:
                continue  # "/": no page
            regex = re.compile(fnmatch.translate(core))
            if "/" in core or pattern.startswith("/"):
                self.paths.append((i, regex, folders))
            else:
                self.names.append((i, regex, folders))

    def _folder(self, folder: str) -> frozenset[int]:
        """The patterns a folder of the games folder (its path from there) or a folder
        above it matches."""
        hits = self._folders.get(folder)
        if hits is None:
            parts = folder.split("/") if folder else []
            prefixes = ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]
            hits = frozenset(
                [i for i, regex, _ in self.names if any(regex.match(p) for p in parts)]
                + [i for i, regex, _ in self.paths if any(regex.match(p) for p in prefixes)]
            )
            self._folders[folder] = hits
        return hits

    def __call__(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        hits = self._folder(folder) | {
            i for i, regex, folders in self.names if not folders and regex.match(name)
        }
        hits |= {i for i, regex, folders in self.paths if not folders and regex.match(path)}
        self.matched |= hits
        return bool(hits)


def excluder(patterns: Sequence[str]) -> Excluder | None:
    """Whether a page (its path from the games folder, `/` between folders) is excluded, as
    `.gitignore` reads a pattern: one without `/` matches the page's file name or the name of
    a folder it is in (`privacy*`, `legal`); one ending in `/` only a folder's (`legal/`,
    `*/`); one with `/` elsewhere, or starting with it, the path of the page or of a folder
    it is in, from the games folder (`/legal`, `*/mechanics/*`; `*` matches `/` too).
    None without patterns."""
    return Excluder(patterns) if patterns else None
