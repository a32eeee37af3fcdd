"""tools/bench/bench_vmap.py runs end to end on tiny sizes, after checking s4tf's per-example
gradients, Jacobian and Hessian against JAX's and the Python loops', and prints each
peer's time and the ratios (speed itself is never asserted: see docs/batching.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_vmap_prints_every_problem_and_its_ratios():
    completed = run_bench("bench_vmap.py", "--batch", "3", "--jacobian-size", "5", "--hessian-size", "4", "--repeats", "2",
                         "--jacobian-repeats", "2", "--warmup", "0")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    titles = re.findall(r"^(.+): median \(min\) ms per call; first call s$", out, re.MULTILINE)
    assert titles == [
        "per-example gradients, MLP 784-512-512-10, batch 3", "jacrev of tanh(W x + b), 5 to 5", "hessian of a function of 4 parameters",
    ], out
    peers = re.findall(r"^  (s4tf|loop|JAX) +[\d.]+ ms \([\d.]+\); first call [\d.]+ s$", out, re.MULTILINE)
    assert peers == ["s4tf", "loop", "JAX"] * 3, out
    cpu = re.findall(r"^  per call, after the timing: s4tf user [\d.]+ ms, sys [\d.]+ ms, \d+ page faults; loop .*; JAX .*$", out, re.MULTILINE)
    assert len(cpu) == 3, out
    ratios = re.findall(r"^  (median|min) *: loop/s4tf [\d.]+ \(goal >= 10\), s4tf/JAX [\d.]+ \(goal <= 1.2\)$", out, re.MULTILINE)
    assert ratios == ["median", "min"] * 3, out
