"""The Array API's further elementwise ops through IREE against NumPy and SciPy: inverse
and hyperbolic trigonometry, expm1, erf, atan2, xor and shifts; and the functions composed
of ops (hypot, logaddexp, log2, the float predicates, trunc, copysign)."""

import numpy as np
import pytest
import scipy.special
from op_testing import (
    DTYPES,
    FLOATS,
    as_float64,
    check_each,
    check_pairwise,
    check_staged,
    covered,
    covers,
    random_array,
    run_staged,
)

import s4tf
from s4tf import nn

# name: (public function, independent NumPy function, low, high) with inputs in [low, high)
UNARY = {
    "tan": (s4tf.tan, np.tan, -1.2, 1.2),
    "asin": (s4tf.asin, np.arcsin, -0.95, 0.95),
    "acos": (s4tf.acos, np.arccos, -0.95, 0.95),
    "atan": (s4tf.atan, np.arctan, -4, 4),
    "sinh": (s4tf.sinh, np.sinh, -3, 3),
    "cosh": (s4tf.cosh, np.cosh, -3, 3),
    "asinh": (s4tf.asinh, np.arcsinh, -4, 4),
    "acosh": (s4tf.acosh, np.arccosh, 1, 5),
    "atanh": (s4tf.atanh, np.arctanh, -0.9, 0.9),
    "expm1": (s4tf.expm1, np.expm1, -2, 2),
    "erf": (s4tf.erf, scipy.special.erf, -3, 3),
    "erf_inv": (s4tf.erfinv, scipy.special.erfinv, -0.95, 0.95),
}
@pytest.mark.parametrize("name", covered(UNARY))
def test_unary_op_in_every_float_dtype(name):
    public, numpy_fn, low, high = UNARY[name]
    rng = np.random.default_rng(0)
    args = [random_array(rng, (3, 5), dtype, low, high) for dtype in FLOATS]
    expected = [numpy_fn(as_float64(x)).astype(x.dtype) for x in args]
    check_each(public, args, expected, ops=[name], scale=2)


@pytest.mark.parametrize("name", ["tan", "asin", "acos", "atan"])
def test_f64_trigonometry_links_the_system_libm_on_the_cpu(name):
    """IREE's f64 tan and atan2 (asin, acos and atan expand to it) call libm; on ``cpu``
    the module links this machine's (s4tf.runtime.system_libm), to the last bits."""
    public, numpy_fn, low, high = UNARY[name]
    x = np.linspace(low, high, 5)
    np.testing.assert_allclose(np.asarray(s4tf.function(public)(x)), numpy_fn(x), rtol=1e-15, atol=1e-15)


def test_float64_log1p_and_expm1_near_zero_and_at_their_limits():
    """Within 2 ulps of NumPy from 1e-300 to 800, signed zeros, -1, infinities and NaN kept
    (IREE 3.13's own float64 forms are log(1 + x) and exp(x) - 1: 0 for 1e-300)."""
    x = np.array([1e-300, -4.9e-198, 3e-17, 1e-8, -1e-5, 0.5, -0.3, 40.0, -40.0, 800.0, 0.0, -0.0, -1.0, -2.0,
                  np.inf, -np.inf, np.nan, 5e-324])
    log1p, expm1 = (np.asarray(r) for r in s4tf.function(lambda v: (s4tf.log1p(v), s4tf.expm1(v)))(x))
    with np.errstate(all="ignore"):
        for got, want in ((log1p, np.log1p(x)), (expm1, np.expm1(x))):
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=2 * np.finfo(np.float64).eps, atol=0)
            np.testing.assert_array_equal(got[~finite], want[~finite])
            assert np.signbit(got[11]) and not np.signbit(got[10])


def test_small_arguments_keep_their_precision():
    x = np.array([1e-7, -3e-8, 2e-10], np.float32)
    check_staged(lambda v: (s4tf.expm1(v), s4tf.erf(v)), [x],
                 [np.expm1(as_float64(x)).astype(np.float32), scipy.special.erf(as_float64(x)).astype(np.float32)],
                 ops=["expm1", "erf"], scale=0.1)


@covers("atan2")
def test_atan2_finds_the_quadrant():
    rng = np.random.default_rng(1)
    pairs = [(random_array(rng, (3, 4), d), random_array(rng, (4,), d)) for d in ("f32", "f16")]
    pairs.append((np.float32([0.0, -0.0, 1.0, -1.0]), np.float32([-1.0, -1.0, 0.0, 0.0])))
    pairs.append((np.float64([0.0, -0.0, 1.0, -1.0, 0.3]), np.float64([-1.0, -1.0, 0.0, 0.0, -2.0])))  # system libm
    expected = [np.arctan2(as_float64(y), as_float64(x)).astype(y.dtype) for y, x in pairs]
    check_pairwise(s4tf.atan2, pairs, expected, ops=["atan2"])


