"""Contractions and windows through IREE against NumPy: dot_general (matmul, batched,
any batch/contracting axes), conv2d (NHWC/HWIO, strides, padding, input and filter
dilation, groups), max_pool2d and avg_pool2d.

Convolution and pooling expectations are explicit loops over output positions;
dot_general's are transposes and ``np.matmul`` (the references use ``np.einsum``).
"""

import functools
import itertools
import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_testing import (
    DTYPES,
    FLOATS,
    SEEDS,
    as_float64,
    check_pairwise,
    check_staged,
    covers,
    dtype_name,
    op_fn,
    random_array,
)

import s4tf

#: Low-precision dot products round at every step of their sums.
SUM_SCALE = 3


# -- dot_general -----------------------------------------------------------------------


def _dot_general(lhs, rhs, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
    """dot_general as transposes, reshapes and one batched ``np.matmul``."""
    lhs_free = [a for a in range(lhs.ndim) if a not in lhs_batch + lhs_contract]
    rhs_free = [a for a in range(rhs.ndim) if a not in rhs_batch + rhs_contract]

    def sizes(array, axes):
        return [array.shape[a] for a in axes]

    batch, contract = sizes(lhs, lhs_batch), sizes(lhs, lhs_contract)
    left = np.transpose(lhs, lhs_batch + lhs_free + lhs_contract).reshape(math.prod(batch), -1, math.prod(contract))
    right = np.transpose(rhs, rhs_batch + rhs_contract + rhs_free).reshape(math.prod(batch), math.prod(contract), -1)
    return np.matmul(left, right).reshape(batch + sizes(lhs, lhs_free) + sizes(rhs, rhs_free))


@covers("dot_general")
@settings(max_examples=6, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, max_side=4), seed=SEEDS)
def test_matmul_with_vectors_and_broadcast_batches(shapes, seed):
    x_shape, y_shape = shapes.input_shapes
    rng = np.random.default_rng(seed)
    x, y = random_array(rng, x_shape, "f32"), random_array(rng, y_shape, "f32")
    expected = np.matmul(as_float64(x), as_float64(y)).astype(np.float32)
    check_staged(lambda a, b: a @ b, [x, y], expected, ops=["dot_general"])


@st.composite
def _contractions(draw):
    """Operand shapes and axes for dot_general: batch, contracting and free axes of random
    sizes, placed at random positions in each operand."""
    size = st.integers(1, 3)
    batch, contract = draw(st.lists(size, max_size=2)), draw(st.lists(size, max_size=2))
    lhs_free, rhs_free = draw(st.lists(size, max_size=2)), draw(st.lists(size, max_size=1))
    shapes, dims = [], {}
    for side, free in (("lhs", lhs_free), ("rhs", rhs_free)):
        sizes = {"batch": batch, "contract": contract, "free": free}
        order = draw(st.permutations([(role, i) for role, values in sizes.items() for i in range(len(values))]))
        shapes.append(tuple(sizes[role][i] for role, i in order))
        for role in ("batch", "contract"):
            dims[f"{side}_{role}"] = [order.index((role, i)) for i in range(len(sizes[role]))]
    return shapes[0], shapes[1], dims


@covers("dot_general")
@settings(max_examples=6, deadline=None)
@given(case=_contractions(), seed=SEEDS)
def test_dot_general_with_any_batch_and_contracting_axes(case, seed):
    lhs_shape, rhs_shape, dims = case
    rng = np.random.default_rng(seed)
    lhs, rhs = random_array(rng, lhs_shape, "f32"), random_array(rng, rhs_shape, "f32")
    expected = _dot_general(as_float64(lhs), as_float64(rhs), **dims).astype(np.float32)
    check_staged(op_fn("dot_general", **dims), [lhs, rhs], expected, ops=["dot_general"])


@covers("dot_general")
def test_matmul_in_every_number_dtype():
    rng = np.random.default_rng(6)
    dtypes = FLOATS + ("i64", "i32")
    pairs = [(random_array(rng, (3, 2, 4), d), random_array(rng, (3, 4, 5), d)) for d in dtypes]
    expected = [np.matmul(as_float64(x), as_float64(y)).astype(x.dtype) for x, y in pairs]
    check_pairwise(lambda x, y: x @ y, pairs, expected, ops=["dot_general"], scale=SUM_SCALE)


# -- conv2d ----------------------------------------------------------------------------


