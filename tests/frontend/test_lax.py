"""``s4tf.lax`` against ``jax.lax``: each name called with the same arguments on both
modules (one staged function per dtype), in f32 and f64; derivatives against float64
finite differences; errors that name the user's line."""

import sys
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf import lax

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax = pytest.importorskip("jax")

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

RNG = np.random.default_rng(5)
TOLERANCE = {np.float64: 1e-12, np.float32: 2e-6}

CASES = [  # m: the module (s4tf.lax or jax.lax); x, y: (3, 4); p: positive; i, j: ints; s: start indices
    lambda m, x, y, p, i, j, s: m.abs(x),
    lambda m, x, y, p, i, j, s: m.add(x, y),
    lambda m, x, y, p, i, j, s: m.sub(x, y),
    lambda m, x, y, p, i, j, s: m.mul(x, y),
    lambda m, x, y, p, i, j, s: m.div(x, y),
    lambda m, x, y, p, i, j, s: m.div(i, j),
    lambda m, x, y, p, i, j, s: m.rem(x, y),
    lambda m, x, y, p, i, j, s: m.rem(i, j),
    lambda m, x, y, p, i, j, s: m.neg(x),
    lambda m, x, y, p, i, j, s: m.sign(x),
    lambda m, x, y, p, i, j, s: m.floor(x),
    lambda m, x, y, p, i, j, s: m.ceil(x),
    lambda m, x, y, p, i, j, s: m.exp(x),
    lambda m, x, y, p, i, j, s: m.expm1(x),
    lambda m, x, y, p, i, j, s: m.log(p),
    lambda m, x, y, p, i, j, s: m.log1p(p),
    lambda m, x, y, p, i, j, s: m.sqrt(p),
    lambda m, x, y, p, i, j, s: m.rsqrt(p),
    lambda m, x, y, p, i, j, s: m.cbrt(x),
    lambda m, x, y, p, i, j, s: m.tanh(x),
    lambda m, x, y, p, i, j, s: m.logistic(x),
    lambda m, x, y, p, i, j, s: m.sin(x),
    lambda m, x, y, p, i, j, s: m.cos(x),
    lambda m, x, y, p, i, j, s: m.tan(x),
    lambda m, x, y, p, i, j, s: m.atan2(x, y),
    lambda m, x, y, p, i, j, s: m.erf(x),
    lambda m, x, y, p, i, j, s: m.erfc(x),
    lambda m, x, y, p, i, j, s: m.pow(p, y),
    lambda m, x, y, p, i, j, s: m.integer_pow(x, 3),
    lambda m, x, y, p, i, j, s: m.integer_pow(p, -2),
    lambda m, x, y, p, i, j, s: m.square(x),
    lambda m, x, y, p, i, j, s: m.max(x, y),
    lambda m, x, y, p, i, j, s: m.min(x, y),
    lambda m, x, y, p, i, j, s: m.clamp(-0.5, x, 0.5),
    lambda m, x, y, p, i, j, s: m.select(m.gt(x, y), x, y),
    lambda m, x, y, p, i, j, s: m.select_n(m.gt(x, y), x, y),
    lambda m, x, y, p, i, j, s: m.select_n(m.rem(m.abs(i), m.abs(i) * 0 + 3), x, y, p),
    lambda m, x, y, p, i, j, s: [m.eq(i, j), m.ne(i, j), m.lt(x, y), m.le(i, j), m.ge(x, y), m.is_finite(x)],
    lambda m, x, y, p, i, j, s: m.stop_gradient(x),
    lambda m, x, y, p, i, j, s: m.convert_element_type(x * 3, np.int32),
    lambda m, x, y, p, i, j, s: m.fori_loop(0, 3, lambda k, c: c * 2 + k, x),
    lambda m, x, y, p, i, j, s: m.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1],
    lambda m, x, y, p, i, j, s: m.scan(lambda c, row: (c + row, c * row), x[0], y),
    lambda m, x, y, p, i, j, s: m.cond(x[0, 0] > y[0, 0], lambda a: a + 1, lambda a: a - 1, x),
    lambda m, x, y, p, i, j, s: m.broadcast_in_dim(x[0], (3, 4), (1,)),
    lambda m, x, y, p, i, j, s: m.broadcast(x, (2,)),
    lambda m, x, y, p, i, j, s: m.expand_dims(x, (0, 2)),
    lambda m, x, y, p, i, j, s: m.squeeze(m.expand_dims(x, (0,)), (0,)),
    lambda m, x, y, p, i, j, s: m.reshape(x, (4, 3)),
    lambda m, x, y, p, i, j, s: m.reshape(x, (4, 3), (1, 0)),
    lambda m, x, y, p, i, j, s: m.transpose(x, (1, 0)),
    lambda m, x, y, p, i, j, s: m.concatenate([x, y], 1),
    lambda m, x, y, p, i, j, s: m.slice(x, (0, 1), (3, 4), (2, 2)),
    lambda m, x, y, p, i, j, s: m.iota(np.int32, 5),
    lambda m, x, y, p, i, j, s: m.broadcasted_iota(np.int32, (2, 3), 1),
    lambda m, x, y, p, i, j, s: m.rev(x, (0, 1)),
    lambda m, x, y, p, i, j, s: m.pad(x, 0.5, ((1, 2, 0), (0, 1, 0))),
    lambda m, x, y, p, i, j, s: m.dynamic_slice(x, (s[0], s[1]), (2, 2)),
    lambda m, x, y, p, i, j, s: m.dynamic_slice(x, (s[2], s[3]), (2, 3)),
    lambda m, x, y, p, i, j, s: m.dynamic_update_slice(x, y[:2, :2], (s[0], s[1])),
    lambda m, x, y, p, i, j, s: m.dynamic_update_slice(x, y[:2, :3], (s[2], s[3])),
    lambda m, x, y, p, i, j, s: m.reduce_sum(x, (0,)),
    lambda m, x, y, p, i, j, s: m.reduce_max(x, (1,)),
    lambda m, x, y, p, i, j, s: m.reduce_min(x, (0, 1)),
    lambda m, x, y, p, i, j, s: m.reduce_prod(x, (1,)),
    lambda m, x, y, p, i, j, s: m.argmax(x, 1, np.int32),
    lambda m, x, y, p, i, j, s: m.argmin(x, 0, np.int32),
    lambda m, x, y, p, i, j, s: m.cumsum(x, 1),
    lambda m, x, y, p, i, j, s: m.cumsum(x, 0, reverse=True),
    lambda m, x, y, p, i, j, s: m.cumprod(x, 1, True),
    lambda m, x, y, p, i, j, s: m.sort(x, 0),
    lambda m, x, y, p, i, j, s: m.top_k(x, 2),
    lambda m, x, y, p, i, j, s: m.dot(x, m.transpose(y, (1, 0))),
    lambda m, x, y, p, i, j, s: m.dot(x[0], m.transpose(y, (1, 0))),
    lambda m, x, y, p, i, j, s: m.dot_general(m.reshape(x, (3, 2, 2)), m.reshape(y, (3, 2, 2)), (((2,), (1,)), ((0,), (0,)))),
    lambda m, x, y, p, i, j, s: m.batch_matmul(m.reshape(x, (2, 3, 2)), m.reshape(y, (2, 2, 3))),
    lambda m, x, y, p, i, j, s: [m.dynamic_slice_in_dim(x, s[0], 2, 1), m.dynamic_slice_in_dim(x, s[2], 2)],
    lambda m, x, y, p, i, j, s: [m.dynamic_update_slice_in_dim(x, y[:1], s[1], 0), m.dynamic_update_slice_in_dim(x, y[:, :3], s[2], 1)],
    lambda m, x, y, p, i, j, s: [m.dynamic_index_in_dim(x, s[2], 1), m.dynamic_index_in_dim(x, s[1], 0, False)],
    lambda m, x, y, p, i, j, s: [m.index_in_dim(x, -1, 1), m.index_in_dim(x, 1, 0, False)],
    lambda m, x, y, p, i, j, s: m.reduce_window(m.reshape(x, (1, 3, 4, 1)), -np.inf, m.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
    lambda m, x, y, p, i, j, s: m.reduce_window(m.reshape(x, (1, 3, 4, 1)), -np.inf, m.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
    lambda m, x, y, p, i, j, s: m.reduce_window(x, 0.0, m.add, (2, 3), (1, 2), ((1, 0), (1, 2))),
    lambda m, x, y, p, i, j, s: m.reduce_window(x, np.inf, m.min, (2, 2), (1, 1), "SAME"),
    lambda m, x, y, p, i, j, s: m.map(lambda row: m.exp(row) * row[0], x),
    lambda m, x, y, p, i, j, s: m.associative_scan(m.add, x, axis=1),
    lambda m, x, y, p, i, j, s: m.associative_scan(lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1]), (x, y), reverse=True),
    lambda m, x, y, p, i, j, s: [m.cummax(x, 1), m.cummin(x, 0, reverse=True), m.cumlogsumexp(x, 1), m.cumlogsumexp(x, 0, True)],
]

