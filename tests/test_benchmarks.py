"""The benchmarks start in the quick-start environment (`pip install .`: no pytest there)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.processes import run

BENCHMARKS = sorted((ROOT / "benchmarks").glob("bench_*.py"))

# Loads a benchmark as a module (its main() does not run) with pytest made unimportable.
LOAD = """
import runpy, sys
sys.modules["pytest"] = None
runpy.run_path(sys.argv[1], run_name="benchmark")
"""


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_loads_without_the_test_dependencies(script: Path) -> None:
    proc = run([sys.executable, "-c", LOAD, script], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_benchmarks_found() -> None:
    assert {p.name for p in BENCHMARKS} >= {"bench_nginx.py", "bench_serve.py"}
