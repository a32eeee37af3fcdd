"""The function transforms (``grad``, ``value_and_grad``, ``jvp``, ``vjp``, ``vmap``,
``jacfwd``, ``jacrev``, ``hessian``, ``remat``, ``scan``'s step and ``s4tf.compile``) stage
Python ``if``/``while`` on tensors in plain, undecorated functions as ``@s4tf.function``
does: the same AutoGraph conversion, once per function. Derivatives are checked against
float64 central differences of NumPy versions of the functions, at points on both sides of
the ``if`` and at different trip counts of the ``while``."""

from __future__ import annotations

import functools
import gc
import os
import weakref

import numpy as np
import pytest
from gradient_checks import numeric_jacobian

import s4tf
from s4tf.staging.autograph import convert as autograph

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

HERE = os.path.basename(__file__)

#: Sum positive (the `if` branch) with one trip of the `while`; sum negative (the `else`
#: branch) with six. Far from both boundaries, so finite differences stay on one side.
POINTS = (np.array([1.0, 2.0, -0.5]), np.array([-0.3, 0.2, -0.1]))
GROWTH = 1.5


def branchy(x):
    if s4tf.sum(x) > 0:
        y = s4tf.sum(x ** 2)
    else:
        y = s4tf.sum(s4tf.sin(x))
    return y


def loopy(x):
    while s4tf.sum(x * x) < 10.0:
        x = x * GROWTH
    return s4tf.sum(x ** 3)


def branchy_vector(x):
    if s4tf.sum(x) > 0:
        return x ** 2
    return s4tf.sin(x)


def loopy_vector(x):
    while s4tf.sum(x * x) < 10.0:
        x = x * GROWTH
    return x ** 3


def branchy_numpy(x):
    return np.sum(branchy_vector_numpy(x))


def branchy_vector_numpy(x):
    return x ** 2 if np.sum(x) > 0 else np.sin(x)


def loopy_numpy(x):
    return np.sum(loopy_vector_numpy(x))


def loopy_vector_numpy(x):
    while np.sum(x * x) < 10.0:
        x = x * GROWTH
    return x ** 3


SCALAR = {"if": (branchy, branchy_numpy), "while": (loopy, loopy_numpy)}
VECTOR = {"if": (branchy_vector, branchy_vector_numpy), "while": (loopy_vector, loopy_vector_numpy)}


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-6, atol=1e-8)


def test_the_points_take_both_branches_and_different_trip_counts():
    assert [np.sum(x) > 0 for x in POINTS] == [True, False]
    trips = [next(k for k in range(20) if np.sum(x * x) * GROWTH ** (2 * k) >= 10) for x in POINTS]
    assert trips == [1, 6]


@pytest.mark.parametrize("kind", SCALAR)
def test_grad_and_value_and_grad(kind):
    fn, reference = SCALAR[kind]
    grad, value_and_grad = s4tf.grad(fn), s4tf.value_and_grad(fn)
    for x in POINTS:
        close(grad(x), numeric_jacobian(reference, x))
        value, gradient = value_and_grad(x)
        close(value, reference(x))
        close(gradient, numeric_jacobian(reference, x))


@pytest.mark.parametrize("kind", VECTOR)
def test_jvp_and_vjp(kind):
    fn, reference = VECTOR[kind]
    direction = np.array([0.25, -1.0, 0.5])
    for x in POINTS:
        jacobian = numeric_jacobian(reference, x)
        value, tangent = s4tf.jvp(fn, (x,), (direction,))
        close(value, reference(x))
        close(tangent, jacobian @ direction)
        value, pullback = s4tf.vjp(fn, x)
        close(value, reference(x))
        (cotangent,) = pullback(direction)
        close(cotangent, direction @ jacobian)


@pytest.mark.parametrize("kind", VECTOR)
def test_vmap_jacfwd_and_jacrev(kind):
    fn, reference = VECTOR[kind]
    batch = np.stack(POINTS)  # one example on each side
    close(s4tf.vmap(fn)(batch), np.stack([reference(x) for x in POINTS]))
    jacfwd, jacrev = s4tf.jacfwd(fn), s4tf.jacrev(fn)
    for x in POINTS:
        close(jacfwd(x), numeric_jacobian(reference, x))
        close(jacrev(x), numeric_jacobian(reference, x))


