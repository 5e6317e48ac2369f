"""Print a pip constraints file pinning each runtime dependency to its lower bound.

CI installs the project with it (`pip install -e '.[test]' -c FILE`) and runs the whole test
suite, so every `>=` in pyproject.toml is a version the suite has passed on. Dependencies of
dependencies resolve as usual (their own bounds are theirs to keep).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
missing = []
for spec in pyproject["project"]["dependencies"]:
    requirement, _, marker = spec.partition(";")
    match = re.match(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)", requirement)
    assert match, spec
    name, bounds = match.group(1).split("[")[0], match.group(2)
    lower = re.search(r">=\s*([\w.]+)", bounds)
    if lower is None:
        missing.append(name)
        continue
    print(f"{name}=={lower.group(1)}" + (f" ;{marker}" if marker else ""))
if missing:
    sys.exit(f"runtime dependencies without a lower bound: {', '.join(missing)}")
