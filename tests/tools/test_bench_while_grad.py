"""tools/bench/bench_while_grad.py runs end to end on tiny sizes, after checking its gradient
against JAX's, and prints the checkpoints' size and its ratios (speed itself is never asserted:
see docs/control-flow.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_while_grad_prints_tape_sizes_and_ratios():
    completed = run_bench("bench_while_grad.py", "--steps", "5", "9", "--size", "4", "--repeats", "2")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    # 4 float32s and an int32 counter change: 1,024 checkpoints and a spare row of 20 bytes;
    # the bound n is kept once, with the trip count and the stride (12 bytes).
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, flags=re.MULTILINE)
    assert [tuple(map(int, row)) for row in rows] == [(5, 1025, 1, 1025 * 20 + 12), (9, 1025, 1, 1025 * 20 + 12)], out
    assert len(re.findall(r"s4tf grad / s4tf forward: [\d.]+", out)) == 2, out
    assert len(re.findall(r"s4tf grad \(while, run-time n\) / JAX grad \(fori_loop, static n\): [\d.]+", out)) == 2, out
