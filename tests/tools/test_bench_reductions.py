"""tools/bench/bench_reductions.py runs end to end on few calls and prints, for each case,
per-call times, their ratio and both peers' errors against float64 (speed itself is never
asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_reductions_prints_times_ratios_and_errors():
    completed = run_bench("bench_reductions.py", "--calls", "3", "--rounds", "1")
    assert completed.returncode == 0, completed.stderr
    for name in ("sum (4096, 48) over axis 1", "mean (64, 8192) over axis 1", "sum (1048576,)",
                 "mean (32, 32, 32, 16) over (0, 1, 2)", "sum (100000, 16) over axis 0"):
        assert re.search(rf"^{re.escape(name)}: s4tf [\d.]+ us, JAX [\d.]+ us, s4tf / JAX [\d.]+; "
                         r"relative error s4tf [\d.e+-]+, JAX [\d.e+-]+$", completed.stdout, flags=re.MULTILINE), \
            (name, completed.stdout)
