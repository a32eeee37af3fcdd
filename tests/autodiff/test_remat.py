"""s4tf.remat (JAX's jax.checkpoint): derivatives through recomputed blocks are the plain
ones and the finite differences' (first and second order, both modes, vmap), the forward
half keeps only the blocks' inputs, and the backward half recomputes once each block's
cotangent exists (through wait tokens, in one submission)."""

import re

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check
from iree_stream import submissions_and_waits

import s4tf
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.dialects.types import TensorType, to_numpy_dtype

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(7)
W = RNG.standard_normal((4, 4)) * 0.6
X = RNG.standard_normal((3, 4))


def block(w, x, depth=1):
    for _ in range(depth):
        x = x + s4tf.sin(s4tf.tanh(x @ w)) * x
    return x


def chain(step, n=3, final=lambda x: x ** 2):
    def loss(w, x):
        for _ in range(n):
            x = step(w, x)
        return s4tf.sum(final(x))

    return loss


REMAT_LOSS, PLAIN_LOSS = chain(s4tf.remat(block)), chain(block)


def assert_same(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["eager", "staged", "lazy"])
def test_gradients_are_the_plain_ones(mode):
    remat_grad = s4tf.value_and_grad(REMAT_LOSS, argnums=(0, 1))
    plain_grad = s4tf.value_and_grad(PLAIN_LOSS, argnums=(0, 1))
    if mode == "staged":
        remat_grad = s4tf.function(remat_grad)
    if mode == "lazy":
        with s4tf.lazy():
            value, grads = remat_grad(W, X)
            value, grads = np.asarray(value), [np.asarray(g) for g in grads]
    else:
        value, grads = remat_grad(W, X)
    plain_value, plain_grads = plain_grad(W, X)
    assert_same([value, *grads], [plain_value, *plain_grads])


def test_vjp_and_jvp_are_the_plain_ones():
    remat_step = s4tf.remat(block)
    cotangent = RNG.standard_normal(X.shape)
    (value, pullback), (plain_value, plain_pullback) = s4tf.vjp(remat_step, W, X), s4tf.vjp(block, W, X)
    assert_same([value, *pullback(cotangent)], [plain_value, *plain_pullback(cotangent)])
    tangents = (RNG.standard_normal(W.shape), RNG.standard_normal(X.shape))
    assert_same(s4tf.jvp(remat_step, (W, X), tangents), s4tf.jvp(block, (W, X), tangents))


def test_first_order_against_finite_differences():
    directional_check(REMAT_LOSS, [W, X])
    directional_check(chain(s4tf.remat(lambda w, x: block(w, x, depth=2)), n=2), [W, X])


def test_second_order_against_finite_differences():
    second_order_check(lambda x: REMAT_LOSS(W, x), X)
    nested = s4tf.remat(lambda w, x: s4tf.remat(block)(w, s4tf.remat(block)(w, x)))  # remat inside remat
    second_order_check(lambda w: chain(nested, n=2)(w, X), W)


def test_vmap_sees_through_remat():
    xs = RNG.standard_normal((5, *X.shape))
    per_example = s4tf.vmap(s4tf.grad(REMAT_LOSS), in_axes=(None, 0))(W, xs)
    plain = s4tf.vmap(s4tf.grad(PLAIN_LOSS), in_axes=(None, 0))(W, xs)
    assert_same([per_example], [plain])
    of_batch = s4tf.grad(lambda w: s4tf.sum(s4tf.vmap(lambda x: REMAT_LOSS(w, x))(xs)))(W)
    assert_same([of_batch], [np.asarray(plain).sum(axis=0)])


def test_inside_scan():
    def step(c, x):
        c = s4tf.tanh(c @ W + x)
        return c, s4tf.sum(c)

    def loss(fn):
        return lambda c0, xs: s4tf.sum(s4tf.scan(fn, c0, xs)[1])

    c0, xs = X[0], RNG.standard_normal((4, 4))
    assert_same(s4tf.grad(loss(s4tf.remat(step)), argnums=(0, 1))(c0, xs), s4tf.grad(loss(step), argnums=(0, 1))(c0, xs))


# -- what crosses from the forward half to the backward half ---------------------------------


def nbytes(types) -> int:
    return sum(int(np.prod(t.shape)) * to_numpy_dtype(t.dtype).itemsize for t in types)


def test_the_forward_half_keeps_only_the_blocks_inputs():
    """A deep MLP of n blocks with weights of their own: with remat, the residuals are
    each block's (w, x) whatever the blocks compute; without, they grow with the work."""
    n = 8
    ws, x = [np.zeros((32, 32), np.float32)] * n, np.zeros((16, 32), np.float32)
    figures = {}
    for depth in (1, 4):
        for remat in (True, False):
            step = s4tf.remat(lambda w, x, depth=depth: block(w, x, depth)) if remat else (lambda w, x, depth=depth: block(w, x, depth))

            def loss(ws, x):
                for w in ws:
                    x = step(w, x)
                return s4tf.sum(x)  # keeps nothing itself

            figures[depth, remat] = s4tf.saved_residuals(loss, ws, x)
    inputs = [TensorType((32, 32), "f32"), TensorType((16, 32), "f32")] * n  # (w, x) of each block
    assert figures[1, True] == inputs and figures[4, True] == inputs
    assert nbytes(figures[1, False]) >= 2 * nbytes(inputs)  # measured: 2.0 times
    assert nbytes(figures[4, False]) >= 2.5 * nbytes(figures[1, False])  # measured: 6.0 times the inputs


