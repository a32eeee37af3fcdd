"""tools/bench/bench_grad.py runs end to end on tiny batches, after checking its values and
gradients against JAX's, and prints both peers' gradient cost ratios (speed itself is
never asserted: see docs/autodiff.md)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_grad_prints_gradient_cost_ratios_of_both_models():
    completed = run_bench("bench_grad.py", "--batch", "4", "--conv-batch", "2", "--repeats", "4", "--warmup", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    titles = re.findall(r"^(MLP 784-512-512-10, batch 4|conv net, batch 2): median \(min\) ms per call$", out, re.MULTILINE)
    assert titles == ["MLP 784-512-512-10, batch 4", "conv net, batch 2"], out
    ratios = re.findall(
        r"^  (median|min) *: gradient cost ratio \(value_and_grad / primal\): s4tf [\d.]+, JAX [\d.]+; "
        r"s4tf/JAX: primal [\d.]+, value_and_grad [\d.]+$", out, re.MULTILINE,
    )
    assert ratios == ["median", "min", "median", "min"], out
