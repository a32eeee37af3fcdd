"""Buffer donation: results written into donated inputs' buffers, only where that is safe."""

from __future__ import annotations

import numpy as np
import pytest

from iree_stream import submissions_and_waits

import s4tf
from s4tf import nn
from s4tf.staging.donation import donated_positions
from s4tf.passes.iree.donate import Donate, aliased_arguments
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.passes.pipeline import lowering_pipeline


def test_a_donated_tensor_is_updated_in_place_and_cannot_be_read_afterwards():
    @s4tf.function(donate_argnums=(0,))
    def update(w, g):
        return w - 0.5 * g

    w = s4tf.asarray(np.full(4, 2.0, np.float32))
    new = update(w, np.ones(4, np.float32))
    np.testing.assert_array_equal(np.asarray(new), np.full(4, 1.5))
    assert w.donated_to == "update"
    with pytest.raises(S4tfError, match="donated to 'update'.*use what that call returned"):
        np.asarray(w)
    assert w.shape == (4,)  # its type is still known
    again = update(new, np.ones(4, np.float32))
    np.testing.assert_array_equal(np.asarray(again), np.ones(4))


def test_numpy_arrays_and_tensors_passed_twice_are_never_overwritten():
    update = s4tf.function(lambda w, g: w - 0.5 * g, donate_argnums=(0,))
    w = np.full(4, 2.0, np.float32)
    np.testing.assert_array_equal(np.asarray(update(w, np.ones(4, np.float32))), np.full(4, 1.5))
    np.testing.assert_array_equal(w, np.full(4, 2.0))
    both = s4tf.asarray(np.full(4, 2.0, np.float32))
    np.testing.assert_array_equal(np.asarray(update(both, both)), np.ones(4))
    assert both.donated_to is None
    np.testing.assert_array_equal(np.asarray(both), np.full(4, 2.0))


def test_an_input_other_work_still_reads_is_overwritten_only_after_that_work():
    """Plainly aliased, IREE would write the update while the sum still reads the old values
    (a probe gave 0 for 2); the update waits for the sum behind a barrier."""
    step = s4tf.function(lambda w, g: (w - 0.5 * g, (w * g).sum()), donate_argnums=(0,))
    w = s4tf.asarray(np.full(4, 0.5, np.float32))
    new, total = step(w, np.ones(4, np.float32))
    assert float(total) == 2.0 and w.donated_to == "_lambda_"
    np.testing.assert_array_equal(np.asarray(new), np.zeros(4))
    assert repr(w) == "<Tensor tensor<4xf32>, donated to '_lambda_'>"


def test_a_result_that_is_not_elementwise_is_not_written_into_an_input():
    step = s4tf.function(lambda w: w.T @ w, donate_argnums=(0,))
    w = s4tf.asarray(np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_array_equal(np.asarray(step(w)), np.array([[4, 6], [6, 10]], np.float32))
    assert w.donated_to is None


@pytest.mark.parametrize("make_model, shape", [
    (lambda: nn.MLP((8, 16, 16, 3)), (4, 8)),
    (lambda: nn.LeNet5(in_channels=1, num_classes=3, image_size=12), (2, 12, 12, 1)),
], ids=["mlp", "lenet"])
def test_the_training_step_donates_model_and_state_and_trains_as_without(make_model, shape):
    """Weights that back-propagation still reads after their update was computed are
    updated behind a barrier that waits for those reads; results equal the undonated step's."""
    model, opt = make_model(), Adam(1e-2)
    state = opt.init(model)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(shape).astype(np.float32), rng.integers(0, 3, shape[0]).astype(np.int32)
    step = train_step(opt)
    lowered = step.lower(model, state, x, y)
    positions = donated_positions((model, state, x, y), (0, 1))
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=tuple(positions))])
    assert aliased_arguments(module, lowered.entry) == positions
    assert str(module).count("iree.abi.output = ") == len(positions)

    undonated = s4tf.function(step.python_fn)
    donated_run, plain_run = (model, state), (model, state)
    kept = None
    for _ in range(5):
        *donated_run, loss, _ = step(*donated_run, x, y)
        kept = kept or [leaf for leaf in s4tf.pytree.flatten(donated_run)[0] if isinstance(leaf, s4tf.Tensor)]
        *plain_run, plain_loss, _ = undonated(*plain_run, x, y)
    np.testing.assert_allclose(float(loss), float(plain_loss), rtol=1e-5)
    # Adam divides by sqrt(v): where a gradient is near zero, the rounding of two differently
    # fused programs moves a weight by up to a fraction of lr (1e-2) a step. A buffer read
    # after it was overwritten is off by whole updates, far above this tolerance.
    for ours, theirs in zip(s4tf.pytree.flatten(donated_run)[0], s4tf.pytree.flatten(plain_run)[0]):
        if isinstance(ours, s4tf.Tensor):
            np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-4, atol=1e-4)
    assert all(t.donated_to == "train_step" for t in kept)


def test_the_training_step_waits_for_its_readers_in_one_submission():
    """The updates that wait for back-propagation's reads do so through wait tokens: IREE
    runs the step as one submission, with one host wait at the end (behind a barrier, it
    ended the submission, waited on the host and submitted the updates in two more)."""
    model, opt = nn.MLP((8, 16, 16, 3)), Adam(1e-2)
    state = opt.init(model)
    x, y = np.zeros((4, 8), np.float32), np.zeros(4, np.int32)
    step = train_step(opt)
    lowered = step.lower(model, state, x, y)
    positions = donated_positions((model, state, x, y), (0, 1))
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=tuple(positions))])
    assert "is_finite" in str(module) and "optimization_barrier" not in str(module)
    assert submissions_and_waits(str(module), lowered.entry) == (1, 1)


