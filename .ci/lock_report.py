"""Say which installed distributions differ from requirements.lock (CI's newest-releases run).

Run with the Python of the environment to compare: `python .ci/lock_report.py requirements.lock`.
It prints one line per distribution whose installed version is not the locked one, and one per
upper bound of pyproject.toml that holds back a release on the index. It never fails: a
difference is news (re-lock with `bash .ci/lock` once CI has passed on it), not an error.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(path: Path) -> dict[str, tuple[str, str]]:
    """Name -> (version, marker) of each pin of the lock."""
    pins = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, _, marker = line.partition(";")
        name, _, version = requirement.strip().partition("==")
        pins[canonical(name)] = (version.strip(), marker.strip())
    return pins


def installed() -> dict[str, str]:
    return {
        canonical(d.metadata["Name"]): d.version
        for d in metadata.distributions()
        if canonical(d.metadata["Name"]) not in {"catalogctl", "pip", "setuptools", "wheel"}
    }


def newest_on_index(name: str) -> Version | None:
    """The newest release pip sees for `name`, or None when the index cannot be asked."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "index", "versions", name],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(rf"^{re.escape(name)} \(([^)]+)\)", done.stdout, re.MULTILINE | re.I)
    return Version(found.group(1)) if found else None


def main() -> None:
    lock = locked(Path(sys.argv[1]))
    now = installed()
    changed = [
        f"  {name} {lock[name][0]} (lock) -> {version} (today)"
        for name, version in sorted(now.items())
        if name in lock and lock[name][0] != version
    ]
    extra = [f"  {name} {version}" for name, version in sorted(now.items()) if name not in lock]
    if changed:
        print(f"today's newest releases differ from requirements.lock in {len(changed)}:")
        print("\n".join(changed))
    else:
        print("today's newest releases are the ones in requirements.lock")
    if extra:
        print("installed today, not in requirements.lock:")
        print("\n".join(extra))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        uppers = [s for s in requirement.specifier if s.operator in ("<", "<=")]
        if not uppers:
            continue
        newest = newest_on_index(requirement.name)
        if newest is not None and newest not in requirement.specifier:
            print(
                f"held back by pyproject.toml: {requirement.name} {newest} is out, "
                f"{requirement.name}{requirement.specifier} keeps it out (see the reason there)"
            )


if __name__ == "__main__":
    main()