def stablehlo_of_gradient(loss) -> str:
    return s4tf.function(s4tf.grad(loss)).lower(W, X).stablehlo()


def test_the_backward_half_recomputes_once_the_cotangent_exists():
    plain, remat = stablehlo_of_gradient(PLAIN_LOSS), stablehlo_of_gradient(REMAT_LOSS)
    allow_cse = stablehlo_of_gradient(chain(s4tf.remat(block, prevent_cse=False)))

    def count(text, op):
        return len(re.findall(rf"stablehlo\.{op}\b", text))

    assert count(plain, "tanh") == 3 and count(plain, "is_finite") == 0
    assert count(remat, "tanh") == 6 and count(remat, "is_finite") > 0  # each block's tanh again, after a token
    assert count(allow_cse, "tanh") == 3 and count(allow_cse, "is_finite") == 0  # merged by CSE
    # ordered through wait tokens, not barriers that IREE would wait for on the host
    assert count(remat, "optimization_barrier") == 0


def test_the_recomputation_runs_in_the_same_submission_as_the_rest():
    """IREE runs the gradient as one submission with one host wait at its end. (Behind
    ``stablehlo.optimization_barrier``s, it ended the submission at each barrier, waited on
    the host, and could then run every recomputation at once, before the backward pass
    needed it: a call of tools/bench/bench_remat.py's model took more memory with remat
    than without.)"""
    lowered = s4tf.function(s4tf.grad(REMAT_LOSS)).lower(W.astype(np.float32), X.astype(np.float32))
    assert submissions_and_waits(lowered.stablehlo(lowering_pipeline("cpu")), lowered.entry) == (1, 1)


# -- the API ------------------------------------------------------------------------------------


def test_decorator_forms_and_calls_outside_a_trace():
    @s4tf.remat
    def step(w, x):
        return block(w, x)

    @s4tf.remat(prevent_cse=False)
    @s4tf.function
    def staged_step(w, x):
        return block(w, x)

    expected = np.asarray(s4tf.function(block)(W, X))
    for fn in (step, staged_step):
        np.testing.assert_allclose(np.asarray(fn(W, X)), expected, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(s4tf.function(fn)(W, X)), expected, rtol=1e-12)
    assert_same(s4tf.grad(chain(staged_step), argnums=(0, 1))(W, X), s4tf.grad(PLAIN_LOSS, argnums=(0, 1))(W, X))


def test_static_argnums():
    def step(w, activation, x, depth):
        f = {"tanh": s4tf.tanh, "sin": s4tf.sin}[activation]
        for _ in range(depth):
            x = f(x @ w)
        return x

    remat_step = s4tf.remat(step, static_argnums=(1, -1))
    for activation, depth in (("tanh", 2), ("sin", 3)):
        loss = lambda w, x: s4tf.sum(remat_step(w, activation, x, depth))
        plain = lambda w, x: s4tf.sum(step(w, activation, x, depth))
        assert_same(s4tf.grad(loss, argnums=(0, 1))(W, X), s4tf.grad(plain, argnums=(0, 1))(W, X))


def test_bad_uses_are_clear_errors():
    with pytest.raises(s4tf.S4tfError, match=r"test_remat\.py:\d+: s4tf\.remat needs a function to recompute, got int"):
        s4tf.remat(3)
    with pytest.raises(s4tf.S4tfError, match="static_argnums must be an int or a tuple of ints"):
        s4tf.remat(block, static_argnums="x")
    with pytest.raises(s4tf.S4tfError, match="policy=.* is not supported"):
        s4tf.remat(block, policy=lambda *a, **k: True)
    with pytest.raises(s4tf.S4tfError, match=r"test_remat\.py:\d+: s4tf\.remat\(block\): static_argnums names argument 2, but it was called with 2"):
        s4tf.grad(lambda w: s4tf.sum(s4tf.remat(block, static_argnums=2)(w, X)))(W)
    with pytest.raises(s4tf.S4tfError, match=r"test_remat\.py:\d+: s4tf\.remat\(block\): argument 1 is static \(static_argnums\) and must be a hashable Python value, not an array"):
        s4tf.remat(block, static_argnums=1)(W, X)
    with pytest.raises(s4tf.S4tfError, match=r"test_remat\.py:\d+: s4tf\.remat\(block\): argument 2 is static \(static_argnums\) and must be hashable, got dict"):
        s4tf.remat(block, static_argnums=2)(W, X, {})
    with pytest.raises(s4tf.S4tfError, match=r"test_remat\.py:\d+: s4tf\.checkpoint is the module that saves models to files .* use s4tf\.remat"):
        s4tf.checkpoint(block)
