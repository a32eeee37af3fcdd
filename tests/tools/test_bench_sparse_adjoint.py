"""tools/bench/bench_sparse_adjoint.py runs end to end on tiny sizes and prints its figures (speed
itself is never asserted: see docs/autodiff.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_sparse_adjoint_prints_times_ratios_and_growth():
    completed = run_bench("bench_sparse_adjoint.py", "--sizes", "8", "32", "--reads", "1", "3", "--repeats", "4", "--warmup", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    cases = re.findall(r"n=\s*(\d+) k=\s*(\d+): s4tf [\d.]+ ms, JAX [\d.]+ ms, s4tf/JAX [\d.]+", out)
    assert cases == [("8", "1"), ("8", "3"), ("32", "1"), ("32", "3")], out
    assert "a k * n cost would grow 3x" in out
    assert re.findall(r"n=\s*(\d+): s4tf [\d.]+x, JAX [\d.]+x", out) == ["8", "32"], out


def test_more_reads_than_elements_is_a_clear_error():
    completed = run_bench("bench_sparse_adjoint.py", "--sizes", "4", "--reads", "5")
    assert completed.returncode == 1
    assert "error: 5 distinct reads do not fit a vector of 4" in completed.stderr
    assert "Traceback" not in completed.stderr
