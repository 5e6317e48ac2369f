"""Content negotiation and entity tags: Accept-Encoding, If-Match and If-None-Match values.

Pure functions over header values (text), cached by value: a server sees the same few
values over and over. Both engines reach them through `Table.respond`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

# RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ). Anything
# else (`q=inf`, `q=1_0`, `q=2`, `q=0.1234`, `q=-1`, `q=`, spaces around `=`) is not a
# qvalue; the element then counts as q=0, the rule nginx's own gzip parser applies.
_QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_OWS = " \t"


def parse_accept_encoding(value: str) -> dict[str, float]:
    """`gzip;q=0.5, br` → {"gzip": 0.5, "br": 1.0} (RFC 9110 §12.5.3).

    An element is `coding [ OWS ";" OWS "q=" qvalue ]`; an element with any other parameter,
    or a q-value outside the grammar, counts as q=0. Coding names are case-insensitive; when a
    coding is listed twice, the first element counts (as in nginx's own parser).
    """
    weights: dict[str, float] = {}
    for item in value.split(","):
        coding, semicolon, weight = item.partition(";")
        coding = coding.strip(_OWS).lower()
        if not coding or _TOKEN.fullmatch(coding) is None:
            continue
        q = 1.0
        if semicolon:
            weight = weight.lstrip(_OWS).rstrip(_OWS)
            raw = weight[2:] if weight[:2] in ("q=", "Q=") else None
            q = float(raw) if raw is not None and _QVALUE.fullmatch(raw) else 0.0
        if coding == "x-gzip":  # RFC 9110 §8.4.1.3: an alias of gzip
            coding = "gzip"
        weights.setdefault(coding, q)  # a coding listed twice: the first element counts
    return weights


@lru_cache(maxsize=1024)
def choose_encoding(accept_encoding: str | None, available: tuple[str, ...]) -> str:
    """The content coding to send: the highest q-value, ties by `available` order (br first),
    identity last.

    No header means identity (RFC 9110 §12.5.3 allows any coding, but a client that sends no
    Accept-Encoding is often one that cannot decode). Identity is the fallback when nothing
    listed is available, even when the client ruled it out: sending the plain bytes beats 406.
    """
    if not accept_encoding or not available:
        return "identity"
    weights = parse_accept_encoding(accept_encoding)
    star = weights.get("*")
    best, best_q = "identity", 0.0
    for coding in available:
        q = weights.get(coding, star if star is not None else 0.0)
        if q > best_q:
            best, best_q = coding, q
    if best == "identity":
        return best
    # Identity wins only when the client explicitly prefers it over every coding offered.
    return "identity" if weights.get("identity", 0.0) > best_q else best


# --- entity tags (RFC 9110 §8.8.3) ------------------------------------------------------------

# entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text
_ENTITY_TAG = re.compile(r'(W/)?("[\x21\x23-\x7e\x80-\xff]*")')


@lru_cache(maxsize=1024)
def entity_tags(value: str) -> tuple[tuple[bool, str], ...] | None:
    """The `(weak, opaque-tag)` pairs of an If-Match / If-None-Match list; `()` for `*`;
    None when the field is malformed (one bad element spoils it: it then never matches)."""
    text = value.strip(_OWS)
    if text == "*":
        return ()
    tags: list[tuple[bool, str]] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t,":  # empty list elements are allowed (§5.6.1)
            pos += 1
        if pos == end:
            return tuple(tags) if tags else None
        found = _ENTITY_TAG.match(text, pos)
        if found is None:
            return None
        tags.append((found.group(1) is not None, found.group(2)))
        pos = found.end()
        while pos < end and text[pos] in _OWS:
            pos += 1
        if pos < end and text[pos] != ",":
            return None


def if_match_passes(if_match: str, etag: str) -> bool:
    """If-Match (RFC 9110 §13.1.1): `*`, or a listed tag that is a *strong* match of `etag`
    (a `W/` tag never matches). Called only for a route that would answer 200."""
    tags = entity_tags(if_match)
    if tags is None:
        return False
    if not tags:
        return True
    weak_etag = etag.startswith("W/")
    return not weak_etag and any(not weak and tag == etag for weak, tag in tags)


def etag_matches(if_none_match: str, etag: str) -> bool:
    """If-None-Match (RFC 9110 §13.1.2): `*`, or a listed tag that is a *weak* match of
    `etag` (`W/` ignored on both sides). Elements that are not entity tags are skipped, as
    nginx and the edge worker skip them (a cache may only lose a 304 by it)."""
    value = if_none_match.strip(_OWS)
    if value == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == opaque for tag in _split_etags(value))


def _split_etags(value: str) -> Iterator[str]:
    # Entity tags cannot contain '"' inside, but may contain ',' — split on quotes, not commas.
    i, n = 0, len(value)
    while i < n:
        while i < n and value[i] in " \t,":
            i += 1
        if i >= n:
            return
        start = i
        if value.startswith("W/", i):
            i += 2
        if i < n and value[i] == '"':
            end = value.find('"', i + 1)
            if end < 0:
                return
            yield value[start : end + 1]
            i = end + 1
        else:  # not an entity tag: skip to the next comma
            end = value.find(",", i)
            i = n if end < 0 else end + 1
