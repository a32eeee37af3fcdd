"""Each op's batching rule (``Op.batch``), checked numerically: ``s4tf.vmap`` of a small
function (one compiled call of the ``s4tf-batch`` pass's ``@f_batched``) against a Python
loop of NumPy over the batch, with the batch axis in several places."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.dialects.batching_helpers import elementwise_batch
from s4tf.dialects.op_def import OPS, Op, lookup

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)
B = 4


def _data(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _words(*shape):
    return RNG.integers(-(2**31), 2**31, shape).astype(np.int32)


def _loop(reference, args, in_axes):
    """``reference`` applied example by example, results stacked along axis 0."""
    outputs = []
    for b in range(B):
        example = [a if axis is None else np.take(a, b, axis=axis) for a, axis in zip(args, in_axes)]
        outputs.append(reference(*example))
    return np.stack(outputs)


def _op(name, **attrs):
    return lambda *xs: s4tf.op(name, *xs, **attrs)


CASES = {
    # elementwise: one generic rule (batch axis in front, size-1 axes for broadcasting)
    "sin": (_op("sin"), np.sin, [_data(B, 3)], (0,)),
    "sin_axis1": (_op("sin"), np.sin, [_data(3, B)], (1,)),
    "add_broadcast_unbatched": (_op("add"), np.add, [_data(B, 3), _data(2, 3)], (0, None)),
    "add_both_batched_other_axes": (_op("add"), np.add, [_data(3, B), _data(B, 2, 3)], (1, 0)),
    "mul_batched_scalar": (_op("mul"), np.multiply, [_data(B), _data(2, 3)], (0, None)),
    "select": (
        lambda p, a, b: s4tf.op("select", p, a, b), np.where,
        [_data(B, 3) > 0, _data(3), _data(2, B, 3)], (0, None, 1),
    ),
    "cast": (_op("cast", dtype="i32"), lambda x: x.astype(np.int32), [_data(B, 3) * 4], (0,)),
    "stop_gradient": (_op("stop_gradient"), lambda x: x, [_data(2, B)], (1,)),
    "after": (_op("after"), lambda x, t: x, [_data(2, B), _data(B, 3)], (1, 0)),
    "after_token_unbatched": (_op("after"), lambda x, t: x, [_data(B, 2), _data(3)], (0, None)),
    "after_x_unbatched": (_op("after"), lambda x, t: x, [_data(2, 3), _data(3, B)], (None, 1)),
    # reductions: the reduced axes shift past the batch axis
    "reduce_sum": (_op("reduce_sum", axes=(1,), keepdims=False), lambda x: x.sum(1), [_data(2, B, 3)], (1,)),
    "reduce_max_keepdims": (
        _op("reduce_max", axes=(0,), keepdims=True), lambda x: x.max(0, keepdims=True), [_data(B, 2, 3)], (0,),
    ),
    "reduce_mean": (_op("reduce_mean", axes=(0, 1), keepdims=False), lambda x: x.mean((0, 1)), [_data(2, 3, B)], (2,)),
    "reduce_prod": (_op("reduce_prod", axes=(1,), keepdims=False), lambda x: x.prod(1), [_data(B, 2, 3)], (0,)),
    "reduce_min": (_op("reduce_min", axes=(0,), keepdims=False), lambda x: x.min(0), [_data(B, 5)], (0,)),
    "argmax": (
        _op("argmax", axis=1, keepdims=False, dtype="i32"), lambda x: np.argmax(x, 1).astype(np.int32), [_data(2, B, 3)], (1,),
    ),
    # shape ops
    "reshape": (_op("reshape", shape=(6,)), lambda x: x.reshape(6), [_data(2, B, 3)], (1,)),
    "transpose": (_op("transpose", permutation=(2, 0, 1)), lambda x: x.transpose(2, 0, 1), [_data(2, B, 3, 5)], (1,)),
    "broadcast_in_dim": (
        _op("broadcast_in_dim", shape=(2, 3, 5), broadcast_dimensions=(1,)),
        lambda x: np.broadcast_to(x[None, :, None], (2, 3, 5)), [_data(3, B)], (1,),
    ),
    "reverse": (_op("reverse", axes=(1,)), lambda x: np.flip(x, 1), [_data(B, 2, 3)], (0,)),
    "slice": (
        _op("slice", start=(1, 0), limit=(3, 3), stride=(1, 2)), lambda x: x[1:3, 0:3:2], [_data(4, B, 3)], (1,),
    ),
    "concatenate_mixed": (
        lambda a, b: s4tf.op("concatenate", a, b, axis=0), lambda a, b: np.concatenate([a, b], 0),
        [_data(B, 2, 3), _data(1, 3)], (0, None),
    ),
    # dot_general: both batched (a new batch axis), or one (a free axis: the result's
    # batch axis is not in front, and the pass moves it there)
    "dot_general_lhs_batched": (lambda a, b: a @ b, np.matmul, [_data(B, 2, 3), _data(3, 5)], (0, None)),
    "dot_general_rhs_batched": (lambda a, b: a @ b, np.matmul, [_data(2, 3), _data(3, B, 5)], (None, 1)),
    # only rhs batched, its free axes of size 1: the operands swap (a plain matrix product)
    "dot_general_matrix_times_batched_vectors": (lambda a, b: a @ b, np.matmul, [_data(2, 3), _data(3, B)], (None, 1)),
    "dot_general_matrix_times_batched_columns": (lambda a, b: a @ b, np.matmul, [_data(2, 3), _data(3, B, 1)], (None, 1)),
    "dot_general_matrix_times_batched_vectors_with_batch_axes": (
        _op("dot_general", lhs_batch=(0,), rhs_batch=(1,), lhs_contract=(2,), rhs_contract=(0,)),
        lambda a, b: np.einsum("bij,jb->bi", a, b), [_data(2, 4, 3), _data(3, B, 2)], (None, 1),
    ),
    "dot_general_both_batched": (lambda a, b: a @ b, np.matmul, [_data(2, 3, B), _data(B, 3, 5)], (2, 0)),
    "dot_general_with_batch_axes": (
        _op("dot_general", lhs_batch=(0,), rhs_batch=(1,), lhs_contract=(2,), rhs_contract=(0,)),
        lambda a, b: np.einsum("bij,jbk->bik", a, b), [_data(2, 4, 3, B), _data(3, 2, 5)], (3, None),
    ),
    # the rest of the family
    "cumsum": (_op("cumsum", axis=1, reverse=True), lambda x: np.flip(np.cumsum(np.flip(x, 1), 1), 1), [_data(2, B, 3)], (1,)),
    "cumprod": (_op("cumprod", axis=0, reverse=False), lambda x: np.cumprod(x, 0), [_data(B, 3)], (0,)),
    "pad": (
        lambda x, v: s4tf.op("pad", x, v, low=(1, 0), high=(0, 2), interior=(1, 0)),
        lambda x, v: _pad_reference(x, v), [_data(3, B, 2), np.float32(7.0)], (1, None),
    ),
    "add_slice": (
        lambda x, u: s4tf.op("add_slice", x, u, start=(1,), stride=(2,)),
        lambda x, u: _add_slice_reference(x, u), [_data(5), _data(B, 2)], (None, 0),
    ),
    "sort": (
        lambda k, v: s4tf.op("sort", k, v, axis=0, descending=True),
        lambda k, v: np.take_along_axis(v, np.argsort(-k, axis=0, kind="stable"), 0), [_data(5, B), _data(5)], (1, None),
    ),
    "max_pool2d": (
        _op("max_pool2d", window=(2, 2), strides=(2, 2), padding=(0, 0, 0, 0)),
        lambda x: x.reshape(2, 2, 2, 2, 2, 3).max((2, 4)), [_data(2, 4, 4, B, 3)], (3,),
    ),
    "avg_pool2d": (
        _op("avg_pool2d", window=(2, 2), strides=(2, 2), padding=(0, 0, 0, 0)),
        lambda x: x.reshape(2, 2, 2, 2, 2, 3).mean((2, 4)), [_data(B, 2, 4, 4, 3)], (0,),
    ),
    "conv2d": (
        lambda x, f: s4tf.op("conv2d", x, f, strides=(1, 1), padding=(0, 0, 0, 0), lhs_dilation=(1, 1), rhs_dilation=(1, 1), feature_group_count=1),
        lambda x, f: _conv_reference(x, f), [_data(B, 2, 4, 4, 3), _data(3, 3, 3, 5)], (0, None),
    ),
    # a padding value or a filter per example
    "pad_batched_value": (
        lambda x, v: s4tf.op("pad", x, v, low=(1, -1), high=(0, 2), interior=(1, 0)),
        lambda x, v: _evaluate("pad", x, v, low=(1, -1), high=(0, 2), interior=(1, 0)), [_data(3, 3), _data(B)], (None, 0),
    ),
    "pad_both_batched": (
        lambda x, v: s4tf.op("pad", x, v, low=(1, 0), high=(0, 2), interior=(1, 0)),
        lambda x, v: _pad_reference(x, v), [_data(3, B, 2), _data(B)], (1, 0),
    ),
    "conv2d_batched_filter": (
        lambda x, f: s4tf.op("conv2d", x, f, strides=(1, 1), padding=(0, 0, 0, 0), lhs_dilation=(1, 1), rhs_dilation=(1, 1), feature_group_count=1),
        lambda x, f: _conv_reference(x, f), [_data(2, 4, 4, 3), _data(3, 3, 3, B, 5)], (None, 3),
    ),
    "conv2d_both_batched_grouped": (
        _op("conv2d", strides=(2, 1), padding=(1, 0, 0, 1), lhs_dilation=(1, 1), rhs_dilation=(1, 2), feature_group_count=2),
        lambda x, f: _evaluate("conv2d", x, f, strides=(2, 1), padding=(1, 0, 0, 1), lhs_dilation=(1, 1), rhs_dilation=(1, 2), feature_group_count=2),
        [_data(B, 2, 5, 5, 4), _data(2, 2, 2, 6, B)], (0, 4),
    ),
    # gather and scatter: x batched, indices batched, or both (a lane coordinate)
    "gather_x_batched": (
        _op("gather", axes=(1,)), lambda x, i: _evaluate("gather", x, i, axes=(1,)),
        [_data(3, B, 5), np.int32([[4], [0], [2], [9]])], (1, None),
    ),
    "gather_indices_batched": (
        _op("gather", axes=(0, 2)), lambda x, i: _evaluate("gather", x, i, axes=(0, 2)),
        [_data(4, 3, 5), RNG.integers(-1, 6, (2, B, 2)).astype(np.int32)], (None, 1),
    ),
    "gather_both_batched": (
        _op("gather", axes=(1,)), lambda x, i: _evaluate("gather", x, i, axes=(1,)),
        [_data(3, 5, B), RNG.integers(0, 5, (B, 2, 1)).astype(np.int32)], (2, 0),
    ),
    "scatter_x_batched_add": (
        _op("scatter", axes=(0,), kind="add"), lambda x, i, u: _evaluate("scatter", x, i, u, axes=(0,), kind="add"),
        [_data(B, 5, 3), np.int32([[1], [1], [7], [0]]), _data(4, 3)], (0, None, None),
    ),
    "scatter_updates_batched_set": (
        _op("scatter", axes=(1,), kind="set"), lambda x, i, u: _evaluate("scatter", x, i, u, axes=(1,), kind="set"),
        [_data(3, 5), np.int32([[4], [0], [-1]]), _data(3, 3, B)], (None, None, 2),
    ),
    "scatter_all_batched_max": (
        _op("scatter", axes=(0, 1), kind="max"), lambda x, i, u: _evaluate("scatter", x, i, u, axes=(0, 1), kind="max"),
        [_data(B, 4, 3), RNG.integers(0, 3, (B, 5, 2)).astype(np.int32), _data(5, B)], (0, 0, 1),
    ),
    # random bits: a key per example draws what that key draws alone
    "threefry2x32": (
        lambda *w: s4tf.op("threefry2x32", *w), lambda *w: _evaluate_all("threefry2x32", *w),
        [_words(B), _words(), _words(3), _words(B, 3)], (0, None, None, 0),
    ),
    "random_bits_i32": (
        _op("random_bits", shape=(2, 3), dtype="i32"), lambda k: _evaluate("random_bits", k, shape=(2, 3), dtype="i32"),
        [_words(B, 2)], (0,),
    ),
    "random_bits_i64": (
        _op("random_bits", shape=(5,), dtype="i64"), lambda k: _evaluate("random_bits", k, shape=(5,), dtype="i64"),
        [_words(2, B)], (1,),
    ),
    # tapes: one index (rows with the batch axis), or an index per example (lanes of a
    # batched loop at different iterations)
    "tape_write_shared_index": (
        lambda t, i, v: s4tf.op("tape_write", t, i, v), lambda t, i, v: _evaluate("tape_write", t, i, v),
        [_data(4, 3), np.int32(2), _data(3, B)], (None, None, 1),
    ),
    "tape_write_index_per_example": (
        lambda t, i, v: s4tf.op("tape_write", t, i, v), lambda t, i, v: _evaluate("tape_write", t, i, v),
        [_data(B, 4, 3), np.int32([3, 0, 1, 3]), _data(3)], (0, 0, None),
    ),
    # an integer tape's rows are added as differences from the rows they replace
    # (dialects/tape.py): exact, extremes of int8 included
    "tape_write_index_per_example_int8": (
        lambda t, i, v: s4tf.op("tape_write", t, i, v), lambda t, i, v: _evaluate("tape_write", t, i, v),
        [np.int8([[[127, -128, 5]] * 4] * B), np.int32([3, 0, 1, 3]), np.int8([-128, 127, -7])], (0, 0, None),
    ),
    "tape_write_index_per_example_int32": (
        lambda t, i, v: s4tf.op("tape_write", t, i, v), lambda t, i, v: _evaluate("tape_write", t, i, v),
        [RNG.integers(-2**31, 2**31, (4, 3), dtype=np.int32), np.int32([3, 0, 1, 2]), RNG.integers(-2**31, 2**31, (B, 3), dtype=np.int32)],
        (None, 0, 0),
    ),
    "tape_read_shared_index": (
        lambda t, i: s4tf.op("tape_read", t, i), lambda t, i: _evaluate("tape_read", t, i),
        [_data(4, B, 3), np.int32(1)], (1, None),
    ),
    "tape_read_index_per_example": (
        lambda t, i: s4tf.op("tape_read", t, i), lambda t, i: _evaluate("tape_read", t, i),
        [_data(4, 3), np.int32([3, 0, 1, 2])], (None, 0),
    ),
}


def _evaluate_all(name, *operands, **attrs):
    """The results of ``s4tf.<name>``'s own NumPy reference on one example."""
    return lookup(name).evaluate(list(operands), attrs)


