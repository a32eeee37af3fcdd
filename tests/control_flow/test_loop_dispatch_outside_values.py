"""``s4tf-loops-to-dispatch`` on loops that read values IREE would otherwise compute inside
the dispatch region: a value computed from constants alone (reverse mode's ``1/96`` of a
mean) and a widening conversion (``x.astype(float64)``). IREE 3.13 clones such producers
into the region, distributes them over workgroups, and then refuses the region's own writes
("write affecting operations on global resources are restricted to workgroup distributed
contexts"); the pass computes them inside the region instead (docs/control-flow.md).

The cases: a cubic B-spline fitted by gradient descent with a backtracking line search (two
nested data-dependent loops, ``s4tf.value_and_grad`` inside) on ``cpu`` and, under qemu,
``android-arm64``; two ``s4tf.jvp``s in a row over a loop, in float64 from float32 inputs."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.passes.pipeline import lowering_pipeline

from spline_fit import fit, fit_numpy, spline_args  # tools/bench: shared with bench_loops_real.py

SAMPLES, CONTROL = 96, 16


def lowered_text(fn, args, target: str) -> str:
    return s4tf.function(fn).lower(*args).stablehlo(lowering_pipeline(target))


def check_spline(args, c, f, it):
    want_c, want_f, want_it = fit_numpy(*args)
    assert 5 <= int(it) < 200 and abs(int(it) - want_it) <= 2, (int(it), want_it)
    np.testing.assert_allclose(c, want_c, rtol=0, atol=2e-3)
    np.testing.assert_allclose(f, want_f, rtol=1e-2, atol=1e-6)


def test_spline_fit_runs_in_one_dispatch_on_cpu_as_numpy():
    args = spline_args(SAMPLES, CONTROL)
    text = lowered_text(fit, args, "cpu")
    assert text.count("flow.dispatch.region") == 1 and "stablehlo.while" not in text
    check_spline(args, *(np.asarray(r) for r in s4tf.function(fit)(*args)))


@pytest.mark.parametrize("samples, control", [(600, 16), (2000, 32)])
def test_spline_fit_over_a_basis_beyond_the_vector_limit_runs_in_one_dispatch_as_numpy(samples, control):
    """The basis (38,400 and 256,000 bytes) stays in memory inside the dispatch, read a tile
    at a time by the products (docs/control-flow.md). Host-stepped, IREE 3.13 does not
    compile these loops ("'scf.while' op along control flow edge ... region branch point has
    4 operands, but region successor needs 2 inputs")."""
    args = spline_args(samples, control)
    text = lowered_text(fit, args, "cpu")
    assert text.count("flow.dispatch.region") == 1 and "stablehlo.while" not in text
    assert f"tensor<{samples}x{control}xf32>, vector<" in text  # tiles read from memory
    check_spline(args, *(np.asarray(r) for r in s4tf.function(fit)(*args)))


#: ``(samples, control points, whether the outer loop is inside the dispatch)``: phones'
#: 48 KiB of vectors hold the 48x8 fit whole; of the 96x16 one, only the line search.
PHONE_SPLINES = [(48, 8, True), (96, 16, False)]


@pytest.mark.arm64
@pytest.mark.parametrize("samples, control, whole", PHONE_SPLINES)
def test_spline_fit_on_android_arm64_under_qemu_as_on_cpu(arm64_runner, tmp_path, samples, control, whole):
    args = spline_args(samples, control)
    text = lowered_text(fit, args, "android-arm64")
    assert text.count("flow.dispatch.region") == 1 and ("stablehlo.while" not in text) == whole
    module = s4tf.compile(fit, args, target="android-arm64").save(tmp_path / "spline.vmfb")
    got = arm64_runner.invoke(module, "fit", list(args), results=3)
    check_spline(args, *got)
    on_cpu = [np.asarray(r) for r in s4tf.function(fit)(*args)]
    np.testing.assert_allclose(got[0], on_cpu[0], rtol=0, atol=1e-5)
    assert int(got[2]) == int(on_cpu[2])


def relax(x, n):
    return s4tf.fori_loop(0, n, lambda i, x: s4tf.sin(x) * 0.9 + s4tf.mean(x) * 0.1, x)


def two_jvps(x, n):
    """Two forward-mode derivatives in a row, in float64 from a float32 input: the loops
    read ``x.astype(float64)``."""
    wide = x.astype(np.float64)
    y, t = s4tf.jvp(lambda x: relax(x, n), (wide,), (wide * 0.5,))
    y2, t2 = s4tf.jvp(lambda x: relax(x, n), (y,), (wide,))
    return y2, t, t2


def relax_jvp_numpy(x, t, n):
    for _ in range(n):
        x, t = np.sin(x) * 0.9 + x.mean() * 0.1, np.cos(x) * 0.9 * t + t.mean() * 0.1
    return x, t


def test_two_jvps_in_a_row_over_a_loop_in_float64_run_inside_dispatches():
    x = np.array([0.3, 1.0, -0.5], np.float32)
    args = (x, np.int32(5))
    text = lowered_text(two_jvps, args, "cpu")
    assert text.count("flow.dispatch.region") == 1 and "stablehlo.while" not in text  # the two loops: one region
    y2, t, t2 = (np.asarray(r) for r in s4tf.function(two_jvps)(*args))
    wide = x.astype(np.float64)
    y, want_t = relax_jvp_numpy(wide, wide * 0.5, 5)
    want_y2, want_t2 = relax_jvp_numpy(y, wide, 5)
    assert y2.dtype == np.float64
    np.testing.assert_allclose(t, want_t, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(y2, want_y2, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(t2, want_t2, rtol=1e-12, atol=1e-14)
