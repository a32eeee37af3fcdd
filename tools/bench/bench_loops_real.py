"""Loops in programs written by others: s4tf beside JAX in one process, on the same inputs.

```
python tools/bench/bench_loops_real.py                 # GradBench's sizes, 10 rounds
python tools/bench/bench_loops_real.py --small --repeats 2   # a smoke run
python tools/bench/bench_loops_real.py --only "language model"   # the two training steps
```

Programs (after GradBench's evaluations and a language model's recurrence):

- ``ode``: the gradient of ``y[-1]`` after a Runge-Kutta ``fori_loop`` of 10 steps over
  ``n`` float32s (GradBench's ``ode``; JAX: ``jax.grad`` through ``lax.fori_loop``);
- ``saddle``: the derivative of a saddle point's value through a gradient-descent ``while``
  whose step adapts with ``if/elif/else`` and stops on a bool or an int counter (GradBench's
  ``saddle`` in one dimension), twice: ``s4tf.grad`` (forward mode, since the derivative is
  taken with respect to one element) and reverse mode (``s4tf.vjp``) through the
  data-dependent loop; JAX cannot reverse-differentiate ``lax.while_loop``, so its peer is
  forward mode (``jax.jacfwd``) both times;
- ``particle``: the forward derivative of where a particle lands after an Euler loop whose
  every step takes ``jacfwd`` of a potential (GradBench's ``particle``; both ``jacfwd``);
- ``lstm``: the gradient of an LSTM's loss over ``scan`` with respect to its weights
  (``T`` steps, batch 16; JAX: ``lax.scan``), and at 200 steps, hidden 256, batch 64;
- ``lstm language model`` and ``gru language model``: one training step of a next-token
  model, ``nn.Embedding`` (the LSTM) or one-hot tokens (the GRU), ``nn.RNN`` over
  ``nn.LSTMCell``/``nn.GRUCell`` (a ``scan`` over ``T`` steps), a ``nn.Dense`` readout,
  ``softmax_cross_entropy`` and ``optim.Adam``: the loss, its gradient and the update in
  one compiled call (JAX: the same model and Adam written with ``lax.scan``, Flax's cell
  formulas);
- ``spline``: a cubic B-spline (``samples x control`` basis, float32) fitted by gradient
  descent with a backtracking line search, ``value_and_grad`` inside two nested
  data-dependent loops (:mod:`spline_fit`; JAX: ``lax.while_loop`` in ``lax.while_loop``).

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
from spline_fit import fit, jax_fit, spline_args


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


def saddle(p):
    return saddle_value(saddle_argmin(p), p)


def jax_saddle(p):
    return saddle_value(jax_saddle_argmin(p), p)


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


class LanguageModel:
    """Next-token model: ``readout(RNN(cell)(inputs(tokens)))``; ``embedding`` is ``None``
    for one-hot inputs. A dataclass, so a pytree of its weights."""


def language_model(kind: str, vocab: int, features: int, hidden: int):
    """An s4tf ``LanguageModel`` (embedding for the LSTM, one-hot for the GRU) and the same
    weights as a dict for JAX."""
    from dataclasses import make_dataclass

    from s4tf import nn

    model_type = make_dataclass(f"{kind.upper()}LanguageModel", [("embedding", object), ("rnn", object), ("readout", object)],
                                bases=(LanguageModel,))

    def call(self, tokens):
        x = self.embedding(tokens) if self.embedding is not None else nn.one_hot(tokens, self.readout.weight.shape[1])
        return self.readout(self.rnn(x))

    model_type.__call__ = call
    embedding = nn.Embedding(vocab, features, seed=1) if kind == "lstm" else None
    cell = (nn.LSTMCell(features, hidden, seed=2) if kind == "lstm" else nn.GRUCell(vocab, hidden, seed=2))
    model = model_type(embedding, nn.RNN(cell), nn.Dense(hidden, vocab, seed=4))
    weights = {"input_kernel": cell.input_kernel, "recurrent_kernel": cell.recurrent_kernel, "bias": cell.bias,
               "readout_weight": model.readout.weight, "readout_bias": model.readout.bias}
    if kind == "lstm":
        weights["embedding"] = embedding.table
    else:
        weights["recurrent_bias"] = cell.recurrent_bias
    return model, {k: jnp.asarray(v) for k, v in weights.items()}


def jax_language_model_loss(kind: str, vocab: int):
    def sigmoid(x):
        return jax.nn.sigmoid(x)

    def loss(w, tokens, targets):
        x = w["embedding"][tokens] if kind == "lstm" else jax.nn.one_hot(tokens, vocab, dtype=jnp.float32)
        xs = jnp.transpose(x, (1, 0, 2))
        hidden = w["recurrent_kernel"].shape[0]
        zeros = jnp.zeros((xs.shape[1], hidden), jnp.float32)

        def lstm_step(carry, x):
            c, h = carry
            z = x @ w["input_kernel"] + h @ w["recurrent_kernel"] + w["bias"]
            i, f, g, o = jnp.split(z, 4, axis=-1)
            c = sigmoid(f) * c + sigmoid(i) * jnp.tanh(g)
            h = sigmoid(o) * jnp.tanh(c)
            return (c, h), h

        def gru_step(h, x):
            x_r, x_z, x_n = jnp.split(x @ w["input_kernel"] + w["bias"], 3, axis=-1)
            h_r, h_z, h_n = jnp.split(h @ w["recurrent_kernel"], 3, axis=-1)
            r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z)
            n = jnp.tanh(x_n + r * (h_n + w["recurrent_bias"]))
            h = (1.0 - z) * n + z * h
            return h, h

        if kind == "lstm":
            _, hs = jax.lax.scan(lstm_step, (zeros, zeros), xs)
        else:
            _, hs = jax.lax.scan(gru_step, zeros, xs)
        logits = jnp.transpose(hs, (1, 0, 2)) @ w["readout_weight"] + w["readout_bias"]
        labels = jax.nn.one_hot(targets, vocab, dtype=jnp.float32)
        return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits, axis=-1), axis=-1))

    return loss


def jax_adam_step(loss, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """``step(w, (count, m, v), tokens, targets) -> (w, (count, m, v), loss)``: s4tf's
    ``optim.Adam`` written out."""

    def step(w, state, tokens, targets):
        value, g = jax.value_and_grad(loss)(w, tokens, targets)
        count, m, v = state
        count = count + 1.0
        m = {k: beta1 * m[k] + (1 - beta1) * g[k] for k in w}
        v = {k: beta2 * v[k] + (1 - beta2) * g[k] * g[k] for k in w}
        c1 = 1.0 - jnp.exp(count * np.log(beta1))
        c2 = 1.0 - jnp.exp(count * np.log(beta2))
        w = {k: w[k] - lr * ((m[k] / c1) / (jnp.sqrt(v[k] / c2) + eps)) for k in w}
        return w, (count, m, v), value

    return step


def language_model_programs(length: int, batch: int, hidden: int, vocab: int, features: int):
    """``name -> (s4tf step, JAX step, s4tf arguments, JAX arguments)``: one Adam training
    step of each language model; each step returns ``(weights, optimizer state, loss)``."""
    from s4tf import nn, optim

    tokens = np.random.default_rng(3).integers(0, vocab, size=(batch, length + 1)).astype(np.int32)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    found = {}
    for kind in ("lstm", "gru"):
        model, weights = language_model(kind, vocab, features, hidden)
        opt = optim.Adam(1e-3)

        def step(model, opt_state, tokens, targets, opt=opt):
            value, grads = s4tf.value_and_grad(lambda m: nn.softmax_cross_entropy(m(tokens), targets))(model)
            model, opt_state = opt.update(model, opt_state, grads)
            return model, opt_state, value

        theirs = jax.jit(jax_adam_step(jax_language_model_loss(kind, vocab)))
        zeros = {k: jnp.zeros_like(v) for k, v in weights.items()}
        found[f"{kind} language model, {length} steps, hidden {hidden}, batch {batch}, vocabulary {vocab}, "
              "Adam training step"] = (
            s4tf.function(step), theirs, (model, opt.init(model), inputs, targets),
            (weights, (jnp.zeros((), jnp.float32), zeros, dict(zeros)), jnp.asarray(inputs), jnp.asarray(targets)))
    return found


def programs(small: bool):
    """``name -> (s4tf function, JAX function, arguments)``."""
    n, steps, length, hidden = (64, 10, 8, 8) if small else (1000, 10, 64, 32)
    rng = np.random.default_rng(0)
    x = np.linspace(0.1, 1.0, n).astype(np.float32)
    w = (rng.normal(size=(2 * hidden, 4 * hidden)) * 0.2).astype(np.float32)
    xs = rng.normal(size=(length, 16, hidden)).astype(np.float32)
    long_length, long_hidden, long_batch = (12, 64, 48) if small else (200, 256, 64)
    long_w = (rng.normal(size=(2 * long_hidden, 4 * long_hidden)) / np.sqrt(2 * long_hidden)).astype(np.float32)
    long_xs = rng.normal(size=(long_length, long_batch, long_hidden)).astype(np.float32)
    scan = lambda f, init, xs: s4tf.scan(f, init, xs)
    return {
        f"ode, n = {n}, gradient": (
            s4tf.function(s4tf.grad(lambda x: runge_kutta(s4tf, s4tf.fori_loop, x, steps)[-1])),
            jax.jit(jax.grad(lambda x: runge_kutta(jnp, jax.lax.fori_loop, x, steps)[-1])), (x,)),
        "saddle, derivative (s4tf grad: forward mode; JAX forward)": (
            s4tf.function(s4tf.grad(saddle)),
            jax.jit(jax.jacfwd(jax_saddle)), (np.float32(0.7),)),
        "saddle, derivative (s4tf reverse mode; JAX forward)": (
            s4tf.function(lambda p: s4tf.vjp(saddle, p)[1](np.float32(1.0))[0]),
            jax.jit(jax.jacfwd(jax_saddle)), (np.float32(0.7),)),
        "particle, forward derivative": (
            s4tf.function(s4tf.jacfwd(particle(s4tf, s4tf.jacfwd, s4tf.while_loop))),
            jax.jit(jax.jacfwd(particle(jnp, jax.jacfwd, jax.lax.while_loop))), (np.float32(0.0),)),
        f"lstm, {length} steps, hidden {hidden}, gradient": (
            s4tf.function(s4tf.grad(lstm_loss(s4tf, scan, hidden))),
            jax.jit(jax.grad(lstm_loss(jnp, jax.lax.scan, hidden))), (w, xs)),
        f"lstm, {long_length} steps, hidden {long_hidden}, batch {long_batch}, gradient": (
            s4tf.function(s4tf.grad(lstm_loss(s4tf, scan, long_hidden))),
            jax.jit(jax.grad(lstm_loss(jnp, jax.lax.scan, long_hidden))), (long_w, long_xs)),
        **{f"spline, {samples} x {control}, fit": (first(s4tf.function(fit)), first(jax.jit(jax_fit)),
                                                   spline_args(samples, control))
           for samples, control in ([(96, 16)] if small else [(600, 16), (2000, 32)])},
    }


def first(fn):
    """``fn`` returning the first of its results (the spline's control points)."""
    return lambda *args: fn(*args)[0]


def language_model_sizes(small: bool) -> dict:
    return (dict(length=8, batch=4, hidden=8, vocab=16, features=8) if small
            else dict(length=64, batch=32, hidden=128, vocab=64, features=32))


def ready(result):
    """``result``'s loss as NumPy after every array in it is computed."""
    for leaf in jax.tree_util.tree_leaves(result) if isinstance(result[-1], jax.Array) else s4tf.tree_util.tree_leaves(result):
        leaf.block_until_ready() if hasattr(leaf, "block_until_ready") else None
    return np.asarray(result[-1])


def first_call_seconds(fn, args) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    result = np.asarray(fn(*args))
    return time.perf_counter() - start, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--repeats", type=int, default=10, help="timed rounds per program (default 10)")
    parser.add_argument("--only", default="", help="run the programs whose name holds this text")
    options = parser.parse_args(argv)
    with jax.enable_x64(False):
        for name, (ours, theirs, args) in programs(options.small).items():
            if options.only not in name:
                continue
            ours_first, ours_result = first_call_seconds(ours, args)
            theirs_first, theirs_result = first_call_seconds(theirs, args)
            np.testing.assert_allclose(ours_result, theirs_result, rtol=2e-3, atol=1e-4, err_msg=name)
            ours_time, theirs_time = median_seconds([lambda: ours(*args), lambda: theirs(*args)], options.repeats)
            print(f"{name}: s4tf {ours_time * 1e3:.3f} ms, JAX {theirs_time * 1e3:.3f} ms, "
                  f"s4tf / JAX {ours_time / theirs_time:.2f}; first call s4tf {ours_first:.2f} s, "
                  f"JAX {theirs_first:.2f} s, s4tf / JAX {ours_first / theirs_first:.2f}", flush=True)
        for name, (ours, theirs, args, jax_args) in language_model_programs(**language_model_sizes(options.small)).items():
            if options.only not in name:
                continue
            start = time.perf_counter()
            ours_result = ours(*args)
            ours_loss = ready(ours_result)
            ours_first = time.perf_counter() - start
            start = time.perf_counter()
            theirs_result = theirs(*jax_args)
            theirs_loss = ready(theirs_result)
            theirs_first = time.perf_counter() - start
            np.testing.assert_allclose(ours_loss, theirs_loss, rtol=1e-5, err_msg=name)
            np.testing.assert_allclose(np.asarray(ours_result[0].rnn.cell.recurrent_kernel),
                                       np.asarray(theirs_result[0]["recurrent_kernel"]), rtol=1e-4, atol=1e-6, err_msg=name)
            ours_time, theirs_time = median_seconds([lambda: ready(ours(*args)), lambda: ready(theirs(*jax_args))],
                                                    options.repeats)
            print(f"{name}: s4tf {ours_time * 1e3:.3f} ms, JAX {theirs_time * 1e3:.3f} ms, "
                  f"s4tf / JAX {ours_time / theirs_time:.2f}; first call s4tf {ours_first:.2f} s, "
                  f"JAX {theirs_first:.2f} s, s4tf / JAX {ours_first / theirs_first:.2f}", flush=True)


if __name__ == "__main__":
    main()
