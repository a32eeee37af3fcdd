"""Real loop programs whose reverse mode once reached IREE failures, checked against JAX.

GradBench's ODE: a Runge-Kutta ``fori_loop`` whose gradient of ``y[-1]`` seeds the
backward loops with a constant one-hot (IREE 3.13 crashes compiling that unless
``s4tf-runtime-loop-inits`` starts the loops from a value computed at run time:
tests/lit/iree_reproducers/while_constant_init_nested.mlir).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf

jax.config.update("jax_enable_x64", True)


def _ode_fun(np_, x, y):
    return np_.concatenate([x[:1], x[1:] * y[:-1]])


def _runge_kutta(np_, fori_loop, x, steps):
    h = np.float32(2.0 / steps)

    def step(_, y):
        k1 = _ode_fun(np_, x, y)
        k2 = _ode_fun(np_, x, y + h / 2 * k1)
        k3 = _ode_fun(np_, x, y + h / 2 * k2)
        k4 = _ode_fun(np_, x, y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return fori_loop(0, steps, step, np_.zeros_like(x))


@pytest.mark.parametrize("steps", [10, 1030])  # every state on the tape; segments replayed
def test_ode_gradient_of_last_component(steps):
    x = np.linspace(0.1, 1.0, 8).astype(np.float32)
    ours = s4tf.function(s4tf.grad(lambda x: _runge_kutta(s4tf, s4tf.fori_loop, x, steps)[-1]))(x)
    primal = s4tf.function(lambda x: _runge_kutta(s4tf, s4tf.fori_loop, x, steps))(x)
    reference = lambda x: _runge_kutta(jnp, jax.lax.fori_loop, x, steps)
    expected = jax.grad(lambda x: reference(x)[-1])(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(primal), np.asarray(reference(x.astype(np.float64))), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(expected), rtol=1e-3, atol=1e-6)


def test_ode_sigmoid_body_with_tensor_trip_count():
    def ode(x, steps):
        y = s4tf.fori_loop(0, steps, lambda _, y: y + 0.1 * s4tf.sigmoid(x * y), s4tf.ones(8))
        return y[-1]

    def reference(x):
        return jax.lax.fori_loop(0, 10, lambda _, y: y + 0.1 * jax.nn.sigmoid(x * y), jnp.ones(8))[-1]

    x = np.linspace(0.1, 0.8, 8).astype(np.float32)
    ours = s4tf.function(s4tf.grad(ode))(x, np.int32(10))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(jax.grad(reference)(x.astype(np.float64))), rtol=1e-4, atol=1e-6)


def test_gradient_of_the_sum_of_an_lstms_outputs():
    """``sum`` seeds the backward loops with ones (a constant, like the ODE's one-hot)."""
    from s4tf import nn

    rnn = nn.RNN(nn.LSTMCell(6, 4, seed=0))
    sequence = np.random.default_rng(0).normal(size=(2, 5, 6)).astype(np.float32)
    ours = s4tf.grad(lambda rnn, x: s4tf.sum(rnn(x)))(rnn, sequence).cell

    def reference(wx, wh, b, x):
        def step(carry, x_t):
            c, h = carry
            i, f, g, o = jnp.split(x_t @ wx + h @ wh + b, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (c, h), h

        zeros = jnp.zeros((x.shape[0], wh.shape[0]))
        return jax.lax.scan(step, (zeros, zeros), jnp.swapaxes(x, 0, 1))[1].sum()

    weights = [np.asarray(w, np.float64) for w in (rnn.cell.input_kernel, rnn.cell.recurrent_kernel, rnn.cell.bias)]
    expected = jax.grad(reference, argnums=(0, 1, 2))(*weights, sequence.astype(np.float64))
    for got, want in zip((ours.input_kernel, ours.recurrent_kernel, ours.bias), expected):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


def _scanned_sum(np_, scan):
    def loss(x):
        def step(c, xi):
            c = np_.sin(c) * xi + 0.5 * c
            return c, c * c

        c, ys = scan(step, x[0] * 0.1, x)
        return np_.sum(ys) + c

    return loss


def _jvp_of_jvp(jvp, ones_like, f):
    """``f``'s second derivative along ones, as ``jvp`` of ``jvp`` (s4tf's or JAX's)."""
    return lambda x: jvp(lambda y: jvp(f, (y,), (ones_like(y),))[1], (x,), (ones_like(x),))[1]


COMPOSITIONS = {
    "grad": (lambda f: s4tf.grad(f), lambda f: jax.grad(f)),
    "jacfwd of jacfwd": (lambda f: s4tf.jacfwd(s4tf.jacfwd(f)), lambda f: jax.jacfwd(jax.jacfwd(f))),
    "hessian": (lambda f: s4tf.hessian(f), lambda f: jax.hessian(f)),
    "jvp of jvp": (lambda f: _jvp_of_jvp(s4tf.jvp, s4tf.ones_like, f), lambda f: _jvp_of_jvp(jax.jvp, jnp.ones_like, f)),
    "vmap of grad": (lambda f: s4tf.vmap(s4tf.grad(f)), lambda f: jax.vmap(jax.grad(f))),
}


@pytest.mark.parametrize("steps", [12, 40])  # 11 loop steps (a prime: one a trip), 39 (3 a trip)
@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_of_transforms_through_a_scan_equal_jaxs(name, steps):
    """Reverse over forward, forward over forward, twice forward and batched reverse mode
    through a ``scan`` (its loops counted, unrolled and marked by trip count) in float64."""
    ours, theirs = COMPOSITIONS[name]
    x = np.linspace(0.1, 1.0, steps)
    x = np.stack([x, 0.5 * x]) if name.startswith("vmap") else x
    got = s4tf.function(ours(_scanned_sum(s4tf, s4tf.scan)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(theirs(_scanned_sum(jnp, jax.lax.scan))(x)), rtol=1e-9, atol=1e-9)


def _matmul_recurrence(np_, while_loop, w):
    def f(x):
        h0 = np_.tanh(np_.ones((8, 48), x.dtype) * np_.sum(x))

        def keep_going(carry):
            return np_.logical_and(carry[0] < 9, np_.sum(carry[1] * carry[1]) < 1e4)

        def body(carry):
            return carry[0] + 1, np_.tanh(carry[1] @ w + x[0])

        return np_.sum(while_loop(keep_going, body, (np_.asarray(0, np_.int32), h0))[1] ** 2)

    return f


def test_hessian_through_a_host_stepped_while_with_products_equals_jaxs():
    """``s4tf.hessian`` (``jacfwd`` of ``grad``) through a data-dependent ``while`` whose body
    holds a product (host-stepped): the backward pass's ``if`` between its one-loop and its
    segment-replay paths stays a shortcut under the JVP and under a ``vmap`` that does not
    batch its predicate, so a later ``vmap`` runs the general path alone (IREE 3.13 failed the two loops side by side: "operand #6 does not dominate this
    use"). Against JAX's forward over forward (JAX cannot reverse a ``while_loop``)."""
    w = (np.random.default_rng(0).standard_normal((48, 48)) * 0.2).astype(np.float32)
    x = np.array([0.3, -0.2, 0.5], np.float32)
    f = _matmul_recurrence(s4tf, s4tf.while_loop, w)
    with jax.enable_x64(False):
        theirs = np.asarray(jax.jit(jax.jacfwd(jax.jacfwd(_matmul_recurrence(jnp, jax.lax.while_loop, w))))(x))
    for second in (s4tf.hessian(f), s4tf.jacfwd(s4tf.grad(f))):  # jacfwd of jacrev (vmap of a vjp), of grad
        ours = np.asarray(s4tf.function(second)(x))
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * np.abs(theirs).max())


def _row_recurrence(np_, fori_loop):
    def f(x):
        def body(i, rows):
            return rows.at[i].set(np_.sin(x * (i + 1)) + rows[i - 1] * 0.5)

        return np_.sum(fori_loop(1, 6, body, np_.zeros((6, 3), x.dtype)) ** 2)

    return f


def _long_decay(np_, while_loop):
    def f(x):
        def body(carry):
            return carry[0] + 1, carry[1] * 0.999 + 0.001 * np_.sin(x * carry[1])

        return np_.sum(while_loop(lambda carry: carry[0] < 3000, body, (np_.asarray(0, np_.int32), x))[1])

    return f


@pytest.mark.parametrize("program", ["rows", "long"])
def test_vmap_of_grad_through_loops_that_read_and_write_rows_equals_jaxs(program):
    """``vmap`` of ``grad`` (and ``hessian``) through a loop that sets a row of its carry from
    the previous row, and through 3,000 iterations (the tape's rows, per example): each
    batched gather and scatter has its example as a first coordinate. Built with a
    ``concatenate``, two of those in one loop came back from IREE 3.13 with zero gradients
    (tests/lit/iree_reproducers/concatenate_shared_prefix.mlir)."""
    if program == "rows":
        ours, theirs = _row_recurrence(s4tf, s4tf.fori_loop), _row_recurrence(jnp, jax.lax.fori_loop)
    else:
        ours, theirs = _long_decay(s4tf, s4tf.while_loop), _long_decay(jnp, jax.lax.while_loop)
    xs = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3], [-0.5, -0.1, -0.2]], np.float32)
    with jax.enable_x64(False):
        want = np.asarray(jax.jit(jax.vmap(jax.jacfwd(theirs)))(xs))
        want_hessian = np.asarray(jax.jit(jax.jacfwd(jax.jacfwd(theirs)))(xs[0]))
    got = np.asarray(s4tf.function(s4tf.vmap(s4tf.grad(ours)))(xs))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
    got_hessian = np.asarray(s4tf.function(s4tf.hessian(ours))(xs[0]))
    np.testing.assert_allclose(got_hessian, want_hessian, rtol=1e-4, atol=1e-5 * np.abs(want_hessian).max())


