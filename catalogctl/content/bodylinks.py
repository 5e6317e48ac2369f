"""Store links in a page's body, for `[content] body_links`.

Many sites keep their "Get it on Google Play" buttons in the page text. A store the front
matter does not give is read from the body: the first link, in the order of the text, on one
of the store's hosts that is a game's page (`catalogctl.content.storehosts`). A link is any
`http://` or `https://` URL of the text: a Markdown link (inline, a reference definition, an
autolink `<https://…>`), an HTML attribute (`href`, quoted either way or not at all, entities
such as `&amp;` decoded), a bare URL, and the arguments of Hugo shortcodes and partials,
Liquid includes and MDX components (`{{< button href="…" >}}`,
`{% include button.html url="…" %}`, `<Button href={"…"} />`). These are not links:

- text in fenced code blocks (```` ``` ```` or `~~~`), inline code on one line (`` `…` ``),
  `<code>…</code>`, Jekyll's `{% highlight %}` and Hugo's `{{< highlight >}}` blocks;
- comments: `<!-- … -->`, Hugo's `{{/* … */}}`, Liquid's `{% comment %}`, MDX's `{/* … */}`,
  and escaped shortcodes (`{{</* … */>}}`), which a page shows as text;
- images: a Markdown image's address (`![Get it on Google Play](…/badge.png)`), an attribute
  that names an image (`src`, `srcset`, `poster`, `image`, `icon`, `badge`, …), and any URL
  whose path ends in an image file's extension (`.png`, `.svg`, …): stores host their badges.

The scan is linear in the body: each regular expression is a single pass with no nested
repetition, every search starts where the last one ended, and the per-line tables (inline
code, Markdown brackets) are built once per line. At most `MAX_BODY_BYTES` of a body are read.

May import: catalogctl.content.storehosts, settings, discovery.
"""

import contextlib
import html
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from catalogctl.content.files import read_head
from catalogctl.content.storehosts import HostTable

MAX_BODY_BYTES = 1024 * 1024  # of a page's body, read for store links

# What the scan stops at: a fence at a line's start, a comment or code block opening, a run
# of backticks, a URL. Case-insensitive for the URL's scheme and the HTML and Liquid words.
# The lookahead names the characters each of them starts with, so that the regex engine skips
# to the next of those characters at C speed: a third fewer instructions for the scan, 11% for
# a validate of such pages (docs/architecture/performance.md).
_EVENT = re.compile(
    r"(?=[\n<{`hH])(?:\n[ \t]*(?P<fence>`{3,}|~{3,})"
    r"|(?P<skip><!--|\{\{<\s*/\*|\{\{%\s*/\*|\{\{-?\s*/\*|\{/\*"
    r"|\{%-?\s*(?i:comment)\s*-?%\}|\{%-?\s*(?i:highlight)\b|\{\{[<%]\s*(?i:highlight)\b"
    r"|<(?i:code)\b)"
    r"|(?P<tick>`+)"
    r"|(?P<url>[hH][tT][tT][pP][sS]?://))"
)
_FIRST_FENCE = re.compile(r"[ \t]*(?P<fence>`{3,}|~{3,})")  # a fence on the first line
# Where each skipped block ends (without an end: the body's end, as an unclosed comment).
_ENDS = {
    "<!--": re.compile(r"-->"),
    "{{<": re.compile(r"\*/\s*>\}\}"),
    "{{%": re.compile(r"\*/\s*%\}\}"),
    "{{": re.compile(r"\*/\s*-?\}\}"),
    "{/*": re.compile(r"\*/\s*\}"),
    "comment": re.compile(r"\{%-?\s*endcomment\s*-?%\}", re.IGNORECASE),
    "{%highlight": re.compile(r"\{%-?\s*endhighlight\s*-?%\}", re.IGNORECASE),
    "{{highlight": re.compile(r"\{\{[<%]\s*/\s*highlight\s*[>%]\}\}", re.IGNORECASE),
    "<code": re.compile(r"</code\s*>", re.IGNORECASE),
}
_TICKS = re.compile(r"`+")
_BRACKETS = re.compile(r"!?\[|\]")
_LINE_END = re.compile(r"\n")
# A URL runs to white space, a quote, an angle bracket, a backtick, a brace, a bracket, `|`,
# `\` or `^` (none of which a store link holds unescaped).
_URL_CHARS = re.compile(r"[^\s\"'<>`{}\[\]|\\^]*")
_TRAILING = ".,:;!?*_~"  # not part of a bare URL's end (GitHub's autolinks)
# Read backwards from a URL (the text before it, reversed): `](`, a Markdown destination...
_DEST_BEFORE = re.compile(r"[ \t]*<?[ \t]*\(\]")
# ...or `name=`, `name="`, `name={"` (an attribute, a shortcode or component argument).
_ATTR_BEFORE = re.compile(r"[\"'`]?[ \t]*\{?[ \t]*=[ \t]*([\w:.@-]{0,40}[A-Za-z_:@])")
# `{` then a backtick: a JavaScript template literal (MDX), not inline code.
_TEMPLATE_BEFORE = re.compile(r"[ \t]*\{")
_LOOK_BACK = 80  # characters before a URL that say what holds it
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Attributes whose value is an image or text, never where a link goes.
IMAGE_ATTRIBUTES = frozenset(
    {
        "src",
        "srcset",
        "data-src",
        "data-srcset",
        "poster",
        "image",
        "img",
        "icon",
        "badge",
        "logo",
        "thumbnail",
        "thumb",
        "cover",
        "background",
        "style",
        "alt",
        "title",
    }
)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".ico", ".bmp")