def _evaluate(name, *operands, **attrs):
    return _evaluate_all(name, *operands, **attrs)[0]


def _pad_reference(x, value):
    out = np.full((3 * 2 - 1 + 1, x.shape[1] + 2), value, np.float32)
    out[1::2, :x.shape[1]] = x
    return out


def _add_slice_reference(x, update):
    out = x.copy()
    out[1:5:2] += update
    return out


def _conv_reference(x, f):
    n, h, w, _ = x.shape
    kh, kw, _, o = f.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, o), np.float32)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[:, i, j] = np.einsum("nhwc,hwco->no", x[:, i:i + kh, j:j + kw], f)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_rule_matches_a_loop_over_the_batch(case):
    fn, reference, args, in_axes = CASES[case]
    results = s4tf.vmap(fn, in_axes=in_axes)(*args)
    results = list(results) if isinstance(results, tuple) else [results]
    expected = _loop(lambda *xs: np.stack(_as_list(reference(*xs))), args, in_axes)
    for index, result in enumerate(results):
        result, want = np.asarray(result), expected[:, index]
        assert result.shape == want.shape
        assert result.dtype == want.dtype
        np.testing.assert_allclose(result, want, rtol=2e-5, atol=2e-6)


def _as_list(results):
    return list(results) if isinstance(results, (tuple, list)) else [results]


