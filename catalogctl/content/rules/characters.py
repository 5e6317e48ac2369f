"""Control and invisible characters in published text, and the vocabularies of site.toml.

A game's name, description, platforms and genres, and site.toml's title, description, store
names and vocabularies, are published: the games JSON escapes only the C0 controls (as JSON
must) and holds DEL, the C1 controls, the bidirectional controls and the rest as they are,
and whatever it escapes, a client shows the text as it is, on a web page, in an app or on the
terminal of whoever runs `curl`. `control-character` (an error) is a character that acts
instead of showing: a C0 or C1 control or DEL (ESC starts a terminal's command), a
bidirectional override (U+202E shows the text after it backwards), an embedding or isolate
left open at the end of the value or a pop with none open, a line break in one-line text, a
lone surrogate or a noncharacter. `invisible-character` (a warning) is one that shows nothing,
so the text is not what it reads: a zero-width space, a word joiner, a byte order mark, a
direction mark, a Hangul filler, a tag character outside a flag's tag sequence, a joiner with
no letter or emoji beside it to join.

Allowed: a description's line breaks (LF, CRLF) and tabs, as multi-line YAML and TOML write
them; embeddings and isolates closed within the value (W3C's advice for text of the other
direction: `\u2066Moon Lander\u2069` in Arabic text); U+200D and U+200C after a letter or
mark that is not ASCII (a Malayalam chillu, a Bengali khanda-ta, after a virama) or between
two characters that are not ASCII (an emoji sequence, a Persian or Devanagari word); a flag's
tag sequence (U+1F3F4, 1 to 7 tag digits or small letters, U+E007F CANCEL TAG); NBSP and every
other space, which show as one.

Each value is searched once by one compiled pattern, and the common value, which holds none,
costs that search alone; a value that holds a bidirectional control gets one walk over those
controls, to pair each embedding and isolate with its pop. A value that holds some is
reported once a rule, at its position, naming the first character by its code point and name
and counting the others.

Why one module: both rules are found by the one pattern, in the one pass that the common value
costs, and what each character found does (its rule, its words) is told beside that pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from catalogctl.urls import shown

if TYPE_CHECKING:
    from catalogctl.content.settings import GamePage, SiteSettings

# Reports a finding at the value of a location: add(rule, ("platforms", 2), message).
Add = Callable[[str, tuple[Any, ...], str], None]

CONTROL = "control-character"
INVISIBLE = "invisible-character"

# Unicode's names of the C0 controls (U+0000 …) and of DEL and the C1 controls (U+007F …):
# UnicodeData gives them none; these are their aliases (NameAliases.txt), which
# unicodedata.lookup() reads back (a test checks each).
_C0 = (
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "ALERT",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE",
    "INFORMATION SEPARATOR TWO",
    "INFORMATION SEPARATOR ONE",
)
_C1 = (
    "DELETE",
    "PADDING CHARACTER",
    "HIGH OCTET PRESET",
    "BREAK PERMITTED HERE",
    "NO BREAK HERE",
    "INDEX",
    "NEXT LINE",
    "START OF SELECTED AREA",
    "END OF SELECTED AREA",
    "CHARACTER TABULATION SET",
    "CHARACTER TABULATION WITH JUSTIFICATION",
    "LINE TABULATION SET",
    "PARTIAL LINE FORWARD",
    "PARTIAL LINE BACKWARD",
    "REVERSE LINE FEED",
    "SINGLE SHIFT TWO",
    "SINGLE SHIFT THREE",
    "DEVICE CONTROL STRING",
    "PRIVATE USE ONE",
    "PRIVATE USE TWO",
    "SET TRANSMIT STATE",
    "CANCEL CHARACTER",
    "MESSAGE WAITING",
    "START OF GUARDED AREA",
    "END OF GUARDED AREA",
    "START OF STRING",
    "SINGLE GRAPHIC CHARACTER INTRODUCER",
    "SINGLE CHARACTER INTRODUCER",
    "CONTROL SEQUENCE INTRODUCER",
    "STRING TERMINATOR",
    "OPERATING SYSTEM COMMAND",
    "PRIVACY MESSAGE",
    "APPLICATION PROGRAM COMMAND",
)

# What each character found does, and what to do about it.
Why = tuple[str, str]
_REMOVE = "remove it"
_ACTS: Why = ("a control character, which a terminal acts on instead of showing it", _REMOVE)
_OVERRIDE: Why = (
    "a bidirectional override, which reorders how the text after it is shown",
    _REMOVE,
)
_UNCLOSED: Why = (
    "a bidirectional embedding or isolate left open at the end of the text, which reorders "
    "how the text after it is shown",
    "close it (U+2069 POP DIRECTIONAL ISOLATE after an isolate, U+202C POP DIRECTIONAL "
    "FORMATTING after an embedding), or remove it",
)
_UNOPENED: Why = (
    "a pop of a bidirectional embedding or isolate with none open, which reorders how the "
    "text after it is shown",
    _REMOVE,
)
_BREAK: Why = ("a line break, in text shown on one line", "write the text on one line")
_TAB: Why = ("a tab, in text shown on one line", "write a space in its place")
_NEWLINE = "write a newline in its place"
_SEPARATOR: Why = ("a line separator, which most clients do not show as a line break", _NEWLINE)
_RETURN: Why = (
    "a carriage return without a line feed, which takes a terminal back to the start of the "
    "line, over what it showed",
    _NEWLINE,
)
_SURROGATE: Why = ("half of a UTF-16 surrogate pair, which UTF-8 text cannot carry", _REMOVE)
_NONCHARACTER: Why = ("a noncharacter, which is not text", _REMOVE)
_HIDDEN: Why = (
    "an invisible character, so the text is not what it shows (a search, or a client "
    "comparing it, misses it)",
    _REMOVE,
)
_MARK: Why = ("an invisible direction mark", "remove it, unless right-to-left text needs it")
_JOINER: Why = ("a zero-width joiner with no letter or emoji beside it to join", _REMOVE)
_TAGGED: Why = (
    "an invisible tag character: text that a reader does not see and a program does",
    _REMOVE,
)
# A YAML block scalar (`name: >`) ends with a line break unless written `>-` or `|-`.
_LAST_BREAK = "remove it (a YAML block scalar keeps its last line break unless written >- or |-)"

# Zero-width and blank characters with no use in plain text (the Hangul fillers, U+115F,
# U+1160, U+3164 and U+FFA0, show nothing).
_HANGUL_FILLERS = "\u115f\u1160\u3164\uffa0"
_ZERO_WIDTH = f"\u200b\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb{_HANGUL_FILLERS}"
_MARKS = "\u061c\u200e\u200f"
_BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
# Always found, in any text: DEL and C1, the bidirectional controls (whose balance is then
# walked), U+2028/U+2029, lone surrogates, U+FFFE/U+FFFF, the invisible characters; a joiner
# beside ASCII, white space or an end of the text (one after a letter or mark that is not
# ASCII is then let be); a run of tag characters, with the U+1F3F4 before it (a flag's run is
# then let be).
_ANYWHERE = (
    rf"[\x7f-\x9f{_BIDI_CONTROLS}\u2028\u2029\ud800-\udfff\ufffe\uffff{_ZERO_WIDTH}{_MARKS}]"
    r"|(?<![^\x00-\x7f\s])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\s])"
    r"|\U0001f3f4?[\U000e0000-\U000e007f]+"
)
# A flag's tag sequence (England: U+1F3F4, tags g b e n g, CANCEL TAG), at the start of a run.
_FLAG = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,7}\U000e007f")
_BIDI = re.compile(f"[{_BIDI_CONTROLS}]")
_BIDI_CHARS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_OVERRIDES = "\u202d\u202e"
_ISOLATE_OPEN, _ISOLATE_POP = "\u2066\u2067\u2068", "\u2069"
_EMBEDDING_POP = "\u202c"  # pops an embedding or an override (U+202A, U+202B, U+202D, U+202E)
_ONE_LINE = re.compile(rf"[\x00-\x1f]|{_ANYWHERE}")
# A description keeps its tabs and line breaks (LF, CRLF).
_LINES = re.compile(rf"[\x00-\x08\x0b\x0c\x0e-\x1f]|\r(?!\n)|{_ANYWHERE}")


def _whys() -> dict[str, tuple[str, Why]]:
    whys: dict[str, tuple[str, Why]] = {}
    for chars, rule, why in (
        ("\u2028\u2029\n\r\x0b\x0c\x85", CONTROL, _BREAK),
        ("\t", CONTROL, _TAB),
        ("\ufffe\uffff", CONTROL, _NONCHARACTER),
        ("\u200c\u200d", INVISIBLE, _JOINER),
        (_MARKS, INVISIBLE, _MARK),
    ):
        whys.update(dict.fromkeys(chars, (rule, why)))
    for start, end in ((0x200B, 0x200B), (0x2060, 0x2064), (0x206A, 0x206F), (0xFFF9, 0xFFFB)):
        whys.update(dict.fromkeys(map(chr, range(start, end + 1)), (INVISIBLE, _HIDDEN)))
    whys.update(dict.fromkeys(f"\ufeff{_HANGUL_FILLERS}", (INVISIBLE, _HIDDEN)))
    return whys


_WHY = _whys()
# In a description, the line separators and a lone CR are said otherwise (LF is allowed).
_WHY_IN_LINES: dict[str, tuple[str, Why]] = {
    "\u2028": (CONTROL, _SEPARATOR),
    "\u2029": (CONTROL, _SEPARATOR),
    "\r": (CONTROL, _RETURN),
    "\x0b": (CONTROL, _ACTS),
    "\x0c": (CONTROL, _ACTS),
    "\x85": (CONTROL, _ACTS),
}


def _why(ch: str, lines: bool) -> tuple[str, Why]:
    """The rule a character found breaks, and what it does."""
    known = (_WHY_IN_LINES.get(ch) if lines else None) or _WHY.get(ch)
    if known is not None:
        return known
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return CONTROL, _SURROGATE
    return CONTROL, _ACTS


def _unbalanced(value: str) -> dict[int, Why]:
    """The bidirectional controls of `value` that a client would let reorder the text after
    them, by position: each override, each embedding or isolate left open at the end, and
    each pop with none open. As UAX #9 pairs them, approximately: U+2069 pops the last isolate
    open (U+2066 to U+2068), U+202C the last embedding or override (U+202A, U+202B, U+202D,
    U+202E); a count of each kind is its nesting."""
    found: dict[int, Why] = {}
    isolates: list[int] = []  # the positions of those open
    embeddings: list[int] = []
    for m in _BIDI.finditer(value):
        ch, at = m.group(), m.start()
        opened = isolates if ch in _ISOLATE_OPEN or ch == _ISOLATE_POP else embeddings
        if ch not in (_ISOLATE_POP, _EMBEDDING_POP):
            opened.append(at)
            if ch in _OVERRIDES:
                found[at] = _OVERRIDE  # closed or not: U+202E shows text backwards
        elif opened:
            opened.pop()
        else:
            found[at] = _UNOPENED
    for at in isolates + embeddings:
        found.setdefault(at, _UNCLOSED)
    return found


def _tags(run: str, at: int) -> Iterator[tuple[int, str, str, Why]]:
    """The tag characters of a run of them found at `at` (after U+1F3F4, if it starts with
    it) that are not a flag's tag sequence."""
    flag = _FLAG.match(run)
    skip = flag.end() if flag else int(run[0] == "\U0001f3f4")
    for i in range(skip, len(run)):
        yield at + i, run[i], INVISIBLE, _TAGGED