class BodyLink(NamedTuple):
    """A store link read from a page's body."""

    store: str  # the store's key in site.toml
    url: str  # as the page writes it, HTML entities decoded
    line: int  # in the file
    column: int  # characters from the line's start, from 1


class _Lines:
    """The line a position is on, and per-line tables made once each: inline code spans and
    Markdown brackets. Positions only move forward, so each character is looked at once."""

    __slots__ = ("brackets", "brackets_line", "code", "code_line", "end", "start", "text")

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.start = start  # the current line: its first character...
        self.end = start - 1  # ...and its line end (none yet)
        self.code_line = -1  # the line `code` describes
        self.code: dict[int, int] = {}  # opening backtick run -> end of its span
        self.brackets_line = -1
        self.brackets: dict[int, bool] = {}  # `]` -> whether its `[` opens an image (`![`)

    def at(self, pos: int) -> tuple[int, int]:
        """The start and end of the line holding `pos` (which is not before the last one)."""
        if pos > self.end:
            newline = _last_newline(self.text, max(self.end, self.start), pos)
            if newline >= 0:
                self.start = newline + 1
            m = _LINE_END.search(self.text, pos)
            self.end = m.start() if m else len(self.text)
        return self.start, self.end

    def code_spans(self, pos: int) -> dict[int, int]:
        """The code spans of the line from its first backtick run: a run and the next run of
        the same length pair up (CommonMark), a run without one is plain text."""
        start, end = self.at(pos)
        if self.code_line != start:
            runs = [(m.start(), m.end()) for m in _TICKS.finditer(self.text, pos, end)]
            later: dict[int, int] = {}  # run length -> index of the next run of that length
            following = [-1] * len(runs)
            for i in range(len(runs) - 1, -1, -1):
                n = runs[i][1] - runs[i][0]
                following[i] = later.get(n, -1)
                later[n] = i
            spans: dict[int, int] = {}
            i = 0
            while i < len(runs):
                j = following[i]
                if j < 0:
                    i += 1
                    continue
                spans[runs[i][0]] = runs[j][1]
                i = j + 1
            self.code_line, self.code = start, spans
        return self.code

    def image_closers(self, pos: int) -> dict[int, bool]:
        """Each `]` of the line, and whether the `[` it closes opens an image (`![`)."""
        start, end = self.at(pos)
        if self.brackets_line != start:
            stack: list[bool] = []
            closers: dict[int, bool] = {}
            for m in _BRACKETS.finditer(self.text, start, end):
                if m.group() == "]":
                    if stack:
                        closers[m.start()] = stack.pop()
                elif m.start() == 0 or self.text[m.start() - 1] != "\\":
                    stack.append(m.group() == "![")
            self.brackets_line, self.brackets = start, closers
        return self.brackets


def _last_newline(text: str, start: int, end: int) -> int:
    """The last line end of `text[start:end]`, or -1."""
    return text.rfind("\n", start, end)


def _is_link(text: str, pos: int, lines: _Lines) -> bool:
    """Whether the URL at `pos` is a link (not an image's address or a non-link attribute)."""
    start, _ = lines.at(pos)
    before = text[max(start, pos - _LOOK_BACK) : pos][::-1]
    dest = _DEST_BEFORE.match(before)
    if dest is not None:  # `](`: a link's or an image's destination
        closer = pos - dest.end()
        return not lines.image_closers(pos).get(closer, False)
    attr = _ATTR_BEFORE.match(before)
    if attr is not None:
        return attr.group(1)[::-1].lower() not in IMAGE_ATTRIBUTES
    return True


def _trim(url: str) -> str:
    """A URL without the punctuation that follows it in a sentence: trailing `.,:;!?*_~`, and
    a `)` that closes nothing in it (`(see https://…)`)."""
    end = len(url)
    unclosed = url.count(")") - url.count("(")
    while end:
        last = url[end - 1]
        if last == ")" and unclosed > 0:
            unclosed -= 1
        elif last not in _TRAILING:
            break
        end -= 1
    return url[:end]


def is_image(url: str) -> bool:
    """Whether a URL's path ends in an image file's extension."""
    path = url.split("#", 1)[0].split("?", 1)[0].lower()
    return path.endswith(IMAGE_EXTENSIONS)