def _conv_loops(x, w, strides, padding, lhs_dilation, rhs_dilation, feature_group_count):
    """Convolution of NHWC ``x`` with HWIO ``w``, one output element at a time. A negative
    padding amount crops the dilated input."""
    n, h, width, c = x.shape
    kh, kw, per_group, out_channels = w.shape
    top, bottom, left, right = padding
    dilated = ((h - 1) * lhs_dilation[0] + 1, (width - 1) * lhs_dilation[1] + 1)
    padded = np.zeros((n, top + dilated[0] + bottom, left + dilated[1] + right, c))
    for i, j in itertools.product(range(h), range(width)):
        row, column = top + i * lhs_dilation[0], left + j * lhs_dilation[1]
        if 0 <= row < padded.shape[1] and 0 <= column < padded.shape[2]:
            padded[:, row, column] = x[:, i, j]
    span = ((kh - 1) * rhs_dilation[0] + 1, (kw - 1) * rhs_dilation[1] + 1)
    out_h = (padded.shape[1] - span[0]) // strides[0] + 1
    out_w = (padded.shape[2] - span[1]) // strides[1] + 1
    result = np.zeros((n, out_h, out_w, out_channels))
    for i, j, o in itertools.product(range(out_h), range(out_w), range(out_channels)):
        group = o // (out_channels // feature_group_count)
        window = padded[
            :,
            i * strides[0] : i * strides[0] + span[0] : rhs_dilation[0],
            j * strides[1] : j * strides[1] + span[1] : rhs_dilation[1],
            group * per_group : (group + 1) * per_group,
        ]
        result[:, i, j, o] = np.sum(window * w[:, :, :, o], axis=(1, 2, 3))
    return result


@st.composite
def _convolutions(draw):
    pair = st.tuples(st.integers(1, 2), st.integers(1, 2))
    groups = draw(st.integers(1, 2))
    kernel = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    attrs = {
        "strides": draw(st.tuples(st.integers(1, 3), st.integers(1, 3))),
        "padding": draw(st.tuples(*[st.integers(-2, 4)] * 4)),  # wider than the filter, or cropping
        "lhs_dilation": draw(pair),
        "rhs_dilation": draw(pair),
        "feature_group_count": groups,
    }
    spatial = draw(st.tuples(st.integers(1, 6), st.integers(1, 6)))
    x_shape = (draw(st.integers(1, 2)), *spatial, groups * draw(st.integers(1, 2)))
    w_shape = (*kernel, x_shape[3] // groups, groups * draw(st.integers(1, 2)))
    padding, lhs_dilation, rhs_dilation = attrs["padding"], attrs["lhs_dilation"], attrs["rhs_dilation"]
    for axis in range(2):  # at least one output position
        extent = (spatial[axis] - 1) * lhs_dilation[axis] + 1 + padding[2 * axis] + padding[2 * axis + 1]
        assume(extent >= (kernel[axis] - 1) * rhs_dilation[axis] + 1)
    return x_shape, w_shape, attrs


@covers("conv2d")
@settings(max_examples=10, deadline=None)
@given(case=_convolutions(), seed=SEEDS)
def test_conv2d_with_strides_padding_dilations_and_groups(case, seed):
    x_shape, w_shape, attrs = case
    rng = np.random.default_rng(seed)
    x, w = random_array(rng, x_shape, "f32"), random_array(rng, w_shape, "f32")
    expected = _conv_loops(as_float64(x), as_float64(w), **attrs)
    check_staged(op_fn("conv2d", **attrs), [x, w], expected.astype(np.float32), ops=["conv2d"])


def _same_padding(size, kernel, stride, dilation):
    """TensorFlow's "same": output size ceil(size / stride), extra padding at the end."""
    span = (kernel - 1) * dilation + 1
    total = max((math.ceil(size / stride) - 1) * stride + span - size, 0)
    return total // 2, total - total // 2


@covers("conv2d")
def test_conv2d_numpy_style_options():
    rng = np.random.default_rng(7)
    x = random_array(rng, (2, 7, 6, 4), "f32")
    same_3x3 = (*_same_padding(7, 3, 1, 1), *_same_padding(6, 3, 1, 1))
    same_3x2_strided = (*_same_padding(7, 3, 2, 1), *_same_padding(6, 2, 2, 1))
    # (filter shape, keyword arguments of s4tf.conv2d, (strides, padding, dilation, groups) of the loops)
    cases = [
        ((3, 3, 4, 5), {"padding": "same"}, ((1, 1), same_3x3, (1, 1), 1)),
        ((3, 2, 4, 3), {"strides": 2, "padding": "same"}, ((2, 2), same_3x2_strided, (1, 1), 1)),
        ((2, 2, 4, 2), {"dilation": 2}, ((1, 1), (0, 0, 0, 0), (2, 2), 1)),
        ((3, 3, 4, 2), {"strides": (1, 2), "padding": ((1, 0), (2, 1))}, ((1, 2), (1, 0, 2, 1), (1, 1), 1)),
        ((3, 3, 2, 4), {"padding": 1, "groups": 2}, ((1, 1), (1, 1, 1, 1), (1, 1), 2)),
        ((3, 3, 1, 8), {"padding": "same", "groups": 4}, ((1, 1), same_3x3, (1, 1), 4)),  # depthwise
        ((3, 3, 4, 2), {"strides": 2, "padding": 4}, ((2, 2), (4, 4, 4, 4), (1, 1), 1)),  # wider than the filter
        ((3, 2, 4, 3), {"padding": ((-1, 2), (1, -2))}, ((1, 1), (-1, 2, 1, -2), (1, 1), 1)),  # cropping
    ]
    filters = [random_array(rng, shape, "f32") for shape, _, _ in cases]
    expected = [
        _conv_loops(as_float64(x), as_float64(w), strides, padding, (1, 1), dilation, groups).astype(np.float32)
        for w, (_, _, (strides, padding, dilation, groups)) in zip(filters, cases)
    ]
    check_staged(
        lambda v, *ws: tuple(s4tf.conv2d(v, w, **kwargs) for w, (_, kwargs, _) in zip(ws, cases)),
        [x, *filters],
        expected,
        ops=["conv2d"],
    )


@covers("conv2d")
def test_conv2d_in_every_number_dtype():
    rng = np.random.default_rng(8)
    dtypes = FLOATS + ("i32",)
    pairs = [(random_array(rng, (1, 5, 5, 2), d), random_array(rng, (2, 2, 2, 3), d)) for d in dtypes]
    expected = [
        _conv_loops(as_float64(x), as_float64(w), (1, 1), (1, 0, 0, 1), (1, 1), (1, 1), 1).astype(x.dtype) for x, w in pairs
    ]
    conv = functools.partial(s4tf.conv2d, padding=((1, 0), (0, 1)))
    check_pairwise(conv, pairs, expected, ops=["conv2d"], scale=SUM_SCALE)


# -- pooling ---------------------------------------------------------------------------


def _pool_loops(x, window, strides, padding):
    """(max, mean) of each window of NHWC ``x``; padding is left out of both."""
    n, h, w, c = x.shape
    top, bottom, left, right = padding
    out_h = (h + top + bottom - window[0]) // strides[0] + 1
    out_w = (w + left + right - window[1]) // strides[1] + 1
    maxima, means = np.zeros((n, out_h, out_w, c)), np.zeros((n, out_h, out_w, c))
    for i, j in itertools.product(range(out_h), range(out_w)):
        rows = range(max(i * strides[0] - top, 0), min(i * strides[0] - top + window[0], h))
        cols = range(max(j * strides[1] - left, 0), min(j * strides[1] - left + window[1], w))
        patch = x[:, rows.start : rows.stop, cols.start : cols.stop, :]
        maxima[:, i, j] = patch.max(axis=(1, 2))
        means[:, i, j] = patch.sum(axis=(1, 2)) / (len(rows) * len(cols))
    return maxima, means


@st.composite
def _pools(draw):
    window = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    strides = draw(st.none() | st.tuples(st.integers(1, 3), st.integers(1, 3)))
    spatial = (draw(st.integers(window[0], 7)), draw(st.integers(window[1], 7)))
    shape = (draw(st.integers(1, 2)), *spatial, draw(st.integers(1, 3)))
    pairs = st.tuples(*(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)) for k in window))  # windows see input
    padding = draw(st.sampled_from(["valid", "same"]) | pairs)
    return shape, window, strides, padding


