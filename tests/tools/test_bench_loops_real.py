"""tools/bench/bench_loops_real.py runs end to end on small sizes, after checking each
program against JAX's, and prints every ratio (speed itself is never asserted). Its nine
programs compile for about a minute: marker ``real_loops``, run with ``pytest -m real_loops``."""

import re

import pytest

import bench_loops_real


@pytest.mark.real_loops
def test_bench_loops_real_prints_a_ratio_per_program(capsys):
    bench_loops_real.main(["--small", "--repeats", "1"])
    out = capsys.readouterr().out
    for program in ("ode, n = 64, gradient", "saddle, derivative (s4tf grad: forward mode; JAX forward)",
                    "saddle, derivative (s4tf reverse mode; JAX forward)", "particle, forward derivative",
                    "lstm, 8 steps, hidden 8, gradient", "lstm, 12 steps, hidden 64, batch 48, gradient",
                    "lstm language model, 8 steps, hidden 8, batch 4, vocabulary 16, Adam training step",
                    "gru language model, 8 steps, hidden 8, batch 4, vocabulary 16, Adam training step",
                    "spline, 96 x 16, fit"):
        assert re.search(rf"^{re.escape(program)}: s4tf [\d.]+ ms, JAX [\d.]+ ms, s4tf / JAX [\d.]+; first call s4tf [\d.]+ s, "
                         rf"JAX [\d.]+ s, s4tf / JAX [\d.]+$", out, flags=re.MULTILINE), (program, out)