def _skip_end(text: str, m: re.Match[str]) -> int:
    """Where a comment or code block that opens at `m` ends."""
    opener = m.group("skip").lower()
    if opener.startswith("{%"):
        key = "comment" if opener.endswith("}") else "{%highlight"
    elif opener.startswith("{{") and opener.endswith("highlight"):
        key = "{{highlight"
    elif opener.startswith(("{{<", "{{%")):
        key = opener[:3]
    elif opener.startswith("{{"):
        key = "{{"
    else:
        key = opener
    end = _ENDS[key].search(text, m.end())
    return end.end() if end is not None else len(text)


def _fence_end(text: str, m: re.Match[str]) -> int:
    """The end of a fenced code block opened at `m` (without a closing fence: the body's)."""
    fence = m.group("fence")
    closing = _FENCE_CLOSE.get((fence[0], len(fence)))
    if closing is None:
        closing = re.compile(
            rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*\r?$", re.MULTILINE
        )
        _FENCE_CLOSE[(fence[0], len(fence))] = closing
    line_end = _LINE_END.search(text, m.end())
    if line_end is None:
        return len(text)
    end = closing.search(text, line_end.end())
    return end.end() if end is not None else len(text)


_FENCE_CLOSE: dict[tuple[str, int], re.Pattern[str]] = {}


def links(
    text: str, start: int = 0, wanted: Callable[[str], bool] | None = None
) -> Iterator[tuple[int, str]]:
    """Every link of the text from `start` that is not in code or a comment, in order: its
    position and the URL as written (images' addresses and image files left out). `wanted`:
    the URLs worth telling a link from an image's address (the others are passed over)."""
    lines = _Lines(text, start)
    pos = start
    first = _FIRST_FENCE.match(text, pos)
    if first is not None and (pos == 0 or text[pos - 1] == "\n"):
        pos = _fence_end(text, first)
    while True:
        m = _EVENT.search(text, pos)
        if m is None:
            return
        kind = m.lastgroup
        if kind == "fence":
            pos = _fence_end(text, m)
        elif kind == "skip":
            pos = _skip_end(text, m)
        elif kind == "tick":
            if _TEMPLATE_BEFORE.match(text[max(start, m.start() - 8) : m.start()][::-1]):
                pos = m.end()  # `{`…`}`: a template literal of a component's argument
            else:
                pos = lines.code_spans(m.start()).get(m.start(), m.end())
        else:
            at = m.start()
            end = _URL_CHARS.match(text, m.end())
            pos = end.end() if end is not None else m.end()
            url = _trim(text[at:pos])
            if wanted is not None and not wanted(url):
                continue
            if not is_image(url) and _is_link(text, at, lines):
                yield at, url


def store_links(
    text: str, start: int, table: HostTable, wanted: Iterable[str]
) -> dict[str, tuple[int, str]]:
    """For each store key of `wanted`, the first link of the text on one of its hosts: its
    position and URL (HTML entities decoded)."""
    want = set(wanted)
    found: dict[str, tuple[int, str]] = {}

    def open_store(url: str) -> bool:
        key = table.store_of(url)
        return key is not None and key in want and key not in found

    if not want:
        return found
    for at, url in links(text, start, open_store):
        key = table.store_of(url)
        assert key is not None
        found[key] = (at, _ENTITY.sub(lambda e: html.unescape(e.group()), url))
        if len(found) == len(want):
            break
    return found


class PageBody:
    """A page's body, read when a store is to be looked for in it."""

    __slots__ = ("complete", "path", "raw", "start")

    def __init__(self, path: str, raw: bytes, complete: bool, start: int) -> None:
        self.path = path  # the file (read again, further, when its body was cut)
        self.raw = raw  # the bytes read so far: the front matter and the start of the body
        self.complete = complete
        self.start = start  # the body's first byte

    def links(self, table: HostTable, wanted: Iterable[str]) -> tuple[list[BodyLink], int | None]:
        """The first link of each wanted store, in the order of the text; and, when the body
        is longer than the limit, the line where reading stopped."""
        raw, complete = self.raw, self.complete
        end = self.start + MAX_BODY_BYTES
        if not complete and len(raw) < end:
            # It was read a moment ago; if it cannot be now, the part already read is the body.
            with contextlib.suppress(OSError):
                raw, complete = read_head(self.path, end)
        cut = len(raw) > end or (not complete and len(raw) >= end)
        text = raw[self.start : end].decode("utf-8", "replace")
        found = store_links(text, 0, table, wanted)
        first_line = raw.count(b"\n", 0, self.start) + 1
        # Characters before the body on its first line (after JSON front matter's `}`).
        before = len(
            raw[raw.rfind(b"\n", 0, self.start) + 1 : self.start].decode("utf-8", "replace")
        )
        out: list[BodyLink] = []
        for key, (at, url) in sorted(found.items(), key=lambda item: item[1][0]):
            newline = text.rfind("\n", 0, at)
            column = at - newline if newline >= 0 else before + at + 1
            out.append(BodyLink(key, url, first_line + text.count("\n", 0, at), column))
        return out, first_line + text.count("\n") if cut else None
