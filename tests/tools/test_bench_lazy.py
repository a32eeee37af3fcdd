"""tools/bench/bench_lazy.py runs end to end on a tiny MLP: the four modes' losses agree
before timing, and it prints steps/s and the ratios (speed itself is never asserted: see
docs/lazy.md)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "bench" / "bench_lazy.py"


def test_bench_lazy_prints_steps_per_second_of_every_mode_and_the_ratios():
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--batch", "4", "--sizes", "8,8,2", "--steps", "3", "--eager-steps", "1",
         "--rounds", "2", "--check-steps", "2"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert re.search(r"^loss after 2 steps: eager [\d.]+, lazy [\d.]+, staged [\d.]+, JAX-jit [\d.]+$", out, re.MULTILINE), out
    modes = re.findall(r"^  (eager|lazy|staged|JAX-jit) +[\d.]+ \([\d.]+\)$", out, re.MULTILINE)
    assert modes == ["eager", "lazy", "staged", "JAX-jit"], out
    assert re.search(r"^staged/lazy time ratio: median [\d.]+, best [\d.]+", out, re.MULTILINE), out
    assert re.search(r"^lazy/eager speed-up: median [\d.]+x, best [\d.]+x", out, re.MULTILINE), out
    # every timed lazy step replayed a trace compiled in the warm-up
    assert re.search(r"^lazy traces while timed: 6 run, 0 compiled, ", out, re.MULTILINE), out
