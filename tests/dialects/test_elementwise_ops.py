"""Elementwise ops through IREE against NumPy: unary math, binary arithmetic with
broadcasting, comparisons, logical ops, select, cast, stop_gradient and optimization_barrier, in every dtype."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_testing import (
    DTYPES,
    FLOATS,
    INTS,
    SEEDS,
    as_float64,
    assert_matches,
    check_each,
    check_pairwise,
    check_staged,
    covered,
    covers,
    op_fn,
    random_array,
    run_staged,
)

import s4tf
from s4tf.dialects.op_def import OPS


def _logistic(x):
    return 0.5 * (1 + np.tanh(x / 2))


# name: (public function, independent NumPy function, low, high) with inputs in [low, high)
UNARY = {
    "exp": (s4tf.exp, np.exp, -3, 3),
    "log": (s4tf.log, np.log, 0.1, 4),
    "log1p": (s4tf.log1p, np.log1p, -0.5, 4),
    "sin": (s4tf.sin, np.sin, -4, 4),
    "cos": (s4tf.cos, np.cos, -4, 4),
    "tanh": (s4tf.tanh, np.tanh, -3, 3),
    "sqrt": (s4tf.sqrt, np.sqrt, 0, 4),
    "rsqrt": (s4tf.rsqrt, lambda x: np.sqrt(x) ** -1, 0.1, 4),
    "logistic": (s4tf.sigmoid, _logistic, -6, 6),
    "floor": (s4tf.floor, np.floor, -3, 3),
    "ceil": (s4tf.ceil, np.ceil, -3, 3),
    "round": (s4tf.round, np.rint, -3, 3),
    "neg": (s4tf.negative, np.negative, -3, 3),
    "abs": (s4tf.abs, np.abs, -3, 3),
    "sign": (s4tf.sign, np.sign, -3, 3),
}
INTEGER_UNARY = {"neg", "abs", "sign"}
#: IREE's CPU code calls libm for these in f64: the ``cpu`` target links the system's.
LIBM_F64 = {"sin", "cos", "tanh"}


def _unary_dtypes(name):
    return list(FLOATS) + (list(INTS) if name in INTEGER_UNARY else [])


@pytest.mark.parametrize("name", covered(UNARY))
def test_unary_op_in_every_dtype(name):
    public, numpy_fn, low, high = UNARY[name]
    rng = np.random.default_rng(0)
    args = [random_array(rng, (3, 5), dtype, low, high) for dtype in _unary_dtypes(name)]
    if low <= 0:
        for x in args:
            x[0, 0] = 0  # an edge case of sign, abs, sqrt, ...
    expected = [numpy_fn(as_float64(x)).astype(x.dtype) for x in args]
    check_each(public, args, expected, ops=[name])


@pytest.mark.parametrize("name", sorted(LIBM_F64))
def test_f64_trigonometry_runs_on_the_cpu_to_the_last_bit(name):
    public, numpy_fn, low, high = UNARY[name]
    x = np.concatenate([np.linspace(low, high, 101), [1e-300, 1e5, -710.5]])
    got = np.asarray(s4tf.function(public)(x))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, numpy_fn(x), rtol=1e-15, atol=1e-300)


@covers("round", "floor", "ceil")
def test_rounding_of_halves_in_every_float_dtype():
    halves = np.array([-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.5])
    rounded = {
        s4tf.round: [-2, -2, -0, 0, 0, 2, 2, 4],  # halves to even
        s4tf.floor: [-3, -2, -1, 0, 0, 1, 2, 3],
        s4tf.ceil: [-2, -1, 0, 0, 1, 2, 3, 4],
    }
    args = [halves.astype(DTYPES[dtype]) for dtype in FLOATS]
    expected = [np.array(values, x.dtype) for x in args for values in rounded.values()]
    check_staged(lambda *xs: tuple(fn(x) for x in xs for fn in rounded), args, expected, ops=["round", "floor", "ceil"])


def test_unary_float_functions_convert_integers_to_float32():
    x = np.arange(-2, 4, dtype=np.int32)
    expected = [np.exp(as_float64(x)).astype(np.float32), np.sin(as_float64(x)).astype(np.float32)]
    check_staged(lambda v: (s4tf.exp(v), s4tf.sin(v)), [x], expected, ops=["exp", "sin", "cast"])


@covers("not")
def test_not_is_logical_on_bool_and_bitwise_on_integers():
    rng = np.random.default_rng(1)
    flags = random_array(rng, (4, 3), "i1")
    ints = [random_array(rng, (4, 3), dtype, -100, 100) for dtype in ("i8", "i32", "i64")]
    expected = [flags == 0] + [(-x - 1).astype(x.dtype) for x in ints]  # two's complement: ~x == -x - 1
    check_staged(
        lambda p, *xs: (s4tf.logical_not(p), *(s4tf.op("not", x) for x in xs)), [flags, *ints], expected, ops=["not"]
    )


# -- binary ------------------------------------------------------------------------------


def _binary_operands(name, rng, dtype):
    """``(3, 4)`` and ``(4,)`` operands in the op's domain: divisors away from zero,
    positive float bases and small exponents."""
    x, y = random_array(rng, (3, 4), dtype), random_array(rng, (4,), dtype)
    if name == "div":
        y = (random_array(rng, (4,), dtype, 1, 3) * np.where(rng.random(4) < 0.5, 1, -1)).astype(y.dtype)
    if name == "pow" and dtype in FLOATS:
        x, y = random_array(rng, (3, 4), dtype, 0.5, 2), random_array(rng, (4,), dtype, -2, 2)
    if name == "pow" and dtype not in FLOATS:
        y = random_array(rng, (4,), dtype, 0, 4)
    return x, y


# name: (staging function, independent NumPy function on float64 values); integer results
# are the float64 results truncated toward zero by ``astype``, as integer division truncates
ARITHMETIC = {
    "add": (s4tf.add, lambda x, y: x + y),
    "sub": (s4tf.subtract, lambda x, y: x - y),
    "mul": (s4tf.multiply, lambda x, y: x * y),
    "div": (op_fn("div"), lambda x, y: x / y),  # the raw op: s4tf.divide divides integers in float64
    "pow": (s4tf.power, lambda x, y: x**y),
    "maximum": (s4tf.maximum, lambda x, y: np.where(x >= y, x, y)),
    "minimum": (s4tf.minimum, lambda x, y: np.where(x <= y, x, y)),
}


@pytest.mark.parametrize("name", covered(ARITHMETIC))
def test_arithmetic_op_in_every_number_dtype(name):
    stage, numpy_fn = ARITHMETIC[name]
    rng = np.random.default_rng(0)
    pairs = [_binary_operands(name, rng, dtype) for dtype in FLOATS + INTS]
    expected = [numpy_fn(as_float64(x), as_float64(y)).astype(x.dtype) for x, y in pairs]
    check_pairwise(stage, pairs, expected, ops=[name])


@covers("pow")
def test_pow_of_negative_bases_and_special_values_is_numpys():
    """Integer powers of negative numbers keep the sign of their parity, other powers of
    them are NaN, ``x ** 0`` and ``1 ** y`` are 1 (IREE's own power is NaN for every
    negative base unless the exponent is a small constant)."""
    x = np.array([-2.0, -2.0, -1.0, -3.0, -0.5, -2.0, -np.inf, 0.0, 0.0, 0.0, np.nan, 1.0, 2.5, -2.0])
    y = np.array([3.0, 2.0, -3.0, 5.0, 3.0, 2.5, 3.0, 0.0, -1.0, 0.5, 0.0, np.nan, 1.7, -2.0])
    pairs = [(x.astype(DTYPES[d]), y.astype(DTYPES[d])) for d in FLOATS]
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN and inf are expected
        expected = [np.power(as_float64(a), as_float64(b)).astype(a.dtype) for a, b in pairs]
        check_pairwise(s4tf.power, pairs, expected, ops=["pow"])


COMPARISONS = {
    "eq": (s4tf.equal, lambda x, y: x == y),
    "ne": (s4tf.not_equal, lambda x, y: x != y),
    "lt": (s4tf.less, lambda x, y: x < y),
    "le": (s4tf.less_equal, lambda x, y: x <= y),
    "gt": (s4tf.greater, lambda x, y: x > y),
    "ge": (s4tf.greater_equal, lambda x, y: x >= y),
}


@pytest.mark.parametrize("name", covered(COMPARISONS))
def test_comparison_gives_bool_in_every_dtype(name):
    public, numpy_fn = COMPARISONS[name]
    rng = np.random.default_rng(0)
    # whole numbers in [-2, 2], so that ties are common; i1 compares false < true
    pairs = [
        tuple(np.round(as_float64(random_array(rng, shape, d, -2, 2))).astype(DTYPES[d]) for shape in ((3, 4), (4,)))
        for d in FLOATS + INTS + ("i1",)
    ]
    expected = [numpy_fn(as_float64(x), as_float64(y)) for x, y in pairs]
    check_pairwise(public, pairs, expected, ops=[name])


LOGICAL = {"and": (s4tf.logical_and, lambda x, y: x & y), "or": (s4tf.logical_or, lambda x, y: x | y)}


@pytest.mark.parametrize("name", covered(LOGICAL))
def test_logical_ops_on_bool_and_bitwise_on_integers(name):
    public, numpy_fn = LOGICAL[name]
    rng = np.random.default_rng(0)
    flags = (random_array(rng, (3, 4), "i1"), random_array(rng, (4,), "i1"))
    ints = [random_array(rng, shape, d, -100, 100) for d in ("i8", "i32", "i64") for shape in ((3, 4), (4,))]
    expected = [numpy_fn(*flags)] + [numpy_fn(x, y) for x, y in zip(ints[::2], ints[1::2])]

    def fn(p, q, *xs):
        return (public(p, q), *(s4tf.op(name, x, y) for x, y in zip(xs[::2], xs[1::2])))

    check_staged(fn, [*flags, *ints], expected, ops=[name])


@covers(*ARITHMETIC, *COMPARISONS, *LOGICAL)
@settings(max_examples=8, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3), seed=SEEDS)
def test_binary_ops_broadcast_like_numpy(shapes, seed):
    """Every binary op on one pair of broadcastable shapes (one compile per example)."""
    x_shape, y_shape = shapes.input_shapes
    rng = np.random.default_rng(seed)
    x = random_array(rng, x_shape, "f32", 0.5, 2)  # positive: a base for pow
    y = (random_array(rng, y_shape, "f32", 0.5, 2) * np.where(rng.random(y_shape) < 0.5, 1, -1)).astype(np.float32)
    p, q = random_array(rng, x_shape, "i1"), random_array(rng, y_shape, "i1")
    on_floats = {**ARITHMETIC, **COMPARISONS, "div": (s4tf.divide, ARITHMETIC["div"][1])}

    def fn(x, y, p, q):
        return (*(stage(x, y) for stage, _ in on_floats.values()), *(public(p, q) for public, _ in LOGICAL.values()))

    expected = [numpy_fn(as_float64(x), as_float64(y)) for _, numpy_fn in on_floats.values()]
    expected = [e.astype(np.float32) if e.dtype == np.float64 else e for e in expected]
    expected += [numpy_fn(p, q) for _, numpy_fn in LOGICAL.values()]
    check_staged(fn, [x, y, p, q], expected, ops=[*ARITHMETIC, *COMPARISONS, *LOGICAL])


def test_python_scalars_are_weak_and_numpy_scalars_strong():
    x = np.linspace(-1, 1, 6).astype(np.float16)
    i = np.arange(6, dtype=np.int32)
    expected = [
        (as_float64(x) * 2).astype(np.float16),
        (i + 3).astype(np.int32),
        i + 1.5,  # float64, as in NumPy 2 (NEP 50)
        i / 2,
        as_float64(x) * 2,  # a float64 NumPy scalar promotes, as in NumPy
    ]
    fn = lambda x, i: (x * 2, i + 3, i + 1.5, i / 2, x * np.float64(2))  # noqa: E731
    check_staged(fn, [x, i], expected, ops=["mul", "add", "div"])


# -- select, cast, stop_gradient -------------------------------------------------------


@covers("select")
@settings(max_examples=6, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
    dtype=st.sampled_from(sorted(DTYPES)),
    seed=SEEDS,
)
def test_select_broadcasts_its_three_operands(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    pred_shape, true_shape, false_shape = shapes.input_shapes
    pred = random_array(rng, pred_shape, "i1")
    on_true, on_false = random_array(rng, true_shape, dtype), random_array(rng, false_shape, dtype)
    expected = np.choose(pred.astype(np.int64), [on_false, on_true])
    check_staged(s4tf.where, [pred, on_true, on_false], expected, ops=["select"])


def _cast_source(dtype):
    """Values every dtype holds: zero, small integers, fractions (floats to integers truncate)."""
    if dtype == "i1":
        return np.array([True, False, True, True, False, False])
    values = [0, 1, -1, 2, 100, -100] if dtype not in FLOATS else [0.0, 0.5, -0.5, 1.75, -1.75, 2.0, 99.5, -99.5]
    return np.array(values).astype(DTYPES[dtype])


def _cast_expected(x, target):
    if target == "i1":
        return x != 0
    values = as_float64(x)
    return (np.trunc(values) if target not in FLOATS else values).astype(DTYPES[target])


@covers("cast")
@pytest.mark.parametrize("source", sorted(DTYPES))
def test_cast_to_every_other_dtype(source):
    x = _cast_source(source)
    targets = [t for t in sorted(DTYPES) if t != source]
    expected = [_cast_expected(x, t) for t in targets]
    check_staged(lambda v: tuple(s4tf.astype(v, DTYPES[t]) for t in targets), [x], expected, ops=["cast"])


@covers("stop_gradient")
def test_stop_gradient_is_the_identity():
    rng = np.random.default_rng(2)
    args = [random_array(rng, (2, 3), dtype) for dtype in ("f32", "bf16", "i64", "i1")]
    check_each(s4tf.stop_gradient, args, args, ops=["stop_gradient"])


@covers("optimization_barrier")
def test_optimization_barrier_is_the_identity():
    rng = np.random.default_rng(4)
    args = [random_array(rng, (2, 3), dtype) for dtype in ("f32", "f64", "i32", "i1")]
    check_each(lambda v: s4tf.op("optimization_barrier", v), args, args, ops=["optimization_barrier"])


@covers("after")
def test_after_is_x_bit_for_bit_whatever_the_token():
    """Through a wait token (x times exactly 1, and-ed with true) or, for an empty token or
    one of dynamic shape, a barrier: every bit of ``x`` kept (-0.0, NaN, inf, extremes).
    (Not subnormals: IREE's CPU worker threads flush them to zero in any float arithmetic.)"""
    specials = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 1.2e-38, -3.4e38, 2.5], np.float32)
    pairs = [
        (specials, np.array([[np.inf, 1.0]], np.float32)),  # a token that is not finite
        (specials.astype(np.float64), np.array([np.nan, 2.0])),
        (specials.astype(DTYPES["bf16"]), np.array([3e38, 3e38], np.float32)),  # a sum that overflows
        (np.array([-(2**63), 2**63 - 1, -1, 0], np.int64), np.array([[7]], np.int32)),
        (np.array([True, False, True]), np.array([-np.inf], np.float32)),
        (np.array([-0.0, np.nan], np.float32), np.zeros((0, 3), np.float32)),  # empty: a barrier
    ]
    def each(*xs):
        return tuple(s4tf.op("after", x, t) for x, t in zip(xs[::2], xs[1::2]))

    args = [array for pair in pairs for array in pair]
    stablehlo = s4tf.function(each).lower(*args).stablehlo()
    assert stablehlo.count("stablehlo.is_finite") == 5 and stablehlo.count("stablehlo.optimization_barrier") == 1
    device, reference = run_staged(each, *args, ops=["after"])
    for got, ref, (x, _) in zip(device, reference, pairs):
        assert got.dtype == x.dtype and ref.dtype == x.dtype
        np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))  # bits, not values
        np.testing.assert_array_equal(ref.view(np.uint8), x.view(np.uint8))


# -- eager -------------------------------------------------------------------------------


def test_eager_ops_run_on_the_device_and_match_numpy_and_the_references():
    rng = np.random.default_rng(3)
    x, y = random_array(rng, (3, 4), "f32"), random_array(rng, (4,), "f32")
    # name: (eager result, independent expectation, operands and attributes of the op)
    results = {
        "exp": (s4tf.exp(x), np.exp(as_float64(x)).astype(np.float32), (x,), {}),
        "add": (s4tf.add(x, y), (as_float64(x) + y).astype(np.float32), (x, y), {}),
        "lt": (s4tf.less(x, y), as_float64(x) < y, (x, y), {}),
        "select": (s4tf.where(x < y, x, y), np.minimum(x, y), (x < y, x, y), {}),
        "cast": (s4tf.astype(x, np.int32), np.trunc(x).astype(np.int32), (x,), {"dtype": "i32"}),
    }
    for name, (tensor, expected, operands, attrs) in results.items():
        assert isinstance(tensor, s4tf.Tensor)
        [reference] = OPS[f"s4tf.{name}"].evaluate(list(operands), attrs)
        assert_matches(tensor, expected, f"eager {name}")
        assert_matches(reference, expected, f"reference {name}")