def _generic_elementwise_ops() -> list[str]:
    """The ops whose rule is the one generic elementwise rule (select, cast,
    stop_gradient and threefry2x32 have cases of their own above)."""
    own_cases = ("select", "cast", "stop_gradient", "threefry2x32")
    return sorted(
        name.removeprefix("s4tf.") for name, op in OPS.items()
        if getattr(op.batch, "__func__", None) is elementwise_batch and op.name not in own_cases
    )


def _operand(op, shape):
    if op.kinds in ("int", "int_or_bool") or "shift" in op.name:
        return RNG.integers(0, 4, shape).astype(np.int32)
    low = 1.1 if op.name == "acosh" else 0.1  # in every op's domain
    return RNG.uniform(low, low + 0.8, shape).astype(np.float32)


@pytest.mark.parametrize("name", _generic_elementwise_ops())
def test_generic_elementwise_rule_matches_a_loop(name):
    op = lookup(name)
    # a batched operand against an unbatched one of higher rank: both broadcasts at once
    args = [_operand(op, (B, 3))] + [_operand(op, (2, 3)) for _ in op.operands[1:]]
    in_axes = (0,) + (None,) * (len(args) - 1)
    result = np.asarray(s4tf.vmap(lambda *xs: s4tf.op(name, *xs), in_axes=in_axes)(*args))
    expected = _loop(lambda *xs: op.evaluate(list(xs), {})[0], args, in_axes)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=2e-5, atol=2e-6)


def _with_rules() -> set[str]:
    return {name.removeprefix("s4tf.") for name, op in OPS.items() if next(c for c in op.__mro__ if "batch" in vars(c)) is not Op}


#: The ops whose batching rules this module checks against a loop over the batch (read by
#: tests/dialects/test_op_coverage.py).
BATCHED_OPS = {
    op for op in _with_rules() if any(case == op or case.startswith(op + "_") for case in CASES)
} | set(_generic_elementwise_ops())


def test_every_op_with_a_batching_rule_is_checked():
    elsewhere = {"host_call", "send", "recv"}  # test_host_batching.py: host ops never run on the device
    assert _with_rules() - BATCHED_OPS - elsewhere == set()