def _embedding_scan(np_, scan):
    table = (np.random.default_rng(1).standard_normal((10, 3)) * 0.5).astype(np.float32)
    ids = np.array([1, 4, 4, 7, 2, 9, 0], np.int32)

    def f(x):
        scaled = table * x

        def step(h, i):
            h = np_.tanh(h + scaled[i])
            return h, h

        h, hs = scan(step, x, ids)
        return np_.sum(hs * hs) + np_.sum(h)

    return f


def test_grad_of_a_vmapped_scan_equals_jaxs():
    """Reverse mode of a batched ``scan`` (``grad`` of the sum of a ``vmap``): the batched
    loop keeps its trip count, so its tape holds every state (one loop). Without it, the
    checkpointed recording (loops inside a loop) failed IREE 3.13 ("'scf.while' op along
    control flow edge ... region successor needs 26 inputs")."""
    ours, theirs = _embedding_scan(s4tf, s4tf.scan), _embedding_scan(jnp, jax.lax.scan)
    x = np.array([0.3, -0.2, 0.5], np.float32)
    with jax.enable_x64(False):
        want = np.asarray(jax.jit(jax.grad(lambda x: jnp.sum(jax.vmap(theirs)(jnp.stack([x, 0.7 * x, -x])))))(x))
    got = np.asarray(s4tf.function(s4tf.grad(lambda x: s4tf.sum(s4tf.vmap(ours)(s4tf.stack([x, 0.7 * x, -x])))))(x))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _alternating_nested(np_, lax, x, steps):
    """A ``scan`` whose step holds a ``cond`` whose one branch holds a ``fori_loop``."""
    def step(c, k):
        inner = lambda c: lax.fori_loop(0, 3, lambda j, z: np_.sin(z) * 0.9 + 0.01, c) * 1.01  # noqa: E731
        c = lax.cond(k % 2 == 0, inner, np_.sin, c)
        return c, c.sum()

    c, sums = lax.scan(step, x, np_.arange(steps, dtype=np.int32))
    return sums.sum() + c.sum()


