"""Result dtypes of s4tf's binary functions and operators against NumPy 2's, for every pair
of s4tf dtypes and for Python scalars on either side (weak, NEP 50).

The tables are checked on the staged module's result types: tracing types every result
and compiles nothing, so one trace per op covers all pairs. A subset runs for real, eagerly
and staged, against NumPy's values and dtypes.
"""

import operator

import numpy as np
import pytest

import s4tf
from s4tf.dialects.types import DTYPES, to_numpy_dtype

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

NUMPY_DTYPES = [to_numpy_dtype(d) for d in DTYPES]
BFLOAT16 = to_numpy_dtype("bf16")
CONDITION = np.array([[True, False], [False, True]])

#: name: (s4tf function, NumPy function) of two operands
FUNCTIONS = {
    "add": (s4tf.add, np.add),
    "subtract": (s4tf.subtract, np.subtract),
    "multiply": (s4tf.multiply, np.multiply),
    "divide": (s4tf.divide, np.divide),
    "floor_divide": (s4tf.floor_divide, np.floor_divide),
    "remainder": (s4tf.remainder, np.remainder),
    "power": (s4tf.power, np.power),
    "maximum": (s4tf.maximum, np.maximum),
    "minimum": (s4tf.minimum, np.minimum),
    "equal": (s4tf.equal, np.equal),
    "not_equal": (s4tf.not_equal, np.not_equal),
    "less": (s4tf.less, np.less),
    "less_equal": (s4tf.less_equal, np.less_equal),
    "greater": (s4tf.greater, np.greater),
    "greater_equal": (s4tf.greater_equal, np.greater_equal),
    "logical_and": (s4tf.logical_and, np.logical_and),
    "logical_or": (s4tf.logical_or, np.logical_or),
    "bitwise_and": (s4tf.bitwise_and, np.bitwise_and),
    "bitwise_or": (s4tf.bitwise_or, np.bitwise_or),
    "where": (lambda x, y: s4tf.where(CONDITION, x, y), lambda x, y: np.where(CONDITION, x, y)),
    "clip": (lambda x, y: s4tf.clip(x, y, y), lambda x, y: np.clip(x, y, y)),
    "matmul": (s4tf.matmul, np.matmul),
    "concatenate": (lambda x, y: s4tf.concatenate([x, y]), lambda x, y: np.concatenate([x, y])),
}
OPERATORS = {
    f"x {symbol} y": (fn, fn)
    for symbol, fn in {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
        "%": operator.mod, "**": operator.pow, "@": operator.matmul, "&": operator.and_, "|": operator.or_,
        "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    }.items()
}
ALL = {**FUNCTIONS, **OPERATORS}
#: Ops that take no Python scalar (rank-0 operands)
NO_SCALARS = {"matmul", "concatenate", "x @ y"}
#: Not 2: NumPy's ``array ** 2`` is ``np.square``, which computes bools in int8 where
#: ``np.power(array, 2)`` (and s4tf) promote them to int64.
SCALARS = [True, 3, 2.5]


def numpy_dtype(numpy_fn, x, y):
    """The dtype of NumPy's result, or ``None`` where NumPy refuses these dtypes."""
    try:
        return np.asarray(numpy_fn(x, y)).dtype
    except TypeError:
        return None


def expected_dtype(name, x, y):
    """NumPy's result dtype for ``ALL[name]`` on ``x`` and ``y``. bfloat16 is ml_dtypes' and
    only partly NumPy's: ``np.result_type`` knows no common dtype of it and float16 (or int32,
    int64), NumPy computes a bfloat16 matmul or clip in float32 (no loop), and bfloat16 does
    not follow NEP 50 for Python floats (``bfloat16 + 1.0`` is float32 there). So s4tf's
    bfloat16 promotes as NumPy's ufuncs with a bfloat16 loop (``np.maximum``) promote it, and a
    bfloat16 tensor meets Python scalars as a float16 one does."""
    numpy_fn = ALL[name][1]
    dtypes = [np.asarray(v).dtype for v in (x, y) if isinstance(v, np.ndarray)]
    if BFLOAT16 in dtypes and name in ("where", "clip", "matmul", "concatenate", "x @ y"):
        numpy_fn = np.maximum
    if dtypes == [BFLOAT16]:
        as_float16 = [v.astype(np.float16) if isinstance(v, np.ndarray) else v for v in (x, y)]
        dtype = numpy_dtype(numpy_fn, *as_float16)
        return BFLOAT16 if dtype == np.float16 else dtype
    return numpy_dtype(numpy_fn, x, y)


def staged_dtypes(name, operand_pairs):
    """``{pair index: s4tf's result dtype, or None where it raised DTypeError}``, read from
    the staged module's result types; arrays are the staged function's arguments."""
    fn = ALL[name][0]
    arrays = [v for pair in operand_pairs for v in pair if isinstance(v, np.ndarray)]
    refused, kept = {}, []

    def all_pairs(*tracers):
        tracers = iter(tracers)
        results = []
        for i, pair in enumerate(operand_pairs):
            x, y = (next(tracers) if isinstance(v, np.ndarray) else v for v in pair)
            try:
                results.append(fn(x, y))
                kept.append(i)
            except s4tf.DTypeError:
                refused[i] = None
        return tuple(results)

    lowered = s4tf.function(all_pairs, autograph=False).lower(*arrays)
    types = dict(zip(kept, (to_numpy_dtype(t.dtype) for t in lowered.record.result_types)))
    return {**refused, **types}


def _pair_name(x, y):
    return " with ".join(repr(v) if not isinstance(v, np.ndarray) else str(v.dtype) for v in (x, y))


def check_table(name, pairs):
    ours = staged_dtypes(name, pairs)
    wrong = [
        f"{_pair_name(x, y)}: s4tf {ours[i]}, NumPy {expected_dtype(name, x, y)}"
        for i, (x, y) in enumerate(pairs)
        if ours[i] != expected_dtype(name, x, y)
    ]
    assert not wrong, f"{name}: result dtypes (None: refused) differ from NumPy's:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name", ALL)
