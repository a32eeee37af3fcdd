"""Ops that create tensors or move their elements, through IREE against NumPy: constant,
iota, broadcast_in_dim, reshape, transpose, reverse, slice, add_slice, concatenate and pad.

Expectations are computed with index arithmetic (``np.indices``, ``np.ix_``, loops),
not with the NumPy calls the ops' references use.
"""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_testing import DTYPES, FLOATS, SEEDS, check_staged, covers, op_fn, random_array

import s4tf

SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
SOME_DTYPES = st.sampled_from(["f32", "f16", "bf16", "i32", "i1"])


def _constants(dtype, rng):
    """A random, a splat and a scalar array of ``dtype``; floats include infinities."""
    varied = random_array(rng, (2, 3), dtype)
    if dtype in FLOATS:
        varied[0, :2] = [np.inf, -np.inf]
    return [varied, np.full((3,), varied.flat[-1]), np.array(varied[1, 2])]


@covers("constant")
def test_constants_of_every_dtype():
    rng = np.random.default_rng(0)
    values = [value for dtype in DTYPES for value in _constants(dtype, rng)]
    check_staged(lambda: tuple(s4tf.asarray(v) for v in values), [], values, ops=["constant"])


@covers("constant", "mul")
def test_large_bf16_constant_used_as_an_operand():
    rng = np.random.default_rng(1)
    x, factor = random_array(rng, (64, 64), "bf16"), random_array(rng, (64, 64), "bf16")
    expected = (x.astype(np.float64) * factor.astype(np.float64)).astype(x.dtype)
    check_staged(lambda v: v * factor, [x], expected, ops=["constant", "mul"])


@covers("iota")
def test_iota_along_every_dimension_in_number_dtypes():
    shape, dtypes = (2, 3, 4), ("i32", "i64", "f32", "f16", "bf16")
    expected = [np.indices(shape)[d].astype(DTYPES[t]) for t in dtypes for d in range(len(shape))]
    fn = lambda: tuple(s4tf.iota(shape, d, DTYPES[t]) for t in dtypes for d in range(len(shape)))  # noqa: E731
    check_staged(fn, [], expected, ops=["iota"])


@st.composite
def _broadcasts(draw):
    """(operand shape, result shape, broadcast_dimensions): operand axes map to increasing
    result axes and have the result's size or 1."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    dims = sorted(draw(st.sets(st.integers(0, len(shape) - 1), max_size=len(shape))))
    operand = tuple(draw(st.sampled_from([shape[d], 1])) for d in dims)
    assume(operand != shape)
    return operand, shape, tuple(dims)


@covers("broadcast_in_dim")
@settings(max_examples=5, deadline=None)
@given(case=_broadcasts(), dtype=SOME_DTYPES, seed=SEEDS)
def test_broadcast_in_dim(case, dtype, seed):
    operand_shape, shape, dims = case
    x = random_array(np.random.default_rng(seed), operand_shape, dtype)
    grid = np.indices(shape, sparse=True)
    index = tuple(grid[d] if size != 1 else 0 for d, size in zip(dims, operand_shape))
    expected = np.broadcast_to(x[index], shape)
    check_staged(lambda v: s4tf.broadcast_in_dim(v, shape, dims), [x], expected, ops=["broadcast_in_dim"])


@st.composite
def _reshapes(draw):
    """Two shapes of the same size: the second regroups a permutation of the first's factors."""
    factors = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    target = list(draw(st.permutations(factors)))
    for _ in range(draw(st.integers(0, len(target) - 1))):
        at = draw(st.integers(0, len(target) - 2))
        target[at : at + 2] = [target[at] * target[at + 1]]
    assume(tuple(target) != tuple(factors))
    if draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1  # s4tf.reshape infers it, as NumPy does
    return tuple(factors), tuple(target)


@covers("reshape")
@settings(max_examples=5, deadline=None)
@given(shapes=_reshapes(), dtype=SOME_DTYPES, seed=SEEDS)
def test_reshape_keeps_row_major_order(shapes, dtype, seed):
    shape, target = shapes
    x = random_array(np.random.default_rng(seed), shape, dtype)
    known = int(np.prod([d for d in target if d != -1]))
    final = tuple(x.size // known if d == -1 else d for d in target)
    expected = x.ravel()[np.ravel_multi_index(np.indices(final), final)]
    check_staged(lambda v: s4tf.reshape(v, target), [x], expected, ops=["reshape"])


@st.composite
def _permuted_shapes(draw):
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=4))
    permutation = tuple(draw(st.permutations(range(len(shape)))))
    assume(permutation != tuple(range(len(shape))))
    return shape, permutation


