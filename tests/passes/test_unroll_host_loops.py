"""``s4tf-unroll-host-loops``: host-stepped loops of a known trip count, run several
iterations a trip, give the same bits as one iteration a trip (forward; reverse mode to
rounding), and NumPy's numbers (the IR: tests/lit/passes/s4tf-unroll-host-loops.mlir)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.core.mlir import ir, new_context
from s4tf.dialects.control_flow import copies_a_trip, trip_count
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


@pytest.mark.parametrize("steps, left", [(2, []), (8, []), (9, [3]), (13, [13]), (17, [2]), (18, [3]), (64, [8]), (127, [15])])
def test_a_scan_runs_several_steps_a_trip_with_the_same_bits(steps, left):
    """``left``: the trips left of the scan's loop (none: 8 steps or fewer become straight-line
    code; 9, 3 a trip; 13, a prime under two trips of 8, one a trip; 18, 6 a trip; 64, 8 a
    trip; 17 and 127, primes, 8 a trip after the first 1 and 7 copied before the loop)."""
    rng = np.random.default_rng(steps)
    w = (rng.normal(size=(HIDDEN, HIDDEN)) / HIDDEN).astype(np.float32)
    h, xs = np.ones((4, HIDDEN), np.float32), rng.normal(size=(steps, 4, HIDDEN)).astype(np.float32)
    (unrolled, plain), (counts, plain_counts) = run_both(rnn, (w, h, xs))
    assert plain_counts == [steps] and counts == left
    for got, same in zip(unrolled, plain):
        np.testing.assert_array_equal(got, same)
    for got, wanted in zip(unrolled, rnn_numpy(w, h, xs)):
        np.testing.assert_allclose(got, wanted, rtol=2e-5, atol=2e-5)


def counted_to(x, n, start, step):
    """``x * 0.9999 + 0.001 x^2`` from ``start`` while ``i < n`` (``i > n`` counting down)."""
    keep_going = (lambda c: c[0] < n) if step > 0 else (lambda c: c[0] > n)
    return s4tf.while_loop(keep_going, lambda c: (c[0] + step, c[1] * 0.9999 + 0.001 * c[1] * c[1]), (np.int32(start), x))[1]


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
@pytest.mark.parametrize("start, step", [(0, 1), (40, -3)])
@pytest.mark.parametrize("n", [-5, 0, 1, 7, 8, 9, 17, 40])
def test_a_loop_to_a_run_time_bound_runs_8_iterations_a_trip_then_the_rest(target, start, step, n):
    """A loop counting to a bound given at run time runs 8 iterations a trip while all 8
    run, then the rest one a trip: the same bits as one a trip, and NumPy's numbers. On
    262,144 floats (host-stepped on cpu) this took the forward loop of
    tools/bench/bench_while_grad.py from 6.8x to 1.3x JAX's."""
    x = np.linspace(0.0, 1.0, 10_000 if target == "cpu" else 8, dtype=np.float32)
    (unrolled, plain), (counts, _) = run_both(lambda x, n: counted_to(x, n, start, step), (x, np.int32(n)), target)
    assert len(counts) == 2  # the loop 8 a trip and the one of the rest
    np.testing.assert_array_equal(unrolled[0], plain[0])
    want, i = x.copy(), start
    while (i < n) if step > 0 else (i > n):
        want, i = want * np.float32(0.9999) + np.float32(0.001) * want * want, i + step
    np.testing.assert_allclose(unrolled[0], want, rtol=1e-5)


@pytest.mark.parametrize("n", [0, 1, 9, 17])
def test_a_fori_loop_to_a_tensor_bound_runs_8_iterations_a_trip(n):
    """``fori_loop(3, n, ...)`` with ``n`` a tensor: its condition is ``i < n``, its step 1;
    same bits as one a trip."""
    x = np.linspace(0.0, 1.0, 10_000, dtype=np.float32)
    fn = lambda x, n: s4tf.fori_loop(3, n, lambda i, y: y * 0.9999 + 0.001 * y * y * i.astype(y.dtype), x)  # noqa: E731
    (unrolled, plain), (counts, _) = run_both(fn, (x, np.int32(n)))
    assert len(counts) == 2
    np.testing.assert_array_equal(unrolled[0], plain[0])
    want = x.copy()
    for i in range(3, n):
        want = want * np.float32(0.9999) + np.float32(0.001) * want * want * np.float32(i)
    np.testing.assert_allclose(unrolled[0], want, rtol=1e-5)


