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


def test_parse_methods_benchmark_runs_each_start_method() -> None:
    """`bench_validate_build.py --parse-methods` (the figures of docs/architecture/performance.md),
    on a catalog small enough for a test: one line per way of parsing."""
    import multiprocessing

    script = ROOT / "benchmarks" / "bench_validate_build.py"
    proc = run(
        [sys.executable, script, "--parse-methods", "--games", "30", "--repeat", "1"],
        cwd=ROOT,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("validate of 30 games on ")
    methods = [line.split()[0] for line in lines[1:]]
    assert methods == ["serial", *multiprocessing.get_all_start_methods()]