def _joins(before: str) -> bool:
    """Whether a joiner after `before` joins it: a letter or a mark that is not ASCII (a
    Malayalam chillu or Bengali khanda-ta is a consonant, a virama and U+200D)."""
    if before.isascii():
        return False
    import unicodedata  # only for a value that holds a joiner

    return unicodedata.category(before)[0] in "LM"


def _found(
    pattern: re.Pattern[str], value: str, start: int, lines: bool
) -> Iterator[tuple[int, str, str, Why]]:
    """Each character of `value` from `start` on that breaks a rule: its position, itself, the
    rule and what it does."""
    bidi: dict[int, Why] | None = None  # walked once, at the first bidirectional control
    for m in pattern.finditer(value, start):
        at, ch = m.start(), m.group()
        if "\U000e0000" <= ch[-1] <= "\U000e007f":
            yield from _tags(ch, at)
        elif ch in _BIDI_CHARS:
            if bidi is None:
                bidi = _unbalanced(value)
            if at in bidi:
                yield at, ch, CONTROL, bidi[at]
        elif not (at and ch in "\u200c\u200d" and _joins(value[at - 1])):
            yield at, ch, *_why(ch, lines)


def char_name(ch: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`: a character by its code point and its name (a control
    character by its alias, a lone surrogate by its code point alone)."""
    code = ord(ch)
    if code < 0x20:
        name = _C0[code]
    elif 0x7F <= code <= 0x9F:
        name = _C1[code - 0x7F]
    else:
        import unicodedata  # only for a value that holds such a character

        name = unicodedata.name(ch, "")
    return f"U+{code:04X} {name}".rstrip()


def _excerpt(value: str, at: int) -> str:
    """The value quoted, escaped as Python writes it; a long one cut around position `at`."""
    if len(value) <= 60:
        return shown(value)
    start, end = max(0, at - 25), min(len(value), at + 25)
    return repr(("…" if start else "") + value[start:end] + ("…" if end < len(value) else ""))


def text_problems(value: str, *, lines: bool = False) -> dict[str, str]:
    """What `value`, a published text, holds that it should not: a message for each rule
    broken (`control-character`, `invisible-character`). `lines`: text of several lines (a
    description), whose line breaks and tabs are its own."""
    pattern = _LINES if lines else _ONE_LINE
    first = pattern.search(value)
    if first is None:
        return {}  # the common case: one search
    firsts: dict[str, tuple[int, str, Why]] = {}  # rule -> the first character found
    others: dict[str, list[str]] = {}  # rule -> up to 3 other characters found
    counts: dict[str, int] = {}
    for at, ch, rule, why in _found(pattern, value, first.start(), lines):
        counts[rule] = counts.get(rule, 0) + 1
        if rule not in firsts:
            firsts[rule], others[rule] = (at, ch, why), []
        elif ch != firsts[rule][1] and ch not in others[rule] and len(others[rule]) < 3:
            others[rule].append(ch)
    messages: dict[str, str] = {}
    for rule, (at, ch, (what, fix)) in firsts.items():
        # Not in a description: a line break at the end of a name, from a block scalar.
        last_break = ch == "\n" and at == len(value) - 1
        also = ""
        if counts[rule] > 1:
            names = " and ".join(char_name(c) for c in others[rule])
            among = f", among them {names}" if names else ""
            also = f" ({counts[rule]} such characters in the text{among})"
        messages[rule] = (
            f"{_excerpt(value, at)} holds {char_name(ch)} at character {at + 1}, {what}; "
            f"{_LAST_BREAK if last_break else fix}{also}"
        )
    return messages


def check_text(value: str, loc: tuple[Any, ...], add: Add, *, lines: bool = False) -> None:
    """A finding for each rule that `value`, published at `loc`, breaks."""
    for rule, message in text_problems(value, lines=lines).items():
        add(rule, loc, message)


def check_page_text(src: GamePage, missing: Iterable[str], add: Add) -> None:
    """A game's published text: its name, description, platforms and genres (a blank item of
    a list too); the values that validated (`missing`: those that did not)."""
    for name in ("name", "description"):
        if name not in missing:
            check_text(getattr(src, name), (name,), add, lines=name == "description")
    for name in ("platforms", "genres"):
        if name not in missing:
            for i, value in enumerate(getattr(src, name)):
                if not value.strip():
                    add("empty-value", (name, i), "is blank; give it a value, or remove it")
                else:
                    check_text(value, (name, i), add)


def check_site_text(site: SiteSettings, add: Add) -> None:
    """site.toml's published text: its title and description, each store's name, and each
    name of its vocabularies, which must also be given once each and not blank."""
    check_text(site.title, ("title",), add)
    check_text(site.description, ("description",), add, lines=True)
    for key, store in site.stores.items():
        check_text(store.name, ("stores", key, "name"), add)
    for name in ("platforms", "genres"):
        vocabulary = getattr(site, name)
        if vocabulary is not None:
            _check_vocabulary(name, vocabulary, add)


def _check_vocabulary(name: str, values: list[str], add: Add) -> None:
    """A list of names in site.toml: each a name, given once (in any case)."""
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        if not value.strip():
            add("empty-value", (name, i), "is blank; remove it, or give it a value")
            continue
        check_text(value, (name, i), add)
        j = seen.setdefault(value.casefold(), i)
        if j == i:
            continue
        first = values[j]
        if first == value:
            add("duplicate-value", (name, i), f"{shown(value)} is listed twice; remove one")
        else:
            add(
                "duplicate-value",
                (name, i),
                f"{shown(value)} differs from {shown(first)} only in case, so a page may list "
                "either and a client that looks for one misses the other; keep one",
            )