@pytest.mark.parametrize("steps", [3, 17])
def test_grad_of_a_large_scan_whose_step_holds_a_cond_and_a_loop_equals_jaxs(steps):
    """Reverse mode of a scan carrying 40 KB (host-stepped) ran several steps a trip, and
    their copies of the ``cond`` and its loop failed IREE 3.13 ("failed to solve for
    timepoint coverage"): a step holding control flow runs one step a trip."""
    x = np.linspace(0.1, 0.5, 10_000, dtype=np.float32)
    ours = s4tf.function(s4tf.grad(lambda x: _alternating_nested(s4tf, s4tf, x, steps)))(x)
    theirs = jax.grad(lambda x: _alternating_nested(jnp, jax.lax, x, steps))(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5)


def _grow_until(np_, while_loop, x):
    """A ``while`` carrying an int32 counter, a bool (stop once the sum passes 2) and a
    vector: each example stops at its own iteration under ``vmap``."""
    def keep_going(state):
        return np_.logical_and(state[0] < 30, np_.logical_not(state[1]))

    def step(state):
        i, _, y = state
        y = np_.sin(y) * 1.1 + 0.1
        return i + 1, np_.sum(y) > 2.0, y

    return np_.sum(while_loop(keep_going, step, (np.int32(0), np.bool_(False), x))[2] ** 2)


def test_vmap_of_hessian_through_a_while_carrying_a_bool_equals_jaxs():
    """Reverse mode keeps the bool on an int8 tape; under ``vmap`` each example's row
    writes were a ``set`` scatter whose dispatch IREE 3.13 never finished tiling
    (tests/lit/iree_reproducers/scatter_set_i8_tiling_hangs.mlir)."""
    x = np.linspace(0.1, 0.9, 12).reshape(4, 3)
    ours = s4tf.function(s4tf.vmap(s4tf.hessian(lambda x: _grow_until(s4tf, s4tf.while_loop, x))))(x.astype(np.float32))
    theirs = jax.vmap(jax.jacfwd(jax.jacfwd(lambda x: _grow_until(jnp, jax.lax.while_loop, x))))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=1e-6)


def _nested_loops(np_, fori_loop, x):
    """A 17-step ``fori_loop`` holding a 3-step one."""
    def inner(y):
        return fori_loop(0, 3, lambda j, z: np_.sin(z) * 0.9 + 0.01, y) * 1.01

    return np_.sum(fori_loop(0, 17, lambda i, y: inner(y), x) ** 2)


@pytest.mark.parametrize("target, size", [("vmvx", 8), ("cpu", 10_000)])
def test_grad_of_the_sum_of_a_vmap_of_nested_loops_equals_jaxs(target, size):
    """The batched loops took example 0 of their counters broadcast to the batch, and IREE
    3.13 failed on those broadcasts of host scalars in the nested loops of reverse mode
    (tests/lit/iree_reproducers/while_nested_batched_splat.mlir); on cpu 3 x 10,000 floats
    keep the loops host-stepped."""
    x = np.linspace(0.1, 0.5, size)
    xs = np.stack([x, x * 1.3, x * 0.7])
    loss = lambda np_, fori_loop, vmap: lambda xs: vmap(lambda x: _nested_loops(np_, fori_loop, x))(xs).sum()  # noqa: E731
    ours = s4tf.function(s4tf.grad(loss(s4tf, s4tf.fori_loop, s4tf.vmap)), target=target)(xs.astype(np.float32))
    theirs = jax.grad(loss(jnp, jax.lax.fori_loop, jax.vmap))(xs)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=1e-7)


