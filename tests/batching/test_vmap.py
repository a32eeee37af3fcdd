"""``s4tf.vmap``: JAX's signature (in_axes/out_axes as pytree prefixes, ``None`` for
shared arguments), eagerly and inside ``@s4tf.function``, nested, of ``grad`` (per-example
gradients), and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(1)
XS = RNG.standard_normal((5, 3)).astype(np.float32)
W = RNG.standard_normal((3, 2)).astype(np.float32)
TOL = {"rtol": 2e-5, "atol": 2e-6}
#: The ops whose batching this module checks (read by tests/dialects/test_op_coverage.py).
BATCHED_OPS = {"if"}


def layer(x, w):
    return snp.tanh(x @ w)


def test_shared_argument_and_out_axes():
    result = s4tf.vmap(layer, in_axes=(0, None), out_axes=1)(XS, W)
    np.testing.assert_allclose(np.asarray(result), np.stack([np.tanh(x @ W) for x in XS], axis=1), **TOL)


def test_out_axes_none_for_a_result_that_depends_on_no_batched_argument():
    scaled, doubled = s4tf.vmap(lambda x, w: (x @ w, w * 2.0), in_axes=(0, None), out_axes=(0, None))(XS, W)
    np.testing.assert_allclose(np.asarray(scaled), XS @ W, **TOL)
    np.testing.assert_allclose(np.asarray(doubled), W * 2.0, **TOL)
    with pytest.raises(S4tfError, match="out_axes=None for result 0, which depends on a batched argument"):
        s4tf.vmap(lambda x: x * 2.0, out_axes=None)(XS)


def test_negative_in_axis_and_python_scalar_argument():
    result = s4tf.vmap(lambda x, c: snp.sin(x) * c, in_axes=(-1, None))(XS.T, 3.0)
    np.testing.assert_allclose(np.asarray(result), np.sin(XS) * 3.0, **TOL)


def test_pytree_arguments_and_results():
    params = {"w": W, "b": np.float32([0.5, -0.5])}

    def model(params, x):
        y = x @ params["w"] + params["b"]
        return {"y": y, "norm": snp.sum(y * y)}

    result = s4tf.vmap(model, in_axes=({"w": None, "b": None}, 0), out_axes={"y": 0, "norm": 0})(params, XS)
    ys = XS @ W + params["b"]
    np.testing.assert_allclose(np.asarray(result["y"]), ys, **TOL)
    np.testing.assert_allclose(np.asarray(result["norm"]), (ys * ys).sum(1), rtol=1e-5)


def test_closed_over_tensor_is_shared():
    @s4tf.function
    def apply(xs, w):
        return s4tf.vmap(lambda x: layer(x, w))(xs)

    np.testing.assert_allclose(np.asarray(apply(XS, W)), np.tanh(XS @ W), **TOL)


def test_nested_vmap_is_an_outer_product():
    ys = RNG.standard_normal(4).astype(np.float32)
    outer = s4tf.vmap(s4tf.vmap(lambda x, y: x * y + 1.0, in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(np.asarray(outer(XS[:, 0], ys)), XS[:, 0, None] * ys[None, :] + 1.0, **TOL)


def test_a_callee_is_batched_too():
    inner = s4tf.function(lambda x: snp.exp(x) / snp.sum(snp.exp(x)))
    result = s4tf.vmap(lambda x: inner(x) * 2.0)(XS)
    expected = 2.0 * np.exp(XS) / np.exp(XS).sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(result), expected, **TOL)


def test_per_example_gradients_of_an_mlp_equal_the_loop():
    params = {
        "w1": RNG.standard_normal((3, 8)).astype(np.float32) * 0.5, "b1": np.zeros(8, np.float32),
        "w2": RNG.standard_normal((8, 2)).astype(np.float32) * 0.5, "b2": np.zeros(2, np.float32),
    }
    labels = RNG.standard_normal((5, 2)).astype(np.float32)

    def loss(params, x, y):
        h = snp.tanh(x @ params["w1"] + params["b1"])
        out = h @ params["w2"] + params["b2"]
        return snp.mean((out - y) ** 2)

    batched = s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0))(params, XS, labels)
    singles = [s4tf.grad(loss)(params, x, y) for x, y in zip(XS, labels)]
    for key in params:
        assert np.asarray(batched[key]).shape == (5, *params[key].shape)
        np.testing.assert_allclose(np.asarray(batched[key]), np.stack([np.asarray(g[key]) for g in singles]), rtol=1e-4, atol=1e-6)


def test_per_example_gradients_of_an_embedding_and_a_convolution_equal_the_loop():
    # gather's transpose (a scatter-add at per-example indices) and conv2d's filter gradient
    table = RNG.standard_normal((6, 4)).astype(np.float32)
    kernel = RNG.standard_normal((2, 2, 1, 3)).astype(np.float32)
    ids = np.int32([[0, 5], [2, 2], [5, 1], [3, 0], [4, 4]])
    images = RNG.standard_normal((5, 1, 4, 4, 1)).astype(np.float32)

    def loss(table, kernel, ids, image):
        features = snp.conv2d(image, kernel)  # (1, 3, 3, 3)
        return snp.sum(table[ids] ** 2) + snp.sum(snp.tanh(features))

    grads = s4tf.grad(loss, argnums=(0, 1))
    batched = s4tf.vmap(grads, in_axes=(None, None, 0, 0))(table, kernel, ids, images)
    singles = [grads(table, kernel, i, image) for i, image in zip(ids, images)]
    for index in (0, 1):
        expected = np.stack([np.asarray(g[index]) for g in singles])
        np.testing.assert_allclose(np.asarray(batched[index]), expected, rtol=1e-4, atol=1e-5)


def test_a_callee_result_no_example_changes_stays_shared():
    """A callee's result that depends on no batched argument (here a weight it hands back,
    as vjp's forward half does) is used unbatched by the caller: the product stays one
    matrix product, not 5 copies of the weight; only vmap's own result is broadcast."""
    inner = s4tf.function(lambda x, w: (snp.sin(x), w * 2.0))

    def f(x, w):
        s, w2 = inner(x, w)
        return s @ w2, w2

    mapped = s4tf.vmap(f, in_axes=(0, None))
    out, ws = mapped(XS, W)
    np.testing.assert_allclose(np.asarray(out), np.sin(XS) @ (2.0 * W), **TOL)
    np.testing.assert_allclose(np.asarray(ws), np.broadcast_to(2.0 * W, (5, 3, 2)), **TOL)
    stablehlo = s4tf.function(mapped).lower(XS, W).stablehlo()
    assert "tensor<5x3x2xf32>" in stablehlo  # the broadcast result
    assert "batching_dims" not in stablehlo, stablehlo  # x @ w2 is one (5, 3) @ (3, 2) product