@pytest.mark.parametrize("kind", SCALAR)
def test_hessian(kind):
    fn, reference = SCALAR[kind]
    hessian, reverse_over_forward = s4tf.hessian(fn), s4tf.jacrev(s4tf.jacfwd(fn))  # forward over reverse, and the other way
    for x in POINTS:
        expected = numeric_jacobian(lambda v: numeric_jacobian(reference, v, eps=1e-4), x, eps=1e-4)
        np.testing.assert_allclose(np.asarray(hessian(x)), expected, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(reverse_over_forward(x)), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", SCALAR)
def test_remat(kind):
    fn, reference = SCALAR[kind]
    recomputed = s4tf.remat(fn)
    grad = s4tf.grad(recomputed)
    for x in POINTS:
        close(recomputed(x), reference(x))  # outside a trace: compiled and run
        close(grad(x), numeric_jacobian(reference, x))


def step_if(carry, x):
    if x > 0:
        carry = carry * 0.5 + x
    else:
        carry = s4tf.sin(carry) - x
    return carry, carry * carry


def step_while(carry, x):
    while carry * carry < x:
        carry = carry * 1.5
    return carry, carry + x


def scan_numpy(step_kind, carry, xs):
    ys = []
    for x in xs:
        if step_kind == "if":
            carry = carry * 0.5 + x if x > 0 else np.sin(carry) - x
            ys.append(carry * carry)
        else:
            while carry * carry < x:
                carry = carry * 1.5
            ys.append(carry + x)
    return carry, np.array(ys)


SCAN = {"if": (step_if, np.array([0.5, -1.0, 2.0, -0.25])), "while": (step_while, np.array([1.0, 9.0, 4.0, 30.0]))}


@pytest.mark.parametrize("kind", SCAN)
def test_scan_step(kind):
    step, xs = SCAN[kind]

    def total(carry, xs):  # a plain function: grad converts it, scan converts the step
        carry, ys = s4tf.scan(step, carry, xs)
        return carry + s4tf.sum(ys)

    staged = s4tf.function(lambda carry, xs: s4tf.scan(step, carry, xs))
    for start in (0.7, 1.3):
        carry, ys = staged(np.float64(start), xs)
        expected_carry, expected_ys = scan_numpy(kind, start, xs)
        close(carry, expected_carry)
        close(ys, expected_ys)
        numeric = numeric_jacobian(lambda c: np.sum(scan_numpy(kind, c, xs)[1]) + scan_numpy(kind, c, xs)[0], np.float64(start))
        close(s4tf.grad(total)(np.float64(start), xs), numeric)


@pytest.mark.parametrize("kind", SCALAR)
def test_compile_deploys_a_plain_function_with_control_flow(kind, tmp_path):
    fn, reference = SCALAR[kind]
    path = s4tf.compile(fn, (POINTS[0],)).save(tmp_path / f"{kind}.vmfb")
    module = s4tf.load(path)
    for x in POINTS:
        close(getattr(module, fn.__name__)(x), reference(x))


def test_transforms_inside_a_staged_function():
    @s4tf.function
    def derivatives(x):
        return s4tf.grad(branchy)(x), s4tf.value_and_grad(loopy)(x)[1], s4tf.jacrev(loopy_vector)(x), s4tf.vmap(branchy_vector)(x[:, None])

    for x in POINTS:
        grad_if, grad_while, jacobian, mapped = derivatives(x)
        close(grad_if, numeric_jacobian(branchy_numpy, x))
        close(grad_while, numeric_jacobian(loopy_numpy, x))
        close(jacobian, numeric_jacobian(loopy_vector_numpy, x))
        close(mapped, np.stack([branchy_vector_numpy(v) for v in x[:, None]]))


def test_each_function_is_converted_once(monkeypatch):
    converted = []
    convert = autograph.convert

    def counting(fn):
        converted.append(fn.__name__)
        return convert(fn)

    monkeypatch.setattr(autograph, "convert", counting)

    def fresh(x):
        if s4tf.sum(x) > 0:
            return s4tf.sum(x ** 2)
        return s4tf.sum(s4tf.sin(x))

    for x in POINTS:
        close(s4tf.grad(fresh)(x), numeric_jacobian(branchy_numpy, x))
        close(s4tf.value_and_grad(fresh)(x)[1], numeric_jacobian(branchy_numpy, x))
    close(s4tf.jacrev(fresh)(POINTS[1]), numeric_jacobian(branchy_numpy, POINTS[1]))
    assert converted.count("fresh") == 1
    assert "of_xs" not in converted  # defined inside converted code (jacrev's body): converted already
    assert s4tf.function(fresh).python_fn is autograph.convert_once(fresh)  # @s4tf.function shares it
    assert autograph.convert_once(fresh).__wrapped__ is fresh


def test_the_conversion_lives_and_dies_with_its_function():
    def make(scale):
        def scaled(x):
            if s4tf.sum(x) > 0:
                return x * scale
            return -x
        return scaled

    function = make(2.0)
    converted = weakref.ref(autograph.convert_once(function))
    assert converted() is not function
    del function
    gc.collect()
    assert converted() is None


def test_a_wrapper_copying_the_dict_is_not_taken_for_the_function():
    autograph.convert_once(branchy)

    @functools.wraps(branchy)
    def wrapper(x):
        return branchy(x)

    assert autograph.convert_once(wrapper) is wrapper  # a wrapper is traced as written; branchy inside it is not rewritten


def test_functions_without_source_work_as_before():
    close(s4tf.grad(lambda x: s4tf.sum(x ** 2))(POINTS[0]), 2 * POINTS[0])
    namespace = {"s4tf": s4tf}
    exec("def square_sum(x):\n    return s4tf.sum(x * x)\n", namespace)
    close(s4tf.grad(namespace["square_sum"])(POINTS[1]), 2 * POINTS[1])
    assert autograph.convert_once(namespace["square_sum"]) is namespace["square_sum"]
    assert autograph.convert_once(len) is len


def test_control_flow_that_is_not_staged_says_what_to_do():
    def helper(x):
        if s4tf.sum(x) > 0:  # HELPER-IF
            return x
        return -x

    def calls_a_helper(x):
        return s4tf.sum(helper(x))

    with pytest.raises(s4tf.StagingError) as caught:
        s4tf.grad(calls_a_helper)(POINTS[0])
    message = str(caught.value)
    line = next(i for i, text in enumerate(open(__file__).read().splitlines(), 1) if "# HELPER-IF" in text and "line" not in text)
    assert f"{HERE}:{line}" in message
    assert "cannot take the truth value" in message
    assert "Decorate the function holding this line with @s4tf.function" in message
    assert "s4tf.where, s4tf.cond or s4tf.while_loop" in message
    assert "inspect it outside" not in message

    # the advice works: decorated, the helper is staged
    decorated = s4tf.function(helper)
    close(s4tf.grad(lambda x: s4tf.sum(decorated(x)))(POINTS[1]), -np.ones(3))


class _Scaled:
    def __init__(self, scale):
        self.__scale = scale

    def loss(self, x):
        if s4tf.sum(x) > 0:
            return s4tf.sum(x * x) * self.__scale
        return s4tf.sum(x)


def test_methods_with_mangled_names_and_the_opt_out_are_traced_as_written():
    loss = _Scaled(3.0).loss
    assert autograph.convert_once(loss) == loss  # self.__scale would not be mangled outside the class
    with pytest.raises(s4tf.StagingError, match="cannot take the truth value"):
        s4tf.grad(loss)(POINTS[0])
    with pytest.raises(s4tf.StagingError, match="cannot take the truth value"):
        s4tf.grad(s4tf.function(branchy, autograph=False))(POINTS[0])
