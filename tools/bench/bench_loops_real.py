"""Loops in programs written by others: s4tf beside JAX in one process, on the same inputs.

```
python tools/bench/bench_loops_real.py                 # GradBench's sizes, 10 rounds
python tools/bench/bench_loops_real.py --small --repeats 2   # a smoke run
```

Programs (after GradBench's evaluations and a language model's recurrence):

- ``ode``: the gradient of ``y[-1]`` after a Runge-Kutta ``fori_loop`` of 10 steps over
  ``n`` float32s (GradBench's ``ode``; JAX: ``jax.grad`` through ``lax.fori_loop``);
- ``saddle``: the derivative of a saddle point's value through a gradient-descent ``while``
  whose step adapts with ``if/elif/else`` and stops on a bool or an int counter (GradBench's
  ``saddle`` in one dimension). s4tf: reverse mode (``s4tf.grad``) through the
  data-dependent loop; JAX cannot reverse-differentiate ``lax.while_loop``, so its peer is
  forward mode (``jax.jacfwd``);
- ``particle``: the forward derivative of where a particle lands after an Euler loop whose
  every step takes ``jacfwd`` of a potential (GradBench's ``particle``; both ``jacfwd``);
- ``lstm``: the gradient of an LSTM's loss over ``scan`` with respect to its weights
  (``T`` steps, batch 16; JAX: ``lax.scan``).

Each figure is the median over rounds that call every contender in turn, after one
timed first call (staging and compilation: "first call"); results are checked against
JAX's first. Figures and the machine they were taken on: docs/control-flow.md.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import s4tf
from bench_while_grad import median_seconds  # beside this script (tools/bench/)


def runge_kutta(np_, fori_loop, x, steps: int):
    h = np.float32(2.0 / steps)

    def field(y):
        return np_.concatenate([x[:1], x[1:] * y[:-1]])

    def step(_, y):
        k1 = field(y)
        k2 = field(y + h / 2 * k1)
        k3 = field(y + h / 2 * k2)
        k4 = field(y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return fori_loop(0, steps, step, np_.zeros_like(x))


def saddle_value(x, p):
    return (x - 1.0) ** 2 + (p - 2.0) ** 2 + x * p


@s4tf.function
def saddle_argmin(p):
    """Gradient descent on ``x`` for a fixed ``p``, the step grown after a success and
    halved after a failure, until the gradient is small or 1,000 steps."""
    x = p * 0.0
    step = p * 0.0 + 0.1
    count = 0
    done = False
    while not done:
        slope = 2.0 * (x - 1.0) + p
        moved = x - step * slope
        if s4tf.abs(slope) < 1e-5:
            done = True
        elif saddle_value(moved, p) < saddle_value(x, p):
            x = moved
            step = step * 1.1
        else:
            step = step * 0.5
        count = count + 1
        if count > 1000:
            done = True
    return x


def jax_saddle_argmin(p):
    def keep_going(state):
        return ~state[3]

    def body(state):
        x, step, count, _ = state
        slope = 2.0 * (x - 1.0) + p
        moved = x - step * slope
        small = jnp.abs(slope) < 1e-5
        better = saddle_value(moved, p) < saddle_value(x, p)
        x = jnp.where(small | ~better, x, moved)
        step = jnp.where(small, step, jnp.where(better, step * 1.1, step * 0.5))
        return x, step, count + 1, small | (count + 1 > 1000)

    return jax.lax.while_loop(keep_going, body, (p * 0.0, p * 0.0 + 0.1, 0, False))[0]


def particle(np_, jacfwd, while_loop):
    """Where a particle starting at (0, 8) with velocity (0.75, 0) crosses y = 0, squared,
    pulled by two charges, one of them at height ``10 - w``."""

    def potential(w, x):
        near = np_.stack([w * 0.0 + 10.0, 10.0 - w])
        far = np_.stack([w * 0.0 + 10.0, w * 0.0])
        return 1.0 / np_.sqrt(np_.sum((x - near) ** 2)) + 1.0 / np_.sqrt(np_.sum((x - far) ** 2))

    def land(w):
        dt = 0.1

        def step(state):
            x, v = state
            return x + dt * v, v - dt * jacfwd(lambda x: potential(w, x))(x)

        start = (np_.stack([w * 0.0, w * 0.0 + 8.0]), np_.stack([w * 0.0 + 0.75, w * 0.0]))
        x, v = while_loop(lambda state: (state[0] + dt * state[1])[1] > 0, step, start)
        return (x - x[1] / v[1] * v)[0] ** 2

    return land


def lstm_loss(np_, scan, hidden: int):
    def loss(w, xs):
        def step(carry, x):
            h, c = carry
            z = np_.concatenate([x, h], axis=1) @ w
            i, f, g, o = (z[:, k * hidden:(k + 1) * hidden] for k in range(4))
            c = 1 / (1 + np_.exp(-f)) * c + 1 / (1 + np_.exp(-i)) * np_.tanh(g)
            h = 1 / (1 + np_.exp(-o)) * np_.tanh(c)
            return (h, c), h

        zeros = np_.zeros((xs.shape[1], hidden), np.float32)
        (_, c), hs = scan(step, (zeros, zeros), xs)
        return np_.sum(hs * hs) + np_.sum(c)

    return loss


def programs(small: bool):
    """``name -> (s4tf function, JAX function, arguments)``."""
    n, steps, length, hidden = (64, 10, 8, 8) if small else (1000, 10, 64, 32)
    rng = np.random.default_rng(0)
    x = np.linspace(0.1, 1.0, n).astype(np.float32)
    w = (rng.normal(size=(2 * hidden, 4 * hidden)) * 0.2).astype(np.float32)
    xs = rng.normal(size=(length, 16, hidden)).astype(np.float32)
    scan = lambda f, init, xs: s4tf.scan(f, init, xs)
    return {
        f"ode, n = {n}, gradient": (
            s4tf.function(s4tf.grad(lambda x: runge_kutta(s4tf, s4tf.fori_loop, x, steps)[-1])),
            jax.jit(jax.grad(lambda x: runge_kutta(jnp, jax.lax.fori_loop, x, steps)[-1])), (x,)),
        "saddle, derivative (s4tf reverse, JAX forward)": (
            s4tf.function(s4tf.grad(lambda p: saddle_value(saddle_argmin(p), p))),
            jax.jit(jax.jacfwd(lambda p: saddle_value(jax_saddle_argmin(p), p))), (np.float32(0.7),)),
        "particle, forward derivative": (
            s4tf.function(s4tf.jacfwd(particle(s4tf, s4tf.jacfwd, s4tf.while_loop))),
            jax.jit(jax.jacfwd(particle(jnp, jax.jacfwd, jax.lax.while_loop))), (np.float32(0.0),)),
        f"lstm, {length} steps, hidden {hidden}, gradient": (
            s4tf.function(s4tf.grad(lstm_loss(s4tf, scan, hidden))),
            jax.jit(jax.grad(lstm_loss(jnp, jax.lax.scan, hidden))), (w, xs)),
    }


def first_call_seconds(fn, args) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    result = np.asarray(fn(*args))
    return time.perf_counter() - start, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--repeats", type=int, default=10, help="timed rounds per program (default 10)")
    options = parser.parse_args(argv)
    with jax.enable_x64(False):
        for name, (ours, theirs, args) in programs(options.small).items():
            ours_first, ours_result = first_call_seconds(ours, args)
            theirs_first, theirs_result = first_call_seconds(theirs, args)
            np.testing.assert_allclose(ours_result, theirs_result, rtol=2e-3, atol=1e-4, err_msg=name)
            ours_time, theirs_time = median_seconds([lambda: ours(*args), lambda: theirs(*args)], options.repeats)
            print(f"{name}: s4tf {ours_time * 1e3:.3f} ms, JAX {theirs_time * 1e3:.3f} ms, "
                  f"s4tf / JAX {ours_time / theirs_time:.2f}; first call s4tf {ours_first:.2f} s, "
                  f"JAX {theirs_first:.2f} s, s4tf / JAX {ours_first / theirs_first:.2f}", flush=True)


if __name__ == "__main__":
    main()
