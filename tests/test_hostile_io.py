"""Hostile options, remote servers and files: each refused with a clear error, bounded in time
and memory, and never followed to where it should not go.

Every server here is started by the test on 127.0.0.1; addresses elsewhere (link-local, a
"public" host) come from resolver answers injected into the network policy, and no socket is
ever connected to them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from catalogctl.contract.values import cache_control_problem, listen_problem, user_agent_problem
from catalogctl.urls import base_url_problem, url_problem

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "content"


def catalogctl(*args: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "catalogctl", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def assert_usage_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    for word in words:
        assert word in proc.stderr, (word, proc.stderr)


# --- options that end up in headers and configurations ---------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "public\r\nX-Injected: 1",
        "public, max-age=300\n",
        "max-age=300\rSet-Cookie: a=b",
        "no-cache\x07",
        "max-age=$x",
        "max-age=5; add_header X 1",
        "max-age=abc",
        "",
        "public,,max-age=1",
        'no-cache="unterminated',
        "pùblic",
    ],
)
def test_cache_control_is_checked_when_parsed(tmp_path: Path, value: str) -> None:
    out = tmp_path / "dist"
    assert_usage_error(
        catalogctl("build", SAMPLE, "--out", out, "--cache-control", value), "--cache-control"
    )
    assert not out.exists()


def test_cache_control_crlf_refused_by_serve_before_listening() -> None:
    proc = catalogctl(
        "serve", SAMPLE, "--port", "0", "--cache-control", "public\r\nX: 1", timeout=20
    )
    assert_usage_error(proc, "--cache-control", "line break")


@pytest.mark.parametrize(
    "value",
    [
        "public, max-age=300",
        "no-store",
        'no-cache="Set-Cookie, ETag", max-age=0',
        "public, max-age=60, stale-while-revalidate=30, immutable",
        "private",
        "x-custom-ext=token",
    ],
)
def test_cache_control_accepts_real_values(value: str) -> None:
    assert cache_control_problem(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "127.0.0.1:80; evil",
        "a b",
        "{",
        "80\n",
        "127.0.0.1:0",
        "127.0.0.1:99999",
        "unix:",
        "unix:/tmp/a;b",
        "[::1]80",
        "[zz]:80",
        "host_name..x:80",
        "127.0.0.1",
    ],
)
def test_nginx_listen_is_checked(value: str) -> None:
    assert listen_problem(value) is not None


@pytest.mark.parametrize(
    "value", ["8080", "127.0.0.1:8080", "*:80", "[::1]:8080", "localhost:80", "unix:/run/c.sock"]
)
def test_nginx_listen_accepts_every_documented_form(value: str) -> None:
    assert listen_problem(value) is None


def test_nginx_listen_trailing_newline_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    assert_usage_error(
        catalogctl("build", SAMPLE, "--out", out, "--nginx-listen", "80\n"), "--nginx-listen"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "url", ["https://2130706433/", "https://0x7f.1/", "https://0177.0.0.1/", "https://1.2.3.0x4/"]
)
def test_url_checker_refuses_numeric_hosts_read_as_ipv4(url: str) -> None:
    assert url_problem(url) is not None


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://games.example.com", True),
        ("https://games.example.com/catalog", True),
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://games.example.com", False),
        ("http://10.0.0.1", False),
        ("https://games.example.com/", False),
        ("https://games.example.com?x=1", False),
        ("https://games.example.com#x", False),
    ],
)
def test_base_url_policy(url: str, ok: bool) -> None:
    assert (base_url_problem(url) is None) is ok


@pytest.mark.parametrize("command", ["build", "serve"])
@pytest.mark.parametrize(
    "url",
    ['https://x.example/"><script>alert(1)</script>', "http://x.example", "https://x.example/"],
)
def test_base_url_option_exit_2(tmp_path: Path, command: str, url: str) -> None:
    extra = ["--out", tmp_path / "dist"] if command == "build" else ["--port", "0"]
    proc = catalogctl(command, SAMPLE, *extra, "--base-url", url, timeout=20)
    assert_usage_error(proc, "--base-url")
    assert not (tmp_path / "dist").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--user-agent", "bot\r\nX-Injected: 1"),
        ("--user-agent", ""),
        ("--exclude", "("),
        ("--include", "[a-"),
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--max-retry-wait", "inf"),
    ],
)
def test_check_links_options_exit_2(option: str, value: str) -> None:
    proc = catalogctl("check-links", SAMPLE, "--offline", option, value)
    assert_usage_error(proc, option)


def test_user_agent_checker() -> None:
    assert user_agent_problem("mybot/1.0 (+https://x.example)") is None
    assert user_agent_problem(" leading") is not None
    assert user_agent_problem("x\x7f") is not None
