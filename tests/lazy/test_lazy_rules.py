"""Lazy mode's rules: what observes a value, what cuts a trace, and what is an error."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import s4tf
from s4tf import optim
from s4tf.lazy_tensors import trace as lazy_trace
from s4tf.passes.iree import availability
from s4tf.lazy_tensors.trace import LazyTensor
from s4tf.nn.training import train_step

X = np.arange(6, dtype=np.float32).reshape(2, 3)
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


@pytest.fixture(autouse=True)
def fresh_counters(monkeypatch):
    for cache in ("_compiled", "_transforms", "_call_records"):
        monkeypatch.setattr(lazy_trace, cache, type(getattr(lazy_trace, cache))())
    s4tf.lazy_stats(reset=True)
    yield
    s4tf.barrier()  # nothing left pending for the next test


def test_ops_are_recorded_with_their_types_and_run_when_observed():
    with s4tf.lazy():
        y = s4tf.tanh(X @ s4tf.asarray(W)) * 2.0
        assert isinstance(y, LazyTensor) and not y.is_ready()
        assert (y.shape, y.dtype) == ((2, 4), np.float32)
        assert s4tf.lazy_stats().traces_run == 0
        np.testing.assert_allclose(np.asarray(y), np.tanh(X @ W) * 2, rtol=1e-6)
    assert y.is_ready() and s4tf.lazy_stats().traces_run == 1


@pytest.mark.parametrize("observe", [float, bool, repr, np.asarray, lambda t: t.item()])
def test_each_observation_runs_the_trace(observe):
    with s4tf.lazy():
        total = s4tf.sum(s4tf.asarray(X) * 0.5)
        observe(total)
    assert s4tf.lazy_stats().traces_run == 1
    assert float(total) == pytest.approx(X.sum() * 0.5)


def test_a_python_if_on_a_lazy_tensor_observes_it():
    with s4tf.lazy():
        x = s4tf.asarray(X) - 10.0
        branch = "positive" if s4tf.max(x) > 0 else "negative"
        assert branch == "negative" and s4tf.lazy_stats().traces_run == 1


def test_a_lazy_tensor_used_after_its_mode_ended_still_works():
    with s4tf.lazy():
        y = s4tf.asarray(X) * 3.0
    z = y + 1.0  # eager: reading y runs its trace
    assert not isinstance(z, LazyTensor)
    np.testing.assert_allclose(np.asarray(z), X * 3 + 1)
    assert s4tf.lazy_stats().traces_run == 1


def test_a_host_array_written_after_recording_does_not_change_the_result():
    x = X.copy()
    with s4tf.lazy():
        y = s4tf.exp(x)
        x[:] = 0.0
        np.testing.assert_allclose(np.asarray(y), np.exp(X), rtol=1e-6)


def test_values_are_inputs_not_structure():
    with s4tf.lazy():
        for scale in (1.0, 2.0, 3.0):
            total = s4tf.sum(s4tf.asarray(X * scale) + scale)
            assert float(total) == pytest.approx((X * scale + scale).sum())
    stats = s4tf.lazy_stats()
    assert (stats.traces_run, stats.traces_compiled, stats.cache_hits) == (3, 1, 2)


def test_a_shape_error_names_the_users_line_when_recorded():
    with s4tf.lazy(), pytest.raises(s4tf.ShapeError) as raised:
        s4tf.asarray(X) + s4tf.asarray(W)  # 2x3 + 3x4
    assert "test_lazy_rules.py" in str(raised.value)
    assert s4tf.lazy_stats().traces_run == 0


def test_set_mode_turns_lazy_mode_on_for_the_thread_and_rejects_unknown_modes():
    previous = s4tf.set_mode("lazy")
    try:
        assert s4tf.get_mode() == "lazy"
        assert isinstance(s4tf.exp(X), LazyTensor)
    finally:
        s4tf.set_mode(previous)
    assert s4tf.get_mode() == "eager" and not isinstance(s4tf.exp(X), LazyTensor)
    with pytest.raises(s4tf.S4tfError, match="unknown mode 'jit'"):
        s4tf.set_mode("jit")


def test_a_staged_function_called_in_lazy_mode_is_one_node_of_the_trace():
    @s4tf.function
    def layer(w, x):
        return s4tf.tanh(x @ w)

    with s4tf.lazy():
        y = layer(W, s4tf.asarray(X) + 1.0) * 2.0
        assert isinstance(y, LazyTensor)
        np.testing.assert_allclose(np.asarray(y), np.tanh((X + 1) @ W) * 2, rtol=1e-6)
    assert s4tf.lazy_stats().ops_per_trace == [3]  # add, the call, multiply


def test_an_optimizer_update_ends_the_step_trace():
    params = {"w": W}

    def loss(params, x):
        return s4tf.mean(s4tf.tanh(x @ params["w"]) ** 2)

    opt = optim.Adam(0.1)
    state = opt.init(params)
    with s4tf.lazy():
        for _ in range(5):
            params, state = opt.update(params, state, s4tf.grad(loss)(params, X))
            assert params["w"].is_ready()  # no observation: the update's barrier ran the step
    stats = s4tf.lazy_stats()
    # the first step's moments are host zeros (NumPy computes on them), later ones tensors
    assert (stats.traces_run, stats.traces_compiled) == (5, 2)


def test_a_training_step_that_donates_its_arguments_runs_at_once():
    """s4tf.nn's train_step (forward, gradient and update, donating model and state) needs
    real buffers: in lazy mode it runs at once, cutting the trace like a barrier."""
    model = s4tf.nn.Dense(3, 2, seed=0)
    opt = optim.SGD(0.5)
    labels = np.array([0, 1], np.int32)
    step = train_step(opt)
    expected = step(model, opt.init(model), X, labels)
    with s4tf.lazy():
        x = s4tf.asarray(X) * 1.0
        assert isinstance(x, LazyTensor)
        new, _, loss, accuracy = step(model, opt.init(model), x, labels)
        assert x.is_ready() and not isinstance(loss, LazyTensor)
    np.testing.assert_allclose(np.asarray(new.weight), np.asarray(expected[0].weight), rtol=1e-6)
    np.testing.assert_allclose(float(loss), float(expected[2]), rtol=1e-6)


def test_a_trace_past_the_limit_is_cut_with_a_warning_at_the_users_line(monkeypatch):
    monkeypatch.setattr(lazy_trace, "MAX_TRACE_OPS", 10)
    with s4tf.lazy(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = s4tf.asarray(X)
        for _ in range(25):
            x = x + 1.0  # the line named
        np.testing.assert_allclose(np.asarray(x), X + 25)
    assert [w.category for w in caught] == [s4tf.LazyTraceWarning] * 2
    assert {(w.filename, w.lineno) for w in caught} == {(__file__, x_line(__file__))}
    stats = s4tf.lazy_stats()
    assert (stats.cuts, stats.ops_per_trace) == (2, [10, 10, 5])


def x_line(path: str) -> int:
    return next(i for i, line in enumerate(open(path), 1) if line.strip().startswith("x = x + 1.0"))


def test_reading_a_value_inside_a_differentiated_function_is_a_clear_error():
    def loss(w):
        total = s4tf.sum(w * w)
        return total if float(total) > 0 else -total

    with s4tf.lazy(), pytest.raises(s4tf.StagingError, match="inside a function given to s4tf.grad") as raised:
        s4tf.grad(loss)(W)
    assert "test_lazy_rules.py" in str(raised.value)


def test_a_tensor_escaping_a_differentiated_function_is_a_clear_error():
    kept = []

    def loss(w):
        kept.append(w * 2.0)
        return s4tf.sum(w * w)

    with s4tf.lazy():
        s4tf.grad(loss)(W)
        with pytest.raises(s4tf.StagingError, match="used outside it") as raised:
            kept[0] + 1.0
        assert "test_lazy_rules.py" in str(raised.value)
        with pytest.raises(s4tf.StagingError, match="inside a function given to s4tf.grad"):
            np.asarray(kept[0])


def test_jvp_and_vjp_of_lazy_tensors_match_eager():
    def f(w):
        return s4tf.tanh(X @ w)

    eager_value, eager_tangent = s4tf.jvp(f, (W,), (np.ones_like(W),))
    eager_out, eager_pullback = s4tf.vjp(f, W)
    with s4tf.lazy():
        w = s4tf.asarray(W) * 1.0
        value, tangent = s4tf.jvp(f, (w,), (np.ones_like(W),))
        out, pullback = s4tf.vjp(f, w)
        (cotangent,) = pullback(np.ones((2, 4), np.float32))
        assert isinstance(cotangent, LazyTensor)
        for lazy, eager in [(value, eager_value), (tangent, eager_tangent), (out, eager_out),
                            (cotangent, eager_pullback(np.ones((2, 4), np.float32))[0])]:
            np.testing.assert_allclose(np.asarray(lazy), np.asarray(eager), rtol=1e-6)


def test_a_trace_that_cannot_compile_names_the_line_of_the_op_when_observed(monkeypatch):
    # cpu refuses no op any more (it links libm for f64 tanh); the phones' refusal of f64
    # tanh, given to cpu for this test, is checked by the real s4tf-check-availability pass
    phones = next(x for x in availability.LIMITATIONS if x.target == "linux-arm64" and "s4tf.tanh" in x.ops)
    monkeypatch.setattr(availability, "LIMITATIONS", (dataclasses.replace(phones, target="cpu"), *availability.LIMITATIONS))
    with s4tf.lazy():
        y = s4tf.tanh(np.ones(3))  # float64 tanh, refused
        z = s4tf.asarray(X) + 1.0
        for _ in range(2):  # the error stays the trace's: each reading raises it
            with pytest.raises(s4tf.CompilationError, match="s4tf.tanh on f64 is not available") as raised:
                float(y[0])
            assert f"test_lazy_rules.py:{tanh_line(__file__)}:" in str(raised.value)
        with pytest.raises(s4tf.CompilationError):
            np.asarray(z)  # recorded in the same trace
        np.testing.assert_allclose(np.asarray(s4tf.asarray(X) * 2.0), X * 2)  # a new trace works


def tanh_line(path: str) -> int:
    return next(i for i, line in enumerate(open(path), 1) if line.strip().startswith("y = s4tf.tanh(np.ones(3))"))


def test_a_trace_run_by_another_thread_while_an_op_is_recorded_is_a_clear_error(monkeypatch):
    import threading

    with s4tf.lazy():
        x = s4tf.asarray(X) * 2.0
        trace = x.pending

        def run_elsewhere():  # another thread reads x just as the next op is being added
            reader = threading.Thread(target=trace.run)
            reader.start()
            reader.join()

        monkeypatch.setattr(lazy_trace, "user_line", run_elsewhere)
        with pytest.raises(s4tf.StagingError, match="another thread ran this thread's lazy trace"):
            x + 1.0
        monkeypatch.undo()
        np.testing.assert_allclose(np.asarray(x), X * 2)
        np.testing.assert_allclose(np.asarray(x + 1.0), X * 2 + 1)  # recording goes on in a new trace