def test_per_example_gradients_use_the_weights_unbatched():
    """vmap(grad(loss)): the weight vjp's forward half passes to its backward half (``v``,
    for the cotangent of ``w``'s layer) is not broadcast to one copy per example: the
    backward product with it is a plain matrix product."""
    def loss(w, v, x):
        return snp.sum(snp.tanh(x @ w) @ v)

    xs = RNG.standard_normal((5, 4)).astype(np.float32)
    w = RNG.standard_normal((4, 6)).astype(np.float32)
    v = RNG.standard_normal(6).astype(np.float32)
    per_example = s4tf.vmap(s4tf.grad(loss), in_axes=(None, None, 0))
    stablehlo = s4tf.function(per_example).lower(w, v, xs).stablehlo()
    assert "tensor<5x6x1xf32>" not in stablehlo, stablehlo  # 5 copies of v, as a (6, 1) matrix
    expected = np.stack([np.outer(x, v * (1 - np.tanh(x @ w) ** 2)) for x in xs])
    np.testing.assert_allclose(np.asarray(per_example(w, v, xs)), expected, rtol=1e-4, atol=1e-5)


@s4tf.function
def branchy(x, c):
    if snp.sum(x) > c:
        y = snp.sin(x) * 2.0
    else:
        y = -x
    return y