@covers("transpose")
@settings(max_examples=5, deadline=None)
@given(case=_permuted_shapes(), dtype=SOME_DTYPES, seed=SEEDS)
def test_transpose(case, dtype, seed):
    shape, permutation = case
    x = random_array(np.random.default_rng(seed), shape, dtype)
    grid = np.indices([shape[p] for p in permutation])
    expected = x[tuple(grid[i] for i in np.argsort(permutation))]  # result axis i is operand axis permutation[i]
    check_staged(lambda v: s4tf.transpose(v, permutation), [x], expected, ops=["transpose"])


@covers("reverse")
@settings(max_examples=4, deadline=None)
@given(shape=SHAPES, data=st.data(), dtype=SOME_DTYPES, seed=SEEDS)
def test_reverse(shape, data, dtype, seed):
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    x = random_array(np.random.default_rng(seed), shape, dtype)
    index = np.ix_(*(np.arange(n - 1, -1, -1) if a in axes else np.arange(n) for a, n in enumerate(shape)))
    check_staged(lambda v: s4tf.flip(v, axes), [x], x[index], ops=["reverse"])


@st.composite
def _slices(draw):
    shape = draw(SHAPES)
    start, limit, stride = [], [], []
    for size in shape:
        lo = draw(st.integers(0, size))
        start.append(lo)
        limit.append(draw(st.integers(lo, size)))
        stride.append(draw(st.integers(1, 3)))
    return shape, tuple(start), tuple(limit), tuple(stride)


@covers("slice")
@settings(max_examples=6, deadline=None)
@given(case=_slices(), dtype=SOME_DTYPES, seed=SEEDS)
def test_strided_slice(case, dtype, seed):
    shape, start, limit, stride = case
    x = random_array(np.random.default_rng(seed), shape, dtype)
    expected = x[np.ix_(*(np.arange(lo, hi, step) for lo, hi, step in zip(start, limit, stride)))]
    assume(expected.shape != x.shape)  # a slice keeping everything is folded away
    check_staged(lambda v: s4tf.slice(v, start, limit, stride), [x], expected, ops=["slice"])


def _added_at(x, update, start, stride):
    """``x`` plus ``update`` added element by element at ``start + index * stride``."""
    result = x.copy()
    for index in np.ndindex(*update.shape):
        result[tuple(lo + k * step for k, lo, step in zip(index, start, stride))] += update[index]
    return result


@covers("add_slice")
@settings(max_examples=6, deadline=None)
@given(case=_slices(), dtype=st.sampled_from(["f32", "f16", "i32"]), seed=SEEDS)
def test_add_slice_adds_into_a_strided_window(case, dtype, seed):
    shape, start, limit, stride = case
    rng = np.random.default_rng(seed)
    x = random_array(rng, shape, dtype)
    update_shape = [len(range(lo, hi, step)) for lo, hi, step in zip(start, limit, stride)]
    update = random_array(rng, update_shape, dtype)
    expected = _added_at(x, update, start, stride)
    check_staged(op_fn("add_slice", start=start, stride=stride), [x, update], expected, ops=["add_slice"])


@covers("add_slice")
def test_add_slice_chains_accumulate_overlapping_windows():
    """Unit strides (a window written back), strides that divide their axes (a window of a
    reshaped buffer) and other strides (a scatter), applied in turn to one buffer, with
    overlapping windows and a scalar operand."""
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    window, strided, scalar = np.full((2, 3), 0.5, np.float32), np.full((2, 2), 10.0, np.float32), np.float32(7)

    def fn(v, w, s, c):
        once = s4tf.op("add_slice", v, w, start=(1, 1), stride=(1, 1))
        twice = s4tf.op("add_slice", once, w, start=(2, 2), stride=(1, 1))
        scattered = s4tf.op("add_slice", twice, s, start=(0, 1), stride=(3, 2))
        split = s4tf.op("add_slice", scattered, s, start=(1, 2), stride=(2, 1))
        return split, s4tf.op("add_slice", c, c, start=(), stride=())

    expected = _added_at(_added_at(x, window, (1, 1), (1, 1)), window, (2, 2), (1, 1))
    expected = _added_at(_added_at(expected, strided, (0, 1), (3, 2)), strided, (1, 2), (2, 1))
    check_staged(fn, [x, window, strided, scalar], [expected, np.float32(14)], ops=["add_slice"])


@covers("slice", "reshape")
def test_indexing_with_ints_slices_ellipsis_and_none():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    expected = [x[1], x[1:, ::2], x[..., -1], x[None, :, 1:3, 0], x[-2:, 1, 4:1]]
    fn = lambda v: (v[1], v[1:, ::2], v[..., -1], v[None, :, 1:3, 0], v[-2:, 1, 4:1])  # noqa: E731
    check_staged(fn, [x], expected, ops=["slice", "reshape"])


