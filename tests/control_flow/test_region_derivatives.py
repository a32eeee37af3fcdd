"""Forward and reverse mode through ``s4tf.if`` and ``s4tf.while`` against central finite
differences in float64 (``gradient_checks.directional_check``), closed forms where they
exist (Newton's square root), nesting, and the errors for what cannot be differentiated."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from gradient_checks import directional_check

import s4tf
from s4tf.dialects.op_def import MissingDerivativeRule
from s4tf.passes.autodiff import region_derivatives

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.array([0.7, -1.2, 1.9])
Y = np.array([1.5, 0.4, -2.0])


def piecewise(x, y, t):
    return s4tf.cond(t > 0, lambda: x * x * y, lambda: x / (y * y + 1.0) + 3.0)


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_if_both_branches(t):
    directional_check(piecewise, (X, Y, t))


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_if_with_a_constant_branch(t):
    directional_check(lambda x, t: s4tf.cond(t > 0, lambda v: v * v * v, lambda v: s4tf.zeros_like(v), x), (X, t))


def newton_sqrt(a):
    return s4tf.while_loop(lambda x: s4tf.abs(x * x - a).max() > 1e-10, lambda x: 0.5 * (x + a / x), a)


def test_newton_sqrt_gradient_is_half_over_sqrt():
    a = np.array([0.5, 2.0, 9.0, 30.0])
    np.testing.assert_allclose(np.asarray(s4tf.function(newton_sqrt)(a)), np.sqrt(a), rtol=1e-9)
    gradient = s4tf.grad(lambda a: newton_sqrt(a).sum())(a)
    np.testing.assert_allclose(np.asarray(gradient), 0.5 / np.sqrt(a), rtol=1e-7)


def test_newton_sqrt_forward_and_reverse():
    directional_check(newton_sqrt, (np.array([0.5, 2.0, 9.0]),))


def grow(x):
    """``x`` grown until its sum passes 100, and the number of steps it took."""
    return s4tf.while_loop(lambda c: c[0].sum() < 100.0, lambda c: (c[0] * 1.5 + c[0] * c[0] * 0.01, c[1] + 1), (x, np.int32(0)))


def test_trip_count_depends_on_the_input():
    small, large = np.array([1.1, 0.9, 1.3]), np.array([20.0, 15.0, 30.0])
    counts = [int(np.asarray(s4tf.function(grow)(x)[1])) for x in (small, large)]
    assert counts[0] > counts[1] + 3
    for x in (small, large):
        directional_check(lambda x: grow(x)[0], (x,))


def test_loop_with_a_value_it_does_not_change():
    def f(x, y):
        return s4tf.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * y + c[2], c[2]), (np.int32(0), x, y))[1]

    directional_check(f, (X, Y))


def branchy(x):
    """Six steps, each taking the branch the running sum picks (both are taken here)."""

    def body(carry):
        i, v = carry
        return i + 1, s4tf.cond(v.sum() > 2.0, lambda v: v * 0.5 - 0.1, lambda v: v * v + 0.7, v)

    return s4tf.while_loop(lambda c: c[0] < 6, body, (np.int32(0), x))[1]


BRANCHY_X = np.array([0.5, 0.6, 0.45])


def test_if_inside_while_reverse():
    gradient = np.asarray(s4tf.grad(lambda x: branchy(x).sum())(BRANCHY_X))
    staged, eps = s4tf.function(branchy), 1e-6
    numeric = [(np.asarray(staged(BRANCHY_X + eps * e)) - np.asarray(staged(BRANCHY_X - eps * e))).sum() / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6)


def test_if_inside_while_forward_and_reverse():
    directional_check(branchy, (BRANCHY_X,))


def test_while_inside_while():
    def f(x):
        def outer(carry):
            i, v = carry
            return i + 20.0, s4tf.while_loop(lambda w: w.sum() < i, lambda w: w * 1.3 + 0.1, v)

        return s4tf.while_loop(lambda c: c[0] < 70.0, outer, (np.float64(20.0), x))[1]

    directional_check(f, (np.array([1.2, 0.8, 2.5]),))


@s4tf.function
def settle(v):
    """A loop in a function of its own: called from a loop body, it stays a ``func.call``."""
    return s4tf.while_loop(lambda w: w.sum() < 30.0, lambda w: w * w * 0.2 + w, v)


def test_loop_in_a_function_called_from_a_loop():
    def f(x):
        return s4tf.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, settle(c[1]) * 0.25), (np.int32(0), x))[1]

    assert "call @settle(" in s4tf.function(f).lower(X * X + 1.0).as_text()
    directional_check(f, (X * X + 1.0,))


def test_fori_loop_with_a_tensor_trip_count():
    def f(x, n):
        return s4tf.fori_loop(np.int32(0), n, lambda i, v: v * v * 0.5 + i.astype("float64"), x).sum()

    x = np.array([0.3, -0.6, 0.9])
    for n in (0, 1, 4):
        gradient = np.asarray(s4tf.grad(f)(x, np.int32(n)))
        eps = 1e-6
        numeric = [(np.asarray(s4tf.function(f)(x + eps * e, np.int32(n))) - np.asarray(s4tf.function(f)(x - eps * e, np.int32(n)))) / (2 * eps) for e in np.eye(3)]
        np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)


def test_grad_of_grad_through_if():
    def f(x, t):
        return s4tf.cond(t > 0, lambda v: v * v * v, lambda v: v * v * 4.0, x).sum()

    for t, want in ((1.0, 6.0 * X), (-1.0, np.full(3, 8.0))):
        second = s4tf.grad(lambda x: s4tf.grad(f)(x, t).sum())(X)
        np.testing.assert_allclose(np.asarray(second), want, rtol=1e-9)


def test_reverse_over_forward_through_while():
    """Second derivatives through a loop: the reverse mode of its forward-mode derivative."""

    def f(x):
        return s4tf.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * c[1] + 1.0), (np.int32(0), x))[1].sum()

    v = np.array([1.0, 0.0, 0.0])
    hessian_row = s4tf.grad(lambda x: s4tf.jvp(f, (x,), (v,))[1])(X)
    a = X * X + 1
    b = a * a + 1
    want = np.zeros(3)
    want[0] = 2 * (2 * a[0] * 2 * X[0]) ** 2 + 2 * b[0] * (2 * (2 * X[0]) ** 2 + 2 * a[0] * 2)
    np.testing.assert_allclose(np.asarray(hessian_row), want, rtol=1e-9)


def test_ten_thousand_iterations_recompute_between_checkpoints():
    """Memory is bounded: 1,024 checkpoints and a spare row (one every 16 iterations: the
    stride doubles from 1 each time the tape fills), the iterations between them
    recomputed in the backward pass; the gradient is exact."""
    steps = 10_000

    def f(x):
        return s4tf.while_loop(lambda c: c[0] < steps, lambda c: (c[0] + 1, c[1] * 1.0001), (np.int32(0), x))[1]

    value, pullback = s4tf.vjp(f, X)
    (gradient,) = pullback(np.ones(3))
    np.testing.assert_allclose(np.asarray(gradient), np.full(3, 1.0001**steps), rtol=1e-9)
    residuals = [np.asarray(r) for r in pullback.args[-1]]  # the pullback is partial(run, backward, residuals)
    assert sorted(r.shape for r in residuals if r.ndim) == [(1025,), (1025, 3)]
    assert sorted(int(r) for r in residuals if r.ndim == 0) == [16, steps]  # stride, trip count


def test_branches_of_a_long_loop_are_recomputed_right():
    """2,500 iterations: stride 4, so most backward steps recompute bodies (and their
    branches) from a checkpoint before applying the body's VJP."""

    def f(x):
        def body(carry):
            i, parity, v = carry
            v = s4tf.cond(parity > 0.5, lambda v: v * 1.001, lambda v: v * 0.999 + 0.0005 * v * v, v)
            return i + 1, 1.0 - parity, v

        return s4tf.while_loop(lambda c: c[0] < 2500, body, (np.int32(0), np.float64(0.0), x))[2].sum()

    x = np.array([0.4, 0.9, -0.3])
    gradient = np.asarray(s4tf.grad(f)(x))
    staged, eps = s4tf.function(f), 1e-6
    numeric = [(float(staged(x + eps * e)) - float(staged(x - eps * e))) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6)


