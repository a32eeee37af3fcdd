"""A staged function lists its compiled versions and warns, at the caller's line, when
Python values make it compile its eighth (frontend/staging/recompiles.py)."""

import warnings

import numpy as np
import pytest

import s4tf


def _calls(fn, arguments):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in arguments:
            fn(*args)
    return [w for w in caught if issubclass(w.category, s4tf.RecompileWarning)]


def test_python_scalars_in_pytrees_warn_at_the_eighth_version_naming_the_leaf():
    @s4tf.function
    def scale(x, options):
        return x * options["k"]

    x = np.ones(3, np.float32)
    caught = _calls(scale, [(x, {"k": k}) for k in range(10)])
    assert len(caught) == 1
    (warning,) = caught
    assert warning.filename == __file__
    message = str(warning.message)
    assert "'scale' has compiled 8 versions" in message and "argument leaf 1 differs" in message
    assert "np.int32(n)" in message
    assert scale.compiled_signatures()[:2] == ["(tensor<3xf32>, 0)", "(tensor<3xf32>, 1)"]
    assert len(scale.compiled_signatures()) == 10
    np.testing.assert_array_equal(np.asarray(scale(x, {"k": 9})), np.full(3, 9.0))


def test_python_int_and_float_arguments_are_traced_once_each():
    @s4tf.function
    def scale(x, k):
        return x * k

    x = np.ones(3, np.float32)
    assert _calls(scale, [(x, k) for k in range(10)] + [(x, k / 4) for k in range(10)]) == []
    assert scale.compiled_signatures() == ["(tensor<3xf32>, tensor<i32> (a Python int))",
                                           "(tensor<3xf32>, tensor<f32> (a Python float))"]
    np.testing.assert_array_equal(np.asarray(scale(x, 9)), np.full(3, 9.0))
    assert scale(x, 9).dtype == np.float32 and scale(x, 2.25).dtype == np.float32  # weak: x's dtype wins


def test_arrays_for_the_changing_value_compile_once_and_never_warn():
    @s4tf.function
    def scale(x, k):
        return x * k

    x = np.ones(3, np.float32)
    assert _calls(scale, [(x, np.float32(k)) for k in range(10)]) == []
    assert scale.compiled_signatures() == ["(tensor<3xf32>, tensor<f32>)"]


@pytest.mark.parametrize("sizes", [range(1, 9)])
def test_shapes_that_change_warn_without_blaming_python_values(sizes):
    @s4tf.function
    def total(x):
        return x.sum()

    (warning,) = _calls(total, [(np.ones(n, np.float32),) for n in sizes])  # once, at the 4th version
    assert warning.filename == __file__
    message = str(warning.message)
    assert "'total' has compiled 4 versions" in message and "Python value" not in message
    assert "argument 'x' was tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>" in message
    assert total.compiled_signatures()[-1] == "(tensor<8xf32>)"


def test_a_shape_changing_inside_a_pytree_names_the_leaf_of_its_argument():
    @s4tf.function
    def norm(scale, model):
        return model["w"].sum() * scale

    (warning,) = _calls(norm, [(np.float32(2), {"w": np.ones(n, np.float32), "b": np.ones(2)}) for n in range(1, 6)])
    assert "leaf 1 of argument 'model' was tensor<1xf32>, tensor<2xf32>" in str(warning.message)
