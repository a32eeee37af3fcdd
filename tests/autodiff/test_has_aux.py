"""grad and value_and_grad with has_aux=True: JAX's (output, aux) convention."""

import numpy as np
import pytest

import s4tf
from s4tf.core.errors import S4tfError
from tests.autodiff.gradient_checks import numeric_jacobian

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.random.default_rng(3).standard_normal((3, 4))


def loss_with_aux(w):
    y = s4tf.tanh(w) * w
    return s4tf.sum(y), {"y": y, "count": s4tf.sum(s4tf.ones((2,), "int32")), "first": w[0]}


def loss_value(w):
    return np.sum(np.tanh(w) * w)


def check_aux(aux, w):
    np.testing.assert_allclose(np.asarray(aux["y"]), np.tanh(w) * w, rtol=1e-12)
    assert int(np.asarray(aux["count"])) == 2
    np.testing.assert_array_equal(np.asarray(aux["first"]), w[0])


@pytest.mark.parametrize("mode", ["eager", "staged", "lazy"])
def test_grad_has_aux(mode):
    transform = s4tf.grad(loss_with_aux, has_aux=True)
    if mode == "staged":
        transform = s4tf.function(transform)
    if mode == "lazy":
        with s4tf.lazy():
            g, aux = transform(X)
            g, aux = np.asarray(g), {k: np.asarray(v) for k, v in aux.items()}
    else:
        g, aux = transform(X)
    np.testing.assert_allclose(np.asarray(g), numeric_jacobian(loss_value, X), rtol=1e-7, atol=1e-9)
    check_aux(aux, X)


@pytest.mark.parametrize("staged", [False, True])
def test_value_and_grad_has_aux(staged):
    transform = s4tf.value_and_grad(loss_with_aux, has_aux=True)
    if staged:
        transform = s4tf.function(transform)
    (value, aux), g = transform(X)
    assert float(np.asarray(value)) == pytest.approx(loss_value(X), rel=1e-12)
    np.testing.assert_allclose(np.asarray(g), numeric_jacobian(loss_value, X), rtol=1e-7, atol=1e-9)
    check_aux(aux, X)


def test_aux_is_not_differentiated_and_argnums_apply():
    def f(a, b):
        return s4tf.sum(a * b), s4tf.sum(a * a)  # aux's own derivative (2a) must not leak in

    ga, aux = s4tf.grad(f, argnums=(0, 1), has_aux=True)(X, 2 * X)
    np.testing.assert_allclose(np.asarray(ga[0]), 2 * X, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ga[1]), X, rtol=1e-12)
    assert float(np.asarray(aux)) == pytest.approx(np.sum(X * X))


@pytest.mark.parametrize("result", ["single", "triple"])
def test_has_aux_needs_a_pair(result):
    def f(w):
        return s4tf.sum(w) if result == "single" else (s4tf.sum(w), w, w)

    with pytest.raises(S4tfError, match=r"has_aux=True.*must return a pair \(output, aux\)"):
        s4tf.grad(f, has_aux=True)(X)


def test_has_aux_output_must_be_a_scalar():
    with pytest.raises(S4tfError, match="whose first item is one float scalar"):
        s4tf.value_and_grad(lambda w: (w, s4tf.sum(w)), has_aux=True)(X)


def test_aux_that_depends_on_no_argument_is_not_warned_of_but_the_output_is():
    """Only the seeded output earns the "derivative is zero" warning: an aux result computed
    from data alone (a model's updated statistics, a count) rides along silently."""
    import warnings

    from s4tf.passes.registry import DiagnosticWarning

    data = np.arange(3.0)

    def with_constant_aux(w):
        return s4tf.sum(w * w), s4tf.asarray(data) * 2.0

    def constant_output(w):
        return s4tf.sum(s4tf.asarray(data)) + 0.0 * s4tf.sum(s4tf.stop_gradient(w)), w * 2.0

    for fn, warned in ((with_constant_aux, False), (constant_output, True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g, aux = s4tf.function(s4tf.grad(fn, has_aux=True))(np.ones(3))
        messages = [str(w.message) for w in caught if issubclass(w.category, DiagnosticWarning)]
        assert any("does not depend on any differentiated argument" in m for m in messages) == warned, messages
