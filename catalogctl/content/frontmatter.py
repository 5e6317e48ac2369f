"""Front matter at the top of a page: YAML (`---` … `---` or `...`), TOML (`+++` … `+++`) or
JSON (a top-level `{…}` object), as Hugo, Zola and Jekyll read it.

Only the front matter is decoded and parsed; the Markdown body is the website's. A page is read
up to `MAX_FRONT_MATTER_BYTES` past its opening line: front matter that is not closed by then
is a `limit` finding, never a whole file in memory.
"""

from __future__ import annotations

import re

from catalogctl.content.document import Document, Problem
from catalogctl.content.jsondoc import object_end, read_json
from catalogctl.content.limits import MAX_FRONT_MATTER_BYTES
from catalogctl.content.tomldoc import read_toml
from catalogctl.content.yamldoc import read_yaml

HEAD_BYTES = MAX_FRONT_MATTER_BYTES + 4096  # what is read of a page at most
# A closing line: at the start of the block, or after a line end (the pattern starts with it, so
# the regex engine scans for the line end's byte instead of trying every position).
_YAML_CLOSE = re.compile(rb"(?:---|\.\.\.)[ \t]*\r?(?=\n|\Z)")
_TOML_CLOSE = re.compile(rb"\+\+\+[ \t]*\r?(?=\n|\Z)")
_YAML_CLOSE_LINE = re.compile(rb"\n(?:---|\.\.\.)[ \t]*\r?(?=\n|\Z)")
_TOML_CLOSE_LINE = re.compile(rb"\n\+\+\+[ \t]*\r?(?=\n|\Z)")
_BOM = b"\xef\xbb\xbf"
# Byte-order marks of the wide encodings (UTF-32's first: its little-endian mark starts with
# UTF-16's).
_WIDE_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)


def wide_encoding(raw: bytes) -> str | None:
    """The UTF-16 or UTF-32 encoding a file is saved in, by its byte-order mark or by the
    zero bytes of its first characters (text in these starts with ASCII: `---`, `+++`, `{`,
    a key); None for anything else."""
    head = raw[:4]
    if not head or (head[0] not in (0, 0xFE, 0xFF) and b"\x00" not in head[1:]):
        return None  # the common case: a first byte of text, then no zero byte
    for bom, name in _WIDE_BOMS:
        if raw.startswith(bom):
            return f"{name}, with a byte-order mark"
    if len(head) == 4:
        zero = [b == 0 for b in head]
        if zero == [True, True, True, False]:
            return "UTF-32 (big-endian)"
        if zero == [False, True, True, True]:
            return "UTF-32 (little-endian)"
        if zero == [True, False, True, False]:
            return "UTF-16 (big-endian)"
        if zero == [False, True, False, True]:
            return "UTF-16 (little-endian)"
    return None


def check_wide(raw: bytes) -> None:
    """An `encoding` problem for a UTF-16 or UTF-32 file, naming its encoding."""
    name = wide_encoding(raw)
    if name is not None:
        raise Problem("encoding", f"the file is saved as {name}; save it as UTF-8", 1, 1)


def decode(raw: bytes, line0: int = 1) -> str:
    """UTF-8 text, or an `encoding` problem at the line and column of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = line0 + raw.count(b"\n", 0, exc.start)
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise Problem(
            "encoding",
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as UTF-8",
            line,
            col,
        ) from None


def parse_page(raw: bytes, file: str, *, complete: bool) -> Document:
    """The front matter of a page whose first bytes are `raw` (`complete`: the whole file)."""
    check_wide(raw)
    bom = len(_BOM) if raw.startswith(_BOM) else 0  # the body's offset counts it
    raw = raw[bom:]
    if not raw.strip():
        raise Problem(
            "front-matter",
            "the file is empty; write the game's keys between two '---' lines (YAML front "
            "matter) at its top",
            1,
            1,
        )
    first_end = raw.find(b"\n")
    first = (raw if first_end < 0 else raw[:first_end]).rstrip()
    body = len(raw) if first_end < 0 else first_end + 1
    if first.startswith(b"{"):
        text = decode(raw if complete else raw[: raw.rfind(b"\n") + 1] or raw)
        end = object_end(text)  # raises when never closed, or too deep
        if end > MAX_FRONT_MATTER_BYTES:
            raise _too_big()
        doc = read_json(text[:end], file, 1, (1, 1))
        doc.body_at = bom + len(text[:end].encode("utf-8"))
        return doc
    if first == b"---":
        closing, later = _YAML_CLOSE, _YAML_CLOSE_LINE
    elif first == b"+++":
        closing, later = _TOML_CLOSE, _TOML_CLOSE_LINE
    else:
        raise Problem(
            "front-matter",
            "no front matter: the file must start with a '---' (YAML), '+++' (TOML) or '{' "
            "(JSON) line",
            1,
            1,
        )
    close: int | None = body if closing.match(raw, body) else None  # the closing line's start
    if close is None and (m := later.search(raw, body)) is not None:
        close = m.start() + 1
    if close is None:
        if not complete:
            raise _too_big()
        raise Problem(
            "front-matter",
            f"the front matter opened with {first.decode()!r} on line 1 is never closed; end "
            f"it with a {first.decode()!r} line",
            1,
            1,
        )
    if close - body > MAX_FRONT_MATTER_BYTES:
        raise _too_big()
    text = decode(raw[body:close], 2)
    doc = read_yaml(text, file, 2, (1, 1)) if first == b"---" else read_toml(text, file, 2, (1, 1))
    after = raw.find(b"\n", close)
    doc.body_at = bom + (len(raw) if after < 0 else after + 1)
    return doc


def _too_big() -> Problem:
    return Problem(
        "limit",
        f"the front matter is larger than {MAX_FRONT_MATTER_BYTES // 1024:,} KiB, the limit (or "
        "is never closed); close it, and keep long text in the page below it",
        1,
        1,
    )
