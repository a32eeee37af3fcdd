"""AutoGraph: Python ``if``/``while``/``for`` on tensors inside ``@s4tf.function`` become
region ops (run by IREE, checked against NumPy); Python conditions still run in Python;
unsupported constructs are errors at the user's line."""

from __future__ import annotations

import functools
import inspect
import os
import types
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import s4tf
from s4tf.dialects.symbols import find_function
from s4tf.passes.diagnostics import parse_location

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

HERE = os.path.basename(__file__)
X = np.array([0.5, -1.0, 2.0], np.float32)


def line_of(marker: str) -> int:
    """The line of this file holding ``marker`` (in a comment)."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if marker in line and "line_of" not in line)


def staged_ops(lowered) -> list:
    """``(op name, line)`` of every op of the entry function, regions included."""
    found = []

    def visit(operation):
        for region in operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    found.append((op.operation.name, parse_location(op.operation.location)[1]))
                    visit(op.operation)

    visit(find_function(lowered.module, lowered.entry))
    return found


def op_counts(lowered) -> Counter:
    return Counter(name for name, _ in staged_ops(lowered))


# -- the issue's examples --------------------------------------------------------------


@s4tf.function
def newton_sqrt(a):
    x = a
    while s4tf.abs(x * x - a).max() > 1e-6:  # data-dependent trip count
        x = 0.5 * (x + a / x)
    return x


@s4tf.function
def piecewise(x, t):
    if t > 0:  # PIECEWISE-IF
        y = s4tf.sin(x)  # PIECEWISE-SIN
    else:
        y = x * x  # PIECEWISE-SQUARE
    for i in range(3):  # Python range: unrolled
        y = y + i
    return y


def newton_sqrt_reference(a):
    x = a
    while np.abs(x * x - a).max() > 1e-6:
        x = np.float32(0.5) * (x + a / x)
    return x


@pytest.mark.parametrize("a", [[2.0, 9.0, 0.25], [1.0, 100.0, 1e-4], [7.0, 7.0, 7.0]])
def test_newton_sqrt_is_one_while_loop(a):
    a = np.array(a, np.float32)
    np.testing.assert_allclose(np.asarray(newton_sqrt(a)), newton_sqrt_reference(a), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(newton_sqrt(a)), np.sqrt(a), rtol=1e-4)
    counts = op_counts(newton_sqrt.lower(a))
    assert counts["s4tf.while"] == 1 and counts["s4tf.div"] == 1
    assert counts["s4tf.abs"] == 1  # the test is traced once, into the loop (not also before it)


def test_newton_sqrt_gradient():
    a = np.array([2.0, 9.0, 0.25])
    gradient = s4tf.grad(lambda v: newton_sqrt(v).sum())(a)
    np.testing.assert_allclose(np.asarray(gradient), 0.5 / np.sqrt(a), rtol=1e-6)


@pytest.mark.parametrize("t", [1.0, -1.0, 0.0])
def test_piecewise_takes_the_branch_of_the_tensor(t):
    expected = (np.sin(X) if t > 0 else X * X) + 0 + 1 + 2
    np.testing.assert_allclose(np.asarray(piecewise(X, np.float32(t))), expected, rtol=1e-6)
    counts = op_counts(piecewise.lower(X, np.float32(t)))
    assert counts["s4tf.if"] == 1 and counts["s4tf.add"] == 3 and counts["s4tf.while"] == 0


def test_ops_inside_branches_keep_the_users_lines():
    ops = staged_ops(piecewise.lower(X, np.float32(1.0)))
    lines = {name: line for name, line in ops}
    assert lines["s4tf.if"] == line_of("PIECEWISE-IF")
    assert lines["s4tf.sin"] == line_of("PIECEWISE-SIN")
    assert lines["s4tf.mul"] == line_of("PIECEWISE-SQUARE")


# -- staged, not unrolled ----------------------------------------------------------------


@s4tf.function
def doubled(x, n):
    for _ in range(n):
        x = x * 2.0
    return x


@pytest.mark.parametrize("n", [0, 1, 5, 40])
def test_tensor_range_is_one_loop_whatever_the_trip_count(n):
    np.testing.assert_allclose(np.asarray(doubled(X, np.int32(n))), X * 2.0**n, rtol=1e-6)
    counts = op_counts(doubled.lower(X, np.int32(n)))
    assert counts["s4tf.while"] == 1 and counts["s4tf.mul"] == 1


@pytest.mark.parametrize("n", [1, 4])
def test_python_range_unrolls(n):
    unrolled = s4tf.function(doubled.__wrapped__, static_argnums=1)  # a Python int argument is traced unless static
    np.testing.assert_allclose(np.asarray(unrolled(X, n)), X * 2.0**n, rtol=1e-6)
    counts = op_counts(unrolled.lower(X, n))
    assert counts["s4tf.while"] == 0 and counts["s4tf.mul"] == n


@s4tf.function
def ranged(x, lo, hi, step):
    total = x * 0.0
    for i in range(lo, hi, step):
        total = total + x * i
    return total


@pytest.mark.parametrize("lo, hi, step", [(0, 5, 1), (2, 9, 3), (5, 0, -2), (3, 3, 1)])
def test_tensor_range_bounds_and_steps(lo, hi, step):
    expected = sum((X * i for i in range(lo, hi, step)), np.zeros_like(X))
    got = ranged(X, np.int32(lo), np.int32(hi), np.int32(step))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    mixed = ranged(X, lo, np.int32(hi), step)  # Python and tensor bounds together
    np.testing.assert_allclose(np.asarray(mixed), expected, rtol=1e-6)


def test_python_conditions_are_evaluated_while_tracing():
    @functools.partial(s4tf.function, static_argnums=2)
    def f(x, flag, n):
        if flag:
            x = x + 1.0
        elif n > 2:
            x = x * 3.0
        else:
            return x - 1.0, 0
        count = 0
        while count < n:
            x = x * 2.0
            count += 1
        return x, count

    for flag, n in [(True, 3), (False, 3), (False, 1)]:
        lowered = f.lower(X, flag, n)
        counts = op_counts(lowered)
        assert counts["s4tf.if"] == 0 and counts["s4tf.while"] == 0
        value, count = f(X, flag, n)
        if not flag and n <= 2:
            np.testing.assert_allclose(np.asarray(value), X - 1.0)
            continue
        expected = (X + 1.0 if flag else X * 3.0) * 2.0**n
        np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-6)
        assert count == n and counts["s4tf.mul"] == n + (0 if flag else 1)


def test_loop_whose_test_becomes_a_tensor_is_staged_from_there():
    @s4tf.function
    def f(x):
        y = 1.0
        while y < 100.0:  # a Python float first, a tensor after one iteration
            y = y * x
        return y

    x = np.float32(3.0)
    assert float(f(x)) == 243.0
    assert op_counts(f.lower(x))["s4tf.while"] == 1


# -- conditions, variables, nesting ----------------------------------------------------


@pytest.mark.parametrize("t, s", [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0), (7.0, 1.0)])
def test_and_or_not_on_tensors(t, s):
    @s4tf.function
    def f(x, t, s):
        if t > 0 and not t > 5 or s < 0:
            x = x + 1.0
        if not (t > 0 or s > 0):
            x = x * 10.0
        return x

    expected = X + 1.0 if (t > 0 and not t > 5) or s < 0 else X
    expected = expected * 10.0 if not (t > 0 or s > 0) else expected
    got = f(X, np.float32(t), np.float32(s))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


def test_conditional_expression_on_a_tensor():
    @s4tf.function
    def f(x, t):
        return s4tf.exp(x) if t > 0 else -x

    for t in (1.0, -1.0):
        expected = np.exp(X) if t > 0 else -X
        np.testing.assert_allclose(np.asarray(f(X, np.float32(t))), expected, rtol=1e-6)
    assert op_counts(f.lower(X, np.float32(1.0)))["s4tf.if"] == 1


def test_variables_local_to_a_branch_are_not_results():
    @s4tf.function
    def f(x, t):
        if t > 0:
            scaled = x * 2.0
            y = scaled + 1.0
        else:
            y = x
        return y

    lowered = f.lower(X, np.float32(1.0))
    (if_op,) = [op for op in lowered.module.body.operations[0].regions[0].blocks[0].operations if op.operation.name == "s4tf.if"]
    assert len(if_op.results) == 1
    np.testing.assert_allclose(np.asarray(f(X, np.float32(1.0))), X * 2.0 + 1.0)


def test_tensor_if_inside_tensor_while_and_while_inside_while():
    @s4tf.function
    def f(x, n):
        i = 0
        while i < n:
            if x.sum() > 0:
                x = x - 1.0
            else:
                x = x + 2.0
            j = 0
            while j < i:
                x = x * 1.5
                j = j + 1
            i = i + 1
        return x, i

    def reference(x, n):
        for i in range(n):
            x = x - 1.0 if x.sum() > 0 else x + 2.0
            x = x * 1.5**i
        return x

    for n in (0, 1, 4):
        value, count = f(X, np.int32(n))
        np.testing.assert_allclose(np.asarray(value), reference(X, n), rtol=1e-5)
        assert int(count) == n
    assert op_counts(f.lower(X, np.int32(2))) >= Counter({"s4tf.while": 2, "s4tf.if": 1})


@s4tf.function
def triple(x):
    if x.sum() > 100.0:
        x = x * 0.5
    return x * 3.0


def test_staged_functions_called_inside_loops():
    @s4tf.function
    def f(x, n):
        for i in range(n):
            x = triple(x) + i
        return x

    def reference(x, n):
        for i in range(n):
            x = (x * 0.5 if x.sum() > 100.0 else x) * 3.0 + i
        return x

    for n in (0, 2, 5):
        np.testing.assert_allclose(np.asarray(f(X, np.int32(n))), reference(X, n), rtol=1e-5)


def test_closures_and_globals_are_preserved():
    scale = np.float32(4.0)

    @s4tf.function
    def f(x, t):
        if t > 0:
            y = x * scale
        else:
            y = triple(x)
        return y

    np.testing.assert_allclose(np.asarray(f(X, np.float32(1.0))), X * 4.0)
    np.testing.assert_allclose(np.asarray(f(X, np.float32(-1.0))), X * 3.0)


def test_nested_functions_and_methods_are_rewritten():
    class Scaler:
        def factor(self):
            return 2.0

    class Model(Scaler):
        def factor(self):
            return super().factor() * 3.0

        def run(self, x, t):
            def shifted(v):
                if v.sum() > 0:  # a tensor if in a function nested in the staged one
                    v = v - 1.0
                return v

            if t > 0:
                x = shifted(x) * self.factor()
            return x

    staged = s4tf.function(Model().run)
    np.testing.assert_allclose(np.asarray(staged(X, np.float32(1.0))), (X - 1.0) * 6.0)
    np.testing.assert_allclose(np.asarray(staged(-X, np.float32(1.0))), -X * 6.0)
    np.testing.assert_allclose(np.asarray(staged(X, np.float32(-1.0))), X)
    assert op_counts(staged.lower(X, np.float32(1.0)))["s4tf.if"] == 2


def test_python_number_loop_variables_become_tensors():
    @s4tf.function
    def f(x, limit):
        steps = 0
        while x.sum() < limit:
            x = x * 2.0
            steps += 1
        return x, steps

    value, steps = f(np.ones(2, np.float32), np.float32(20.0))
    assert int(steps) == 4 and np.asarray(value).tolist() == [16.0, 16.0]


@s4tf.function
def early_returns(x, t):
    if t > 0:
        return s4tf.sin(x)
    elif t < -1.0:
        y = x * 2.0
        return y
    y = x * x
    return y + 1.0


@pytest.mark.parametrize("t", [1.0, -2.0, -0.5])
def test_early_returns_from_tensor_ifs_are_staged(t):
    expected = np.sin(X) if t > 0 else X * 2.0 if t < -1.0 else X * X + 1.0
    np.testing.assert_allclose(np.asarray(early_returns(X, np.float32(t))), expected, rtol=1e-6)
    counts = op_counts(early_returns.lower(X, np.float32(t)))
    assert counts["s4tf.if"] == 2 and counts["s4tf.sin"] == 1


def halve_until(x, limit):
    steps = 0
    while x.sum() > limit:
        x = x * 0.5
        steps += 1
        if x.max() < 0.1:
            break
        x = x - 0.01
    return x, steps


@pytest.mark.parametrize("limit", [1.0, 0.01, 100.0])
def test_break_in_a_tensor_while_loop(limit):
    x = np.array([4.0, 1.0, 2.5], np.float32)
    value, steps = s4tf.function(halve_until)(x, np.float32(limit))
    expected, expected_steps = halve_until(x, np.float32(limit))  # NumPy runs the same code
    np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-6)
    assert int(steps) == expected_steps
    assert op_counts(s4tf.function(halve_until).lower(x, np.float32(limit)))["s4tf.while"] == 1


def skip_and_stop(x, n, stop):
    total = x * 0.0
    for i in range(n):
        if i == 1:
            continue
        total = total + x * i
        if total.sum() > stop:
            break
    else:
        total = -total  # only when the loop did not break
    return total


@pytest.mark.parametrize("n, stop", [(5, 1000.0), (5, 10.0), (0, 1.0), (3, 0.5)])
def test_continue_and_break_in_a_tensor_range(n, stop):
    expected = skip_and_stop(X, n, stop)
    got = s4tf.function(skip_and_stop)(X, np.int32(n), np.float32(stop))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)
    assert op_counts(s4tf.function(skip_and_stop).lower(X, np.int32(n), np.float32(stop)))["s4tf.while"] == 1


# -- functions that are not rewritten --------------------------------------------------


def test_functions_without_source_are_staged_as_before():
    namespace = {"s4tf": s4tf}
    exec("def f(x):\n    return x * 2.0 if True else x\n", namespace)  # no file to read the source from
    np.testing.assert_allclose(np.asarray(s4tf.function(namespace["f"])(X)), X * 2.0)
    np.testing.assert_allclose(np.asarray(s4tf.function(lambda x: x + 1.0)(X)), X + 1.0)


def test_a_function_without_source_that_loops_warns_at_its_line_once():
    source = "def f(x):\n    for i in range(6):\n        x = x * 0.5\n    return x\n"
    namespace = {"s4tf": s4tf}
    exec(compile(source, "<typed>", "exec"), namespace)  # as at python's prompt
    with pytest.warns(s4tf.AutoGraphWarning, match=r"cannot read the source of 'f'.* a loop over range\(\) unrolls") as record:
        np.testing.assert_allclose(np.asarray(s4tf.function(namespace["f"])(X)), X * 0.5**6, rtol=1e-6)
    assert [(w.filename, w.lineno) for w in record if w.category is s4tf.AutoGraphWarning] == [("<typed>", 1)]
    again, quiet = {"s4tf": s4tf}, {"s4tf": s4tf}
    exec(compile(source, "<typed>", "exec"), again)
    exec(compile(source, "<typed>", "exec"), quiet)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s4tf.AutoGraphWarning)
        s4tf.function(namespace["f"])(X * 2.0)  # converted once: no second warning
        s4tf.function(quiet["f"], autograph=False)(X)
    with pytest.warns(s4tf.AutoGraphWarning):
        s4tf.vmap(again["f"])(X)  # the transforms convert what they are given too


def test_autograph_false_opts_out():
    @s4tf.function(autograph=False)
    def f(x, t):
        if t > 0:  # OPT-OUT-IF
            x = x + 1.0
        return x

    with pytest.raises(s4tf.StagingError, match=f"{HERE}:{line_of('OPT-OUT-IF')}: cannot take the truth value"):
        f(X, np.float32(1.0))


# -- rejected constructs ---------------------------------------------------------------


def assigned_in_one_branch(x, t):
    if t > 0:  # ONE-BRANCH
        y = x
    return y


def early_return(x, t):
    if t > 0:  # EARLY-RETURN
        for _ in range(2):
            return x
    return -x


def return_on_one_path(x, t):
    if t > 0:  # NONE-PATH
        return x


def break_in_loop(x):
    while x.sum() < 10.0:  # BREAK
        with s4tf.name_scope("step"):
            x = x * 2.0
            break
    return x


def continue_in_loop(x, n):
    for i in range(n):  # CONTINUE
        try:
            x = x + 1.0
            continue
        finally:
            x = x * 2.0
    return x


def return_in_loop(x):
    while x.sum() < 10.0:  # LOOP-RETURN
        x = x * 2.0
        return x
    return x


def shape_changes(x):
    while x.sum() < 10.0:  # SHAPE-CHANGE
        x = s4tf.concatenate([x, x])
    return x


def dtype_changes(x, n):
    for i in range(n):  # DTYPE-CHANGE
        x = x + 0.5 * i
    return x


def first_assigned_in_loop(x, n):
    for i in range(n):  # LOOP-FIRST
        z = x * i
    return z


def attribute_in_branch(x, t):
    if t > 0:  # ATTRIBUTE
        RECORD.value = x
    return x


def branch_types_differ(x, t):
    if t > 0:  # BRANCH-TYPES
        y = x
    else:
        y = x.sum()
    return y


def break_in_if_on_tensor(x):
    for i in range(3):
        if x.sum() > 3.0:  # BREAK-IN-IF
            with s4tf.name_scope("exit"):
                break
        x = x + 1.0
    return x


RECORD = types.SimpleNamespace()
I32 = np.int32(4)
T = np.float32(1.0)
REJECTED = [
    (assigned_in_one_branch, (X, T), "ONE-BRANCH", "'y' is assigned in only one branch of an `if` on a tensor and used after it"),
    (early_return, (X, T), "EARLY-RETURN", "a `return` inside an `if` on a tensor must be the last statement of a branch"),
    (return_on_one_path, (X, T), "NONE-PATH", "'the returned value' is a tensor in one branch of an `if` on a tensor and None"),
    (break_in_loop, (X,), "BREAK", "a `break` inside a loop on a tensor must be the last statement of an `if` branch"),
    (continue_in_loop, (X, I32), "CONTINUE", "a `continue` inside a loop on a tensor must be the last statement of an"),
    (return_in_loop, (X,), "LOOP-RETURN", "`return` inside a loop on a tensor is not supported"),
    (shape_changes, (X,), "SHAPE-CHANGE", "'x' of a staged while loop has type tensor<3xf32> before the loop and tensor<6xf32> after"),
    (dtype_changes, (np.arange(3, dtype=np.int32), I32), "DTYPE-CHANGE", "'x' of a staged for loop has type tensor<3xi32> before"),
    (first_assigned_in_loop, (X, I32), "LOOP-FIRST", "'z' is first assigned inside a loop on a tensor and read after it"),
    (attribute_in_branch, (X, T), "ATTRIBUTE", "`RECORD.value = ...` inside an `if` on a tensor is not supported"),
    (branch_types_differ, (X, T), "BRANCH-TYPES", "'y' of a staged if has type tensor<3xf32> in one branch and tensor<f32>"),
    (break_in_if_on_tensor, (X,), "BREAK-IN-IF", "a `break` inside an `if` on a tensor must be the last statement"),
]


@pytest.mark.parametrize("fn, args, marker, message", REJECTED, ids=[r[2] for r in REJECTED])
def test_unsupported_constructs_are_errors_at_the_users_line(fn, args, marker, message):
    with pytest.raises(s4tf.StagingError) as caught:
        s4tf.function(fn)(*args)
    assert str(caught.value).startswith(f"{os.path.abspath(__file__)}:{line_of(marker)}: {message}")
    frames = {os.path.basename(str(entry.path)) for entry in caught.traceback}
    assert not frames & {"autograph.py", "staged_control_flow.py", "tracing.py"}  # no deep traceback into s4tf


def test_rejected_constructs_still_run_on_python_values():
    assert float(s4tf.function(early_return, static_argnums=1)(np.float32(2.0), 1.0)) == 2.0
    assert np.asarray(s4tf.function(continue_in_loop, static_argnums=1)(X, 2)).tolist() == (((X + 1.0) * 2.0 + 1.0) * 2.0).tolist()


# -- property: a random piecewise function against NumPy -------------------------------


@s4tf.function
def three_pieces(x, t, a, b, c):
    if t < a:
        y = x * c
    elif t < b:
        y = s4tf.sin(x) + c
        if y.sum() > 0:
            y = y - 1.0
    else:
        y = s4tf.exp(x) if c > 0 else x - c
    return y


def three_pieces_reference(x, t, a, b, c):
    if t < a:
        return x * c
    if t < b:
        y = np.sin(x) + c
        return y - 1.0 if y.sum() > 0 else y
    return np.exp(x) if c > 0 else x - c


floats = st.floats(-3.0, 3.0, width=32, allow_subnormal=False)  # the CPU flushes subnormals to zero


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, 4, elements=floats), floats, floats, floats, floats)
def test_random_piecewise_matches_numpy(x, t, a, b, c):
    args = (x, np.float32(t), np.float32(a), np.float32(b), np.float32(c))
    assume(abs((np.sin(x) + args[4]).sum()) > 1e-3)  # sums near 0 may round to either sign
    np.testing.assert_allclose(np.asarray(three_pieces(*args)), three_pieces_reference(*args), rtol=1e-5, atol=1e-5)
