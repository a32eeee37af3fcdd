"""tools/bench/bench_remat.py runs end to end on a tiny MLP, after checking that the remat
gradients equal the plain ones and JAX's, and prints residual bytes, the memory a call
needs and both peers' ratios
(speed itself is never asserted: see docs/autodiff.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_remat_prints_residual_bytes_and_ratios():
    completed = run_bench("bench_remat.py", "--depth", "3", "--width", "8", "--batch", "2", "--repeats", "4", "--warmup", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    kept = dict(re.findall(r"^  (s4tf plain|s4tf remat|JAX plain|JAX checkpoint) +([\d,]+) bytes", out, re.MULTILINE))
    assert set(kept) == {"s4tf plain", "s4tf remat", "JAX plain", "JAX checkpoint"}, out
    blocks_inputs = 3 * (2 * 8 + 8 * 8 + 8) * 4  # (x, w, b) of each block, float32
    assert int(kept["s4tf remat"].replace(",", "")) == blocks_inputs + 2 * 8 * 4, out  # and the last x, for mean(x ** 2)
    assert int(kept["s4tf plain"].replace(",", "")) > blocks_inputs, out
    memory = dict(re.findall(r"^  (s4tf plain|s4tf remat|JAX plain|JAX checkpoint) +([\d.]+) MB$", out, re.MULTILINE))
    assert set(memory) == set(kept), out  # each measured in a process of its own
    ratios = re.findall(
        r"^  (median|min) *: remat / plain: s4tf [\d.]+, JAX [\d.]+; s4tf/JAX: plain [\d.]+, remat [\d.]+$", out, re.MULTILINE
    )
    assert ratios == ["median", "min"], out
