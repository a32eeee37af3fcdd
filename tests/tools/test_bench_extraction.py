"""tools/bench/bench_extraction.py runs end to end on tiny sizes and prints its ratio lines
(speed itself is never asserted: see docs/extraction.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)

TINY = ["--size", "16", "--device-ms", "2", "--host-ms", "2", "--rounds", "2", "--loop-rounds", "1", "--steps", "3", "--log-ms", "1"]


def test_bench_extraction_prints_its_ratios():
    completed = run_bench("bench_extraction.py", *TINY)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    ratios = [line.strip().split(":")[0] for line in lines if re.search(r": \d+\.\d\dx", line)]
    assert ratios == ["partitioned / longer part", "partitioned / sequential", "host logging / synchronous reads throughput"]
    assert re.match(r"machine: \d+ cores, load average [\d.]+, [\d.]+, [\d.]+; device workers: 1$", lines[0])


def test_bench_extraction_with_sleeping_host_work():
    completed = run_bench("bench_extraction.py", *TINY, "--host-work", "sleep", "--device-workers", "0")
    assert completed.returncode == 0, completed.stderr
    assert "ms of sleep" in completed.stdout and "device workers: default" in completed.stdout
