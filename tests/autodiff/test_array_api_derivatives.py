"""Derivatives of the Array API functions (issue 13) against central finite differences,
forward and reverse mode, first and second order (``gradient_checks``)."""

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(13)

ANY = RNG.standard_normal((3, 4))
ROW = RNG.standard_normal((4,))
UNIT = RNG.uniform(-0.8, 0.8, (3, 4))
ABOVE_ONE = RNG.uniform(1.2, 3.0, (3, 4))
POSITIVE = RNG.uniform(0.5, 2.0, (3, 4))

FLOAT64 = {
    "sinh": (s4tf.sinh, [ANY]),
    "cosh": (s4tf.cosh, [ANY]),
    "asinh": (s4tf.asinh, [ANY]),
    "acosh": (s4tf.acosh, [ABOVE_ONE]),
    "atanh": (s4tf.atanh, [UNIT]),
    "expm1": (s4tf.expm1, [ANY]),
    "erf": (s4tf.erf, [ANY]),
    "erfinv": (s4tf.erfinv, [UNIT]),
    "gelu": (lambda x: nn.gelu(x, approximate=False), [ANY]),
    "silu": (nn.silu, [ANY]),
    "hypot": (s4tf.hypot, [ANY, ROW]),
    "logaddexp": (s4tf.logaddexp, [ANY, ROW]),
    "log2": (s4tf.log2, [POSITIVE]),
    "log10": (s4tf.log10, [POSITIVE]),
    "copysign": (lambda x, y: s4tf.copysign(x, y) * x, [ANY, ROW]),
    "trunc": (lambda x: s4tf.trunc(3 * x) * x, [ANY]),
    "reciprocal": (s4tf.reciprocal, [POSITIVE]),
}
#: IREE's CPU backend has no f64 tan, inverse trigonometry or atan2: checked in f32.
FLOAT32 = {
    "tan": (s4tf.tan, [UNIT]),
    "asin": (s4tf.asin, [UNIT]),
    "acos": (s4tf.acos, [UNIT]),
    "atan": (s4tf.atan, [ANY]),
    "atan2": (s4tf.atan2, [ANY, ROW]),
    "gelu_tanh": (lambda x: nn.gelu(x, approximate=True), [ANY]),
}


@pytest.mark.parametrize("name", sorted(FLOAT64))
def test_first_derivatives_in_float64(name):
    fn, args = FLOAT64[name]
    directional_check(fn, args)


@pytest.mark.parametrize("name", sorted(FLOAT32))
def test_first_derivatives_in_float32(name):
    fn, args = FLOAT32[name]
    directional_check(fn, args, dtype=np.float32, eps=1e-2, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("name", ["erf", "erfinv", "sinh", "atanh", "logaddexp"])
def test_second_derivatives(name):
    fn, args = FLOAT64[name]
    if len(args) == 1:
        second_order_check(lambda x: s4tf.sum(fn(x)), args[0])
    else:
        second_order_check(lambda x: s4tf.sum(fn(x, args[1])), args[0])


WITH_ZERO = ANY.copy()
WITH_ZERO[1, 2] = 0.0  # products must not divide by an element
REDUCTIONS = {
    "prod": (lambda x: s4tf.prod(x, axis=1), [ANY]),
    "prod_with_a_zero": (lambda x: s4tf.prod(x, axis=(0, 1), keepdims=True), [WITH_ZERO]),
    "cumsum": (lambda x: s4tf.cumulative_sum(x, axis=1), [ANY]),
    "cumsum_reverse": (lambda x: s4tf.op("cumsum", x, axis=0, reverse=True), [ANY]),
    "cumprod": (lambda x: s4tf.cumulative_prod(x, axis=1), [WITH_ZERO]),
    "cumprod_reverse": (lambda x: s4tf.op("cumprod", x, axis=0, reverse=True), [WITH_ZERO]),
    "var": (lambda x: s4tf.var(x, axis=0, correction=1), [ANY]),
    "std": (lambda x: s4tf.std(x), [ANY]),
    "diff": (lambda x: s4tf.diff(x * x, n=2), [ANY]),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_and_scan_derivatives(name):
    fn, args = REDUCTIONS[name]
    directional_check(fn, args)


@pytest.mark.parametrize("name", ["prod_with_a_zero", "cumprod"])
def test_second_derivatives_of_products(name):
    fn, args = REDUCTIONS[name]
    second_order_check(lambda x: s4tf.sum(fn(x)), args[0])


SORTING = {
    "sort": (lambda x: s4tf.sort(x, axis=0) * ROW, [ANY]),
    "sort_descending": (lambda x: s4tf.sort(x * x, descending=True), [ANY]),
    "top_k": (lambda x: s4tf.top_k(x, 2).values, [ANY]),
}


@pytest.mark.parametrize("name", sorted(SORTING))
def test_sorting_derivatives(name):
    fn, args = SORTING[name]
    directional_check(fn, args)


def test_second_derivative_of_a_sort():
    second_order_check(lambda x: s4tf.sum(s4tf.sort(x, axis=1)[:, -1] ** 3), ANY)


COMPOSITIONS = {
    "einsum": (lambda x, y: s4tf.einsum("ij,j->i", x, y), [ANY, ROW]),
    "einsum_diagonal": (lambda x: s4tf.einsum("ii->i", x @ x.T), [ANY]),
    "tensordot": (lambda x, y: s4tf.tensordot(x, y, axes=([1], [0])), [ANY, ROW]),
    "vecdot": (lambda x, y: s4tf.vecdot(x, y), [ANY, ROW]),
    "outer": (lambda x, y: s4tf.outer(x, y), [ROW, ROW]),
    "tril_triu": (lambda x: s4tf.tril(x, 1) * 2 + s4tf.triu(x * x), [ANY]),
    "repeat_tile_roll": (lambda x: s4tf.repeat(x, [1, 0, 2, 1], axis=1) + s4tf.roll(s4tf.tile(x, (1, 2)), 3, axis=1)[:, :4], [ANY]),
    "moveaxis_mT": (lambda x: s4tf.moveaxis(x[None], 0, 2).mT.sum(axis=0) * x, [ANY]),
    "meshgrid_linspace": (lambda x: s4tf.meshgrid(x, s4tf.linspace(0, 1, 3, dtype=np.float64))[0] * 2, [ROW]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_composed_function_derivatives(name):
    fn, args = COMPOSITIONS[name]
    directional_check(fn, args)
