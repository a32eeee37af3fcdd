"""tools/bench/bench_compile.py runs one round and prints cold, JAX, warm and trace times and
the cold/JAX ratio (speed itself is never asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_compile_prints_first_call_times_and_the_ratio_to_jax():
    completed = run_bench("bench_compile.py", "--rounds", "1", "--batch", "8")
    assert completed.returncode == 0, completed.stderr
    for name in ("cold", "JAX", "warm", "trace"):
        assert re.search(rf"^{name}\s+wall median\s+[\d.]+ ms .*CPU median\s+[\d.]+ ms", completed.stdout, re.M)
    assert re.search(r"cold first call / JAX's first call: [\d.]+", completed.stdout)
