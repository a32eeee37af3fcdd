"""tools/bench/bench_gradbench.py runs end to end on two of its programs, after checking each
against JAX's, and prints their ratios (speed itself is never asserted)."""

import re

import pytest

import bench_gradbench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_gradbench_prints_a_ratio_per_program(capsys):
    for only in ("lse", "kmeans"):
        bench_gradbench.main(["--only", only, "--repeats", "1", "--calls", "2"])
    out = capsys.readouterr().out
    for program in ("lse, hessian", "kmeans, Newton direction"):
        assert re.search(rf"^{re.escape(program)}: s4tf [\d.]+ ms, JAX [\d.]+ ms, s4tf / JAX [\d.]+; first call s4tf [\d.]+ s, "
                         rf"JAX [\d.]+ s, s4tf / JAX [\d.]+$", out, flags=re.MULTILINE), (program, out)