def _rows_set_by_hand(np_, fori_loop, w, weights):
    steps = weights.shape[0]

    def f(h0, xs):
        xs = np_.asarray(xs)

        def body(i, state):
            h, hs = state
            h = np_.tanh(h @ w + xs[i])
            return h, hs.at[i].set(h)

        _, hs = fori_loop(0, steps, body, (h0, np_.zeros(weights.shape, h0.dtype)))
        return np_.sum(hs * weights)

    return f


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
@pytest.mark.parametrize("steps", [17, 64])
def test_grad_of_a_fori_loop_setting_rows_of_its_outputs_equals_jaxs(steps, target):
    """A ``fori_loop`` collecting its outputs with ``hs.at[i].set(h)`` (``scan`` written by
    hand): its backward loop starts from the cotangent of ``sum(hs * weights)``, computed
    between the forward and backward loops. One dispatch region for both computed it as a
    vector where the backward loop holds it in memory, and ``s4tf-loops-to-dispatch``
    built an invalid ``scf.while``: the gradient did not compile."""
    rng = np.random.default_rng(8)
    w = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    weights = rng.standard_normal((steps, 4, 8)).astype(np.float32)
    h0 = (rng.standard_normal((4, 8)) * 0.5).astype(np.float32)
    xs = (rng.standard_normal((steps, 4, 8)) * 0.5).astype(np.float32)
    ours = [s4tf.function(s4tf.grad(_rows_set_by_hand(s4tf, s4tf.fori_loop, w, weights), argnums=k), target=target)(h0, xs)
            for k in (0, 1)]
    with jax.enable_x64(False):
        theirs = [jax.grad(_rows_set_by_hand(jnp, jax.lax.fori_loop, w, weights), argnums=k)(h0, xs) for k in (0, 1)]
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def _gauss_seidel(np_, fori_loop):
    a = (np.random.default_rng(5).standard_normal((5, 5)) * 0.1 + np.eye(5) * 2).astype(np.float32)

    def f(b):
        matrix = np_.asarray(a)

        def sweep(_, v):
            def row(i, v):
                rest = matrix[i] @ v - matrix[i, i] * v[i]
                return v.at[i].set((b[i] - rest) / matrix[i, i])

            return fori_loop(0, 5, row, v)

        return np_.sum(fori_loop(0, 4, sweep, np_.zeros(5, b.dtype)) ** 2)

    return f


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
@pytest.mark.parametrize("transform", ["value", "grad", "jacfwd", "hessian"])
def test_gauss_seidel_equals_jaxs(transform, target):
    """Four Gauss-Seidel sweeps, each a ``fori_loop`` setting one element per iteration. Its
    value and gradient crashed IREE 3.13 on ``cpu`` while ``a[i, i]``, ``v[i]`` and ``b[i]``
    were gathers fused into one scalar op
    (tests/lit/iree_reproducers/gauss_seidel_row_update_crashes.mlir): a gather of one
    element now comes out through an ``optimization_barrier``."""
    b = np.linspace(0.5, 1.5, 5).astype(np.float32)
    ours_t = {"value": lambda f: f, "grad": s4tf.grad, "jacfwd": s4tf.jacfwd, "hessian": s4tf.hessian}[transform]
    theirs_t = {"value": lambda f: f, "grad": jax.grad, "jacfwd": jax.jacfwd, "hessian": jax.hessian}[transform]
    got = s4tf.function(ours_t(_gauss_seidel(s4tf, s4tf.fori_loop)), target=target)(b)
    with jax.enable_x64(False):
        want = jax.jit(theirs_t(_gauss_seidel(jnp, jax.lax.fori_loop)))(b)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def _two_rows_a_step(np_, fori_loop):
    def f(x):
        def body(i, state):
            h, hs = state
            h = np_.tanh(h * 1.1 + x[i])
            return h, hs.at[2 * i].set(h).at[2 * i + 1].set(h * h)

        _, hs = fori_loop(0, 4, body, (np_.zeros((), x.dtype), np_.zeros(8, x.dtype)))
        return np_.sum(hs * np_.arange(8, dtype=x.dtype))

    return f


def test_grad_of_the_sum_of_a_vmap_of_a_loop_setting_two_rows_a_step_equals_jaxs():
    """On ``vmvx`` the backward loop of 4 steps is inlined (``s4tf-unroll-host-loops``), and
    a scatter whose operand was another scatter's result, read elsewhere too, was written
    into that operand's buffer: the gradient was a quarter of JAX's. A scatter result read
    elsewhere is now copied before another scatter writes into it (dialects/hlo.py,
    ``unshared``)."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05
    xs = np.stack([x, x * 0.9, x * 1.1])
    loss = lambda np_, fori_loop, vmap: lambda xs: vmap(_two_rows_a_step(np_, fori_loop))(xs).sum()  # noqa: E731
    ours = s4tf.function(s4tf.grad(loss(s4tf, s4tf.fori_loop, s4tf.vmap)), target="vmvx")(xs)
    with jax.enable_x64(False):
        theirs = jax.grad(loss(jnp, jax.lax.fori_loop, jax.vmap))(xs)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def _scan_holding_a_cond(np_, lax):
    def f(x):
        def step(c, v):
            c = lax.cond(np_.sum(c) > 0, lambda c: c * 0.5 + v, lambda c: c - v * v, c)
            return c, np_.sum(c)

        c, ys = lax.scan(step, x[0], x[1:])
        return np_.sum(c) + np_.sum(ys * ys)

    return f


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_jvp_of_jvp_through_a_scan_holding_a_cond_equals_jaxs(target):
    """The scan's first step returns one tangent to both tangent carries of the loop (the two
    directions are equal); its 6 other steps, straight-line code once inlined by
    ``s4tf-unroll-host-loops``, gave IREE 3.13 a branch's dispatch region whose two results it
    found equal, and it gave one of them the other's elements (261.67 for 265.70). Such loops
    now stay loops."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05
    ours = s4tf.function(_jvp_of_jvp(s4tf.jvp, s4tf.ones_like, _scan_holding_a_cond(s4tf, s4tf.lax)), target=target)(x)
    with jax.enable_x64(True):
        exact = _jvp_of_jvp(jax.jvp, jnp.ones_like, _scan_holding_a_cond(jnp, jax.lax))(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(exact), rtol=1e-5)



def _aux_update(value_and_grad, f):
    """A step updating ``x`` by ``f``'s value, gradient and an ``aux`` output
    (``value_and_grad(..., has_aux=True)``)."""
    def run(x):
        (value, aux), g = value_and_grad(lambda y: (f(y), y * 2.0), has_aux=True)(x)
        return x - 0.1 * g + aux + value

    return run

