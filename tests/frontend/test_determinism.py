"""Same program, same bits (docs/trust.md, "Determinism"): staged and lazy code is one
module, so the same bits; eager code runs each op alone, so it agrees bit for bit wherever
IREE has nothing to fuse, and to a rounding where a fused dispatch contracts a product
and a sum into one FMA; one IREE worker or many give the same bits."""

import numpy as np
import s4tf
from s4tf.runtime.device import LoadedModule

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((64, 32)).astype(np.float32) / 8
B1 = RNG.standard_normal(32).astype(np.float32)
W2 = RNG.standard_normal((32, 10)).astype(np.float32) / 4
X = RNG.standard_normal((128, 64)).astype(np.float32)
Y = RNG.integers(0, 10, 128)


def loss(params, x, y):
    w1, b1, w2 = params
    logits = s4tf.tanh(x @ w1 + b1) @ w2
    return -s4tf.mean(s4tf.take_along_axis(s4tf.log_softmax(logits, axis=-1), y[:, None], axis=1))


def training(steps: int, loss_and_grad):
    params = [W1, B1, W2]
    losses = []
    for _ in range(steps):
        value, grads = loss_and_grad(params, X, Y)
        params = [p - 0.5 * np.asarray(g) for p, g in zip(params, grads)]
        losses.append(np.asarray(value))
    return losses, params


def assert_same_bits(a, b):
    for u, v in zip(a, b):
        np.testing.assert_array_equal(np.atleast_1d(u).view(np.uint8), np.atleast_1d(v).view(np.uint8))


def test_lazy_and_staged_training_give_the_same_bits():
    staged = training(5, s4tf.function(s4tf.value_and_grad(loss)))

    def lazily(params, x, y):
        with s4tf.lazy():
            value, grads = s4tf.value_and_grad(loss)(params, x, y)
            return np.asarray(value), [np.asarray(g) for g in grads]

    lazy = training(5, lazily)
    assert_same_bits(staged[0], lazy[0])
    assert_same_bits(staged[1], lazy[1])


def forward(w, b, x):
    h = s4tf.tanh(x @ w + b) * 0.5 + x[:, :32]
    return s4tf.softmax(h, axis=-1), s4tf.mean(s4tf.exp(h)), s4tf.maximum(h, 0.0)


def test_eager_and_staged_give_the_same_bits_where_nothing_contracts():
    eager = forward(W1, B1, X)
    staged = s4tf.function(forward)(W1, B1, X)
    assert_same_bits(eager, staged)


def test_eager_sums_of_products_agree_with_staged_ones_to_the_fma_rounding():
    """Staged, ``sum(x * x)`` is one dispatch whose loop IREE contracts into FMAs
    (``acc + x * x`` rounded once); eagerly the product is rounded first. Both are right
    to float32's rounding of each step, and differ in the last bits."""
    eager = np.asarray(s4tf.sum(X * X, axis=0))
    staged = np.asarray(s4tf.function(lambda x: s4tf.sum(x * x, axis=0))(X))
    exact = (X.astype(np.float64) ** 2).sum(axis=0)
    np.testing.assert_allclose(eager, exact, rtol=2e-6)
    np.testing.assert_allclose(staged, exact, rtol=2e-6)


def test_one_worker_and_many_give_the_same_bits():
    """The same module on IREE's synchronous driver (the calling thread) and its task
    driver (a pool of workers splitting each dispatch's workgroups), twice each."""
    y = Y.astype(np.int64)
    module = s4tf.compile(s4tf.value_and_grad(loss), ([W1, B1, W2], X, y))
    runs = []
    for driver in ("local-sync", "local-task", "local-task"):
        loaded = LoadedModule(module.vmfb, driver=driver)
        (name,) = loaded.function_names
        runs.append([np.asarray(r.to_host()) for r in loaded.invoke(name, [W1, B1, W2, X, y])])
    assert_same_bits(runs[0], runs[1])
    assert_same_bits(runs[1], runs[2])