def two_counters(x, n, m):
    """``x * 0.9999 + 0.001 x^2`` while ``i < n and j > m``, ``i`` counting up from 0 and
    ``j`` down from 30 by 2."""
    def body(c):
        return c[0] + 1, c[1] - 2, c[2] * 0.9999 + 0.001 * c[2] * c[2]

    return s4tf.while_loop(lambda c: (c[0] < n) & (c[1] > m), body, (np.int32(0), np.int32(30), x))[2]


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
@pytest.mark.parametrize("n, m", [(0, 0), (5, -20), (20, -20), (40, 5), (9, 12)])
def test_a_loop_to_two_run_time_bounds_runs_8_iterations_a_trip(target, n, m):
    """A condition that is a conjunction of counters against run-time bounds (``i < n and
    j > m``) runs 8 iterations a trip while all 8 run for each: same bits as one a trip,
    and NumPy's numbers."""
    x = np.linspace(0.0, 1.0, 10_000 if target == "cpu" else 8, dtype=np.float32)
    (unrolled, plain), (counts, _) = run_both(two_counters, (x, np.int32(n), np.int32(m)), target)
    assert len(counts) == 2
    np.testing.assert_array_equal(unrolled[0], plain[0])
    want, i, j = x.copy(), 0, 30
    while i < n and j > m:
        want, i, j = want * np.float32(0.9999) + np.float32(0.001) * want * want, i + 1, j - 2
    np.testing.assert_allclose(unrolled[0], want, rtol=1e-5)


def segments(x, n, length):
    """Segments of ``length`` iterations of ``tanh(x) * 0.9 + 0.1`` (a loop to a run-time
    bound from the outer body, in a loop whose condition reads the state), until ``n``
    iterations or ``x[0] > 0.88``."""
    def segment(c):
        end = c[0] + length
        i, y = s4tf.while_loop(lambda d: (d[0] < end) & (d[0] < n), lambda d: (d[0] + 1, s4tf.tanh(d[1]) * 0.9 + 0.1), (c[0], c[1]))
        return i, y

    return s4tf.while_loop(lambda c: (c[0] < n) & (c[1][0] < 0.88), segment, (np.int32(0), x))


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
@pytest.mark.parametrize("n, length", [(0, 3), (7, 3), (30, 9), (200, 17)])
def test_a_loop_to_a_run_time_bound_nested_in_a_host_loop_runs_8_iterations_a_trip(target, n, length):
    """A loop nested in a host-stepped loop, counting to bounds from outside it, runs 8
    iterations a trip (reverse mode's segment replays of large states are such loops):
    same bits as one a trip, and NumPy's numbers."""
    x = np.linspace(0.0, 0.8, 10_000 if target == "cpu" else 8, dtype=np.float32)
    (unrolled, plain), (counts, _) = run_both(segments, (x, np.int32(n), np.int32(length)), target)
    assert len(counts) == 3  # the outer loop, the nested one 8 a trip and the one of the rest
    for got, same in zip(unrolled, plain):
        np.testing.assert_array_equal(got, same)
    want, i = x.copy(), 0
    while i < n and want[0] < np.float32(0.88):
        end = i + length
        while i < end and i < n:
            want, i = np.tanh(want) * np.float32(0.9) + np.float32(0.1), i + 1
    assert int(unrolled[0]) == i
    np.testing.assert_allclose(unrolled[1], want, rtol=1e-5)


@pytest.mark.parametrize("start, step, n", [(2**31 - 20, 1, 2**31 - 1), (-(2**31) + 20, -1, -(2**31))])
def test_a_counter_near_the_ends_of_int32_runs_its_last_iterations_one_a_trip(start, step, n):
    """19 and 20 iterations up to the largest int32 and down to the smallest: a trip of 8
    starts only where the counter 7 steps on does not overflow (else it wrapped, and the
    loop ran 8 more iterations)."""
    x = np.linspace(0.0, 1.0, 10_000, dtype=np.float32)
    (unrolled, plain), _ = run_both(lambda x, n: counted_to(x, n, start, step), (x, np.int32(n)))
    np.testing.assert_array_equal(unrolled[0], plain[0])
    want = x.copy()
    for _ in range(abs(n - start)):
        want = want * np.float32(0.9999) + np.float32(0.001) * want * want
    np.testing.assert_allclose(unrolled[0], want, rtol=1e-5)


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_a_body_holding_an_if_and_a_loop_is_left_as_it_is(target):
    x = np.linspace(-1, 1, 10_000, dtype=np.float32)  # 40 KB: host-stepped on cpu too
    (unrolled, plain), (counts, _) = run_both(branchy, (x, np.int32(3)), target)
    assert counts[0] == 24
    np.testing.assert_array_equal(unrolled[0], plain[0])
    np.testing.assert_allclose(unrolled[0], branchy_numpy(x, 3), rtol=1e-5)


