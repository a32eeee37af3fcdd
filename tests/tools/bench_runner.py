"""Running a benchmark script of tools/bench/ in a fresh Python, as its smoke tests do."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "tools" / "bench"


def run_bench(script: str, *args: str) -> subprocess.CompletedProcess:
    """``python tools/bench/<script> args...``, its output captured as text (ten minutes at most)."""
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=600, check=False)
