"""Tests that need a system program skip with the package to install, and fail in CI instead."""

from __future__ import annotations

import pytest

from tests.conftest import REQUIRE_SYSTEM_TESTS, require_program

MISSING = "catalogctl-no-such-program"


def test_require_program_returns_the_path_of_a_found_program() -> None:
    assert require_program("sh", package="dash").endswith("/sh")


def test_require_program_skips_with_the_package_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(REQUIRE_SYSTEM_TESTS, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install some-package"):
        require_program(MISSING, package="some-package")


def test_require_program_fails_when_system_tests_are_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(REQUIRE_SYSTEM_TESTS, "1")
    with pytest.raises(pytest.fail.Exception, match="Debian package some-package"):
        require_program(MISSING, package="some-package")