@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_value_and_grad_with_aux_beside_an_update_through_a_loop_setting_two_rows_equals_jaxs(target):
    """The backward loop of 4 steps, inlined by ``s4tf-unroll-host-loops``, cleared a row of
    the stack's cotangent in place before reading it (IREE 3.13 writes a
    ``dynamic_update_slice`` into a buffer a later gather reads): the value came out 0."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05

    ours = s4tf.function(_aux_update(s4tf.value_and_grad, _two_rows_a_step(s4tf, s4tf.fori_loop)), target=target)(x)
    with jax.enable_x64(False):
        theirs = jax.jit(_aux_update(jax.value_and_grad, _two_rows_a_step(jnp, jax.lax.fori_loop)))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def _scan_over_pairs(np_, lax):
    def f(x):
        def step(c, pair):
            a, b = pair
            c = {"s": c["s"] * 0.8 + a * b, "m": np_.maximum(c["m"], a)}
            return c, (c["s"], c["m"] * a)

        c, (s, m) = lax.scan(step, {"s": x[0] * 0.0, "m": x[0] * 0.0 - 5.0}, (x, x * x))
        return np_.sum(s * m) + c["s"] + c["m"]

    return f


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_value_and_grad_with_aux_through_a_scan_over_pairs_equals_jaxs(target):
    """Its loops, straight-line code once inlined, clear the stacks' rows last first with
    rows IREE 3.13 folds to constants and merges into fills with a wrong range: the last
    element was 6.1 off on ``cpu``."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05

    ours = s4tf.function(_aux_update(s4tf.value_and_grad, _scan_over_pairs(s4tf, s4tf.lax)), target=target)(x)
    with jax.enable_x64(False):
        theirs = jax.jit(_aux_update(jax.value_and_grad, _scan_over_pairs(jnp, jax.lax)))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def _halve_until_small(np_, while_loop):
    def f(x):
        def keep_going(state):
            return state["err"] > 1e-3

        def body(state):
            v = state["v"] * 0.5
            return {"err": np_.sum(np_.abs(v)), "v": v, "k": state["k"] + 1}

        state = while_loop(keep_going, body, {"err": np_.asarray(1.0, x.dtype), "v": x, "k": 0})
        return state["err"] + state["k"].astype(x.dtype)

    return f


@pytest.mark.parametrize("target, size", [("vmvx", 8), ("cpu", 100_000)])
def test_a_while_loop_returning_the_residual_it_stops_on_equals_jaxs(target, size):
    """Host-stepped (every loop on ``vmvx``; on ``cpu`` past the one-dispatch limit), the
    loop's body replaces the residual its condition reads without reading it, and IREE 3.13
    failed to compile it ("unresolved source materialization"); ``s4tf-tie-condition-carries``
    makes the body read it."""
    x = (np.linspace(0.1, 1.0, size) / size).astype(np.float32)
    ours = s4tf.function(_halve_until_small(s4tf, s4tf.while_loop), target=target)(x)
    with jax.enable_x64(False):
        theirs = jax.jit(_halve_until_small(jnp, jax.lax.while_loop))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5)


def test_grad_of_a_while_loop_returning_the_residual_it_stops_on_equals_jaxs():
    """On ``vmvx`` the backward loop sets the residual's cotangent to zeros after its first
    step (a value not computed from the carries), and IREE 3.13 failed to compile it ("region
    branch point has 6 operands, but region successor needs 8 inputs")."""
    x = (np.linspace(0.1, 1.0, 8) / 8).astype(np.float32)
    ours = s4tf.function(s4tf.grad(_halve_until_small(s4tf, s4tf.while_loop)), target="vmvx")(x)
    with jax.enable_x64(False):
        theirs = jax.jacfwd(_halve_until_small(jnp, jax.lax.while_loop))(x)  # JAX cannot reverse a while_loop
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5)


def _relax_with_flags(np_, while_loop):
    """A relaxation stopping on a flag and a residual its body computes without reading them,
    beside an index it replaces likewise: float, bool and int carries of several kinds."""
    def f(x):
        def keep_going(state):
            return (state["k"] < 15) & (state["err"] > 1e-3) & ~state["done"]

        def body(state):
            v = state["v"] - 0.3 * (state["v"] - x * x)
            err = np_.max(np_.abs(v - x * x))
            return {"k": state["k"] + 1, "v": v, "err": err, "done": err < 2e-3, "at": np_.argmax(v)}

        start = {"k": 0, "v": x, "err": np_.asarray(1.0, x.dtype), "done": np_.asarray(False), "at": 0}
        state = while_loop(keep_going, body, start)
        return np_.sum(state["v"]) + state["err"] + state["at"].astype(x.dtype) + state["done"].astype(x.dtype)

    return f


@pytest.mark.parametrize("target", ["vmvx", "cpu"])
def test_jvp_of_jvp_of_a_while_loop_over_a_dict_stopping_on_what_it_replaces_equals_jaxs(target):
    """The forward-over-forward loop replaces four residual carries (the value and three
    tangents) without reading them; with each beside itself in a barrier IREE 3.13's module
    failed at run time on ``vmvx`` ("indirect buffer reference slot 0 is out range";
    tests/lit/iree_reproducers/while_carries_read_by_barriers_only.mlir)."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05
    f, f_jax = _relax_with_flags(s4tf, s4tf.while_loop), _relax_with_flags(jnp, jax.lax.while_loop)
    ours = s4tf.function(_jvp_of_jvp(s4tf.jvp, s4tf.ones_like, f), target=target)
    with jax.enable_x64(False):
        theirs = jax.jit(_jvp_of_jvp(jax.jvp, jnp.ones_like, f_jax))
        np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5)
        value = s4tf.function(f, target=target)
        np.testing.assert_allclose(np.asarray(value(x)), np.asarray(jax.jit(f_jax)(x)), rtol=1e-6)


def _shrink_in_rounds(np_, lax):
    def f(x):
        def outer(i, y):
            def keep_going(state):
                return (state[0] < 3 + i) & (np_.sum(state[1] ** 2) > 0.1)

            return lax.while_loop(keep_going, lambda state: (state[0] + 1, state[1] * 0.7 + 0.01 * x), (0, y))[1] + 0.1 * x

        return np_.sum(lax.fori_loop(0, 4, outer, x) ** 2)

    return f


def test_grad_of_the_sum_of_a_vmap_of_a_while_in_a_fori_loop_equals_jaxs():
    """Its region made 110,700 bytes of tapes that four loops start from, and IREE 3.13 asked
    for 553,920 bytes of stack buffers on ``cpu`` ("exceeded stack allocation limit of 524288
    bytes"): the tapes a region makes now count once and once more for each loop starting
    from them (tests/lit/passes/s4tf-loops-to-dispatch-made-tapes.mlir)."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05
    xs = np.stack([x, x * 0.9, x * 1.1])
    f, f_jax = _shrink_in_rounds(s4tf, s4tf.lax), _shrink_in_rounds(jnp, jax.lax)
    ours = s4tf.function(s4tf.grad(lambda xs: s4tf.sum(s4tf.vmap(f)(xs))))(xs)
    with jax.enable_x64(False):
        theirs = jax.jit(jax.jacfwd(lambda xs: jnp.sum(jax.vmap(f_jax)(xs))))(xs)  # JAX cannot reverse a while_loop
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-7)


