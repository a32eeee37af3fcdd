"""@s4tf.function: tracing, signatures, device-resident results, calls between functions."""

import os
import subprocess
import sys

import numpy as np
import pytest

import s4tf
from s4tf.staging.tensor import Tensor

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@s4tf.function
def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


def test_predict_matches_numpy_and_stays_on_device():
    w, b, x = rand(3, 2), rand(2), rand(4, 3)
    y = predict(w, b, x)
    assert isinstance(y, s4tf.Tensor)
    assert y.shape == (4, 2) and y.dtype == np.float32
    np.testing.assert_allclose(np.asarray(y), np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y.numpy(), np.asarray(y))


def test_results_feed_the_next_call_without_a_host_copy(monkeypatch):
    w, b, x = rand(2, 2), rand(2), rand(4, 2)
    first = predict(w, b, x)
    predict(w, b, np.asarray(first))  # compile this signature first

    def no_host_copy(self):
        raise AssertionError("a device tensor was copied to the host")

    monkeypatch.setattr(Tensor, "numpy", no_host_copy)
    second = predict(w, b, first)
    monkeypatch.undo()
    expected = np.tanh(np.tanh(x @ w + b) @ w + b)
    np.testing.assert_allclose(np.asarray(second), expected, rtol=1e-5, atol=1e-6)


def test_one_compiled_module_per_signature():
    @s4tf.function
    def double(x):
        return x * 2

    double(rand(3))
    double(rand(3))
    assert len(double._compiled) == 1
    double(rand(4))
    double(rand(3).astype(np.float64))
    assert len(double._compiled) == 3
    np.testing.assert_array_equal(np.asarray(double(np.arange(3, dtype=np.int32))), [0, 2, 4])


def test_strings_are_static_and_part_of_the_signature_and_numbers_are_traced():
    @s4tf.function
    def scale(x, factor, mode):
        return x * factor if mode == "mul" else x + factor

    x = rand(3)
    np.testing.assert_allclose(np.asarray(scale(x, 3.0, "mul")), x * 3, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(scale(x, 3.0, "add")), x + 3, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(scale(x, 2.0, "add")), x + 2, rtol=1e-6)
    assert len(scale._compiled) == 2  # one per mode; 3.0 and 2.0 are one traced f32


def test_scalar_and_boolean_outputs():
    @s4tf.function
    def stats(x):
        return x.sum(), x > 0, x.argmax()

    x = rand(5)
    total, positive, where_max = stats(x)
    assert total.shape == () and float(total) == pytest.approx(float(x.sum()), rel=1e-5)
    assert positive.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(positive), x > 0)
    assert int(where_max) == int(np.argmax(x))


def test_nested_staged_function_is_one_shared_func_call():
    @s4tf.function
    def layer(w, x):
        return s4tf.relu(x @ w)

    @s4tf.function
    def model(w1, w2, x):
        return layer(w2, layer(w1, x)), layer(w1, x)

    w, x = rand(3, 3), rand(2, 3)
    text = model.lower(w, w, x).as_text()
    assert text.count("func.func private @layer(") == 1
    assert text.count("call @layer(") == 3
    deep, shallow = model(w, w, x)
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    np.testing.assert_allclose(np.asarray(deep), relu(relu(x @ w) @ w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(shallow), relu(x @ w), rtol=1e-5, atol=1e-6)


def test_lower_returns_printable_module_without_compiling():
    @s4tf.function
    def f(x):
        return s4tf.exp(x)

    lowered = f.lower(rand(2, 2))
    assert str(lowered) == lowered.as_text()
    assert '"s4tf.exp"' in lowered.as_text()
    assert "stablehlo.exponential" in lowered.stablehlo()
    assert f._compiled == {}


def test_eager_ops_outside_functions_run_on_the_device():
    x = rand(2, 3)
    y = s4tf.exp(x) + 1
    assert isinstance(y, s4tf.Tensor)
    np.testing.assert_allclose(np.asarray(y), np.exp(x) + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s4tf.asarray(x).T @ s4tf.ones((2, 1))), x.T @ np.ones((2, 1)), rtol=1e-5)


def test_huge_constants_are_splats_never_materialized():
    lowered = s4tf.function(lambda: s4tf.zeros((100000, 100000)) * 2.0).lower()  # 37 GiB as an array
    assert "dense<0.000000e+00> : tensor<100000x100000xf32>" in lowered.as_text()
    assert "stablehlo.constant dense<0.000000e+00> : tensor<100000x100000xf32>" in lowered.stablehlo()


def test_print_ir_after_all_variable_dumps_the_lowering_of_a_staged_function(tmp_path):
    script = tmp_path / "staged.py"
    script.write_text(
        "import numpy as np, s4tf\n"
        "@s4tf.function\n"
        "def f(x):\n"
        "    return s4tf.tanh(x) * 2.0\n"
        "print(np.asarray(f(np.ones(3, np.float32))).tolist())\n"
    )
    env = {**os.environ, "S4TF_PRINT_IR_AFTER_ALL": "1", "S4TF_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "IR Dump After s4tf-lower-to-stablehlo" in result.stderr
    assert "stablehlo.tanh" in result.stderr
    assert result.stdout.strip() == str([float(np.float32(2 * np.tanh(np.float32(1))))] * 3)
