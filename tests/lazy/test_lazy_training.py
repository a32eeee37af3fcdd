"""An eager-written MLP training loop runs alike in eager, lazy and staged mode, and lazy
mode compiles each distinct step trace once (the S4TF paper's LazyTensor, section 3.3)."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.lazy_tensors import trace as lazy_trace

STEPS = 50
LR = 0.1


def make_problem(batch: int = 8, sizes=(4, 16, 3), seed: int = 0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
    return params, x, y


def loss_fn(params, x, y):
    w1, b1, w2, b2 = params
    hidden = s4tf.tanh(x @ w1 + b1)
    return s4tf.mean((hidden @ w2 + b2 - y) ** 2)


def step(params, x, y):
    """One SGD step, written as eager code."""
    loss, grads = s4tf.value_and_grad(loss_fn)(params, x, y)
    return loss, [p - LR * g for p, g in zip(params, grads)]


def train(run_step, steps: int = STEPS, problem=None):
    params, x, y = problem or make_problem()
    losses = []
    for _ in range(steps):
        loss, params = run_step(params, x, y)
        losses.append(float(loss))
    return np.array(losses), params


def lazy_step(params, x, y):
    with s4tf.lazy():
        return step(params, x, y)


@pytest.fixture(autouse=True)
def fresh_counters(monkeypatch):
    """Counters at zero and nothing compiled in memory (the disk cache may hold modules)."""
    for cache in ("_compiled", "_transforms", "_call_records"):
        monkeypatch.setattr(lazy_trace, cache, type(getattr(lazy_trace, cache))())
    s4tf.lazy_stats(reset=True)


def test_eager_lazy_and_staged_loops_give_the_same_losses():
    eager_losses, eager_params = train(step)
    lazy_losses, lazy_params = train(lazy_step)
    staged_losses, staged_params = train(s4tf.function(step))
    assert eager_losses[-1] < 0.5 * eager_losses[0]  # it trains
    np.testing.assert_allclose(lazy_losses, eager_losses, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(staged_losses, eager_losses, rtol=1e-5, atol=1e-7)
    for lazy, eager in zip(lazy_params, eager_params):
        np.testing.assert_allclose(np.asarray(lazy), np.asarray(eager), rtol=1e-5, atol=1e-6)


def test_the_step_trace_compiles_once_and_is_replayed():
    train(lazy_step)
    stats = s4tf.lazy_stats()
    # float(loss) runs each step's trace: the value_and_grad call and four updates (a
    # multiply and a subtract each); the first step's inputs are host arrays, the next
    # ones' are tensors, of the same types: one structure.
    assert stats.traces_run == STEPS
    assert stats.traces_compiled == 1
    assert stats.cache_hits == STEPS - 1
    assert stats.ops_per_trace == [9] * STEPS


def test_a_shape_change_recompiles_once():
    train(lazy_step, steps=3)
    train(lazy_step, steps=3, problem=make_problem(batch=5))
    train(lazy_step, steps=3)
    stats = s4tf.lazy_stats()
    assert (stats.traces_compiled, stats.cache_hits, stats.traces_run) == (2, 7, 9)


def test_an_observation_inside_the_step_splits_its_trace():
    params, x, y = make_problem()
    losses = []
    with s4tf.lazy():
        for _ in range(4):
            loss, grads = s4tf.value_and_grad(loss_fn)(params, x, y)
            losses.append(float(loss))  # runs the gradient; the update joins the next step's trace
            params = [p - LR * g for p, g in zip(params, grads)]
        s4tf.barrier()
    stats = s4tf.lazy_stats()
    # traces: [grad], then 3 x [update (8 ops), grad], then [update] at the barrier
    assert stats.ops_per_trace == [1, 9, 9, 9, 8]
    assert stats.traces_compiled == 3
    assert all(p.is_ready() for p in params)
    expected, _ = train(step, steps=4)
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_a_grad_made_anew_each_step_of_a_new_lambda_compiles_once():
    params, x, y = make_problem()
    with s4tf.lazy():
        for _ in range(3):
            grads = s4tf.grad(lambda p: loss_fn(p, x, y))(params)  # closes over x and y
            params = [p - LR * g for p, g in zip(params, grads)]
            s4tf.barrier()
    assert s4tf.lazy_stats().traces_compiled == 1
    eager_params = make_problem()[0]
    for _ in range(3):
        grads = s4tf.grad(lambda p: loss_fn(p, x, y))(eager_params)
        eager_params = [p - LR * g for p, g in zip(eager_params, grads)]
    for lazy, eager in zip(params, eager_params):
        np.testing.assert_allclose(np.asarray(lazy), np.asarray(eager), rtol=1e-5, atol=1e-6)


def test_a_trace_dropped_from_memory_is_loaded_from_the_disk_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    train(lazy_step, steps=2)
    entries = sorted(tmp_path.glob("*.vmfb"))
    assert entries  # the step trace's module
    monkeypatch.setattr(lazy_trace, "_compiled", type(lazy_trace._compiled)())  # as a new process would start
    train(lazy_step, steps=2)
    assert s4tf.lazy_stats().traces_compiled == 2  # staged again: the same module text
    assert sorted(tmp_path.glob("*.vmfb")) == entries  # ... which IREE did not compile again