def _walk_until(np_, lax):
    """A search whose int result indexes the data after the loop."""
    def f(x):
        def keep_going(state):
            return (state[0] < 7) & (state[1] < 1.5)

        def body(state):
            return state[0] + 1, state[1] + np_.abs(x[state[0]])

        i, total = lax.while_loop(keep_going, body, (0, np_.asarray(0.0, x.dtype)))
        return total * x[i] + x[(i + 1) % 8] ** 2

    return f


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_jvp_of_jvp_of_a_while_loop_whose_result_indexes_the_data_equals_jaxs(target):
    """The loop carries the tangents of constants (zeros) unchanged and reads their elements
    at the counter; the barrier around such an element made IREE 3.13's module fail at run
    time ("binding table slot requires a buffer but none was provided"):
    ``s4tf-constant-carries`` reads them from the constants, without the barrier."""
    x = np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05
    f, f_jax = _walk_until(s4tf, s4tf.lax), _walk_until(jnp, jax.lax)
    ours = s4tf.function(_jvp_of_jvp(s4tf.jvp, s4tf.ones_like, f), target=target)
    with jax.enable_x64(False):
        theirs = jax.jit(_jvp_of_jvp(jax.jvp, jnp.ones_like, f_jax))
        np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-6)


def _windows(np_, lax):
    def f(x):
        def body(i, acc):
            return acc + np_.prod(np_.tanh(lax.dynamic_slice(x, (i,), (3,)))) * np_.cos(acc)

        return lax.fori_loop(0, 6, body, np_.asarray(0.0, x.dtype))

    return f


@pytest.mark.parametrize("target, dtype", [("cpu", np.float64), ("cpu", np.float32), ("vmvx", np.float32)])
def test_jvp_of_jvp_of_a_fori_loop_over_windows_equals_jaxs(target, dtype):
    """Inlined as straight-line code (a loop of up to 8 steps) starting from constants,
    IREE 3.13 got this wrong (1.9784 for 1.9749): it hoists the constant expressions into
    globals and fuses producers with several uses
    (tests/lit/iree_reproducers/fuse_multi_use_wrong_result.mlir); s4tf-unroll-host-loops
    starts the copies from the constants behind a barrier."""
    x = (np.linspace(0.2, 1.1, 8).astype(np.float32) * np.where(np.arange(8) % 2, 1, -1).astype(np.float32) + 0.05).astype(dtype)
    f, f_jax = _windows(s4tf, s4tf.lax), _windows(jnp, jax.lax)
    ours = s4tf.function(_jvp_of_jvp(s4tf.jvp, s4tf.ones_like, f), target=target)
    with jax.enable_x64(dtype == np.float64):
        theirs = jax.jit(_jvp_of_jvp(jax.jvp, jnp.ones_like, f_jax))
        np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-10 if dtype == np.float64 else 1e-5)


def _newton_sqrt(np_, lax):
    def f(x):
        def going(c):
            return (c[1] < 20) & (np_.max(np_.abs(c[0] * c[0] - x)) > 1e-6)

        y, _ = lax.while_loop(going, lambda c: (0.5 * (c[0] + x / c[0]), c[1] + 1), (x + 1.0, 0))
        return np_.sum(y)

    return f


def _descent_with_a_flag(np_, lax):
    def f(x):
        def step(c):
            v, k, _ = c
            v = v - 0.1 * np_.sin(v)
            return v, k + 1, np_.sum(v * v) < 0.5

        v, _, done = lax.while_loop(lambda c: ~c[2] & (c[1] < 30), step, (x, 0, False))
        return np_.sum(np_.where(done, v * 2.0, v))

    return f


def _traced_trip_count(np_, lax):
    def f(x):
        n = (np_.sum(x > 0) + 2).astype(int)
        return np_.sum(lax.fori_loop(0, n, lambda i, c: np_.sin(c) + x * 0.1, x))

    return f


def _jvp_of_grad(jvp, grad, ones_like, f):
    """A Hessian-vector product along ones: forward mode over reverse mode."""
    return lambda x: jvp(grad(f), (x,), (ones_like(x),))[1]


@pytest.mark.parametrize("program", [_newton_sqrt, _descent_with_a_flag, _traced_trip_count])
def test_jvp_of_grad_through_a_data_dependent_while_loop_equals_jaxs(program):
    """Forward mode over reverse mode of a ``while_loop`` that stops on its values: the
    backward pass's tape and its tangent are carried by one loop inside a dispatch, which IREE
    3.13 failed to bufferize ("Condition arg #7 is not equivalent to the corresponding iter
    bbArg") while a predicate came before them among the loop's values. JAX's peer is
    forward mode twice (it cannot reverse-differentiate ``while_loop``)."""
    x = np.array([0.7, 1.3, 2.2, 0.4])
    ours = s4tf.function(_jvp_of_grad(s4tf.jvp, s4tf.grad, s4tf.ones_like, program(s4tf, s4tf.lax)))(x)
    exact = _jvp_of_grad(jax.jvp, jax.jacfwd, jnp.ones_like, program(jnp, jax.lax))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(exact), rtol=1e-12)


