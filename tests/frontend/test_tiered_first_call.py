"""Tiered first calls (s4tf.staging.tiered_call): the first call of a signature IREE has not
compiled runs through the ops' NumPy references while IREE compiles in the background;
its results must be IREE's to rounding (bit for bit for integers, bools and random bits),
of the same dtypes and shapes, with donation as on the compiled path.

The test suite runs with ``S4TF_FIRST_CALL=compile`` (tests/conftest.py), so that every
other test checks IREE's numbers; the tests here turn tiered calls on, each with a fresh
module cache so that IREE has compiled nothing."""

import os
import stat

import numpy as np
import pytest

import s4tf
from s4tf import nn
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.staging.tensor import DonatedTensorError
from s4tf.staging.tiered_call import TieredCall


@pytest.fixture(autouse=True)
def tiered(monkeypatch, tmp_path):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(s4tf.staging.first_call, "_setting", None)  # the suite's setting comes back after the test
    s4tf.set_first_call("interpret")


def only_signature(fn):
    (entry,) = fn._compiled.values()
    return entry


def interpreted_then_compiled(fn, *args, fresh=lambda args: args):
    """``fn``'s interpreted first call and its compiled call on ``fresh(args)``, as NumPy."""
    first = fn(*fresh(args))
    tiered = only_signature(fn)
    assert isinstance(tiered, TieredCall) and tiered.interpreted_calls == 1
    tiered.ready()  # waits for IREE
    assert only_signature(fn) is tiered.compiled  # later calls go straight to the module
    second = fn(*fresh(args))
    return s4tf.pytree.flatten(first)[0], s4tf.pytree.flatten(second)[0]


def assert_same(interpreted, compiled, rtol=2e-6, atol=1e-6):
    assert len(interpreted) == len(compiled)
    for a, b in zip(interpreted, compiled):
        assert isinstance(a, s4tf.Tensor) and a.tensor_type == b.tensor_type
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        if np.issubdtype(a.dtype, np.floating):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, b)


def mlp_forward(params, x):
    *hidden, (w, b) = params
    for w_i, b_i in hidden:
        x = s4tf.maximum(x @ w_i + b_i, 0)
    return x @ w + b


def test_mlp_forward():
    rng = np.random.default_rng(0)
    sizes = (784, 512, 512, 10)
    params = [(s4tf.asarray(rng.standard_normal((a, b), np.float32) * 0.05), s4tf.asarray(rng.standard_normal(b, np.float32)))
              for a, b in zip(sizes, sizes[1:])]
    x = s4tf.asarray(rng.standard_normal((128, 784), np.float32))
    interpreted, compiled = interpreted_then_compiled(s4tf.function(mlp_forward), params, x)
    assert_same(interpreted, compiled, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(interpreted[0]), mlp_forward([(np.asarray(w), np.asarray(b)) for w, b in params],
                                                                        np.asarray(x)), rtol=1e-4, atol=1e-4)


def test_adam_training_step_donates_as_compiled():
    rng = np.random.default_rng(1)
    model = nn.MLP((20, 16, 4))
    opt = Adam(1e-2)
    host = [np.asarray(leaf) for leaf in s4tf.pytree.flatten((model, opt.init(model)))[0]]
    _, tree = s4tf.pytree.flatten((model, opt.init(model)))
    x = rng.standard_normal((8, 20)).astype(np.float32)
    y = rng.integers(0, 4, 8).astype(np.int32)
    step = train_step(opt)

    def on_device():
        model_state = s4tf.pytree.unflatten(tree, [s4tf.asarray(a) for a in host])
        return (*model_state, x, y)

    given = on_device()
    first = step(*given)
    for leaf in s4tf.pytree.flatten(given[:2])[0]:  # donated and consumed, as on the compiled path
        with pytest.raises(DonatedTensorError, match="train_step"):
            np.asarray(leaf)
    tiered = only_signature(step)
    assert isinstance(tiered, TieredCall) and tiered.interpreted_calls == 1
    tiered.ready()
    given = on_device()
    second = step(*given)
    for leaf in s4tf.pytree.flatten(given[:2])[0]:
        assert leaf.donated_to is not None
    assert_same(s4tf.pytree.flatten(first)[0], s4tf.pytree.flatten(second)[0], rtol=1e-5, atol=1e-6)


def test_numpy_arrays_given_to_a_donating_step_are_left_alone():
    @s4tf.function(donate_argnums=(0,))
    def scale(w, x):
        return w * 2.0, (w * x).sum()

    w = np.arange(6, dtype=np.float32)
    before = w.copy()
    interpreted, compiled = interpreted_then_compiled(scale, w, np.float32(3.0))
    np.testing.assert_array_equal(w, before)
    assert_same(interpreted, compiled)


def test_control_flow():
    @s4tf.function
    def flow(x, n):
        def halve(carry):
            i, v = carry
            return i + 1, v * 0.5

        _, v = s4tf.while_loop(lambda c: c[0] < n, halve, (0, x))
        v = s4tf.cond(v.sum() > 1.0, lambda a: a * 3.0, lambda a: a - 1.0, v)

        def running(total, row):
            total = total + s4tf.tanh(row)
            return total, total * 2.0

        total, ys = s4tf.scan(running, s4tf.zeros(x.shape[1:], x.dtype), v)
        return total, ys

    x = np.linspace(-2, 3, 12, dtype=np.float32).reshape(4, 3)
    interpreted, compiled = interpreted_then_compiled(flow, x, np.int32(3))
    assert_same(interpreted, compiled)