def test_every_pair_of_dtypes_promotes_as_in_numpy(name):
    pairs = [(np.ones((2, 2), a), np.ones((2, 2), b)) for a in NUMPY_DTYPES for b in NUMPY_DTYPES]
    check_table(name, pairs)


@pytest.mark.parametrize("name", [n for n in ALL if n not in NO_SCALARS])
def test_python_scalars_are_weak_as_in_numpy(name):
    tensors = [np.ones((2, 2), a) for a in NUMPY_DTYPES]
    pairs = [pair for x in tensors for s in SCALARS for pair in ((x, s), (s, x))]
    if name == "clip":  # np.clip(s, x, x) broadcasts the scalar: the same promotion
        pairs = [(x, s) for x in tensors for s in SCALARS]
    check_table(name, pairs)


def test_the_issue_examples():
    i32, f32 = np.ones(3, np.int32), np.ones(3, np.float32)
    fn = s4tf.function(lambda i, f, i8: (i + f, i + 1.0, f + 1.0, i8 + 1, i / i, s4tf.where(i > 0, i, f)))
    types = [t.dtype for t in fn.lower(i32, f32, np.ones(3, np.int8)).record.result_types]
    assert types == ["f64", "f64", "f32", "i8", "f64", "f64"]


def test_python_scalars_alone_take_s4tf_default_dtypes():
    """NumPy would give float64 and int64; s4tf's defaults are float32 and int32."""
    assert s4tf.add(1, 2.5).dtype == np.float32
    assert s4tf.add(1, 2).dtype == np.int32
    assert s4tf.divide(1, 2).dtype == np.float32
    assert s4tf.where(CONDITION, 1.0, 0.0).dtype == np.float32


def count_up(x16, x8, n):
    for i in range(n):
        x16 = x16 + (i + 1) * 0.5
        x8 = x8 + i % 2
    return x16, x8