def _scan_holding_a_map(np_, lax):
    def f(x):
        def step(c, rows):
            m = lax.map(lambda r: np_.sum(np_.tanh(r * c)), rows)
            return c + np_.mean(m), m

        c, ms = lax.scan(step, 0.5, x)
        return c * np_.sum(ms)

    return f


def test_jvp_of_grad_through_a_scan_holding_a_map_equals_jaxs():
    """The backward loop gathers zero cotangent rows from a constant; IREE 3.13 folded that
    into a fill, cloned it into the loop's dispatch and refused the dispatch's other writes
    ("'memref.store' op write affecting operations on global resources are restricted to
    workgroup distributed contexts"): the dispatch now makes those rows itself."""
    x = np.random.default_rng(3).normal(size=(3, 2, 4))
    ours = s4tf.function(_jvp_of_grad(s4tf.jvp, s4tf.grad, s4tf.ones_like, _scan_holding_a_map(s4tf, s4tf.lax)))(x)
    exact = _jvp_of_grad(jax.jvp, jax.grad, jnp.ones_like, _scan_holding_a_map(jnp, jax.lax))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(exact), rtol=1e-12)


def test_jvp_of_grad_through_a_host_stepped_data_dependent_while_loop_equals_jaxs():
    """Forward over reverse mode of a ``while_loop`` that stops on its values, with its loops
    stepped from the host (``vmvx``): IREE 3.13 failed it at run time ("indirect buffer
    reference slot 0 is out range": its VM register allocator emptied a loop's buffer,
    which s4tf-distinct-branch-refs keeps distinct)."""
    x = np.array([0.7, 1.3, 2.2, 0.4], np.float32)
    ours = s4tf.function(_jvp_of_grad(s4tf.jvp, s4tf.grad, s4tf.ones_like, _descent_with_a_flag(s4tf, s4tf.lax)),
                         target="vmvx")(x)
    exact = _jvp_of_grad(jax.jvp, jax.jacfwd, jnp.ones_like, _descent_with_a_flag(jnp, jax.lax))(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(exact), rtol=1e-5)


def _running(xs):
    return s4tf.scan(lambda c, x: (c + x, c * x), xs[0] * 0, xs)


@pytest.mark.parametrize("steps", [16, 1000])
def test_a_scan_over_the_elements_of_a_vector_runs_inside_one_dispatch_as_numpy(steps):
    """Each step reads one element (``xs[i]``: a gather without offset dimensions, which the
    one-dispatch path refused). 1,000 steps write their outputs to a tape of 8,000 bytes,
    which starts as zeros (a constant), so it is made inside the dispatch too."""
    from s4tf.passes.pipeline import lowering_pipeline

    xs = np.linspace(0.0, 1.0, steps)
    text = s4tf.function(_running).lower(xs).stablehlo(lowering_pipeline("cpu"))
    assert "flow.dispatch.region" in text and "stablehlo.while" not in text
    total, products = (np.asarray(r) for r in s4tf.function(_running)(xs))
    sums = np.concatenate([[0.0], np.cumsum(xs)[:-1]])
    np.testing.assert_allclose(total, xs.sum(), rtol=1e-12)
    np.testing.assert_allclose(products, sums * xs, rtol=1e-12)