def test_random_bits_are_identical():
    """Keys, bits and uniform floats (bits and exact float steps) are bit for bit IREE's;
    normal floats go through erfinv's polynomial, whose float32 rounding differs by 1 ulp."""
    @s4tf.function
    def draw(key):
        a, b = s4tf.random.split(key)
        return a, s4tf.random.bits(a, (5, 7), np.int32), s4tf.random.uniform(b, (64,)), s4tf.random.normal(b, (3, 4))

    interpreted, compiled = interpreted_then_compiled(draw, np.asarray(s4tf.random.key(42)))
    assert_same(interpreted, compiled, rtol=3e-7, atol=0)
    for a, b in zip(interpreted[:3], compiled[:3]):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_integer_and_bool_results():
    @s4tf.function
    def counts(x, k):
        return (x * k) // 3, x % 5, x > 2, s4tf.any(x > 2), s4tf.argmax(x)

    x = np.array([[7, -4, 2], [9, 0, -11]], np.int32)
    interpreted, compiled = interpreted_then_compiled(counts, x, np.int32(6))
    assert_same(interpreted, compiled)


def test_the_second_call_waits_for_iree():
    fn = s4tf.function(lambda x: s4tf.tanh(x) * 3.0)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    first = np.asarray(fn(x))
    tiered = only_signature(fn)
    second = np.asarray(fn(x))  # IREE is still at work: this call waits for it
    assert tiered.interpreted_calls == 1 and only_signature(fn) is tiered.compiled
    np.testing.assert_allclose(first, second, rtol=2e-6)


def test_cached_module_runs_compiled_at_once():
    def double(x):
        return x * 2.0

    x = np.ones(3, np.float32)
    fn = s4tf.function(double)
    fn(x)
    only_signature(fn).ready()  # in the cache now
    again = s4tf.function(double)
    again(x)
    assert not isinstance(only_signature(again), TieredCall)


def test_compile_mode_waits_for_iree():
    s4tf.set_first_call("compile")
    fn = s4tf.function(lambda x: x + 1.0)
    fn(np.ones(2, np.float32))
    assert not isinstance(only_signature(fn), TieredCall)


def test_reference_mode_interprets_every_call_and_compiles_nothing(tmp_path, monkeypatch):
    """``"reference"``: the references answer every call, also with the module cached, and
    IREE never runs (a compiler that fails would be reported); an op the references cannot
    evaluate (none here) would be compiled."""
    fn = s4tf.function(lambda x: s4tf.tanh(x) * 3.0)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    fn(x)
    only_signature(fn).ready()  # the module is in the cache now
    failing_compiler(tmp_path, monkeypatch)
    s4tf.set_first_call("reference")
    again = s4tf.function(lambda x: s4tf.tanh(x) * 3.0)
    results = [np.asarray(again(x)) for _ in range(3)]
    tiered = only_signature(again)
    assert isinstance(tiered, TieredCall) and tiered.interpreted_calls == 3 and tiered.compilation is None
    for result in results:
        np.testing.assert_array_equal(result, (np.tanh(x) * 3.0).astype(np.float32))


def test_an_unknown_mode_is_refused(monkeypatch):
    with pytest.raises(s4tf.S4tfError, match="unknown first-call mode 'later' in s4tf.set_first_call"):
        s4tf.set_first_call("later")
    s4tf.staging.first_call._setting = None
    monkeypatch.setenv("S4TF_FIRST_CALL", "soon")
    with pytest.raises(s4tf.S4tfError, match=r"unknown first-call mode 'soon' in \$S4TF_FIRST_CALL"):
        s4tf.function(lambda x: x * 3.0)(np.ones(2, np.float32))


def failing_compiler(tmp_path, monkeypatch):
    """An ``iree-compile`` on IREE's tool path that fails as IREE does on a module it cannot
    compile: a message on stderr and exit status 1."""
    tool = tmp_path / "tools" / "iree-compile"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho 'error: failed to legalize operation (from the test)' >&2\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("IREE_TOOL_PATH", str(tool.parent))


def test_a_background_compile_error_is_raised_at_the_next_call(tmp_path, monkeypatch):
    failing_compiler(tmp_path, monkeypatch)
    fn = s4tf.function(lambda x: x * 4.0)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(fn(x)), x * 4)  # interpreted while IREE fails
    for _ in range(2):  # then every call raises IREE's error, as the synchronous path does
        with pytest.raises(s4tf.CompilationError, match="(?s)could not compile.*failed to legalize operation"):
            fn(x)
    s4tf.set_first_call("compile")
    with pytest.raises(s4tf.CompilationError, match="failed to legalize operation"):
        s4tf.function(lambda x: x * 5.0)(x)


def test_the_suite_tests_iree_numbers():
    """tests/conftest.py turns tiered calls off for every other test."""
    assert os.environ["S4TF_FIRST_CALL"] == "compile"
