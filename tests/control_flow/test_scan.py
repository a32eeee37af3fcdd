"""s4tf.scan (JAX's lax.scan): against a Python loop, and its derivatives against float64
finite differences, forward and reverse."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.core.errors import S4tfError, ShapeError
from tests.autodiff.gradient_checks import directional_check

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(21)
XS = RNG.standard_normal((6, 3))
W = RNG.standard_normal((3, 3)) * 0.5


def step(carry, x):
    h, count = carry
    h = s4tf.tanh(h @ W + x)
    return (h, count + 1), {"h": h, "norm": s4tf.sum(h * h)}


def python_scan(h0, xs, reverse=False):
    h, hs = h0, [None] * len(xs)
    for i in (reversed(range(len(xs))) if reverse else range(len(xs))):
        h = np.tanh(h @ W + xs[i])
        hs[i] = h
    return h, np.stack(hs)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("staged", [False, True])
def test_scan_against_a_python_loop(staged, reverse):
    def run(h0, xs):
        return s4tf.scan(step, (h0, 0), xs, reverse=reverse)

    (h, count), ys = (s4tf.function(run) if staged else run)(np.ones(3), XS)
    expected_h, expected_hs = python_scan(np.ones(3), XS, reverse)
    np.testing.assert_allclose(np.asarray(h), expected_h, rtol=1e-12)
    assert int(np.asarray(count)) == len(XS)
    np.testing.assert_allclose(np.asarray(ys["h"]), expected_hs, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ys["norm"]), np.sum(expected_hs ** 2, axis=1), rtol=1e-12)


def test_staged_scan_over_a_closed_over_numpy_xs():
    """xs a NumPy array the staged function closes over (not an argument): the loop's
    traced index reads it as a constant tensor."""
    (h, _), ys = s4tf.function(lambda h0: s4tf.scan(step, (h0, 0), XS))(np.ones(3))
    expected_h, expected_hs = python_scan(np.ones(3), XS)
    np.testing.assert_allclose(np.asarray(h), expected_h, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ys["h"]), expected_hs, rtol=1e-12)


def test_staged_scan_is_one_loop():
    text = s4tf.function(lambda xs: s4tf.scan(step, (np.ones(3), 0), xs)).lower(XS).as_text()
    assert text.count("s4tf.while") == 1
    assert text.count("s4tf.tanh") == 1  # every step in the loop's body (the step traced for its types is dropped)
    assert "s4tf.trip_count = 6" in text


def test_a_scan_inside_a_loop_runs_its_first_step_on_its_own():
    """IREE-3.13-WORKAROUND: with all its steps in its loop, a lax.map inside a scan came back
    wrong on vulkan under vmap of grad (tests/control_flow/test_loop_sweep.py)."""
    fn = s4tf.function(lambda h, xs: s4tf.fori_loop(0, 2, lambda i, h: s4tf.scan(step, (h, 0), xs)[0][0], h))
    assert fn.lower(np.ones(3), XS).as_text().count("s4tf.tanh") == 2  # the first step, then the loop's body
    h = np.ones(3)
    for _ in range(2):
        h = python_scan(h, XS)[0]
    np.testing.assert_allclose(np.asarray(fn(np.ones(3), XS)), h, rtol=1e-12)


def test_a_step_that_changes_the_carrys_type_runs_first_on_its_own():
    """A float32 carry the step makes float64: the first step fixes its type, the loop runs
    the other steps (JAX refuses such a carry)."""
    xs = np.linspace(0.0, 1.0, 5)  # float64
    fn = s4tf.function(lambda h, xs: s4tf.scan(lambda h, x: (h * x + 1.0, h), h, xs))
    text = fn.lower(np.float32(0.5), xs).as_text()
    assert text.count("s4tf.while") == 1 and "s4tf.trip_count = 4" in text
    h, ys = fn(np.float32(0.5), xs)
    wanted, hs = np.float32(0.5), []
    for x in xs:
        hs.append(wanted)
        wanted = wanted * x + 1.0
    assert np.asarray(h).dtype == np.float64 and np.asarray(ys).dtype == np.float32
    np.testing.assert_allclose(np.asarray(h), wanted, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ys), np.array(hs, np.float64), rtol=1e-6)



@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll, loops, bodies", [(1, 1, 1), (2, 1, 2), (4, 1, 6), (True, 0, 6), (False, 1, 1)])
def test_unroll_traces_that_many_steps_an_iteration(unroll, loops, bodies, reverse):
    """JAX's ``unroll``: 6 steps, ``k`` a loop iteration and the rest after it (4: one
    iteration of four, then two); the same values as a Python loop."""
    run = s4tf.function(lambda h0, xs: s4tf.scan(step, (h0, 0), xs, reverse=reverse, unroll=unroll))
    text = run.lower(np.ones(3), XS).as_text()
    assert (text.count("s4tf.while"), text.count("s4tf.tanh")) == (loops, bodies)
    (h, count), ys = run(np.ones(3), XS)
    expected_h, expected_hs = python_scan(np.ones(3), XS, reverse)
    np.testing.assert_allclose(np.asarray(h), expected_h, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ys["h"]), expected_hs, rtol=1e-12)
    assert int(np.asarray(count)) == len(XS)


def test_length_and_no_xs():
    def count(c, _):
        return c * 2.0, c

    for run in (lambda: s4tf.scan(count, 1.0, None, length=4), lambda: s4tf.function(lambda: s4tf.scan(count, 1.0, None, length=4))()):
        c, ys = run()
        assert float(np.asarray(c)) == 16.0
        np.testing.assert_array_equal(np.asarray(ys), [1.0, 2.0, 4.0, 8.0])


def loss(h0, xs):
    (h, _), ys = s4tf.scan(step, (h0, 0), xs)
    return s4tf.sum(h) + s4tf.sum(ys["norm"] * s4tf.arange(6.0))


def reverse_loss(h0, xs):
    (h, _), ys = s4tf.scan(step, (h0, 0), xs, reverse=True)
    return s4tf.sum(ys["h"][0] * h) + s4tf.sum(ys["norm"])


def unrolled_loss(h0, xs):
    (h, _), ys = s4tf.scan(step, (h0, 0), xs, unroll=4)
    return s4tf.sum(h) + s4tf.sum(ys["norm"] * s4tf.arange(6.0))


@pytest.mark.parametrize("fn", [loss, reverse_loss, unrolled_loss])
def test_derivatives_against_finite_differences(fn):
    """Forward (JVP) and reverse (VJP) mode along random directions."""
    directional_check(fn, [np.ones(3), XS])


def test_grad_against_finite_differences():
    g_h0, g_xs = s4tf.grad(loss, argnums=(0, 1))(np.ones(3), XS)
    value = lambda h0, xs: float(np.asarray(s4tf.function(loss)(h0, xs)))
    eps = 1e-6
    for i in range(3):
        e = np.zeros(3); e[i] = eps
        assert float(np.asarray(g_h0)[i]) == pytest.approx((value(1 + e, XS) - value(1 - e, XS)) / (2 * eps), rel=1e-6)
    e = np.zeros_like(XS); e[2, 1] = eps
    assert float(np.asarray(g_xs)[2, 1]) == pytest.approx((value(np.ones(3), XS + e) - value(np.ones(3), XS - e)) / (2 * eps), rel=1e-6)


def test_errors():
    with pytest.raises(ShapeError, match="leading axes and length must agree, got 5, 6"):
        s4tf.scan(step, (np.ones(3), 0), XS, length=5)
    with pytest.raises(S4tfError, match=r"must return a pair \(carry, y\)"):
        s4tf.function(lambda xs: s4tf.scan(lambda c, x: c, np.ones(3), xs))(XS)
    with pytest.raises(S4tfError, match="over 0 steps"):
        s4tf.scan(step, (np.ones(3), 0), XS[:0])


def test_second_order_reverse_over_forward():
    """The gradient of a directional derivative (reverse over forward; reverse over reverse
    through a loop is the loops' known limit) against finite differences of it."""
    direction = RNG.standard_normal(XS.shape)
    directional = lambda xs: s4tf.jvp(lambda xs: loss(np.ones(3), xs), (xs,), (direction,))[1]
    hvp = np.asarray(s4tf.grad(directional)(XS))
    probe, eps = RNG.standard_normal(XS.shape), 1e-5
    value = lambda xs: float(np.asarray(directional(xs)))
    finite = (value(XS + eps * probe) - value(XS - eps * probe)) / (2 * eps)
    assert float(np.sum(hvp * probe)) == pytest.approx(finite, rel=1e-5)


def test_reverse_mode_keeps_no_checkpoints_of_the_stacked_outputs():
    """The stack of ``ys`` is only written by the loop, so its tapes hold the carry alone:
    200 steps of a float64 3-vector keep 1,025 rows of 24 bytes (and the stacks themselves),
    not rows of the whole (200, 3) stack (55 rows of 4,824 bytes); the gradient still matches a float64 Python loop."""
    from s4tf.passes.module_traits import ModuleTraits

    xs = RNG.standard_normal((200, 3)) * 0.1

    def loss(h0, xs):
        _, ys = s4tf.scan(lambda h, x: (s4tf.tanh(h @ W + x),) * 2, h0, xs)
        return s4tf.sum(ys * ys)

    h0 = np.full(3, 0.2, np.float32)
    grad = s4tf.function(s4tf.grad(loss))
    traits = ModuleTraits.of(grad.lower(h0, xs.astype(np.float32)).lowered_module())
    assert traits.largest_tensor_bytes <= 1025 * 3 * 8, traits

    def numpy_loss(h0):
        h, total = h0, 0.0
        for x in xs:
            h = np.tanh(h @ W + x)
            total += np.sum(h * h)
        return total

    eps = 1e-6
    expected = [(numpy_loss(h0 + eps * e) - numpy_loss(h0 - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(np.asarray(grad(h0, xs.astype(np.float32))), expected, rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("steps", [100, 65, 128])
def test_reverse_mode_of_a_long_scan_reads_every_state_from_its_tape(steps):
    """A scan's trip count is known when compiling, so reverse mode keeps every state (100
    steps of an (8, 64) float64 state: 101 rows of 4 KiB, where 256 KiB of checkpoints
    would be 64 rows and segment replays): no ``if`` choosing replays in the lowered
    module and no loop counting the iterations (two loops: recording and backward), and
    the gradient matches float64 central differences and the same
    loop with a bound known only at run time (which counts, checkpoints and replays). Over
    256 KiB of tapes, each trip runs several steps: 8 of the 64 after the first step, and
    8 of the 99 and of the 127, whose first 3 and 7 run before the loop (``_copies``,
    ``_peeled``)."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((64, 64)) * 0.15
    xs = rng.standard_normal((steps, 8, 64)) * 0.3

    def scanned(h0, xs):
        _, hs = s4tf.scan(lambda h, x: (s4tf.tanh(h @ w + x),) * 2, h0, xs)
        return s4tf.sum(hs * hs[::-1])

    def counted(h0, xs, n):
        return s4tf.fori_loop(0, n, lambda i, h: s4tf.tanh(h @ w + xs[i]), h0)

    h0 = rng.standard_normal((8, 64)) * 0.5
    directional_check(scanned, [h0, xs])
    text = s4tf.function(s4tf.grad(scanned)).lower(h0, xs).stablehlo()
    assert "stablehlo.if" not in text and text.count("stablehlo.while") == 2, text.count("stablehlo.while")
    static = s4tf.function(s4tf.grad(lambda h0, xs: s4tf.sum(counted(h0, xs, steps) ** 2)))(h0, xs)
    run_time = s4tf.function(s4tf.grad(lambda h0, xs, n: s4tf.sum(counted(h0, xs, n) ** 2)))(h0, xs, np.int32(steps))
    np.testing.assert_allclose(np.asarray(static), np.asarray(run_time), rtol=1e-12, atol=1e-12)


def test_reverse_mode_of_a_float64_scan_with_steps_before_its_loop_on_vmvx():
    """20 steps of a (32, 128) float64 state: 19 in the loop, the first 3 of them before it
    and 8 a trip (``_peeled``). Its row reads' derivatives mask their updates with the
    index bounds, which ``vmvx`` failed to compile as a conversion of booleans to float64
    ("'vm.cast.ui32.f32' op result #0 must be 32-bit float, but got 'f64'"); the masks are
    selects now. The gradient equals ``cpu``'s, itself checked against float64 central
    differences."""
    rng = np.random.default_rng(11)
    w = rng.standard_normal((128, 128)) / np.sqrt(128) * 0.8
    xs = rng.standard_normal((20, 32, 128)) * 0.3

    def loss(w, xs):
        h, ys = s4tf.scan(lambda h, x: (s4tf.tanh(h @ w + x), s4tf.sum(h * h)), xs[0] * 0, xs)
        return s4tf.sum(ys) + s4tf.sum(h * h)

    directional_check(lambda w: loss(w, xs), [w])
    on_cpu = np.asarray(s4tf.function(s4tf.grad(loss))(w, xs))
    on_vmvx = np.asarray(s4tf.function(s4tf.grad(loss), target="vmvx")(w, xs))
    np.testing.assert_allclose(on_vmvx, on_cpu, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("steps", [3, 10, 17, 64])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradient_of_a_scan_of_scalars_at_every_length(steps, reverse):
    """The gradient of ``sum`` of running totals squared, against its closed form: from 10
    steps on, reverse mode's backward loop failed IREE 3.13 at run time ("indirect buffer
    reference slot 0": tests/passes/test_branch_refs.py); 3 steps become straight-line code
    (``s4tf-unroll-host-loops``), 64 run 8 a trip."""
    def cumulative(total, x):
        total = total + x
        return total, total * total

    xs = np.arange(1.0, steps + 1.0)
    grad = s4tf.function(s4tf.grad(lambda xs: s4tf.sum(s4tf.scan(cumulative, 0.0, xs, reverse=reverse)[1])))(xs)
    totals = np.cumsum(xs[::-1])[::-1] if reverse else np.cumsum(xs)
    wanted = [2 * (totals[: j + 1] if reverse else totals[j:]).sum() for j in range(steps)]
    np.testing.assert_allclose(np.asarray(grad), wanted, rtol=1e-12)


@pytest.mark.parametrize("steps", [17, 64])
def test_the_backward_loop_passes_the_stacks_cotangent_through(steps):
    """A scan's loop sets row ``i`` of its output stack, a row of its own each iteration
    (``s4tf.scan_output``), so reverse mode reads the stack's cotangent rows without
    clearing them: its backward loop (the last of the three) writes no stack-shaped
    buffer, which IREE 3.13 would copy every trip. The same loop written as a ``fori_loop``
    setting the rows itself clears each row it reads; both gradients equal float64 finite
    differences and each other."""
    rng = np.random.default_rng(8)
    w = rng.standard_normal((8, 8)) * 0.3
    xs = rng.standard_normal((steps, 4, 8)) * 0.5
    weights = rng.standard_normal((steps, 4, 8))

    def scanned(h0, xs):
        _, hs = s4tf.scan(lambda h, x: (s4tf.tanh(h @ w + x),) * 2, h0, xs)
        return s4tf.sum(hs * weights)

    def set_by_hand(h0, xs):
        def body(i, state):
            h, hs = state
            h = s4tf.tanh(h @ w + xs[i])
            return h, hs.at[i].set(h)

        _, hs = s4tf.fori_loop(0, steps, body, (h0, s4tf.zeros((steps, 4, 8), np.float64)))
        return s4tf.sum(hs * weights)

    def backward_writes(fn):
        text = s4tf.function(s4tf.grad(fn)).lower(h0, xs).stablehlo()
        backward = text[text.rindex("stablehlo.while("):]
        return [line for line in backward.splitlines()
                if ("scatter" in line or "dynamic_update_slice" in line) and f"-> tensor<{steps}x4x8xf64>" in line]

    h0 = rng.standard_normal((4, 8)) * 0.5
    directional_check(scanned, [h0, xs])
    assert backward_writes(scanned) == []
    assert backward_writes(set_by_hand) != []
    np.testing.assert_allclose(np.asarray(s4tf.function(s4tf.grad(scanned))(h0, xs)),
                               np.asarray(s4tf.function(s4tf.grad(set_by_hand))(h0, xs)), rtol=1e-12, atol=1e-12)


def test_a_python_number_carry_is_a_weak_tensor_in_the_step():
    """As in JAX: the step may call tensor methods on it, an int carry times a float32 ``x``
    is float32, and a float carry that becomes float64 starts as the float64 number, its
    outputs float64 (they were float32, 1.1000000238 for 1.1)."""
    def counting(c, x):
        return c + 1, c.astype(x.dtype) * x

    count, ys = s4tf.function(lambda xs: s4tf.scan(counting, 0, xs))(np.ones(3, np.float32))
    assert int(count) == 3 and ys.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(ys), [0.0, 1.0, 2.0])
    total, partial = s4tf.function(lambda xs: s4tf.scan(lambda c, x: (c + x, c), 0.1, xs))(np.ones(3))
    assert total.dtype == partial.dtype == np.float64
    assert float(total) == 0.1 + 3.0 and list(np.asarray(partial)) == [0.1, 0.1 + 1.0, 0.1 + 2.0]



def test_vmap_of_grad_of_a_scan_whose_step_holds_a_scan_is_jaxs():
    """A step holding a loop runs first on its own before the loop of the others (with all
    steps in the loop, IREE 3.13 failed to compile this: "streamable op expected to be in an
    execution region")."""
    def f(np_, lax, x):
        def outer(c, row):
            c2, ys = lax.scan(lambda c, xi: (c * 0.5 + np_.sin(xi * c), c), c, row)
            return c2 + np_.sum(ys), c2
        c, ys = lax.scan(outer, np_.sum(x) * 0.1, x)
        return c + np_.sum(ys)

    x = np.linspace(0.1, 1.2, 24).reshape(2, 4, 3)
    staged = s4tf.function(lambda x: f(s4tf, s4tf.lax, x))
    assert staged.lower(x[0]).as_text().count("s4tf.while") == 3  # the inner loop in the first step, the outer loop, the inner loop in it
    got = s4tf.function(s4tf.vmap(s4tf.grad(lambda x: f(s4tf, s4tf.lax, x))))(x)
    with jax.enable_x64(True):
        wanted = np.asarray(jax.vmap(jax.grad(lambda x: f(jnp, jax.lax, x)))(x))
    np.testing.assert_allclose(np.asarray(got), wanted, rtol=1e-10)
