"""Derivatives of every op and of composite functions against central finite
differences, forward and reverse mode (``gradient_checks.directional_check``)."""

import warnings

import numpy as np
import pytest
from gradient_checks import directional_check

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(7)

POSITIVE = RNG.uniform(0.5, 2.0, (3, 4))
ANY = RNG.standard_normal((3, 4))
ROW = RNG.standard_normal((4,))

ELEMENTWISE = {
    "exp": (lambda x: s4tf.exp(x), [ANY]),
    "sin": (lambda x: s4tf.sin(x), [ANY]),  # f64: cpu links the system libm
    "cos": (lambda x: s4tf.cos(x), [ANY]),
    "tanh": (lambda x: s4tf.tanh(x), [ANY]),
    "log": (lambda x: s4tf.log(x), [POSITIVE]),
    "log1p": (lambda x: s4tf.log1p(x), [POSITIVE]),
    "sqrt": (lambda x: s4tf.sqrt(x), [POSITIVE]),
    "rsqrt": (lambda x: s4tf.rsqrt(x), [POSITIVE]),
    "abs": (lambda x: abs(x), [ANY]),
    "logistic": (lambda x: s4tf.sigmoid(x), [ANY]),
    "neg": (lambda x: -x, [ANY]),
    "add_broadcast": (lambda x, y: x + y, [ANY, ROW]),
    "sub_broadcast": (lambda x, y: x - y, [ANY, ROW]),
    "mul_broadcast": (lambda x, y: x * y, [ANY, ROW]),
    "div": (lambda x, y: x / y, [ANY, POSITIVE]),
    "pow": (lambda x, y: x ** y, [POSITIVE, ANY]),
    "maximum": (lambda x, y: s4tf.maximum(x, y), [ANY, ROW]),
    "minimum": (lambda x, y: s4tf.minimum(x, y), [ANY, ROW]),
    "select": (lambda x, y: s4tf.where(x > 0, x, y * 2), [ANY, ROW]),
    "relu": (lambda x: s4tf.relu(x), [ANY]),
    # the identity in its first operand; the token orders it and has no derivative
    "after": (lambda x, y: s4tf.op("after", x * y, s4tf.sin(y)) * x, [ANY, ROW]),
    "pow_negative_base": (lambda x: x ** 3.0 + x ** 2, [ANY]),
    # one float step from the first operand: its derivative is the first operand's
    "nextafter": (lambda x, y: s4tf.op("nextafter", x, y) * y, [ANY, ROW]),
    "optimization_barrier": (lambda x: s4tf.op("optimization_barrier", x) * x, [ANY]),
    # Piecewise constant: the derivative is zero (almost everywhere), as in JAX and PyTorch.
    "floor": (lambda x: s4tf.floor(x) * x, [3 * ANY]),
    "ceil": (lambda x: s4tf.ceil(x) * x, [3 * ANY]),
    "round": (lambda x: s4tf.round(x) * x, [3 * ANY]),
    "sign": (lambda x: s4tf.sign(x) * x * x, [ANY]),
    "comparison_as_value": (lambda x, y: s4tf.astype(x > y, np.float64) * x * y, [ANY, ROW]),
    "cast_to_integer": (lambda x: s4tf.astype(s4tf.astype(3 * x, np.int32), np.float64) * x, [ANY]),
    "argmax": (lambda x: s4tf.astype(s4tf.argmax(x, axis=1), np.float64)[:, None] * x, [ANY]),
}
SHAPES = {
    "reduce_sum": (lambda x: x.sum(axis=1), [ANY]),
    "reduce_mean": (lambda x: x.mean(axis=0, keepdims=True), [ANY]),
    "reduce_max": (lambda x: x.max(axis=1), [ANY]),
    "reduce_min": (lambda x: x.min(), [ANY]),
    "reshape_transpose": (lambda x: x.reshape(4, 3).T * 2, [ANY]),
    "slice_index": (lambda x: x[1:, ::2] * x[0, 1], [ANY]),
    "add_slice": (lambda x, u: s4tf.op("add_slice", x * x, u * u, start=(1, 0), stride=(1, 3)), [ANY, ANY[:2, :2]]),
    "concatenate": (lambda x, y: s4tf.concatenate([x, y[None, :]], axis=0), [ANY, ROW]),
    "pad": (lambda x: s4tf.pad(x, ((1, 0), (0, 2))), [ANY]),
    "flip": (lambda x: s4tf.flip(x, axis=1) * x, [ANY]),
    "broadcast_to": (lambda y: s4tf.broadcast_to(y, (3, 4)) * ANY, [ROW]),
}
CONTRACTIONS = {
    "matmul": (lambda x, w: x @ w, [ANY, RNG.standard_normal((4, 2))]),
    "batched_matmul": (lambda x, w: x @ w, [RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))]),
    "stacked_by_matrix": (lambda x, w: x @ w, [RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 5))]),
    "matvec": (lambda x, v: x @ v, [ANY, ROW]),
    "conv2d": (lambda x, w: s4tf.conv2d(x, w, strides=1, padding="same"),
               [RNG.standard_normal((1, 5, 5, 2)), RNG.standard_normal((3, 3, 2, 3))]),
    "conv2d_strided": (lambda x, w: s4tf.conv2d(x, w, strides=2, padding="valid", dilation=1),
                       [RNG.standard_normal((2, 7, 6, 2)), RNG.standard_normal((2, 3, 2, 2))]),
    "conv2d_dilated": (lambda x, w: s4tf.conv2d(x, w, padding=1, dilation=2),
                       [RNG.standard_normal((1, 6, 6, 1)), RNG.standard_normal((2, 2, 1, 2))]),
    "conv2d_grouped_wide_padding": (lambda x, w: s4tf.conv2d(x, w, padding=3, groups=2),
                                    [RNG.standard_normal((1, 4, 4, 4)), RNG.standard_normal((3, 3, 2, 2))]),
    "max_pool2d": (lambda x: s4tf.max_pool2d(x, 2), [RNG.standard_normal((1, 4, 4, 2))]),
    "max_pool2d_overlapping": (lambda x: s4tf.max_pool2d(x, 3, strides=2, padding="same"), [RNG.standard_normal((1, 5, 5, 1))]),
    "avg_pool2d": (lambda x: s4tf.avg_pool2d(x, 2, strides=1, padding="same"), [RNG.standard_normal((1, 4, 3, 2))]),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE) + sorted(SHAPES) + sorted(CONTRACTIONS))
