"""Programs IREE fuses into contractions, through IREE against NumPy.

IREE turns a sum of a product into a contraction of its own; with a factor broadcast
along a summed axis, IREE 3.13 built a ``vector.contract`` it could not compile
("invalid accumulator/result vector shape", see ``docs/trust.md``). These sweeps compile
sums of broadcast products over any axes, and dot_general in many dimension
configurations inside a loss with a broadcast factor, value and gradients in one module.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_testing import SEEDS, as_float64, check_staged, covers, random_array

import s4tf


@st.composite
def _broadcast_products(draw):
    """``(t shape, b shape, axes)``: ``b`` broadcasts against ``t`` (size-1 or missing
    leading axes), and the sum runs over a non-empty set of ``t``'s axes."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    kept = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    b_shape = [size if keep else 1 for size, keep in zip(shape, kept)]
    b_shape = b_shape[draw(st.integers(0, len(shape) - 1)):]
    axes = draw(st.lists(st.sampled_from(range(len(shape))), min_size=1, unique=True))
    return tuple(shape), tuple(b_shape), tuple(sorted(axes))


@covers("reduce_sum", "reduce_mean")
@settings(max_examples=12, deadline=None)
@given(case=_broadcast_products(), seed=SEEDS)
def test_sum_and_mean_of_a_broadcast_product_over_any_axes(case, seed):
    shape, b_shape, axes = case
    rng = np.random.default_rng(seed)
    t, b = random_array(rng, shape, "f32"), random_array(rng, b_shape, "f32")
    product = as_float64(t) * as_float64(b)
    expected = [np.sum(product, axis=axes).astype(np.float32), np.mean(product, axis=axes).astype(np.float32)]
    check_staged(
        lambda t, b: (s4tf.sum(t * b, axis=axes), s4tf.mean(t * b, axis=axes)), [t, b], expected,
        ops=["reduce_sum", "reduce_mean"], scale=3,
    )


def _subscripts(lhs_ndim, rhs_ndim, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
    """einsum subscripts ``(lhs, rhs, result)`` of a dot_general."""
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs, rhs = [None] * lhs_ndim, [None] * rhs_ndim
    for a, b in zip(lhs_batch + lhs_contract, rhs_batch + rhs_contract):
        lhs[a] = rhs[b] = next(letters)
    lhs = [s or next(letters) for s in lhs]
    rhs = [s or next(letters) for s in rhs]
    result = (
        [lhs[a] for a in lhs_batch]
        + [s for i, s in enumerate(lhs) if i not in lhs_batch + lhs_contract]
        + [s for i, s in enumerate(rhs) if i not in rhs_batch + rhs_contract]
    )
    return "".join(lhs), "".join(rhs), "".join(result)


#: (lhs shape, rhs shape, (lhs batch, rhs batch), (lhs contracting, rhs contracting))
DOT_CONFIGURATIONS = [
    ((4, 3), (3, 5), ((), ()), ((1,), (0,))),  # x @ w
    ((3, 4), (3, 5), ((), ()), ((0,), (0,))),  # x.T @ w
    ((4, 3), (5, 3), ((), ()), ((1,), (1,))),  # x @ w.T
    ((3, 4), (5, 3), ((), ()), ((0,), (1,))),  # x.T @ w.T
    ((2, 4, 3), (2, 3, 5), ((0,), (0,)), ((2,), (1,))),  # batched
    ((4, 2, 3), (3, 5, 2), ((1,), (2,)), ((2,), (0,))),  # batch axes inside and last
    ((2, 3, 4), (3, 2, 5), ((), ()), ((0, 1), (1, 0))),  # two contracting axes, crossed
    ((3,), (3,), ((), ()), ((0,), (0,))),  # vector . vector
    ((4, 3), (3,), ((), ()), ((1,), (0,))),  # matrix . vector
    ((4,), (5,), ((), ()), ((), ())),  # outer product
    ((1, 3), (3, 1), ((), ()), ((1,), (0,))),  # unit free axes
]


@covers("dot_general")
@pytest.mark.parametrize("lhs_shape, rhs_shape, batch, contract", DOT_CONFIGURATIONS)
def test_dot_general_value_and_gradients_in_a_loss_with_a_broadcast_factor(lhs_shape, rhs_shape, batch, contract):
    """``sum(dot_general(x, y) * c)`` with ``c`` broadcast along the result's first axis,
    and its gradients in ``x`` and ``y`` (contractions of the broadcast cotangent)."""
    rng = np.random.default_rng(len(DOT_CONFIGURATIONS))
    x, y = random_array(rng, lhs_shape, "f32"), random_array(rng, rhs_shape, "f32")
    lhs_sub, rhs_sub, out_sub = _subscripts(len(lhs_shape), len(rhs_shape), *batch, *contract)
    out_shape = np.einsum(f"{lhs_sub},{rhs_sub}->{out_sub}", x, y).shape
    c = random_array(rng, out_shape[1:], "f32")
    x64, y64, c64 = as_float64(x), as_float64(y), np.broadcast_to(as_float64(c), out_shape)
    expected = [
        np.sum(np.einsum(f"{lhs_sub},{rhs_sub}->{out_sub}", x64, y64) * c64),
        np.einsum(f"{out_sub},{rhs_sub}->{lhs_sub}", c64, y64),
        np.einsum(f"{out_sub},{lhs_sub}->{rhs_sub}", c64, x64),
    ]

    def loss(x, y):
        return s4tf.sum(s4tf.dot_general(x, y, contract, batch) * c)

    value, (grad_x, grad_y) = s4tf.function(s4tf.value_and_grad(loss, argnums=(0, 1)))(x, y)
    for got, want in zip((value, grad_x, grad_y), expected):
        assert np.shape(got) == want.shape
        np.testing.assert_allclose(as_float64(np.asarray(got)), want, rtol=1e-5, atol=1e-5)
