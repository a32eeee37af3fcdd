"""tools/bench/bench_train.py runs end to end on tiny batches and prints its figures (speed itself
is never asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_train_prints_step_times_ratios_and_memory():
    completed = run_bench("bench_train.py", "--steps", "2", "--rounds", "1", "--batch-scale", "0.125")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert re.search(r"sgemm peak \(NumPy, 2048x2048 float32\): [\d.]+ GFLOP/s", out)
    for model, batch in (("mlp", 16), ("lenet", 8), ("transformer", 1)):
        assert f"{model}, batch {batch}:" in out
    assert len(re.findall(r"^s4tf\s+[\d.]+\s+[\d.]+", out, re.M)) == 3
    assert len(re.findall(r"^JAX jit\s+[\d.]+\s+[\d.]+\s+\d+%\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.M)) == 3  # JAX: a test dependency
    assert len(re.findall(r"^memory a step needs beyond parameters \+ Adam state \([\d.]+ MB\)", out, re.M)) == 3
    figures = re.findall(r"^  (s4tf|JAX jit) +(donated|not donated) +[\d.-]+ MB \(in use [\d.-]+x\)$", out, re.M)
    assert figures == [(peer, donated) for _ in range(3) for peer in ("s4tf", "JAX jit") for donated in ("donated", "not donated")], out
