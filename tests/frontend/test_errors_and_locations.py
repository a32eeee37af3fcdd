"""User mistakes give s4tf errors at the user's line; ops carry file:line and name scopes."""

import functools
import inspect
import os

import numpy as np
import pytest

import s4tf

HERE = os.path.basename(__file__)


def line_of(marker: str) -> int:
    """The line of this file holding ``marker`` (in a comment)."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if marker in line and "line_of" not in line)


def test_matmul_shape_mismatch_names_op_shapes_and_line():
    @s4tf.function
    def bad(x, w):
        return x @ w  # MATMUL-LINE

    with pytest.raises(s4tf.ShapeError) as caught:
        bad(np.ones((4, 3), np.float32), np.ones((4, 3), np.float32))
    message = str(caught.value)
    assert "matmul" in message and "(4, 3)" in message
    assert f"{HERE}:{line_of('MATMUL-LINE')}" in message


def test_eager_shape_errors_name_the_users_line_and_are_type_errors_as_jaxs():
    cases = [
        lambda: np.ones((4, 3), np.float32) @ s4tf.ones((4, 3)),  # EAGER-MATMUL
        lambda: s4tf.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 2))),  # EAGER-EINSUM
        lambda: s4tf.top_k(np.ones(3), 5),  # EAGER-TOP-K
        lambda: s4tf.add(np.ones(3), np.ones(4)),  # EAGER-ADD
    ]
    for case, marker in zip(cases, ["EAGER-MATMUL", "EAGER-EINSUM", "EAGER-TOP-K", "EAGER-ADD"]):
        with pytest.raises(TypeError) as caught:  # JAX raises TypeError for incompatible shapes
            case()
        assert isinstance(caught.value, s4tf.ShapeError) and isinstance(caught.value, ValueError)
        assert str(caught.value).startswith(f"{__file__}:{line_of(marker)}: "), marker


def test_broadcast_mismatch_raised_by_op_verifier_has_line():
    @s4tf.function
    def bad(x, y):
        return x + y  # ADD-LINE

    with pytest.raises(s4tf.ShapeError) as caught:
        bad(np.ones((2, 3), np.float32), np.ones((4,), np.float32))
    message = str(caught.value)
    assert "s4tf.add" in message and "2x3" in message.replace("(2, 3)", "2x3")
    assert f"{HERE}:{line_of('ADD-LINE')}" in message


def test_unsupported_argument_is_a_type_error():
    @s4tf.function
    def f(x):
        return x

    with pytest.raises(TypeError, match="unsupported argument of type object"):
        f(object())


def test_python_branch_on_traced_tensor_is_a_staging_error():
    @s4tf.function(autograph=False)  # with AutoGraph the `if` is staged (tests/control_flow/test_autograph.py)
    def f(x):
        if x.sum() > 0:  # BRANCH-LINE
            return x
        return -x

    with pytest.raises(s4tf.StagingError) as caught:
        f(np.ones(3, np.float32))
    assert "truth value" in str(caught.value)
    assert f"{HERE}:{line_of('BRANCH-LINE')}" in str(caught.value)


def test_error_tracebacks_do_not_expose_s4tf_internals():
    @s4tf.function
    def bad(x):
        return s4tf.reshape(x, (5,))

    with pytest.raises(s4tf.S4tfError) as caught:
        bad(np.ones((2, 3), np.float32))
    frames = {os.path.basename(str(entry.path)) for entry in caught.traceback}
    assert not frames & {"tracing.py", "numpy_api.py", "composition.py", "dispatch.py", "op_def.py"}


def test_ops_carry_file_line_and_name_scopes():
    @s4tf.function
    def model(x):
        with s4tf.name_scope("layer1"):
            y = s4tf.exp(x)  # EXP-LINE
        return y * 2  # TIMES-LINE

    lowered = model.lower(np.ones(2, np.float32))
    body = lowered.module.body.operations[0].regions[0].blocks[0]
    locations = {op.name: str(op.location) for op in body.operations}
    assert locations["s4tf.exp"].startswith(f'loc("layer1"("{__file__}":{line_of("EXP-LINE")}:')
    assert locations["s4tf.mul"].startswith(f'loc("{__file__}":{line_of("TIMES-LINE")}:')
    assert "#loc" in lowered.as_text(debug_info=True)


# -- recursion of staged functions -------------------------------------------------------


@functools.partial(s4tf.function, static_argnums=1)
def doubled(x, n):
    return x if n == 0 else doubled(x * 2, n - 1)  # STATIC-RECURSION-LINE


@s4tf.function
def doubled_by_count(x, count):
    return x if count["n"] == 0 else doubled_by_count(x * 2, {"n": count["n"] - 1})  # COUNT-RECURSION-LINE


@s4tf.function
def doubled_until_large(x):
    if s4tf.sum(x) > 100:
        return x
    return doubled_until_large(x * 2)  # TENSOR-RECURSION-LINE


def test_recursion_on_a_static_argument_ends_at_trace_time():
    x = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_array_equal(np.asarray(doubled(x, 5)), x * 32)
    lowered = doubled.lower(x, 3)
    assert lowered.as_text().count("func.func") == 4  # one function per static n: 3, 2, 1, 0
    gradient = s4tf.grad(lambda v: s4tf.sum(doubled(v, 4)))(x)
    np.testing.assert_array_equal(np.asarray(gradient), np.full(3, 16.0, np.float32))


def test_recursion_on_a_tensor_value_is_an_error_at_the_recursive_call():
    with pytest.raises(s4tf.StagingError) as caught:
        doubled_until_large(np.ones(3, np.float32))
    message = str(caught.value)
    assert message.startswith(f"{__file__}:{line_of('TENSOR-RECURSION-LINE')}: 'doubled_until_large' calls itself")
    assert "cannot end at trace time" in message and "s4tf.while_loop" in message


def test_recursion_that_never_ends_at_trace_time_stops_at_a_depth_limit():
    from s4tf.staging.tracing import MAX_RECURSION_DEPTH

    with pytest.raises(s4tf.StagingError) as caught:
        doubled_by_count(np.ones(3, np.float32), {"n": -1})  # n (static: a scalar in a pytree) never reaches 0
    assert str(caught.value).startswith(
        f"{__file__}:{line_of('COUNT-RECURSION-LINE')}: 'doubled_by_count' called itself {MAX_RECURSION_DEPTH} levels deep"
    )
    assert "s4tf.while_loop" in str(caught.value)


def test_tensor_shape_beyond_int64_is_a_shape_error():
    @s4tf.function
    def grow(x):
        return grow(s4tf.concatenate([x, x]))  # GROW-LINE

    with pytest.raises(s4tf.ShapeError, match=rf"^{__file__}:{line_of('GROW-LINE')}: s4tf.concatenate: shape .* has a dimension outside"):
        grow(np.ones(3, np.float32))
