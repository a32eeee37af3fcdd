"""Running a benchmark script of tools/bench/ in a fresh Python, as its smoke tests do."""

import os
import signal
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "tools" / "bench"


def run_bench(script: str, *args: str, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python tools/bench/<script> args...``, its output captured as text. A script still
    running after ``timeout`` seconds is sent ``SIGABRT``, on which Python's ``faulthandler``
    prints every thread's stack, and the test fails with that stack."""
    command = [sys.executable, "-X", "faulthandler", str(BENCH / script), *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, **(env or {})}) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            out, err = process.communicate()
            raise AssertionError(f"{script} ran for more than {timeout} s; its output:\n{out[-3000:]}\nits stacks:\n{err[-12000:]}") from None
    return subprocess.CompletedProcess(command, process.returncode, out, err)