def test_a_wait_token_is_exactly_one_when_the_reader_gives_infinities_and_nans():
    """The token is ``select(is_finite(t), (t - t) + 1, 1)``: 1 for every ``t``, so the update
    is exact even when the reader's element is infinite or NaN."""
    step = s4tf.function(lambda w, g, x: (w - g, x @ w), donate_argnums=(0,))
    w0 = np.array([[1.5, -0.0], [2.0, 3.0]], np.float32)
    g = np.array([[0.5, 0.0], [1.0, -1.0]], np.float32)
    for x in (np.array([[np.inf, 0.0]], np.float32), np.array([[np.nan, 1.0]], np.float32), np.ones((1, 2), np.float32)):
        w = s4tf.asarray(w0)
        new, product = step(w, g, x)
        assert w.donated_to == "_lambda_"
        np.testing.assert_array_equal(np.asarray(new), w0 - g)
        assert np.signbit(np.asarray(new)[0, 1])  # -0.0 - 0.0 stays -0.0: the token multiplies by exactly 1
        with np.errstate(invalid="ignore"):  # inf * 0 in NumPy's product too
            np.testing.assert_array_equal(np.asarray(product), x @ w0)


def test_a_large_weight_read_by_reductions_is_overwritten_only_after_them():
    """Two reductions read the donated weight and the update waits for them through one
    token: at a million elements, over several calls, both see the old values."""
    step = s4tf.function(lambda w, g: (w - 0.5 * g, w.sum(), w.max()), donate_argnums=(0,))
    rng = np.random.default_rng(0)
    for _ in range(5):
        w0, g = rng.standard_normal((2, 1 << 20)).astype(np.float32)
        w = s4tf.asarray(w0)
        new, total, top = step(w, g)
        assert w.donated_to == "_lambda_"
        np.testing.assert_allclose(float(total), w0.astype(np.float64).sum(), rtol=1e-4, atol=1.0)
        assert float(top) == w0.max()
        np.testing.assert_array_equal(np.asarray(new), w0 - np.float32(0.5) * g)


def test_donate_argnums_out_of_range_is_a_clear_error():
    with pytest.raises(S4tfError, match=r"donate_argnums \[3\] are not positions of the 2 arguments"):
        s4tf.function(lambda w, g: w - g, donate_argnums=(3,))(np.ones(2, np.float32), np.ones(2, np.float32))


def test_updates_that_read_each_others_inputs_are_right_and_only_one_is_in_place():
    """The sum waits for the product behind a barrier, so the product cannot also wait for
    the sum: only ``a`` is written in place (tests/lit/passes/s4tf-donate-pairs.mlir)."""
    step = s4tf.function(lambda a, b: (a + b, b * a), donate_argnums=(0, 1))
    a, b = s4tf.asarray(np.arange(4, dtype=np.float32)), s4tf.asarray(np.full(4, 3.0, np.float32))
    total, product = step(a, b)
    np.testing.assert_array_equal(np.asarray(total), np.arange(4) + 3.0)
    np.testing.assert_array_equal(np.asarray(product), np.arange(4) * 3.0)
    assert (a.donated_to, b.donated_to) == ("_lambda_", None)
    np.testing.assert_array_equal(np.asarray(b), np.full(4, 3.0))


def test_a_donating_function_is_compiled_from_one_module_never_printed_and_parsed(monkeypatch):
    """One compile is one pipeline (lowering and s4tf-donate) over an in-memory copy of the
    traced module; before, the module was printed and parsed for the lowering and again
    for donation."""
    original, parsed = ir.Module.parse, []

    def parse(*args, **kwargs):
        parsed.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(ir.Module, "parse", staticmethod(parse))
    step = s4tf.function(lambda w, g: (w - 0.5 * g, (w * g).sum()), donate_argnums=(0,))
    w = s4tf.asarray(np.full(4, 0.5, np.float32))
    new, total = step(w, np.ones(4, np.float32))
    assert parsed == []
    assert float(total) == 2.0 and w.donated_to == "_lambda_"
    np.testing.assert_array_equal(np.asarray(new), np.zeros(4))


def test_a_donated_batchnorm_step_equals_the_same_step_without_donation():
    """BatchNorm's scale is broadcast once and read by the forward and the backward pass:
    IREE clones the broadcast into both dispatches, so the update may not be written into
    the scale's buffer before the backward pass has read it (s4tf-donate looks through the
    broadcast to its readers)."""
    from s4tf import optim
    from s4tf.nn.training import loss_and_gradients

    model = nn.Sequential([nn.Conv2D(3, 4, 3, padding="same", use_bias=False, seed=0), nn.BatchNorm(4), s4tf.relu,
                           nn.Conv2D(4, 4, 3, padding="same", use_bias=False, seed=1), nn.BatchNorm(4), s4tf.relu,
                           lambda h: s4tf.mean(h, axis=(1, 2)), nn.Dense(4, 10, seed=2)])
    opt = optim.sgd(0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 8, 8, 3)).astype(np.float32), np.arange(4, dtype=np.int32)

    def body(model, opt_state, x, y):
        loss, _, model, grads = loss_and_gradients(model, x, y)
        updates, opt_state = opt.update(grads, opt_state, model)
        return optim.apply_updates(model, updates), opt_state, loss

    donated = s4tf.function(body, donate_argnums=(0, 1))(model, opt.init(model), x, y)
    kept = s4tf.function(body)(model, opt.init(model), x, y)
    pairs = [(a, b) for a, b in zip(s4tf.tree_util.tree_leaves(donated), s4tf.tree_util.tree_leaves(kept)) if hasattr(a, "shape")]
    assert len(pairs) > 20  # the weights, BatchNorm's parameters and statistics, the momenta, the loss
    for a, b in pairs:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
