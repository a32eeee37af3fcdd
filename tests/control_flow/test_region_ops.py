"""``s4tf.if`` / ``s4tf.while``: verifier messages, reference semantics, lowering run by IREE,
and the explicit API (``s4tf.cond``, ``s4tf.while_loop``, ``s4tf.fori_loop``) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.dialects import verify
from s4tf.dialects.reference import run_function
from s4tf.core.errors import StagingError
from s4tf.core.mlir import ir, new_context


def staged_and_reference(fn, *args):
    """``fn`` run by IREE, and its staged module run by the ops' NumPy references."""
    staged = s4tf.function(fn)
    lowered = staged.lower(*args)
    device = staged(*args)
    reference = run_function(lowered.module, lowered.entry, [np.asarray(a) for a in args])
    device = list(device) if isinstance(device, (tuple, list)) else [device]
    return [np.asarray(d) for d in device], reference


def check(fn, args, expected):
    device, reference = staged_and_reference(fn, *args)
    for got, ref, want in zip(device, reference, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
        np.testing.assert_allclose(ref, want, rtol=1e-6)


X = np.array([0.5, -1.0, 2.0], np.float32)


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_cond_runs_the_branch_the_predicate_picks(t):
    def f(x, t):
        return s4tf.cond(t > 0, s4tf.sin, lambda v: v * v, x)

    check(f, (X, np.float32(t)), [np.sin(X) if t > 0 else X * X])


def test_cond_captures_values_and_returns_pytrees():
    def f(x, y, t):
        return s4tf.cond(t > 0, lambda: (x + y, {"m": x * y}), lambda: (x - y, {"m": y}))

    y = np.array([1.0, 2.0, 3.0], np.float32)
    for t in (1.0, -1.0):
        out = s4tf.function(f)(X, y, np.float32(t))
        want = (X + y, X * y) if t > 0 else (X - y, y)
        np.testing.assert_allclose(np.asarray(out[0]), want[0], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(out[1]["m"]), want[1], rtol=1e-6)


def test_cond_python_number_takes_the_other_branch_type():
    def f(x, t):
        return s4tf.cond(t > 0, lambda: s4tf.exp(x), lambda: 0.0)

    check(f, (X, np.float32(-1.0)), [np.zeros(3, np.float32)])


def test_while_loop_newton_sqrt():
    def newton(a):
        return s4tf.while_loop(lambda x: s4tf.abs(x * x - a).max() > 1e-9, lambda x: 0.5 * (x + a / x), a)

    a = np.array([2.0, 9.0, 0.25])
    check(newton, (a,), [np.sqrt(a)])


def test_while_loop_trip_count_differs_per_call():
    def doubling(x, limit):
        return s4tf.while_loop(lambda c: c[0] < limit, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0))

    staged = s4tf.function(doubling)
    for limit in (3.0, 100.0):
        value, count = staged(np.float32(1.0), np.float32(limit))
        steps = int(np.ceil(np.log2(limit)))
        assert int(count) == steps and float(value) == 2.0**steps


@pytest.mark.parametrize("lo, hi", [(0, 5), (2, 2), (3, 1)])
def test_fori_loop_with_tensor_bounds(lo, hi):
    def f(x, lo, hi):
        return s4tf.fori_loop(lo, hi, lambda i, y: y * 1.5 + s4tf.astype(i, np.float32), x)

    want = X.copy()
    for i in range(lo, hi):
        want = want * 1.5 + i
    check(f, (X, np.int32(lo), np.int32(hi)), [want])


def test_nested_loop_in_cond_in_loop():
    def f(x, n):
        def body(i, y):
            return s4tf.cond((i / 2) == s4tf.floor(i / 2), lambda: s4tf.fori_loop(0, i, lambda j, z: z + 1.0, y), lambda: y * 0.5)

        return s4tf.fori_loop(0, n, body, x)

    want = X.copy()
    for i in range(5):
        want = want + i if i % 2 == 0 else want * 0.5
    check(f, (X, np.int32(5)), [want])


