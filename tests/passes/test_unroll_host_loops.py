"""``s4tf-unroll-host-loops``: host-stepped loops of a known trip count, run several
iterations a trip, give the same bits as one iteration a trip (forward; reverse mode to
rounding), and NumPy's numbers (the IR: tests/lit/passes/s4tf-unroll-host-loops.mlir)."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.core.mlir import ir, new_context
from s4tf.dialects.control_flow import trip_count
from s4tf.passes.ir_walk import collect
from s4tf.passes.iree.unroll_host_loops import UnrollHostLoops
from s4tf.passes.pipeline import Pipeline, lowering_pipeline
from s4tf.runtime.compile_and_load import compile_and_load

HIDDEN = 64  # h @ w of 64x64 is over s4tf-loops-to-dispatch's product limit: the loop stays host-stepped


def rnn(w, h, xs):
    def step(h, x):
        h = s4tf.tanh(h @ w + x)
        return h, s4tf.sum(h)

    return s4tf.scan(step, h, xs)


def rnn_numpy(w, h, xs):
    sums = []
    for x in xs:
        h = np.tanh(h @ w + x)
        sums.append(h.sum())
    return h, np.array(sums, h.dtype)


def branchy(x, n):
    """A fori_loop of 24 steps whose body holds an ``if`` and a loop of ``n`` steps."""
    def body(i, x):
        x = s4tf.where(i % 2 == 0, x * 0.5, x + 1.0)
        return s4tf.fori_loop(0, n, lambda j, y: y * 0.99 + 0.01, x)

    return s4tf.fori_loop(0, 24, body, x)


def branchy_numpy(x, n):
    for i in range(24):
        x = x * np.float32(0.5) if i % 2 == 0 else x + np.float32(1.0)
        for _ in range(n):
            x = x * np.float32(0.99) + np.float32(0.01)
    return x


def without_unrolling(target: str) -> Pipeline:
    return Pipeline([p for p in lowering_pipeline(target) if not isinstance(p, UnrollHostLoops)])


def trip_counts(text: str) -> list[int | None]:
    with new_context():
        module = ir.Module.parse(text).operation
        return [trip_count(op) for op in collect(module, lambda op: op.name == "stablehlo.while", pre_order=True)]


def run_both(fn, args, target="cpu"):
    """``fn``'s results lowered with the default pipeline (unrolled) and without the pass,
    and the trip counts left on the loops of each."""
    lowered = s4tf.function(fn).lower(*args)
    texts = lowered.stablehlo(lowering_pipeline(target)), lowered.stablehlo(without_unrolling(target))
    results = [[np.asarray(r) for r in compile_and_load(text, target).invoke(lowered.entry, [np.asarray(a) for a in args])]
               for text in texts]
    return results, [trip_counts(text) for text in texts]


@pytest.mark.parametrize("steps, left", [(2, []), (9, []), (13, [2]), (18, [17]), (65, [8])])
def test_a_scan_runs_several_steps_a_trip_with_the_same_bits(steps, left):
    """``left``: the trips left of the scan's loop (none: 8 steps or fewer become straight-line
    code; 12 steps, 6 a trip; 17, a prime, one a trip; 64, 8 a trip)."""
    rng = np.random.default_rng(steps)
    w = (rng.normal(size=(HIDDEN, HIDDEN)) / HIDDEN).astype(np.float32)
    h, xs = np.ones((4, HIDDEN), np.float32), rng.normal(size=(steps, 4, HIDDEN)).astype(np.float32)
    (unrolled, plain), (counts, plain_counts) = run_both(rnn, (w, h, xs))
    assert plain_counts == [steps - 1] and counts == left  # scan traces its first step on its own
    for got, same in zip(unrolled, plain):
        np.testing.assert_array_equal(got, same)
    for got, wanted in zip(unrolled, rnn_numpy(w, h, xs)):
        np.testing.assert_allclose(got, wanted, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_a_body_holding_an_if_and_a_loop_copied_eight_times(target):
    x = np.linspace(-1, 1, 10_000, dtype=np.float32)  # 40 KB: host-stepped on cpu too
    (unrolled, plain), (counts, _) = run_both(branchy, (x, np.int32(3)), target)
    assert counts[0] == 3  # 24 steps, 8 a trip
    np.testing.assert_array_equal(unrolled[0], plain[0])
    np.testing.assert_allclose(unrolled[0], branchy_numpy(x, 3), rtol=1e-5)


def test_the_gradient_of_an_unrolled_scan_agrees_with_the_one_step_lowering():
    """Reverse mode's loops are unrolled too; the weight gradient's sum over the steps may
    fuse differently across copies, so it agrees to rounding, not to the bit."""
    rng = np.random.default_rng(0)
    w = (rng.normal(size=(HIDDEN, HIDDEN)) / HIDDEN).astype(np.float32)
    h, xs = np.ones((4, HIDDEN), np.float32), rng.normal(size=(17, 4, HIDDEN)).astype(np.float32)
    loss = s4tf.grad(lambda w, h, xs: s4tf.sum(rnn(w, h, xs)[1]), argnums=(0, 1))
    (unrolled, plain), (counts, _) = run_both(loss, (w, h, xs))
    assert 2 in counts  # the 16 steps' loops, forward and backward, at 8 a trip
    for got, same in zip(unrolled, plain):
        np.testing.assert_allclose(got, same, rtol=1e-5, atol=1e-6)
