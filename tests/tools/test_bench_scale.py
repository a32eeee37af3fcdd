"""tools/bench/bench_scale.py runs end to end on one tiny configuration pinned to one core
and prints its row (speed itself is never asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_scale_prints_a_row_per_core_count_and_configuration():
    completed = run_bench("bench_scale.py", "--cores", "1", "--configs", "mlp,8,16;lenet,4,", "--steps", "1", "--rounds", "1")
    assert completed.returncode == 0, completed.stderr
    rows = re.findall(r"^\s+1\s+(mlp|lenet)\s+(\d+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)(?:\s+[\d.]+){4}$", completed.stdout, re.M)
    assert [row[:3] for row in rows] == [("mlp", "8", "16"), ("lenet", "4", "-")]
    assert any(s4tf != jax for *_, s4tf, jax in rows)  # each peer timed on its own
