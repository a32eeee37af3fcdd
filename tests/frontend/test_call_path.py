"""The call path of a staged function: what a call computes once per signature, not per call."""

import numpy as np
import pytest

import s4tf
from s4tf.runtime.invocation import PreparedCall, tensor_result_count
from s4tf.staging.tensor import DonatedTensorError
from s4tf.staging import tensor as tensor_module
from s4tf.nn.training import train_step
from s4tf.optim import Adam


def test_a_call_on_results_of_staged_calls_does_not_ask_iree_for_their_types(monkeypatch):
    @s4tf.function(donate_argnums=(0,))
    def scale(w, x):
        return 0.5 * w, x + 1.0

    w, x = scale(np.ones((3, 2), np.float32), np.zeros(4, np.float32))  # compiles, results on the device
    asked = []
    real = tensor_module.canonical_dtype
    monkeypatch.setattr(tensor_module, "canonical_dtype", lambda dtype: asked.append(dtype) or real(dtype))
    for _ in range(3):
        w, x = scale(w, x)
    assert asked == []  # the results' types came from the compiled signature
    np.testing.assert_allclose(np.asarray(w), np.full((3, 2), 0.5**4, np.float32))
    np.testing.assert_allclose(np.asarray(x), np.full(4, 4.0, np.float32))
    assert w.tensor_type == s4tf.asarray(np.ones((3, 2), np.float32)).tensor_type


def test_a_donated_input_passed_twice_is_still_copied_not_written_into():
    @s4tf.function(donate_argnums=(0, 1))
    def add(a, b):
        return a + 1.0, b + 2.0

    a = s4tf.asarray(np.ones(3, np.float32))
    first, second = add(a, a)
    np.testing.assert_allclose(np.asarray(first), [2.0] * 3)
    np.testing.assert_allclose(np.asarray(second), [3.0] * 3)


def test_training_steps_agree_with_the_first_calls_signature_precomputed():
    from s4tf import nn

    step, opt = train_step(Adam(1e-2)), Adam(1e-2)
    model = nn.MLP((4, 8, 3))
    state = opt.init(model)
    x, y = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32), np.arange(5, dtype=np.int32) % 3
    losses = []
    for _ in range(5):
        model, state, loss, _ = step(model, state, x, y)
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert len(step._compiled) == 1


def test_calls_with_leaf_arguments_take_one_compiled_function_per_signature_and_check_types():
    @s4tf.function
    def scale(x, factor):
        return x * factor

    x32 = np.array([1.0, 2.0], np.float32)
    for _ in range(2):  # the second round takes the lookup by leaf types
        assert scale(x32, 3).dtype == np.float32
        np.testing.assert_array_equal(np.asarray(scale(s4tf.asarray(x32), 3)), [3.0, 6.0])
        np.testing.assert_array_equal(np.asarray(scale(x32, 2)), [2.0, 4.0])  # a traced int: the same function
        assert scale(x32.astype(np.float64), 3).dtype == np.float64  # another dtype: its own function
        assert scale(np.float32(2.0), 3).shape == ()  # a 0-d input stays 0-d
        assert scale(np.ones((2, 2), np.float32), 3).shape == (2, 2)
        np.testing.assert_array_equal(np.asarray(scale(x32, 2.5)), [2.5, 5.0])  # a float: another function
    assert len(scale._compiled) == 5  # a NumPy array and a Tensor of one type share a signature


def test_pytree_calls_of_a_seen_structure_find_their_function_and_keep_donation_safe():
    @s4tf.function(donate_argnums=(0,))
    def update(params, lr):
        return {name: p - lr for name, p in params.items()}

    host = {"w": np.ones(3, np.float32), "b": np.zeros(2, np.float32)}
    params = update(host, 0.5)  # NumPy inputs are copied, never written into
    for _ in range(3):
        old = params
        params = update(params, 0.5)
        with pytest.raises(DonatedTensorError, match="donated to 'update'"):
            np.asarray(old["w"])
    np.testing.assert_array_equal(host["w"], np.ones(3, np.float32))
    np.testing.assert_allclose(np.asarray(params["w"]), [-1.0] * 3)
    np.testing.assert_allclose(np.asarray(params["b"]), [-2.0] * 2)
    with pytest.raises(s4tf.S4tfError):  # a leaf of another kind still goes through the signature's checks
        update({"w": object(), "b": np.zeros(2, np.float32)}, 0.5)
    assert len(update._compiled) == 1


def test_results_come_through_the_prepared_call_and_read_as_host_copies():
    @s4tf.function
    def both(x):
        return x + 1.0, (x * 2.0).sum()

    compiled_input = np.arange(3, dtype=np.float32)
    first, total = both(compiled_input)
    (compiled,) = both._compiled.values()
    assert isinstance(compiled.module._calls[compiled.lowered.entry], PreparedCall)
    host = np.asarray(first)
    second, _ = both(compiled_input + 10)
    np.testing.assert_array_equal(host, [1.0, 2.0, 3.0])  # the copy read before is not changed by the next call
    np.testing.assert_array_equal(np.asarray(second), [11.0, 12.0, 13.0])
    assert total.shape == () and float(total) == 6.0


def test_tensor_result_count_reads_iree_declarations():
    assert tensor_result_count("sync func @f(%input0: tensor<2xf32>) -> (%output0: tensor<2xf32>, %output1: tensor<f32>)") == 2
    assert tensor_result_count("sync func @f(%input0: tensor<2xf32>)") == 0
    assert tensor_result_count("sync func @f() -> (%output0: !hal.buffer_view)") is None


def test_a_version_with_nothing_to_decide_per_call_takes_the_plain_path_with_the_same_results():
    @s4tf.function
    def moments(x, scale):
        return {"mean": x.mean() * scale, "centered": (x - x.mean()) * scale}

    @s4tf.function(donate_argnums=(0,))
    def donated(x):
        return x + 1.0

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    first = moments(x, np.float32(2.0))
    compiled = moments.compiled_for((x, np.float32(2.0)))
    assert compiled._plain is not None  # every leaf an input, results in order, no donation
    for inputs in ((x, np.float32(2.0)), (s4tf.asarray(x), np.float32(2.0)), (first["centered"], np.float32(2.0)),
                   (x, 2.0)):
        result = moments(*inputs)
        assert sorted(result) == ["centered", "mean"] and result["mean"].shape == ()
        host = np.asarray(inputs[0])
        np.testing.assert_allclose(np.asarray(result["mean"]), host.mean() * 2.0, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(result["centered"]), (host - host.mean()) * 2.0, rtol=1e-6, atol=1e-6)
    y = donated(s4tf.asarray(x))
    y = donated(y)
    assert donated.compiled_for((y,))._plain is None  # donation decides per call which buffers are given away
    np.testing.assert_allclose(np.asarray(donated(y)), x + 3.0)