@st.composite
def _concatenations(draw):
    shape = draw(SHAPES)
    axis = draw(st.integers(0, len(shape) - 1))
    sizes = draw(st.lists(st.integers(0, 3), min_size=2, max_size=3))
    return [shape[:axis] + (n,) + shape[axis + 1 :] for n in sizes], axis


@covers("concatenate")
@settings(max_examples=5, deadline=None)
@given(case=_concatenations(), dtype=SOME_DTYPES, seed=SEEDS)
def test_concatenate(case, dtype, seed):
    shapes, axis = case
    rng = np.random.default_rng(seed)
    parts = [random_array(rng, shape, dtype) for shape in shapes]
    total = list(shapes[0])
    total[axis] = sum(shape[axis] for shape in shapes)
    expected = np.empty(total, parts[0].dtype)
    offset = 0
    for part in parts:
        index = [slice(None)] * len(total)
        index[axis] = slice(offset, offset + part.shape[axis])
        expected[tuple(index)] = part
        offset += part.shape[axis]
    check_staged(lambda *vs: s4tf.concatenate(vs, axis), parts, expected, ops=["concatenate"])


def _pad_shape(shape, low, high, interior):
    return [lo + hi + n + max(n - 1, 0) * i for n, lo, hi, i in zip(shape, low, high, interior)]


def _padded(x, value, low, high, interior):
    """``x`` with ``interior`` values between neighbours and ``low``/``high`` at the edges
    (a negative amount drops the elements that would land before the first or past the
    last position)."""
    shape = _pad_shape(x.shape, low, high, interior)
    result = np.full(shape, value, x.dtype)
    for index in np.ndindex(*x.shape):
        position = tuple(lo + k * (i + 1) for k, lo, i in zip(index, low, interior))
        if all(0 <= p < n for p, n in zip(position, shape)):
            result[position] = x[index]
    return result


@covers("pad")
@settings(max_examples=8, deadline=None)
@given(shape=SHAPES, data=st.data(), dtype=SOME_DTYPES, seed=SEEDS)
def test_pad_with_edge_and_interior_padding_and_cropping(shape, data, dtype, seed):
    def amounts(least):
        return st.lists(st.integers(least, 2), min_size=len(shape), max_size=len(shape)).map(tuple)

    low, high, interior = data.draw(amounts(-2)), data.draw(amounts(-2)), data.draw(amounts(0))
    assume(min(_pad_shape(shape, low, high, interior), default=0) >= 0)
    rng = np.random.default_rng(seed)
    x, value = random_array(rng, shape, dtype), random_array(rng, (), dtype)
    expected = _padded(x, value, low, high, interior)
    check_staged(op_fn("pad", low=low, high=high, interior=interior), [x, value], expected, ops=["pad"])


@covers("pad")
def test_numpy_style_pad_widths():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    expected = [
        _padded(x, 0, (1, 1), (1, 1), (0, 0)),
        _padded(x, 7, (2, 0), (0, 1), (0, 0)),
        np.array([[5], [0], [0]], np.int32),  # negative widths crop: row 0, columns 0 and 1
    ]
    fn = lambda v: (  # noqa: E731
        s4tf.pad(v, 1), s4tf.pad(v, ((2, 0), (0, 1)), constant_values=7), s4tf.pad(v, ((-1, 2), (-2, 0))),
    )
    check_staged(fn, [x], expected, ops=["pad"])


@covers("reshape", "transpose", "concatenate", "broadcast_in_dim")
def test_numpy_shape_functions():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    row = np.arange(4, dtype=np.float32)

    def fn(v, r):
        return (
            v.T,
            s4tf.transpose(v, (1, -1, 0)),
            s4tf.expand_dims(v, -1),
            s4tf.squeeze(v[:, :1], axis=1),
            s4tf.stack([r, r * 2], axis=1),
            s4tf.concatenate([v, v], axis=-1),
            s4tf.broadcast_to(r, (3, 4)),
            v.reshape(4, -1),
        )

    expected = [
        np.transpose(x),
        np.transpose(x, (1, 2, 0)),
        x[..., None],
        x[:, 0],
        np.stack([row, row * 2], axis=1),
        np.concatenate([x, x], axis=-1),
        np.broadcast_to(row, (3, 4)),
        x.reshape(4, 6),
    ]
    check_staged(fn, [x, row], expected, ops=["reshape", "transpose", "concatenate", "broadcast_in_dim"])