def test_explicit_forms_run_eagerly_outside_staging():
    assert s4tf.cond(True, lambda v: v + 1, lambda v: v - 1, 1) == 2
    assert s4tf.while_loop(lambda v: v < 10, lambda v: v * 3, 1) == 27
    assert s4tf.fori_loop(0, 4, lambda i, v: v + i, 0) == 6


# -- errors at the user's line ---------------------------------------------------------------


def test_branches_with_different_types_are_rejected():
    def f(x, t):
        return s4tf.cond(t > 0, lambda: x, lambda: s4tf.astype(x, np.float64))

    with pytest.raises(StagingError, match=r"test_region_ops.py:\d+: result #0 of a staged s4tf.cond has type "
                       r"tensor<3xf32> in one branch and tensor<3xf64>"):
        s4tf.function(f).lower(X, np.float32(1))


def test_loop_variable_changing_type_is_rejected():
    def f(x):
        return s4tf.while_loop(lambda v: v.sum() < 10, lambda v: s4tf.concatenate([v, v]), x)

    with pytest.raises(StagingError, match="has type tensor<3xf32> before the loop and tensor<6xf32> after an iteration"):
        s4tf.function(f).lower(X)


def test_non_scalar_condition_is_rejected():
    def f(x):
        return s4tf.cond(x > 0, lambda: x, lambda: -x)

    with pytest.raises(StagingError, match="must be a scalar tensor, got shape \\(3,\\); reduce it first"):
        s4tf.function(f).lower(X)


# -- verifier ------------------------------------------------------------------------------

IF_TEMPLATE = """
func.func @f(%p: {pred}, %x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = "s4tf.if"(%p, %x) ({{
  ^bb0(%a: tensor<3xf32>):
    stablehlo.return %a : tensor<3xf32>
  }}, {{
  ^bb0(%a: {else_arg}):
    %1 = "s4tf.neg"({else_use}) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return {else_yield}
  }}) : ({pred}, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}}
"""

GOOD_IF = dict(pred="tensor<i1>", else_arg="tensor<3xf32>", else_use="%a", else_yield="%1 : tensor<3xf32>")


def first_problem(text: str) -> str | None:
    with new_context():
        module = ir.Module.parse(text)
        problems = []

        def visit(operation):
            operation = operation.operation
            if operation.name.startswith("s4tf."):
                problems.append(verify(operation))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return next((p for p in problems if p), None)


def test_well_formed_if_verifies():
    assert first_problem(IF_TEMPLATE.format(**GOOD_IF)) is None


@pytest.mark.parametrize(
    "change, message",
    [
        ({"pred": "tensor<f32>"}, "needs a tensor<i1> predicate"),
        ({"else_arg": "tensor<3xf64>", "else_use": "%x"}, "region 'else' takes (tensor<3xf64>) but must take (tensor<3xf32>)"),
        ({"else_use": "%x"}, "region 'else' uses a value defined outside it; pass it in as an operand"),
        ({"else_yield": "%a, %a : tensor<3xf32>, tensor<3xf32>"}, "region 'else' yields (tensor<3xf32>, tensor<3xf32>) but the op returns (tensor<3xf32>)"),
    ],
)
def test_malformed_if_is_reported(change, message):
    assert message in first_problem(IF_TEMPLATE.format(**{**GOOD_IF, **change}))


def test_while_with_unstable_carried_type_is_reported():
    text = """
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = "s4tf.while"(%x) ({
      ^bb0(%a: tensor<f32>):
        %c = "s4tf.lt"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>):
        %c = "s4tf.cast"(%a) {dtype = f64} : (tensor<f32>) -> tensor<f64>
        stablehlo.return %c : tensor<f64>
      }) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    """
    assert "region 'body' yields (tensor<f64>) but the loop carries (tensor<f32>); loop-carried types must not change" in first_problem(text)