def _nextafter_pairs(dtype):
    info, tiny = np.finfo(dtype), np.finfo(dtype).smallest_subnormal
    x = [0.0, -0.0, 0.0, 1.0, -1.0, 2.0, -2.0, info.max, np.inf, -np.inf, np.nan, 1.0, info.tiny, tiny, -tiny, 3.5, tiny, -0.0]
    y = [1.0, 1.0, -1.0, 0.0, -5.0, 0.0, -3.0, np.inf, 0.0, 0.0, 1.0, np.nan, 0.0, 3 * tiny, -3 * tiny, 3.5, -1.0, 0.0]
    return np.array(x, dtype), np.array(y, dtype)


@covers("nextafter")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_is_numpys_to_the_bit(dtype):
    """Every direction, zeros of both signs, subnormals (which IREE's CPU code compares as
    zero), infinities and NaN; with broadcasting and a Python scalar."""
    x, y = _nextafter_pairs(dtype)
    device, reference = run_staged(lambda a, b: (s4tf.nextafter(a, b), s4tf.nextafter(a[:, None], b)), x, y, ops=["nextafter"])
    with np.errstate(over="ignore"):
        expected = [np.nextafter(x, y), np.nextafter(x[:, None], y)]
    bits = np.dtype(f"i{np.dtype(dtype).itemsize}")
    for got in (device, reference):
        for result, want in zip(got, expected):
            assert result.dtype == want.dtype
            np.testing.assert_array_equal(np.isnan(result), np.isnan(want))
            np.testing.assert_array_equal(np.where(np.isnan(want), 0, result).view(bits), np.where(np.isnan(want), 0, want).view(bits))
    np.testing.assert_array_equal(np.asarray(s4tf.nextafter(x, 0)), np.nextafter(x, dtype(0)))


def test_nextafter_refuses_half_floats():
    with pytest.raises(s4tf.DTypeError, match="float32 or float64"):
        s4tf.nextafter(np.float16(1.0), np.float16(2.0))


@covers("signbit")
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_signbit_reads_the_sign_bit(dtype):
    """Negative numbers, both zeros, both infinities, subnormals and NaNs of both signs,
    staged (through IREE and the reference) and eager; integers compare with zero."""
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.array([-np.nan, np.nan, -0.0, 0.0, -1.5, 2.0, -np.inf, np.inf, -tiny, tiny], dtype)
    device, reference = run_staged(lambda a: s4tf.signbit(a), x, ops=["signbit"])
    for got in (device[0], reference[0], np.asarray(s4tf.signbit(x))):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, np.signbit(x))
    np.testing.assert_array_equal(np.asarray(s4tf.signbit(np.array([-3, 0, 4], np.int32))), [True, False, False])


SHIFTS = {"shift_left": (s4tf.bitwise_left_shift, np.left_shift), "shift_right": (s4tf.bitwise_right_shift, np.right_shift)}


@pytest.mark.parametrize("name", covered(SHIFTS))
def test_shifts_of_every_integer_dtype(name):
    public, numpy_fn = SHIFTS[name]
    rng = np.random.default_rng(2)
    pairs = []
    for dtype in ("i8", "i32", "i64"):
        bits = DTYPES[dtype].itemsize * 8
        x = random_array(rng, (3, 4), dtype, -100, 100)
        shift = np.array([0, 1, bits - 1, bits + 3], DTYPES[dtype])  # a shift past the width leaves 0 or -1
        pairs.append((x, shift))
    expected = [numpy_fn(x, y) for x, y in pairs]
    check_pairwise(public, pairs, expected, ops=[name])


@covers("xor")
def test_xor_is_logical_on_bools_and_bitwise_on_integers():
    rng = np.random.default_rng(3)
    flags = (random_array(rng, (3, 4), "i1"), random_array(rng, (4,), "i1"))
    ints = (random_array(rng, (3, 4), "i32", -100, 100), random_array(rng, (4,), "i32", -100, 100))
    check_pairwise(s4tf.bitwise_xor, [flags, ints, flags], [flags[0] ^ flags[1], ints[0] ^ ints[1], flags[0] ^ flags[1]],
                   ops=["xor"])
    check_staged(s4tf.logical_xor, list(flags), np.logical_xor(*flags), ops=["xor"])


