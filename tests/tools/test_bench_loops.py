"""tools/bench/bench_loops.py runs end to end on tiny sizes, after checking each program
against JAX's, and prints every ratio and per-iteration figure (speed itself is never
asserted: see docs/control-flow.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_loops_prints_ratios_and_per_iteration_overheads():
    completed = run_bench("bench_loops.py", "--relax-steps", "50", "--rnn-steps", "5", "--repeats", "2",
                          "--gradient-repeats", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    for program in ("relax, 50 iterations", "Newton's square root, 1,000 float64s", "RNN cell, 32 hidden, 5 steps"):
        for kind in ("forward", "gradient"):
            assert re.search(rf"^{re.escape(program)}, {kind}: s4tf [\d.]+ ms, JAX [\d.]+ ms, s4tf / JAX [\d.]+$",
                             out, flags=re.MULTILINE), (program, kind, out)
    for loop in ("relax, host-stepped", "relax, one dispatch", "rnn, host-stepped"):
        for driver in ("local-task", "local-sync"):
            assert re.search(rf"^per iteration, {loop}, {driver}: -?[\d.]+ us", out, flags=re.MULTILINE), (loop, out)
