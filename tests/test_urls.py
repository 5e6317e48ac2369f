"""The one URL checker: what passes can be put in HTML, a header or an nginx config as is."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from catalogctl.urls import is_url, url_problem

GOOD = [
    "https://games.example.com",
    "https://games.example.com/",
    "HTTPS://Games.Example.COM/x",
    "https://apps.apple.com/app/x/id123?pt=1&ct=a#top",
    "https://[2001:db8::1]:8443/x",
    "https://192.0.2.1/icons/x.png",
    "https://cdn.example.com/a%20b.png",
    "https://example.com:8443",
    "https://a_b.example.com/",
    "https://h/?q=a:b@c/d!$&()*+,;=~",
]

BAD = [
    ("http://games.example.com", "https://"),
    ('https://x.example/"><script>alert(1)</script>', "quote"),
    ("https://x.example/it's", "quote"),
    ("https://x.example/<b>", "angle bracket"),
    ("https://x.example/a b", "white space"),
    ("https://x.example/a\tb", "white space"),
    ("https://x.example/\x1b[31m", "control character"),
    ("https://x.example/\x00", "control character"),
    ("https://x.example/a\\b", "percent-encode"),
    ("https://x.example/\u202e", "non-ASCII"),
    ("https://café.example/", "xn--"),
    ("https://", "no host"),
    ("https:///path", "no host"),
    ("https:x.example", "host"),
    ("//x.example/a", "absolute"),
    ("/icons/x.png", "absolute"),
    ("x.example", "absolute"),
    ("", "empty"),
    ("javascript:alert(1)", "https://"),
    ("https://bank.example@evil.example/", "user name"),
    ("https://x.example:99999/", "port"),
    ("https://x.example:/", "empty port"),
    ("https://x.example:8o/", "port"),
    ("https://1.2.3.999/", "IPv4"),
    ("https://[::1/", "unclosed"),
    ("https://[nope]/", "IPv6"),
    ("https://-bad-.example/", "host name"),
    ("https://x.example/%zz", "%XX"),
    ("https://x.example/%4", "%XX"),
    ("https://x.example/a#b#c", "'#'"),
    ("https://x.example/[x]", "'['"),
    ("https://x.example/\r\nSet-Cookie: a=b", "white space"),
    ("https://x.example/" + "a" * 5000, "limit"),
]


@pytest.mark.parametrize("url", GOOD)
def test_good_urls_pass(url: str) -> None:
    assert url_problem(url) is None
    assert is_url(url)


@pytest.mark.parametrize(("url", "words"), BAD)
def test_bad_urls_say_why(url: str, words: str) -> None:
    problem = url_problem(url)
    assert problem is not None
    assert words in problem
    # The reason never carries raw control characters to a terminal.
    assert problem.isprintable()


def test_schemes_can_allow_http_for_local_serving() -> None:
    assert url_problem("http://127.0.0.1:8000", schemes=("http", "https")) is None
    assert url_problem("ftp://x.example", schemes=("http", "https")) is not None


def test_non_strings_are_refused() -> None:
    assert url_problem(42) == "must be a string"
    assert url_problem(None) == "must be a string"


# Pieces of URLs, biased towards the characters and shapes each check looks at.
_PIECES = [
    *["https://", "http://", "HTTPS://", "ftp://", "//", "/", "?", "#", "&", "=", "%", "%2F"],
    *["%zz", "@", ":", ":8443", ":", "[", "]", "[::1]", "'", '"', " ", "\t", "<", "é", "_"],
    *["apps.apple.com", "play.google.com", "localhost", "127.0.0.1", "0x7f.1", "-bad-", "."],
    *["a", "B", "9", "id123", "x.png", "..", "~", "!$&()*+,;=", "xn--"],
]
_URLISH = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@settings(max_examples=1000, deadline=None)
@given(value=st.one_of(_URLISH, st.builds(lambda s: "https://" + s, _URLISH)))
def test_the_shortcut_for_plain_https_links_agrees_with_every_check(value: str) -> None:
    from catalogctl import urls

    assume(value)  # the empty string is refused before either
    for schemes in (("https",), ("http", "https")):
        full = urls._full_check(value, schemes, False)
        assert url_problem(value, schemes=schemes) == full, (value, schemes)
    assert url_problem(value, loopback_http=True) == urls._full_check(value, ("https",), True)


@settings(max_examples=500, deadline=None)
@given(
    query=st.lists(st.sampled_from(["id", "id=", "id=com.x.y", "=", "a=b", "", "id=a=b"])).map(
        "&".join
    )
)
def test_google_play_ids_are_read_as_parse_qsl_reads_them(query: str) -> None:
    from urllib.parse import parse_qsl

    from catalogctl.content.rules.stores import kind_problem

    ids = [v for k, v in parse_qsl(query, keep_blank_values=True) if k == "id"]
    url = f"https://play.google.com/store/apps/details?{query}"
    ok = len(ids) == 1 and ids[0] == "com.x.y"
    assert (kind_problem("google-play", url) is None) == ok, query