def test_bad_dtypes_are_clear_errors():
    with pytest.raises(s4tf.DTypeError, match="bit shifts need integers"):
        s4tf.bitwise_left_shift(np.float32([1.0]), 1)
    with pytest.raises(s4tf.DTypeError, match="not an integer type"):
        s4tf.op("shift_left", np.float32([1.0]), np.float32([1.0]))


SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, 1e30, -1e30, np.inf, -np.inf, np.nan])


def test_float_predicates_and_sign_functions_match_numpy():
    x = SPECIAL.astype(np.float32)
    ints = np.array([-3, 0, 4], np.int32)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = [
            np.isnan(x), np.isinf(x), np.isfinite(x), np.trunc(x), np.signbit(x), np.copysign(2.0, x).astype(np.float32),
            np.isnan(ints), np.isfinite(ints), np.trunc(ints), np.signbit(ints),
        ]

    def fn(v, i):
        return (s4tf.isnan(v), s4tf.isinf(v), s4tf.isfinite(v), s4tf.trunc(v), s4tf.signbit(v), s4tf.copysign(2.0, v),
                s4tf.isnan(i), s4tf.isfinite(i), s4tf.trunc(i), s4tf.signbit(i))

    check_staged(fn, [x, ints], expected, ops=["lt", "eq", "abs", "floor", "ceil"])


def test_composed_binary_functions_match_numpy_without_overflow():
    x = np.array([3.0, -1e30, 1e-30, 0.0, 700.0, -np.inf, 2.0], np.float32)
    y = np.array([4.0, 1e30, 1e-30, 0.0, 701.0, -np.inf, np.inf], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = [
            np.hypot(x, y), np.logaddexp(x, y),
            np.log2(np.abs(x)).astype(np.float32), np.log10(np.abs(x)).astype(np.float32),
        ]
    with np.errstate(divide="ignore"):
        check_staged(lambda a, b: (s4tf.hypot(a, b), s4tf.logaddexp(a, b), s4tf.log2(abs(a)), s4tf.log10(abs(a))),
                     [x, y], expected, ops=["sqrt", "log1p", "log"])


def test_gelu_is_x_times_the_normal_cdf():
    x = np.linspace(-4, 4, 17).astype(np.float32)
    exact = as_float64(x) * 0.5 * (1 + scipy.special.erf(as_float64(x) / np.sqrt(2)))
    tanh_form = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * as_float64(x) ** 3)))
    check_staged(lambda v: (nn.gelu(v, approximate=False), nn.gelu(v), nn.silu(v)), [x],
                 [exact.astype(np.float32), tanh_form.astype(np.float32), (x / (1 + np.exp(-as_float64(x)))).astype(np.float32)],
                 ops=["erf", "tanh", "logistic"])
    assert abs(exact - tanh_form).max() < 1e-3


def test_eager_calls_match_the_staged_ones():
    x = np.array([0.25, -0.5], np.float32)
    np.testing.assert_allclose(np.asarray(s4tf.asinh(x)), np.arcsinh(x), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(s4tf.bitwise_left_shift(np.int64([3]), 2)), [12])


def _special_pairs(dtype):
    values = np.array([-np.inf, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, np.inf, np.nan], dtype)
    return np.repeat(values, len(values)), np.tile(values, len(values))


SPECIAL_CASES = {  # the Array API's special cases (signed zeros, infinities) as NumPy computes them
    "sinh": (lambda x, y: s4tf.sinh(x), lambda x, y: np.sinh(x)),
    "atanh": (lambda x, y: s4tf.atanh(x), lambda x, y: np.arctanh(x)),
    "expm1": (lambda x, y: s4tf.expm1(x), lambda x, y: np.expm1(x)),
    "log1p": (lambda x, y: s4tf.log1p(x), lambda x, y: np.log1p(x)),
    "sign": (lambda x, y: s4tf.sign(x), lambda x, y: np.sign(x)),
    "atan2": (s4tf.atan2, np.arctan2),
    "pow": (s4tf.pow, np.power),
    "remainder": (s4tf.remainder, np.remainder),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(SPECIAL_CASES))
def test_special_values_and_signed_zeros_match_numpy(name, dtype):
    """Every pair of infinities, signed zeros, +-1, NaN and a few finite values, staged and
    eager: NaN where NumPy's is, the sign of every zero and infinity, the values close."""
    public, numpy_fn = SPECIAL_CASES[name]
    x, y = _special_pairs(dtype)
    with np.errstate(all="ignore"):
        expected = numpy_fn(x, y)
    for got in (np.asarray(s4tf.function(public)(x, y)), np.asarray(public(x, y))):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        finite = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(expected[finite]), err_msg=f"{name} signs")
        np.testing.assert_allclose(got[finite], expected[finite], rtol=2e-6 if dtype == np.float32 else 1e-13)