def test_segments_longer_than_the_tape_use_checkpoints_of_their_own(monkeypatch):
    """With 4 checkpoints, 50 iterations make 4 segments of 16 (the last of 2), each
    re-recorded into 4 checkpoints of its own (every 4th state) and recomputed from them:
    the path loops of more than a million iterations take with 1,024 checkpoints."""
    monkeypatch.setattr(region_derivatives, "MIN_CHECKPOINTS", 4)
    monkeypatch.setattr(region_derivatives, "CHECKPOINTS", 4)

    def f(x):
        return s4tf.while_loop(lambda c: c[0] < 50, lambda c: (c[0] + 1, c[1] * 0.97 + 0.01 * c[1] * c[1]), (np.int32(0), x))[1]

    value, pullback = s4tf.vjp(f, X)
    residuals = [np.asarray(r) for r in pullback.args[-1]]
    assert sorted(r.shape for r in residuals if r.ndim) == [(5,), (5, 3)]
    assert sorted(int(r) for r in residuals if r.ndim == 0) == [16, 50]  # stride, trip count
    directional_check(f, (X,))


def line_of(fn, text: str) -> str:
    lines, start = inspect.getsourcelines(fn)
    return f"{__file__}:{start + next(i for i, line in enumerate(lines) if text in line)}"


def test_piecewise_constant_op_in_a_loop_body_has_zero_derivative_reported_at_its_line():
    def f(x):
        return s4tf.while_loop(lambda v: v.sum() < 10.0, lambda v: v * 2.0 + s4tf.argmax(v).astype("float64"), x).sum()

    directional_check(f, (X,))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s4tf.ZeroDerivativeWarning)
        with pytest.raises(s4tf.ZeroDerivativeWarning) as caught:
            s4tf.grad(f)(X)
    assert str(caught.value).startswith(f"{line_of(f, 'argmax')}: 's4tf.argmax' is piecewise constant")


def test_reverse_over_reverse_through_while_says_what_to_write():
    def f(x):
        return s4tf.while_loop(lambda v: v.sum() < 10.0, lambda v: v * v + 1.0, x).sum()

    with pytest.raises(MissingDerivativeRule, match=r"s4tf.grad\(lambda x: s4tf.jvp") as error:
        s4tf.grad(lambda x: s4tf.grad(f)(x).sum())(X)
    assert error.value.location == line_of(f, "while_loop")
