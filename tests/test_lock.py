"""requirements.lock: the set the suite last passed on, in step with pyproject.toml."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import ROOT


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, Version]:
    pins = {}
    for raw in ROOT.joinpath("requirements.lock").read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.lock: {line!r} is not pinned with =="
            pins[_canonical(name)] = Version(version)
    return pins


def test_lock_pins_every_dependency_within_its_bounds() -> None:
    """A dependency added to pyproject.toml, or a bound changed, without `bash .ci/lock`
    fails here, not on a user's machine."""
    project = tomllib.loads(ROOT.joinpath("pyproject.toml").read_text(encoding="utf-8"))
    specs = project["project"]["dependencies"] + project["project"]["optional-dependencies"]["test"]
    pins = _pins()
    stale = []
    for spec in specs:
        requirement = Requirement(spec)
        pinned = pins.get(_canonical(requirement.name))
        if pinned is None or pinned not in requirement.specifier:
            stale.append(f"{requirement} (lock: {pinned})")
    assert not stale, "requirements.lock is stale, run `bash .ci/lock`: " + ", ".join(stale)