def test_a_scan_over_the_elements_of_a_vector_on_vmvx():
    """On vmvx the loop is stepped from the host, several steps a trip
    (s4tf-unroll-host-loops). Stepped so, IREE 3.13 alone fails it at run time ("indirect
    buffer reference slot 0": its VM register allocator, which s4tf-distinct-branch-refs
    mends; tests/passes/test_branch_refs.py)."""
    from s4tf.passes.pipeline import lowering_pipeline

    xs = np.linspace(0.0, 1.0, 16).astype(np.float32)
    assert "s4tf.trip_count = 2 :" in s4tf.function(_running).lower(xs).stablehlo(lowering_pipeline("vmvx"))  # 16 steps, 8 a trip
    total, products = (np.asarray(r) for r in s4tf.function(_running, target="vmvx")(xs))
    sums = np.concatenate([[0.0], np.cumsum(xs)[:-1]])
    np.testing.assert_allclose(total, xs.sum(), rtol=1e-6)
    np.testing.assert_allclose(products, sums * xs, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("steps", [0, 1, 15, 16, 17, 33, 256, 257, 300, 1000])
def test_grad_of_a_while_over_a_large_state_with_a_run_time_bound_equals_jaxs(steps):
    """A ``while`` over 8,192 float64s (64 KiB: 16 checkpoints and a spare row, 1 MiB of
    tape) to a bound given at run time: each checkpoint is written once, by a loop a
    checkpoint around the iterations up to the next (IREE 3.13 copies a host-stepped loop's
    updated tapes every trip); 300 and 1,000 iterations replay segments of 32 and 64 from
    checkpoints of their own, 2 and 4 apart. Against JAX's ``grad`` of ``fori_loop``."""
    x = np.linspace(-1.0, 1.0, 8192)

    def loss(np_, while_loop, n):
        def f(x):
            step = lambda c: (c[0] + 1, c[1] * 0.999 + 0.01 * np_.tanh(c[1]) * c[1])  # noqa: E731
            return np_.sum(while_loop(lambda c: c[0] < n, step, (np.int32(0), x))[1] ** 2)
        return f

    ours = s4tf.function(lambda x, n: s4tf.value_and_grad(loss(s4tf, s4tf.while_loop, n))(x))(x, np.int32(steps))
    value = loss(jnp, jax.lax.while_loop, steps)(x)
    fori = jax.grad(lambda x: jnp.sum(jax.lax.fori_loop(0, steps, lambda i, y: y * 0.999 + 0.01 * jnp.tanh(y) * y, x) ** 2))(x)
    np.testing.assert_allclose(float(ours[0]), float(value), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(fori), rtol=1e-11, atol=1e-14)


def _large_state_loop(x, n, rate=0.999):
    """``y`` after ``n`` steps of ``y * rate + 0.01 tanh(y) y`` from ``x``, in a ``while`` to
    the run-time bound ``n``."""
    step = lambda c: (c[0] + 1, c[1] * rate + 0.01 * s4tf.tanh(c[1]) * c[1])  # noqa: E731
    return s4tf.while_loop(lambda c: c[0] < n, step, (np.int32(0), x))[1]


def _large_state_loss(x, n, rate=0.999):
    """``sum(y ** 2)`` of :func:`_large_state_loop`."""
    return s4tf.sum(_large_state_loop(x, n, rate) ** 2)


def _large_state_gradient_numpy(x, n, rate=0.999):
    """The gradient of :func:`_large_state_loss`: the steps' elementwise derivatives, last first."""
    states, y = [], x.copy()
    for _ in range(n):
        states.append(y)
        y = y * rate + 0.01 * np.tanh(y) * y
    gradient = 2 * y
    for state in reversed(states):
        t = np.tanh(state)
        gradient = gradient * (rate + 0.01 * (t + state * (1 - t * t)))
    return gradient


@pytest.mark.parametrize("steps", [4096, 4100])
def test_grad_of_a_long_large_state_while_equals_numpys(steps):
    """4,096 iterations over 4,096 float64s keep checkpoints 256 apart, their segments'
    16 apart (the most the 16 registers the backward steps pop hold); 4,100 keep them 512
    and 32 apart, where the steps recompute each state from its checkpoint instead."""
    x = np.linspace(-1.0, 1.0, 4096)
    gradient = s4tf.function(s4tf.grad(lambda x, n: _large_state_loss(x, n, 0.99)))(x, np.int32(steps))
    np.testing.assert_allclose(np.asarray(gradient), _large_state_gradient_numpy(x, steps, 0.99), rtol=1e-10)


@pytest.mark.parametrize("steps", [100, 1000])
def test_the_pullback_of_a_large_state_while_equals_numpys(steps):
    """``s4tf.vjp`` of a ``while`` over 4,096 float64s and its pullback, a module of its own
    given the cotangent: IREE 3.13 refused the loop popping the backward states while a
    pop passed the first register on to two others ("region branch point has 34 operands,
    but region successor needs 64 inputs"); a pop now rotates the registers."""
    x = np.random.default_rng(5).uniform(0.1, 0.5, 4096)
    y, pullback = s4tf.vjp(_large_state_loop, x, np.int32(steps))
    gradient = pullback(2.0 * np.asarray(y))[0]  # the cotangent of sum(y ** 2), with respect to x
    np.testing.assert_allclose(np.asarray(gradient), _large_state_gradient_numpy(x, steps), rtol=1e-11)


@pytest.mark.parametrize("per_example", [True, False])
def test_vmap_of_the_grad_of_a_large_state_while_equals_numpys(per_example):
    """``vmap`` of the gradient of a ``while`` over 4,096 float64s an example (checkpoints in
    registers): with a trip count per example (37 and 300: the segments differ by example,
    and the backward steps recompute their states, the shortcut to popping them from
    registers) and one for all (1,000: popped from registers, batched)."""
    x = np.stack([np.linspace(-1.0, 1.0, 4096), np.linspace(-0.5, 1.5, 4096)])
    n = np.array([37, 300], np.int32) if per_example else np.int32(1000)
    gradients = s4tf.function(s4tf.vmap(s4tf.grad(_large_state_loss), in_axes=(0, 0 if per_example else None)))(x, n)
    for i in range(2):
        steps = int(n[i]) if per_example else int(n)
        np.testing.assert_allclose(np.asarray(gradients)[i], _large_state_gradient_numpy(x[i], steps), rtol=1e-11)


@pytest.mark.parametrize("steps, limit", [(0, 2.0), (40, 2.0), (300, 2.0), (300, 0.06), (1000, 0.2)])
def test_grad_of_a_large_state_while_carrying_a_flag_equals_numpys(steps, limit):
    """A ``while`` over 8,192 float64s carrying a boolean it sets from the state (``done``
    once the mean passes ``limit``: after 52 and 545 iterations here) and a counter:
    its checkpoints, flag included, are kept in shift registers (a byte tape of the
    flags); the gradient against NumPy's product of the steps' derivatives."""
    x = np.linspace(0.01, 0.1, 8192)

    def loss(x, n):
        def body(c):
            i, y, _ = c
            y = y * 1.001 + 0.01 * s4tf.tanh(y) * y
            return i + 1, y, s4tf.mean(y) > limit

        return s4tf.sum(s4tf.while_loop(lambda c: (c[0] < n) & ~c[2], body, (np.int32(0), x, np.bool_(False)))[1])

    gradient = s4tf.function(s4tf.grad(loss))(x, np.int32(steps))
    y, dy, i = x.copy(), np.ones_like(x), 0
    while i < steps:
        t = np.tanh(y)
        y, dy, i = y * 1.001 + 0.01 * t * y, dy * (1.001 + 0.01 * (t + y * (1 - t * t))), i + 1
        if y.mean() > limit:
            break
    np.testing.assert_allclose(np.asarray(gradient), dy, rtol=1e-12)
