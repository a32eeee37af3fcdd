"""Reverse mode through loops keeps no more than JAX does: the residual bytes of an LSTM, a
GRU and GradBench's ODE (RK4) as ``s4tf.saved_residuals`` lists them, against JAX's
``saved_residuals`` of the same program (s4tf checkpoints loops and recomputes; JAX's scan
saves every step's intermediates)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.ad_checkpoint import saved_residuals as jax_saved_residuals  # jax.ad_checkpoint.print_saved_residuals' list

import s4tf
from bench_loops_real import lstm_loss, runge_kutta  # tools/bench: GradBench-style programs in either NumPy
from s4tf.dialects.types import to_numpy_dtype

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


def gru_loss(np_, scan, hidden: int):
    def loss(w, u, xs):
        def step(h, x):
            z = x @ w
            r = 1 / (1 + np_.exp(-(z[:, :hidden] + h @ u[:, :hidden])))
            g = 1 / (1 + np_.exp(-(z[:, hidden:2 * hidden] + h @ u[:, hidden:2 * hidden])))
            n = np_.tanh(z[:, 2 * hidden:] + r * (h @ u[:, 2 * hidden:]))
            h = (1 - g) * n + g * h
            return h, h

        _, hs = scan(step, np_.zeros((xs.shape[1], hidden), np.float32), xs)
        return np_.sum(hs * hs)

    return loss


def _s4tf_bytes(fn, *args) -> int:
    return sum(int(np.prod(t.shape)) * to_numpy_dtype(t.dtype).itemsize for t in s4tf.saved_residuals(fn, *args))


def _jax_bytes(fn, *args) -> int:
    with jax.enable_x64(False):
        return sum(a.size * a.dtype.itemsize for a, _ in jax_saved_residuals(fn, *args))


RNG = np.random.default_rng(0)
HIDDEN, LENGTH, BATCH = 32, 64, 16
XS = RNG.normal(size=(LENGTH, BATCH, HIDDEN)).astype(np.float32)
PROGRAMS = {
    "lstm": (lstm_loss, ((RNG.normal(size=(2 * HIDDEN, 4 * HIDDEN)) * 0.2).astype(np.float32), XS)),
    "gru": (gru_loss, ((RNG.normal(size=(HIDDEN, 3 * HIDDEN)) * 0.2).astype(np.float32),
                       (RNG.normal(size=(HIDDEN, 3 * HIDDEN)) * 0.2).astype(np.float32), XS)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_recurrent_networks_keep_at_most_jaxs_residuals(name):
    program, args = PROGRAMS[name]
    ours = _s4tf_bytes(program(s4tf, lambda f, init, xs: s4tf.scan(f, init, xs), HIDDEN), *args)
    theirs = _jax_bytes(program(jnp, jax.lax.scan, HIDDEN), *args)
    assert 0 < ours <= theirs, (ours, theirs)


def test_the_ode_keeps_at_most_jaxs_residuals():
    x = np.linspace(0.1, 1.0, 1000).astype(np.float32)
    ours = _s4tf_bytes(lambda x: runge_kutta(s4tf, s4tf.fori_loop, x, 10)[-1], x)
    theirs = _jax_bytes(lambda x: runge_kutta(jnp, jax.lax.fori_loop, x, 10)[-1], x)
    assert 0 < ours <= theirs, (ours, theirs)
