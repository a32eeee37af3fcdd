"""tools/bench/bench_mlp.py runs end to end on a tiny batch and prints its figures (speed itself
is never asserted: see docs/benchmarks.md)."""

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_mlp_prints_ratios_and_first_call_latency():
    completed = run_bench("bench_mlp.py", "--batch", "4", "--repeats", "5", "--warmup", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "cold module cache:" in out and "warm module cache, new process:" in out
    assert "s4tf/NumPy:" in out
    assert "warning: the second process compiled again" not in out
