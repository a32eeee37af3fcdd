"""tools/bench/bench_embedding.py runs end to end on tiny sizes, checks both peers' results
(against NumPy, and the NeuMF step's against each other) and prints its figures (speed
itself is never asserted)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_embedding_prints_lookup_gradient_and_neumf_step_times_and_ratios():
    completed = run_bench("bench_embedding.py", "--vocab", "50", "--batch", "8", "--dim", "4", "--repeats", "4", "--warmup", "1",
                          "--step-vocab", "100", "--step-batch", "16")
    assert completed.returncode == 0, completed.stderr
    cases = re.findall(r"V=\s*(\d+) B=\s*(\d+)\s+(\w+): s4tf [\d.]+ ms, JAX [\d.]+ ms, s4tf/JAX [\d.]+", completed.stdout)
    assert cases == [("50", "8", "lookup"), ("50", "8", "grad"), ("100", "16", "neumf")], completed.stdout
