"""tools/bench_mlp.py runs end to end on a tiny batch and prints its figures (speed itself
is never asserted: see docs/benchmarks.md)."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "tools" / "bench_mlp.py"


def test_bench_mlp_prints_ratios_and_first_call_latency():
    completed = subprocess.run(
        [sys.executable, str(BENCH), "--batch", "4", "--repeats", "5", "--warmup", "1"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "cold module cache:" in out and "warm module cache, new process:" in out
    assert "s4tf/NumPy:" in out
    assert "warning: the second process compiled again" not in out