def _explicit_padding(padding, shape, window, strides):
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        return (*_same_padding(shape[1], window[0], strides[0], 1), *_same_padding(shape[2], window[1], strides[1], 1))
    return (*padding[0], *padding[1])


@covers("max_pool2d", "avg_pool2d")
@settings(max_examples=8, deadline=None)
@given(case=_pools(), seed=SEEDS)
def test_pooling_with_windows_strides_and_padding(case, seed):
    """Both poolings of one configuration (one compile per example)."""
    shape, window, strides, padding = case
    x = random_array(np.random.default_rng(seed), shape, "f32")
    explicit = _explicit_padding(padding, shape, window, strides or window)  # strides default to the window
    expected = [r.astype(np.float32) for r in _pool_loops(as_float64(x), window, strides or window, explicit)]
    check_staged(
        lambda v: (s4tf.max_pool2d(v, window, strides, padding), s4tf.avg_pool2d(v, window, strides, padding)),
        [x],
        expected,
        ops=["max_pool2d", "avg_pool2d"],
    )


@covers("max_pool2d", "avg_pool2d")
def test_pooling_in_every_float_dtype_and_of_integers():
    rng = np.random.default_rng(9)
    args = [random_array(rng, (2, 5, 4, 3), d) for d in FLOATS + ("i32",)]
    expected = []
    for x in args:
        dtype = x.dtype if dtype_name(x) in FLOATS else DTYPES["f32"]  # pooling converts integers to float32
        expected += [r.astype(dtype) for r in _pool_loops(as_float64(x), (3, 2), (2, 1), (1, 1, 0, 1))]
    check_staged(
        lambda *xs: tuple(
            pool(x, (3, 2), (2, 1), ((1, 1), (0, 1))) for x in xs for pool in (s4tf.max_pool2d, s4tf.avg_pool2d)
        ),
        args,
        expected,
        ops=["max_pool2d", "avg_pool2d"],
    )
