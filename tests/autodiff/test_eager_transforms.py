"""``s4tf.jvp`` and ``s4tf.vjp`` called outside a staged function are staged once per
function and input signature, as ``s4tf.grad(fn)`` is: later calls with new values run the
compiled functions (the Python function is not traced again) and give those values'
derivatives; new shapes, dtypes or static arguments stage again."""

import numpy as np

import s4tf

traces = []


def f(x, scale):
    traces.append(x.shape)
    return s4tf.sum(s4tf.sin(x) * x) * scale


def derivative(x, scale):
    return (np.sin(x) + x * np.cos(x)) * scale


def test_vjp_is_staged_once_per_signature_and_follows_the_values():
    traces.clear()
    for k in range(3):
        x = np.linspace(-1.0, 1.0, 5).astype(np.float32) + k
        value, pullback = s4tf.vjp(f, x, 2.0)
        (dx, dscale) = pullback(np.float32(1.0))
        np.testing.assert_allclose(float(value), np.sum(np.sin(x) * x) * 2.0, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(dx), derivative(x, 2.0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(float(dscale), np.sum(np.sin(x) * x), rtol=1e-6)
    traced = len(traces)
    x = np.linspace(-1.0, 1.0, 5).astype(np.float32)
    s4tf.vjp(f, x, 2.0)[1](np.float32(1.0))
    assert len(traces) == traced  # no tracing after the first call
    x7 = np.linspace(0.0, 1.0, 7)  # a new shape and dtype: staged again
    (dx, _) = s4tf.vjp(f, x7, 3.0)[1](1.0)
    assert len(traces) > traced
    np.testing.assert_allclose(np.asarray(dx), derivative(x7, 3.0), rtol=1e-12)


def g(x):
    return f(x, 1.5)


def test_jvp_is_staged_once_and_follows_the_values():
    traces.clear()
    ones = np.ones(4, np.float32)
    for k in range(3):
        x = np.full(4, 0.5 * k, np.float32)
        value, tangent = s4tf.jvp(g, (x,), (ones,))
        np.testing.assert_allclose(float(value), np.sum(np.sin(x) * x) * 1.5, rtol=1e-6)
        np.testing.assert_allclose(float(tangent), np.sum(derivative(x, 1.5)), rtol=1e-5, atol=1e-6)
    assert len(traces) == 1
