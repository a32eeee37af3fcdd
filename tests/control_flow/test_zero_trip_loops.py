"""Loops that run zero times, host-stepped (``stablehlo.while`` on IREE's host VM, as on
targets where ``s4tf-loops-to-dispatch`` declines), forward and reverse, on ``cpu`` and
``vmvx``: the values are the loop's initial state, the gradients are the seed for the
carried state and zero for what only the loop reads; one trip is checked beside them.

The RNN's gradient at 0 steps once failed there with IREE's "ref is null": the zero
cotangents of W and U shared one allocation (passes/autodiff/region_derivatives.py)."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.passes.pipeline import LOWERING_PIPELINE

from test_loop_dispatch import op_counts, relax, relax_numpy, rnn, rnn_arguments, rnn_numpy

TARGETS = ["cpu", "vmvx"]


def run_host_stepped(fn, args, target: str):
    """``fn`` staged for ``args``, lowered without ``s4tf-loops-to-dispatch`` (every loop a
    ``stablehlo.while``, no dispatch region), compiled for ``target`` and called."""
    lowered = s4tf.function(fn).lower(*args)
    text = lowered.stablehlo(LOWERING_PIPELINE)
    counts = op_counts(text)
    assert counts.get("stablehlo.while", 0) >= 1 and "flow.dispatch.region" not in counts, text
    module = compile_and_load(text, target)
    return [np.asarray(r) for r in module.invoke(lowered.entry, [np.asarray(a) for a in args])]


def rnn_loss(w, u, h, xs, n):
    return (s4tf.function(rnn)(w, u, h, xs, n) * xs[0, :1]).sum()


def rnn_gradient(w, u, h, xs, n):
    return s4tf.grad(rnn_loss, argnums=(0, 1, 2))(w, u, h, xs, n)


def affine(a, b, x, n):
    """Two loop invariants (a, b) and a counted loop with a traced bound."""
    return s4tf.fori_loop(0, n, lambda i, x: a * x + b, x)


def affine_gradient(a, b, x, n):
    return s4tf.grad(lambda a, b, x: affine(a, b, x, n).sum(), argnums=(0, 1, 2))(a, b, x)


def relax_gradient(x, n):
    return s4tf.grad(lambda x: s4tf.function(relax)(x, n)[0].sum())(x)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("steps", [0, 1])
def test_rnn_value_and_gradient(target, steps):
    w, u, h, xs = rnn_arguments(1, hidden=8, features=4, seed=5)
    args = (w, u, h, xs, np.int32(steps))
    (value,) = run_host_stepped(rnn, args, target)
    np.testing.assert_allclose(value, rnn_numpy(w, u, h, xs, steps), rtol=1e-5, atol=2e-6)
    dw, du, dh = run_host_stepped(rnn_gradient, args, target)
    if steps == 0:
        np.testing.assert_array_equal(value, h)
        for got, want in zip((dw, du, dh), (np.zeros_like(w), np.zeros_like(u), np.full_like(h, xs[0, 0]))):
            np.testing.assert_array_equal(got, want)
    else:  # h1 = tanh(z): dh1 = xs[0, 0], dz = dh1 (1 - h1^2), dW = dz h0^T, dU = dz x0^T, dh0 = W^T dz
        h1 = rnn_numpy(w, u, h, xs, 1)
        dz = xs[0, 0].astype(np.float64) * (1 - h1 ** 2)
        for got, want in zip((dw, du, dh), (np.outer(dz, h), np.outer(dz, xs[0]), w.T.astype(np.float64) @ dz)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("steps", [0, 1, 2])
def test_a_counted_loop_with_two_invariants(target, steps):
    """Once failed host-stepped from 1 trip on ("ref is null"; 2 trips: "indirect buffer
    reference slot 0 is out range"), the cotangents of a and b sharing an allocation."""
    a = np.array([0.5, -1.5, 2.0], np.float32)
    b = np.array([0.25, 1.0, -0.75], np.float32)
    x = np.array([1.0, 2.0, -3.0], np.float32)
    args = (a, b, x, np.int32(steps))
    (value,) = run_host_stepped(affine, args, target)
    states = [x]
    for _ in range(steps):
        states.append(a * states[-1] + b)
    np.testing.assert_array_equal(value, states[-1])
    da, db, dx = run_host_stepped(affine_gradient, args, target)
    # x_n = a^n x + b (a^(n-1) + ... + 1): d/da = sum_k a^(n-1-k) x_k, d/db = sum_k a^k, d/dx = a^n
    want = (sum((a ** (steps - 1 - k) * states[k] for k in range(steps)), np.zeros(3)),
            sum((a ** k for k in range(steps)), np.zeros(3)), a ** steps)
    for got, w in zip((da, db, dx), want):
        np.testing.assert_allclose(got, w, rtol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_relax_value_and_gradient_at_zero_steps(target):
    x = np.array([0.3, 1.2, -2.0], np.float32)
    value, count = run_host_stepped(relax, (x, np.int32(0)), target)
    np.testing.assert_array_equal(value, relax_numpy(x, 0).astype(np.float32))
    assert int(count) == 0
    (dx,) = run_host_stepped(relax_gradient, (x, np.int32(0)), target)
    np.testing.assert_array_equal(dx, np.ones(3, np.float32))

