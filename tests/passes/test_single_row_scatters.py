"""s4tf-single-row-scatters (passes/single_row_scatters.py): a ``set`` or ``add`` scatter
of one row along axis 0 runs as a row write; values and derivatives against NumPy, at coordinates in
range, negative and out of range, given when compiling or at run time, and the scan whose
stacked outputs it writes (lit: tests/lit/passes/s4tf-single-row-scatters.mlir)."""

import numpy as np
import pytest

import s4tf

X = np.arange(24, dtype=np.float32).reshape(6, 4)
U = np.array([-1.0, -2.0, -3.0, -4.0], np.float32)


def numpy_set(x, i, u):
    """NumPy's ``x[i] = u`` where ``-len(x) <= i < len(x)``; ``x`` unchanged otherwise
    (s4tf drops an update out of range, as its scatter does)."""
    y = x.copy()
    if -len(x) <= i < len(x):
        y[i] = u
    return y


def lowered(fn, *args) -> str:
    return s4tf.function(fn).lower(*args).stablehlo()


@pytest.mark.parametrize("i", [0, 3, 5, -1, -6, 6, 9, -7])
def test_row_set_at_a_run_time_coordinate(i):
    set_row = s4tf.function(lambda x, i, u: x.at[i].set(u))
    np.testing.assert_array_equal(np.asarray(set_row(X, np.int32(i), U)), numpy_set(X, i, U))
    assert "stablehlo.scatter" not in lowered(lambda x, i, u: x.at[i].set(u), X, np.int32(i), U)
    assert "stablehlo.dynamic_update_slice" in lowered(lambda x, i, u: x.at[i].set(u), X, np.int32(i), U)


@pytest.mark.parametrize("i", [1, -2, 6, -7])
def test_row_add_at_a_run_time_coordinate(i):
    expected = X.copy()
    if -len(X) <= i < len(X):
        expected[i] += U
    text = lowered(lambda x, i, u: x.at[i].add(u), X, np.int32(i), U)
    assert "stablehlo.scatter" not in text
    np.testing.assert_array_equal(np.asarray(s4tf.function(lambda x, i, u: x.at[i].add(u))(X, np.int32(i), U)), expected)


def test_row_set_leaves_its_arguments_as_they_were():
    """The row write does not reach the caller's array (IREE writes a scatter into its
    operand's buffer; the write of a row does not), NumPy's or a device array."""
    x = X.copy()
    device = s4tf.function(lambda x: x * 1.0)(x)
    for operand in (x, device):
        result = s4tf.function(lambda x, i: x.at[i].set(s4tf.zeros(4)))(operand, np.int32(2))
        np.testing.assert_array_equal(np.asarray(result)[2], np.zeros(4))
        np.testing.assert_array_equal(np.asarray(operand), X)


@pytest.mark.parametrize("i", [2, -1, 8])
def test_row_set_derivatives(i):
    """Reverse mode: ``x`` gets the cotangent except the row written, ``u`` that row's
    cotangent (zero when the coordinate is out of range)."""
    weights = np.random.default_rng(3).standard_normal(X.shape).astype(np.float32)
    loss = lambda x, u, i: s4tf.sum(x.at[i].set(u) * weights)
    g_x, g_u = s4tf.grad(loss, argnums=(0, 1))(X, U, np.int32(i))
    expected_x, expected_u = weights.copy(), np.zeros(4, np.float32)
    if -len(X) <= i < len(X):
        expected_x[i], expected_u = 0.0, weights[i]
    np.testing.assert_array_equal(np.asarray(g_x), expected_x)
    np.testing.assert_array_equal(np.asarray(g_u), expected_u)


def test_scan_outputs_and_gradient_without_scatters():
    """A scan's stacked outputs are written a row at a time, forward and backward; the
    outputs and the gradient match NumPy and float64 central differences."""
    rng = np.random.default_rng(8)
    w = rng.standard_normal((4, 4)) * 0.4
    xs = rng.standard_normal((9, 3, 4))

    def outputs(h0, xs):
        return s4tf.scan(lambda h, x: (s4tf.tanh(h @ w + x),) * 2, h0, xs)[1]

    def loss(h0, xs):
        return s4tf.sum(outputs(h0, xs) ** 2)

    def numpy_loss(h0):
        h, total = h0, 0.0
        for x in xs:
            h = np.tanh(h @ w + x)
            total += np.sum(h * h)
        return total

    h0 = rng.standard_normal((3, 4))
    text = lowered(s4tf.grad(loss, argnums=(0, 1)), h0, xs)
    assert "stablehlo.scatter" not in text, text
    g_xs = np.asarray(s4tf.function(s4tf.grad(loss, argnums=1))(h0, xs))
    for index in [(0, 0, 0), (4, 2, 1), (8, 1, 3)]:
        e = np.zeros_like(xs)
        e[index] = 1e-6
        numeric_xs = (float(np.asarray(s4tf.function(loss)(h0, xs + e))) - float(np.asarray(s4tf.function(loss)(h0, xs - e)))) / 2e-6
        assert g_xs[index] == pytest.approx(numeric_xs, rel=1e-6)
    np.testing.assert_allclose(np.asarray(s4tf.function(loss)(h0, xs)), numpy_loss(h0), rtol=1e-12)
    gradient = np.asarray(s4tf.function(s4tf.grad(loss))(h0, xs))
    eps, numeric = 1e-6, np.zeros_like(h0)
    for index in np.ndindex(h0.shape):
        e = np.zeros_like(h0)
        e[index] = eps
        numeric[index] = (numpy_loss(h0 + e) - numpy_loss(h0 - e)) / (2 * eps)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-8)