def test_the_index_of_a_staged_range_loop_is_weak_as_a_python_int():
    """``for i in range(n)`` on a tensor ``n`` gives what Python's ints give with NumPy; so
    does ``s4tf.fori_loop``, while an int32 tensor that is no loop index promotes."""
    x16, x8 = np.array([0.5, 1.0, 2.0], np.float16), np.array([1, -2, 3], np.int8)
    for got, want in zip(s4tf.function(count_up)(x16, x8, np.int32(5)), count_up(x16, x8, 5)):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    x32 = np.ones(2, np.float32)
    fori = s4tf.function(lambda x, n: (s4tf.fori_loop(0, n, lambda i, v: v * i + i // 2, x), x * n))
    assert [t.dtype for t in fori.lower(x32, np.int32(3)).record.result_types] == ["f32", "f64"]


# -- for real: eager and staged, values and dtypes against NumPy -----------------------

LEFT = np.array([[7, -3], [16777217, 5]], np.int32)  # 2**24 + 1: not a float32
RIGHT = np.array([[2.0, 4.0], [16777216.0, 3.0]], np.float32)
EAGER = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum", "equal", "less", "where",
         "matmul"]


@pytest.mark.parametrize("name", EAGER)
def test_int32_with_float32_eagerly_computes_in_float64(name):
    s4tf_fn, numpy_fn = FUNCTIONS[name]
    got, want = s4tf_fn(s4tf.asarray(LEFT), s4tf.asarray(RIGHT)), numpy_fn(LEFT, RIGHT)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def test_comparisons_of_int32_with_float32_compare_in_float64():
    """2**24 + 1 == 2**24 in float32, not in float64 (NumPy's promotion)."""
    staged = s4tf.function(lambda i, f: (i == f, i > f, s4tf.not_equal(i, f)))
    for got, want in zip(staged(LEFT, RIGHT), (LEFT == RIGHT, LEFT > RIGHT, LEFT != RIGHT)):
        np.testing.assert_array_equal(np.asarray(got), want)
    assert not bool(s4tf.equal(s4tf.asarray(np.int32(16777217)), np.float32(16777216.0)))


def test_mixed_dtypes_and_weak_scalars_staged_against_numpy():
    i8, b, f16 = np.array([1, -2, 3], np.int8), np.array([True, False, True]), np.array([0.5, 1.5, -2.0], np.float16)

    def mixed(i8, b, f16):
        return (i8 + 1, b + 1, b * b, b + b, b // True, b % True, i8 * f16, f16 * 2.5, i8 / 2, b / True, i8**2,
                2.0 - i8, b @ b)

    expected = mixed(i8, b, f16)
    for got, want in zip(s4tf.function(mixed)(i8, b, f16), expected):
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got).astype(np.float64), want.astype(np.float64), rtol=1e-3)


def test_bool_subtraction_is_refused_as_in_numpy():
    b = np.array([True, False])
    with pytest.raises(s4tf.DTypeError, match="bool"):
        s4tf.function(lambda b: b - b)(b)


def test_a_python_int_out_of_the_tensors_range_is_a_dtype_error():
    with pytest.raises(s4tf.DTypeError, match="300.*int8"):
        s4tf.function(lambda x: x + 300)(np.ones(2, np.int8))


# -- rounding and creation --------------------------------------------------------------


@pytest.mark.parametrize("fn", [s4tf.floor, s4tf.ceil, s4tf.round], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_rounding_an_integer_returns_it_unchanged(fn, dtype):
    x = s4tf.asarray(np.array([-3, 0, 7], dtype))
    assert fn(x) is x
    assert getattr(np, fn.__name__)(np.asarray(x)).dtype == dtype  # as NumPy's dtype


def test_creation_defaults():
    assert s4tf.zeros((2,)).dtype == np.float32
    assert s4tf.zeros((2,), dtype=None).dtype == np.float32
    assert s4tf.ones(3, None).dtype == np.float32
    assert s4tf.full((), 3).dtype == np.int32
    assert s4tf.full((2,), 0.5).dtype == np.float32
    x = s4tf.asarray(np.ones(2, np.float16))
    assert s4tf.zeros_like(x).dtype == np.float16
    assert s4tf.ones_like(x, dtype=np.dtype(np.int8)).dtype == np.int8
    assert s4tf.full_like(x, 2, dtype=np.dtype(np.float32)).dtype == np.float32