def test_first_derivatives_match_finite_differences(name):
    fn, args = {**ELEMENTWISE, **SHAPES, **CONTRACTIONS}[name]
    directional_check(fn, args)


FLOAT32_ONLY = {
    # the same rules in single precision, and a cast from f32 to f64 and back
    "sin": s4tf.sin,
    "cos": s4tf.cos,
    "tanh": s4tf.tanh,
    "cast": lambda x: s4tf.astype(s4tf.astype(x, np.float64) * 3, np.float32),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_ONLY))
def test_float32_derivatives(name):
    directional_check(FLOAT32_ONLY[name], [ANY], dtype=np.float32, eps=1e-2, rtol=5e-3, atol=5e-3)


def test_mlp_softmax_cross_entropy_loss_gradient():
    x, labels = RNG.standard_normal((6, 4)), np.eye(3)[RNG.integers(0, 3, 6)]

    def loss(w1, w2):
        hidden = s4tf.relu(x @ w1)
        return -s4tf.mean(s4tf.sum(s4tf.log_softmax(hidden @ w2) * labels, axis=1))

    directional_check(loss, [RNG.standard_normal((4, 5)), RNG.standard_normal((5, 3))])


def test_second_order_gradient():
    x = np.linspace(-1, 1, 5)
    f = lambda v: s4tf.sum(s4tf.exp(v) * v)  # noqa: E731
    hessian_diagonal = s4tf.grad(lambda v: s4tf.sum(s4tf.grad(f)(v)))(x)
    np.testing.assert_allclose(np.asarray(hessian_diagonal), np.exp(x) * (x + 2), rtol=1e-10)


def test_gradient_through_staged_calls_is_not_inlined():
    @s4tf.function
    def layer(w, v):
        return s4tf.exp(v @ w)

    def model(w, v):
        return s4tf.sum(layer(w, layer(w, v)))

    w, v = RNG.uniform(-0.3, 0.3, (3, 3)), RNG.standard_normal((2, 3))
    text = s4tf.function(lambda w, v: s4tf.grad(model)(w, v)).lower(w, v).as_text()
    assert "func.func private @layer_vjp_bwd" in text
    directional_check(model, [w, v])


def test_pytree_gradients_have_the_structure_of_the_argument():
    params = {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2), "scale": 2.0}
    x = RNG.standard_normal((4, 3))
    grads = s4tf.grad(lambda p: s4tf.sum(s4tf.sigmoid(x @ p["w"] + p["b"]) * p["scale"]))(params)
    assert set(grads) == {"w", "b", "scale"} and grads["scale"] is None
    s = 1 / (1 + np.exp(-(x @ params["w"] + params["b"])))
    np.testing.assert_allclose(np.asarray(grads["b"]), (2 * s * (1 - s)).sum(axis=0), rtol=1e-10)