def _branchy(x, c):
    return np.sin(x) * 2.0 if x.sum() > c else -x


@pytest.mark.parametrize(
    "in_axes", [(0, None), (None, 0), (0, 0)], ids=["batched-data", "batched-threshold-only", "both"]
)
def test_if_with_a_batched_predicate_selects_per_example(in_axes):
    thresholds = RNG.standard_normal(5).astype(np.float32)
    args = (XS if in_axes[0] == 0 else XS[0], thresholds if in_axes[1] == 0 else np.float32(0.0))
    result = s4tf.vmap(branchy, in_axes=in_axes)(*args)
    expected = [_branchy(XS[b] if in_axes[0] == 0 else XS[0], args[1][b] if in_axes[1] == 0 else 0.0) for b in range(5)]
    np.testing.assert_allclose(np.asarray(result), np.stack(expected), **TOL)


def test_if_with_an_unbatched_predicate_stays_an_if():
    @s4tf.function
    def gated(x, p):
        if p > 0:
            y = snp.sin(x)
        else:
            y = x * 3.0
        return y

    for p, expected in ((1.0, np.sin(XS)), (-1.0, XS * 3.0)):
        np.testing.assert_allclose(np.asarray(s4tf.vmap(gated, in_axes=(0, None))(XS, np.float32(p))), expected, **TOL)


def test_a_staged_python_while_runs_each_example_to_its_own_end():
    @s4tf.function
    def doubling(x):
        while snp.sum(x) < 100.0:
            x = x * 2.0
        return x

    xs = np.abs(XS) + 1.0
    expected = []
    for x in xs:
        while x.sum() < 100.0:
            x = x * 2.0
        expected.append(x)
    np.testing.assert_allclose(np.asarray(s4tf.vmap(doubling)(xs)), np.stack(expected), **TOL)


def test_a_host_call_that_cannot_take_a_batch_is_an_error_at_the_users_line():
    def shuffle(x):
        return x[::-1].copy()

    @s4tf.function
    def noisy(x):
        return s4tf.host(shuffle)(x) * 2.0

    line = noisy.__wrapped__.__code__.co_firstlineno + 2  # the decorator's, then the def's
    with pytest.raises(S4tfError, match=rf"test_vmap.py:{line}: host function 'shuffle' is called on a batch"):
        s4tf.vmap(noisy)(XS)


def test_batch_sizes_must_agree():
    with pytest.raises(S4tfError, match=r"different sizes \[4, 5\]"):
        s4tf.vmap(lambda x, y: x + y)(XS, XS[:4])


def test_in_axes_must_match_the_arguments():
    with pytest.raises(S4tfError, match="in_axes has 1 entries for 2 arguments"):
        s4tf.vmap(layer, in_axes=(0,))(XS, W)


def test_grad_and_jvp_of_a_vmapped_function():
    def total(w):
        return snp.sum(s4tf.vmap(layer, in_axes=(0, None))(XS, w) ** 2)

    y = np.tanh(XS @ W)
    np.testing.assert_allclose(np.asarray(s4tf.grad(total)(W)), 2 * XS.T @ (y * (1 - y**2)), rtol=1e-5, atol=1e-6)
    dw = np.ones_like(W)
    _, dy = s4tf.jvp(lambda w: s4tf.vmap(layer, in_axes=(0, None))(XS, w), (W,), (dw,))
    np.testing.assert_allclose(np.asarray(dy), (1 - y**2) * (XS @ dw), rtol=1e-5, atol=1e-6)


def test_vmap_of_jvp_over_basis_vectors_is_the_jacobian():
    x = XS[0]

    def f(x):
        return snp.sin(x) * snp.sum(x)

    basis = np.eye(3, dtype=np.float32)
    columns = s4tf.vmap(lambda t: s4tf.jvp(f, (x,), (t,))[1])(basis)  # row i: J @ e_i
    jacobian = np.diag(np.cos(x)) * x.sum() + np.outer(np.sin(x), np.ones(3))
    np.testing.assert_allclose(np.asarray(columns).T, jacobian, rtol=1e-5, atol=1e-6)
