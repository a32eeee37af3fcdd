"""tools/bench/bench_call_overhead.py runs end to end on few calls, after checking each
function against JAX's, and prints per-call figures and ratios for each function (speed
itself is never asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_call_overhead_prints_per_call_times_and_ratios():
    completed = run_bench("bench_call_overhead.py", "--calls", "20", "--rounds", "2")
    assert completed.returncode == 0, completed.stderr
    for name in ("relax(x, n=0), NumPy inputs", "relax(x, n=0), results fed back", "x + 1, results fed back",
                 "MLP Adam step, batch 128", "eager x + y, 16x16", "eager exp(x), 16x16", "eager sum(x), 16x16",
                 "eager x @ y, 16x16"):
        assert re.search(rf"^{re.escape(name)}: s4tf [\d.]+ us, JAX [\d.]+ us, s4tf / JAX [\d.]+; "
                         r"IREE's call [\d.]+ us, s4tf - IREE -?[\d.]+ us$", completed.stdout, flags=re.MULTILINE), \
            (name, completed.stdout)