CONVOLUTIONS = [  # (lhs shape, rhs shape, keyword arguments)
    ((2, 3, 6, 5), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    ((2, 6, 5, 4), (3, 2, 2, 6), dict(window_strides=(2, 1), padding=((1, 0), (2, 1)), rhs_dilation=(2, 1),
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)),
    ((2, 4, 7, 5), (4, 4, 2, 3), dict(window_strides=(2, 2), padding="VALID", dimension_numbers=("NCHW", "OIHW", "NHWC"))),
    ((2, 3, 5, 6), (4, 3, 3, 2), dict(window_strides=(1, 2), padding=((2, 1), (1, 0)), lhs_dilation=(2, 3),
                                      rhs_dilation=(1, 2))),
]
TRANSPOSED = [  # (lhs shape, rhs shape, keyword arguments) of lax.conv_transpose
    ((2, 5, 6, 3), (3, 2, 3, 4), dict(strides=(2, 2), padding="SAME")),
    ((2, 5, 6, 3), (3, 2, 3, 4), dict(strides=(2, 3), padding="VALID", rhs_dilation=(2, 1))),
    ((2, 5, 6, 4), (3, 2, 3, 4), dict(strides=(1, 2), padding=((1, 2), (0, 1)), transpose_kernel=True)),
    ((2, 3, 5, 6), (4, 3, 2, 2), dict(strides=(3, 1), padding="SAME", dimension_numbers=("NCHW", "OIHW", "NHWC"))),
]


def _inputs(dtype):
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    p = RNG.uniform(0.5, 2.0, (3, 4))
    i, j = RNG.integers(-9, 10, (3, 4)), RNG.choice([-3, -2, 2, 5], (3, 4))
    starts = np.array([1, -1, 5, 1])  # a negative start counts from the end; one past the end is clamped
    convolutions = [RNG.standard_normal(shape) for lhs, rhs, _ in CONVOLUTIONS + TRANSPOSED for shape in (lhs, rhs)]
    return [x.astype(dtype), y.astype(dtype), p.astype(dtype), i.astype(np.int32), j.astype(np.int32), starts.astype(np.int32),
            *(c.astype(dtype) for c in convolutions)]


def _all_cases(m, x, y, p, i, j, s, *convolutions):
    results = [case(m, x, y, p, i, j, s) for case in CASES]
    for index, (_, _, keywords) in enumerate(CONVOLUTIONS):
        results.append(m.conv_general_dilated(convolutions[2 * index], convolutions[2 * index + 1], **keywords))
    for index, (_, _, keywords) in enumerate(TRANSPOSED, len(CONVOLUTIONS)):
        results.append(m.conv_transpose(convolutions[2 * index], convolutions[2 * index + 1], **keywords))
    return results


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_name_against_jax_lax(dtype):
    inputs = _inputs(dtype)
    actual = s4tf.function(lambda *a: _all_cases(lax, *a))(*inputs)
    with jax.enable_x64(dtype == np.float64):
        expected = _all_cases(jax.lax, *(jax.numpy.asarray(a) for a in inputs))
        expected = jax.tree_util.tree_map(np.asarray, expected)
    actual_leaves = s4tf.tree_util.tree_leaves(actual)
    expected_leaves = jax.tree_util.tree_leaves(expected)
    assert len(actual_leaves) == len(expected_leaves)
    for index, (result, value) in enumerate(zip(actual_leaves, expected_leaves)):
        result = np.asarray(result)
        assert result.shape == value.shape, index
        assert result.dtype == value.dtype, index
        np.testing.assert_allclose(result, value, rtol=TOLERANCE[dtype] * 10, atol=TOLERANCE[dtype] * 10, err_msg=str(index))


def _flat(*results):
    return s4tf.concatenate([s4tf.reshape(r, (-1,)) for r in results])


def test_derivatives():
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((1, 3, 2, 2))
    directional_check(lambda x, w: _flat(
        lax.dynamic_slice(x, (1, 1), (2, 2)), lax.dynamic_update_slice(x, x[:1, :2] * 2.0, (2, 2)),
        lax.rsqrt(x * x + 1.0), lax.cumsum(x, 1, reverse=True), lax.integer_pow(x, 3), lax.logistic(x),
        lax.conv_general_dilated(s4tf.reshape(x, (1, 1, 3, 4)), w[:, :1], (1, 1), "SAME"),
        lax.conv_transpose(s4tf.reshape(x, (1, 3, 4, 1)), s4tf.reshape(w, (2, 2, 1, 3)), (2, 1), "SAME"),
        lax.dot_general(x, x, (((1,), (1,)), ((), ()))), lax.reduce_max(x, (1,)), lax.pad(x, 0.0, ((1, 0, 0), (0, 1, 0))),
        lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME"), lax.reduce_window(x, 0.0, lax.add, (2, 3), (1, 1), "VALID"),
        lax.cumlogsumexp(x, 1), lax.cummax(x, 0), lax.map(lambda row: row * row[0], x),
        lax.associative_scan(lambda a, b: a * b, x, axis=1, reverse=True), lax.dynamic_slice_in_dim(x, 2, 2, 1),
        lax.select_n(np.arange(12).reshape(3, 4) % 3, x, x * x, lax.sin(x)),
    ), [x, w])


def test_bad_arguments_name_the_users_line():
    here = rf"{Path(__file__).name}:\d+"
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*s4tf.lax.pad takes \(low, high, 0\)"):
        lax.pad(np.ones(3), 0.0, ((1, 1, 1),))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*has no batch_group_count"):
        lax.conv_general_dilated(np.ones((2, 1, 3, 3)), np.ones((1, 1, 2, 2)), (1, 1), "VALID", batch_group_count=2)
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*lhs_dilation takes 'valid' or explicit padding"):
        lax.conv_general_dilated(np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2)), (1, 1), "SAME", lhs_dilation=(2, 2))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*integer_pow needs a Python int exponent, got 1.5"):
        lax.integer_pow(np.ones(3), 1.5)
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*a slice of size 5 does not fit an axis of size 3"):
        lax.dynamic_slice(np.ones(3), (0,), (5,))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*padding must be 'VALID', 'SAME' or \(low, high\) pairs, got 'FULL'"):
        lax.reduce_window(np.ones((3, 3)), 0.0, lax.add, (2, 2), (1, 1), "FULL")
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*a window of \(4, 1\) does not fit the padded shape \(3, 3\)"):
        lax.reduce_window(np.ones((3, 3)), 0.0, lax.add, (4, 1), (1, 1), "VALID")
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*index_in_dim: index 3 is out of bounds for an axis of size 3"):
        lax.index_in_dim(np.ones(3), 3)
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*select_n with a boolean selector needs 2 cases, got 3"):
        lax.select_n(np.array([True]), np.ones(1), np.ones(1), np.ones(1))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*select_n needs a boolean or integer selector, got float"):
        lax.select_n(np.array([0.5]), np.ones(1), np.ones(1))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*associative_scan needs elems of one length along axis 0"):
        lax.associative_scan(lax.add, (np.ones(3), np.ones(2)))


def test_a_star_import_brings_jaxs_names_and_not_the_modules_imports():
    names = {}
    exec("from s4tf.lax import *", names)
    public = {name for name in dir(lax) if not name.startswith("_") and hasattr(jax.lax, name)}
    assert public <= set(names), public - set(names)  # every JAX name s4tf.lax has
    assert set(lax.__all__) <= set(dir(jax.lax)), set(lax.__all__) - set(dir(jax.lax))
    assert not {"np", "snp", "builtins", "itertools", "tree_flatten", "preferred"} & set(names)
