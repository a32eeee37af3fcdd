"""tools/bench/bench_first_calls.py runs one small round and prints every peer's first,
second and last call, and the ratios to JAX (speed itself is never asserted: see
docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_first_calls_prints_every_peer_and_the_ratios_to_jax():
    completed = run_bench("bench_first_calls.py", "--rounds", "1", "--calls", "3", "--batch", "8")
    assert completed.returncode == 0, completed.stderr
    for program in ("MLP forward", "MLP Adam step"):
        for peer in ("tiered", "compile", "JAX"):
            assert re.search(rf"^{program}\s+{peer}\s+call 1\s+[\d.]+\s+call 2\s+[\d.]+\s+to call 3\s+[\d.]+$", completed.stdout, re.M)
        for peer in ("tiered", "compile"):
            assert re.search(rf"^{program}\s+{peer}\s+/ JAX: call 1 [\d.]+, to call 3 [\d.]+$", completed.stdout, re.M)
