"""Buffer donation: results written into donated inputs' buffers, only where that is safe."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf import nn
from s4tf.donation import alias_results, donated_positions
from s4tf.errors import S4tfError
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.staging import lowering_pipeline


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


def test_an_input_still_read_by_other_work_is_not_donated():
    """IREE would write the update while the sum still reads the old values (a probe gave 0
    for 2): such a pair is left out, and the results are right."""
    step = s4tf.function(lambda w, g: (w - 0.5 * g, (w * g).sum()), donate_argnums=(0,))
    w = s4tf.asarray(np.full(4, 0.5, np.float32))
    new, total = step(w, np.ones(4, np.float32))
    assert float(total) == 2.0 and w.donated_to is None
    np.testing.assert_array_equal(np.asarray(new), np.zeros(4))


def test_the_training_step_donates_the_optimizer_state_and_the_weights_it_can():
    model, opt = nn.MLP((8, 16, 16, 3)), Adam(1e-2)
    state = opt.init(model)
    x, y = np.ones((4, 8), np.float32), np.zeros(4, np.int32)
    step = train_step(opt)
    lowered = step.lower(model, state, x, y)
    stablehlo = lowered.stablehlo(lowering_pipeline("cpu"))
    _, aliased = alias_results(stablehlo, lowered.entry, donated_positions((model, state, x, y), (0, 1)))
    # 6 parameters, Adam's step count and 12 moments; the weights of layers 2 and 3 are
    # also read to back-propagate into earlier layers, after their own update could run
    assert aliased == [0, 1, 3, 5, *range(6, 19)]
    annotated, _ = alias_results(stablehlo, lowered.entry, [0])
    assert "iree.abi.output = " in annotated

    model, state, first, _ = step(model, state, x, y)
    kept = [leaf for leaf in s4tf.pytree.flatten((model, state))[0] if isinstance(leaf, s4tf.Tensor)]
    for _ in range(20):
        model, state, loss, _ = step(model, state, x, y)
    assert float(loss) < 0.1 * float(first)
    assert sum(t.donated_to == "train_step" for t in kept) == len(aliased)


def test_donate_argnums_out_of_range_is_a_clear_error():
    with pytest.raises(S4tfError, match=r"donate_argnums \[3\] are not positions of the 2 arguments"):
        s4tf.function(lambda w, g: w - g, donate_argnums=(3,))(np.ones(2, np.float32), np.ones(2, np.float32))
