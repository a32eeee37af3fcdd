"""tools/bench_while_grad.py runs end to end on tiny sizes, after checking its gradient
against JAX's, and prints the tape's size and its ratios (speed itself is never asserted:
see docs/control-flow.md)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "tools" / "bench_while_grad.py"


def test_bench_while_grad_prints_tape_sizes_and_ratios():
    completed = subprocess.run(
        [sys.executable, str(BENCH), "--steps", "5", "9", "--size", "4", "--repeats", "2"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    # 4 float32s and an int32 counter taped: 20 bytes a step, in tapes of 8 and 16 rows; the
    # bound n (passed through unchanged) and the trip count are kept once: 8 bytes.
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+\s+20$", out, flags=re.MULTILINE)
    assert [(int(s), int(r)) for s, r, _ in rows] == [(5, 8), (9, 16)], out
    assert [int(b) for _, _, b in rows] == [8 * 20 + 8, 16 * 20 + 8], out
    assert len(re.findall(r"s4tf grad / s4tf forward: [\d.]+", out)) == 2, out
    assert len(re.findall(r"s4tf grad \(while, run-time n\) / JAX grad \(fori_loop, static n\): [\d.]+", out)) == 2, out
