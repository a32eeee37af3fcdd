"""A cubic B-spline fitted by gradient descent with a backtracking line search: two nested
data-dependent loops with ``value_and_grad`` inside, in s4tf (:func:`fit`), JAX
(:func:`jax_fit`: ``lax.while_loop`` in ``lax.while_loop``) and float64 NumPy
(:func:`fit_numpy`). The tests and ``bench_loops_real.py`` share it."""

from __future__ import annotations

import numpy as np

import s4tf


def bspline_basis(samples: int, control: int) -> np.ndarray:
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


def spline_args(samples: int, control: int, iterations: int = 200):
    """Zero control points, the float32 basis, samples of ``sin`` on ``[0, 6]``, the step bound."""
    target = np.sin(np.linspace(0.0, 6.0, samples)).astype(np.float32)
    basis = bspline_basis(samples, control).astype(np.float32)
    return np.zeros(control, np.float32), basis, target, np.int32(iterations)


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


def jax_fit(c, basis, target, iterations):
    """:func:`fit` with ``jax.lax.while_loop``s and ``jax.value_and_grad`` (to ``jax.jit``)."""
    import jax
    import jax.numpy as jnp

    def jax_loss(c):
        residual = basis @ c - target
        return jnp.mean(residual * residual)

    value_and_grad = jax.value_and_grad(jax_loss)

    def search(state):
        c, f, g, it = state
        gg = jnp.sum(g * g)

        def halve(inner):
            step, _, _ = inner
            step = step * 0.5
            trial = c - step * g
            return step, trial, jax_loss(trial)

        step = jnp.float32(8.0)
        trial = c - step * g
        _, trial, _ = jax.lax.while_loop(lambda inner: inner[2] > f - 0.5 * inner[0] * gg, halve,
                                         (step, trial, jax_loss(trial)))
        f, g = value_and_grad(trial)
        return trial, f, g, it + 1

    f, g = value_and_grad(c)
    c, f, _, it = jax.lax.while_loop(lambda s: (jnp.sum(s[2] * s[2]) > 1e-8) & (s[3] < iterations), search,
                                     (c, f, g, iterations * 0))
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
