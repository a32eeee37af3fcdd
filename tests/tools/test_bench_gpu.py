"""tools/bench/bench_gpu.py runs end to end (here on the ``cpu`` target beside JAX on the
CPU; on an NVIDIA GPU its default ``cuda`` beside JAX there): the first losses agree and each
peer's step and first-step times and ratios are printed (speed itself is never asserted)."""

import re

import pytest
from bench_runner import run_bench

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_gpu_prints_each_peers_ratios():
    completed = run_bench("bench_gpu.py", "--target", "cpu", "--models", "mlp", "--batches", "8", "--steps", "2", "--rounds", "1")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert re.search(r"^mlp, batch 8: first loss [\d.]+ \(JAX f32 [\d.]+, JAX [\d.]+\)$", out, re.MULTILINE), out
    rows = {line[:9].strip(): line[9:].split() for line in out.splitlines()[3:] if line[:9].strip() in ("JAX", "JAX f32", "s4tf")}
    assert list(rows) == ["JAX", "JAX f32", "s4tf"], out
    assert all(len(rows[peer]) == 4 for peer in ("JAX", "JAX f32")) and len(rows["s4tf"]) == 2, out
    assert all(float(figure) > 0 for figures in rows.values() for figure in figures), out
