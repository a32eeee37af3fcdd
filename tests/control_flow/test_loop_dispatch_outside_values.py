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

SAMPLES, CONTROL = 96, 16


def bspline_basis(samples: int = SAMPLES, control: int = CONTROL) -> np.ndarray:
    """The ``samples x control`` clamped cubic B-spline basis on ``[0, 1]`` (Cox-de Boor)."""
    t = np.linspace(0.0, 1.0, samples)
    knots = np.concatenate([np.zeros(3), np.linspace(0.0, 1.0, control - 2), np.ones(3)])
    # degree 0: the knot span holding t (the last span closed at 1)
    span = np.clip(np.searchsorted(knots, t, side="right") - 1, 3, control - 1)
    basis = (np.arange(len(knots) - 1)[None, :] == span[:, None]).astype(np.float64)
    for degree in range(1, 4):
        nxt = np.zeros((samples, len(knots) - 1 - degree))
        for i in range(nxt.shape[1]):
            left, right = knots[i + degree] - knots[i], knots[i + degree + 1] - knots[i + 1]
            if left > 0:
                nxt[:, i] += (t - knots[i]) / left * basis[:, i]
            if right > 0:
                nxt[:, i] += (knots[i + degree + 1] - t) / right * basis[:, i + 1]
        basis = nxt
    return basis


def loss(c, basis, target):
    residual = basis @ c - target
    return s4tf.mean(residual * residual)


def fit(c, basis, target, iterations):
    """Gradient descent from ``c``; each step halves a step of 8 until the Armijo condition
    holds; stops when the squared gradient is under 1e-8 or after ``iterations`` steps."""
    value_and_grad = s4tf.value_and_grad(loss)
    f, g = value_and_grad(c, basis, target)
    it = iterations * 0
    while (s4tf.sum(g * g) > 1e-8) & (it < iterations):
        gg = s4tf.sum(g * g)
        step = 8.0
        trial = c - step * g
        trial_loss = loss(trial, basis, target)
        while trial_loss > f - 0.5 * step * gg:
            step = step * 0.5
            trial = c - step * g
            trial_loss = loss(trial, basis, target)
        c = trial
        f, g = value_and_grad(c, basis, target)
        it = it + 1
    return c, f, it


def fit_numpy(c, basis, target, iterations):
    """:func:`fit` in float64 NumPy."""
    c, basis, target = (np.asarray(a, np.float64) for a in (c, basis, target))

    def value_and_grad(c):
        residual = basis @ c - target
        return np.mean(residual**2), basis.T @ (2.0 * residual / len(target))

    f, g = value_and_grad(c)
    it = 0
    while g @ g > 1e-8 and it < iterations:
        step, gg = 8.0, g @ g
        trial = c - step * g
        while np.mean((basis @ trial - target) ** 2) > f - 0.5 * step * gg:
            step *= 0.5
            trial = c - step * g
        c = trial
        f, g = value_and_grad(c)
        it += 1
    return c, f, it


def spline_args(samples: int = SAMPLES, control: int = CONTROL, iterations: int = 200):
    """Zero control points, the basis, samples of ``sin`` on ``[0, 6]``, the step bound."""
    target = np.sin(np.linspace(0.0, 6.0, samples)).astype(np.float32)
    basis = bspline_basis(samples, control).astype(np.float32)
    return np.zeros(control, np.float32), basis, target, np.int32(iterations)


def lowered_text(fn, args, target: str) -> str:
    return s4tf.function(fn).lower(*args).stablehlo(lowering_pipeline(target))


def check_spline(args, c, f, it):
    want_c, want_f, want_it = fit_numpy(*args)
    assert 5 <= int(it) < 200 and abs(int(it) - want_it) <= 2, (int(it), want_it)
    np.testing.assert_allclose(c, want_c, rtol=0, atol=2e-3)
    np.testing.assert_allclose(f, want_f, rtol=1e-2, atol=1e-6)


def test_spline_fit_runs_in_one_dispatch_on_cpu_as_numpy():
    args = spline_args()
    text = lowered_text(fit, args, "cpu")
    assert text.count("flow.dispatch.region") == 1 and "stablehlo.while" not in text
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