def nested(x, trips):
    """A ``fori_loop`` of ``trips`` steps holding one of three."""
    inner = lambda y: s4tf.fori_loop(0, 3, lambda j, z: s4tf.sin(z) * 0.9 + 0.01, y) * 1.01
    return s4tf.fori_loop(0, trips, lambda i, y: inner(y), x).sum()


def nested_gradient_numpy(x, trips):
    """The gradient of :func:`nested` in float64, each step's derivative elementwise."""
    y, dy = x.astype(np.float64), np.ones(x.shape)
    for _ in range(trips):
        for _ in range(3):
            y, dy = np.sin(y) * 0.9 + 0.01, dy * np.cos(y) * 0.9
        y, dy = y * 1.01, dy * 1.01
    return dy


@pytest.mark.parametrize("target, size", [("cpu", 10_000), ("vmvx", 8)])
@pytest.mark.parametrize("trips", [3, 40])
def test_the_gradient_of_a_loop_holding_a_loop(target, size, trips):
    """Copies of the outer body beside reverse mode's tape rows failed IREE 3.13's stream
    partitioning ("circular dependency": tests/lit/iree_reproducers/while_copies_tape_rows.mlir),
    on vmvx and on cpu once host-stepped (10,000 floats)."""
    x = np.linspace(0.1, 0.5, size, dtype=np.float32)
    gradient = s4tf.function(s4tf.grad(nested), target=target, static_argnums=1)(x, trips)
    np.testing.assert_allclose(np.asarray(gradient), nested_gradient_numpy(x, trips), rtol=2e-5, atol=1e-7)


def alternating(x, steps):
    """A ``scan`` whose step holds a ``cond``: ``c * 1.1 + 0.1`` at even steps, ``sin(c)`` at odd."""
    def step(c, k):
        c = s4tf.cond(k % 2 == 0, lambda c: c * 1.1 + 0.1, s4tf.sin, c)
        return c, c.sum()

    c, sums = s4tf.scan(step, x, np.arange(steps, dtype=np.int32))
    return sums.sum() + c.sum()


def alternating_gradient_numpy(x, steps):
    """The gradient of :func:`alternating` in float64 (each step elementwise)."""
    c, dc, total = x.astype(np.float64), np.ones(x.shape), np.zeros(x.shape)
    for k in range(steps):
        c, dc = (c * 1.1 + 0.1, dc * 1.1) if k % 2 == 0 else (np.sin(c), dc * np.cos(c))
        total += dc
    return total + dc


@pytest.mark.parametrize("steps", [2, 17, 41])
def test_the_gradient_of_a_scan_whose_step_holds_a_cond(steps):
    """Four or more copies of the step failed IREE 3.13 on vmvx ("failed to solve for
    timepoint coverage"): a loop holding an ``if`` on the host is not copied."""
    x = np.linspace(0.1, 0.5, 8, dtype=np.float32)
    gradient = s4tf.function(s4tf.grad(alternating), target="vmvx", static_argnums=1)(x, steps)
    np.testing.assert_allclose(np.asarray(gradient), alternating_gradient_numpy(x, steps), rtol=2e-5)


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


def test_reverse_modes_copies_of_a_long_scans_step_are_not_copied_again():
    """Reverse mode of a ``scan`` whose tapes and carries take more than 256 KiB runs 8 steps
    a trip (``_copies`` in passes/autodiff/region_derivatives.py); its loops, marked
    ``s4tf.copies``, keep their 2 trips of 8 steps (copied again, a language model's backward
    loop ran 48 steps a trip and IREE took twice as long to compile it), and the gradient
    equals JAX's."""
    rng = np.random.default_rng(1)
    w = (rng.normal(size=(HIDDEN, HIDDEN)) / HIDDEN).astype(np.float32)
    h, xs = np.ones((128, HIDDEN), np.float32), rng.normal(size=(17, 128, HIDDEN)).astype(np.float32)
    lowered = s4tf.function(s4tf.grad(lambda w, h, xs: s4tf.sum(rnn(w, h, xs)[1]))).lower(w, h, xs)
    text = lowered.stablehlo(lowering_pipeline("cpu"))
    with new_context():
        loops = collect(ir.Module.parse(text).operation, lambda op: op.name == "stablehlo.while", pre_order=True)
        assert [(trip_count(loop), copies_a_trip(loop)) for loop in loops] == [(2, 8), (2, 8)]
    got = compile_and_load(text, "cpu").invoke(lowered.entry, [w, h, xs])[0]

    def jax_loss(w, h, xs):
        return jnp.sum(jax.lax.scan(lambda h, x: (jnp.tanh(h @ w + x),) * 2, h, xs)[1])

    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.grad(jax_loss)(w, h, xs)), rtol=1e-4, atol=1e-5)