def test_piecewise_constant_op_has_zero_derivative_and_an_opt_in_warning_at_the_users_line():
    def f(v):
        return s4tf.sum(s4tf.astype(s4tf.argmax(v), np.float64) * v)  # ARGMAX-LINE

    x = np.array([1.0, 3.0, 2.0])
    with warnings.catch_warnings(record=True) as shown:  # ignored by default
        np.testing.assert_allclose(np.asarray(s4tf.grad(f)(x)), [1.0, 1.0, 1.0])
    assert not [w for w in shown if issubclass(w.category, s4tf.ZeroDerivativeWarning)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", s4tf.ZeroDerivativeWarning)
        with pytest.raises(s4tf.ZeroDerivativeWarning) as caught:
            s4tf.grad(f)(x)
    line = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if "# ARGMAX-LINE" in text and "def" not in text)
    assert str(caught.value).startswith(f"{__file__}:{line}: 's4tf.argmax' is piecewise constant")
    assert "stop_gradient" in str(caught.value)
    with warnings.catch_warnings():  # stop_gradient says it is intended: no warning
        warnings.simplefilter("error", s4tf.ZeroDerivativeWarning)
        fixed = s4tf.grad(lambda v: s4tf.sum(s4tf.astype(s4tf.argmax(s4tf.stop_gradient(v)), np.float64) * v))(x)
    np.testing.assert_allclose(np.asarray(fixed), [1.0, 1.0, 1.0])


def test_stop_gradient_blocks_the_derivative():
    x = RNG.standard_normal(4)
    np.testing.assert_allclose(np.asarray(s4tf.grad(lambda v: s4tf.sum(s4tf.stop_gradient(v) * v))(x)), x)


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if text.endswith(marker))


@pytest.mark.parametrize(
    "tangent, error, found",
    [
        (np.ones(4), s4tf.ShapeError, "has shape (4,) and dtype f64"),
        (np.ones(3, np.int32), s4tf.DTypeError, "has shape (3,) and dtype i32"),
        ("x", s4tf.DTypeError, "is a str"),
    ],
    ids=["shape", "integer", "string"],
)
def test_jvp_tangent_of_the_wrong_shape_or_dtype_is_an_error_at_the_users_line(tangent, error, found):
    params = {"w": np.ones(3), "b": np.ones(2)}
    with pytest.raises(error) as caught:
        s4tf.jvp(lambda p: s4tf.sum(p["w"]) * p["b"], (params,), ({"w": tangent, "b": None},))  # JVP-LINE
    assert str(caught.value) == (
        f"{__file__}:{_line('# JVP-LINE')}: s4tf.jvp of <lambda>: the tangent for primals[0]['w'] {found}, but "
        "primals[0]['w'] has shape (3,) and dtype f64; a derivative has the shape of its value and a float dtype"
    )


def test_vjp_cotangent_of_the_wrong_shape_or_dtype_is_an_error_at_the_users_line():
    def f(x):
        return {"y": x * 2.0, "total": s4tf.sum(x)}

    value, pullback = s4tf.vjp(f, np.ones(3))
    with pytest.raises(s4tf.ShapeError) as caught:
        pullback({"y": np.ones(3), "total": np.ones(2)})  # VJP-SHAPE-LINE
    assert str(caught.value).startswith(
        f"{__file__}:{_line('# VJP-SHAPE-LINE')}: the pullback's cotangent for f(...)['total'] has shape (2,) and dtype f64, "
        "but f(...)['total'] has shape () and dtype f64"
    )
    with pytest.raises(s4tf.DTypeError) as caught:
        pullback({"y": np.ones(3, np.int32), "total": 1.0})  # VJP-DTYPE-LINE
    assert f"{__file__}:{_line('# VJP-DTYPE-LINE')}: the pullback's cotangent for f(...)['y'] has shape (3,) and dtype i32" in str(caught.value)
    with pytest.raises(s4tf.S4tfError, match="does not have the structure"):
        pullback((np.ones(3), 1.0))
    (gradient,) = pullback({"y": np.full(3, 0.5, np.float32), "total": 2.0})  # another float dtype is converted
    np.testing.assert_allclose(np.asarray(gradient), [3.0, 3.0, 3.0])


def test_vjp_cotangent_is_checked_inside_a_staged_function():
    @s4tf.function
    def g(x):
        _, pullback = s4tf.vjp(s4tf.sin, x)
        return pullback(np.ones(4))  # VJP-STAGED-LINE

    with pytest.raises(s4tf.ShapeError, match=rf"^{__file__}:{_line('# VJP-STAGED-LINE')}: the pullback's cotangent for sin\(\.\.\.\)"):
        g(np.ones(3))
