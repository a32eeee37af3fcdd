"""tools/profile_step.py runs end to end on a few dispatches and prints its profile (speed
itself is never asserted: see docs/benchmarks.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_profile_step_prints_dispatches_module_call_path_and_matmul():
    completed = run_bench("profile_step.py", "--models", "mlp", "--calls", "5", "--rounds", "1", "--max-dispatches", "2")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert re.search(r"2 dispatches, alone: sum [\d.]+ ms wall \([\d.]+ ms CPU\); whole module: local-task [\d.]+ ms wall", out)
    assert re.search(r"in the step, local-task: \d+ dispatch functions, [\d.]+ ms wall \([\d.]+ ms CPU\)", out)
    assert len(re.findall(r"^\s+\d+ us wall\s+\d+ us CPU\s+[\d.]+ %\s+\w+", out, re.M)) == 4  # 2 alone, 2 in the step
    for caller in ("as it is", "SCHED_BATCH"):
        assert re.search(rf"timeline, local-task, caller {caller}: step span median \d+ us \(max \d+\), between steps "
                         r"median -?\d+ us \(max -?\d+\), over 1 ms: \d+ of 39", out)
    assert re.search(r"call path, median of 5 calls \(us\): flatten \+ lookup \d+, arguments \d+, donation \d+, IREE call \d+", out)
    assert re.search(r"^  IREE call, local-sync\s+[\d.]+ ms wall\s+[\d.]+ ms CPU", out, re.M)
    assert re.search(r"^  JAX jit\s+[\d.]+ ms wall\s+[\d.]+ ms CPU\s+\(1.00x JAX wall, 1.00x CPU\)", out, re.M)  # JAX: a test dependency
    assert re.search(r"matmul 128x784 by 784x512: IREE [\d.]+ ms \(\d+ GFLOP/s\), NumPy", out)
