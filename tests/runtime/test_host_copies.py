"""Host arrays read from tensors are copies that no later call changes; 0-d stays 0-d."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import s4tf


@s4tf.function
def scale(x, s):
    return x * s


def test_host_arrays_of_dropped_results_keep_their_values():
    x = np.ones((4, 3), np.float32)
    rows = [scale(x, float(k)).numpy()[0] for k in range(4)]  # each result dropped at once
    gc.collect()
    for _ in range(3):
        scale(x, 100.0)  # IREE may reuse the freed buffers
    np.testing.assert_array_equal(np.stack(rows), np.arange(4, dtype=np.float32)[:, None] * np.ones(3))


def test_np_asarray_of_a_result_is_a_copy_and_writing_it_leaves_the_tensor_alone():
    tensor = scale(np.ones(5, np.float32), 2.0)
    first = np.asarray(tensor)
    first[:] = -1.0
    np.testing.assert_array_equal(np.asarray(tensor), np.full(5, 2.0))
    assert not np.shares_memory(np.asarray(tensor), np.asarray(tensor))


def test_a_host_copy_taken_before_donation_is_not_overwritten():
    update = s4tf.function(lambda w, g: w - 0.5 * g, donate_argnums=(0,))
    w = s4tf.asarray(np.full(4, 2.0, np.float32))
    before = np.asarray(w)
    update(w, np.ones(4, np.float32))
    np.testing.assert_array_equal(before, np.full(4, 2.0))


def test_asking_for_no_copy_is_refused_as_numpy_2_says():
    with pytest.raises(ValueError, match="makes a copy"):
        np.asarray(scale(np.ones(2, np.float32), 1.0), copy=False)


@pytest.mark.parametrize(
    "make",
    [
        lambda: s4tf.asarray(5.0),
        lambda: s4tf.asarray(np.float32(5.0)),
        lambda: s4tf.zeros(()),
        lambda: s4tf.ones(()),
        lambda: s4tf.full((), 2.5),
        lambda: s4tf.zeros_like(s4tf.asarray(1.0)),
        lambda: s4tf.ones_like(np.float32(1.0)),
        lambda: s4tf.full_like(s4tf.asarray(1.0), 3.0),
        lambda: scale(np.float32(2.0), 3.0),
        lambda: scale(s4tf.asarray(np.float32(2.0)), 3.0),
        lambda: s4tf.sum(s4tf.asarray(np.ones(3, np.float32))),
    ],
    ids=["asarray", "asarray-np", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "staged-np",
         "staged-tensor", "sum"],
)
def test_0d_tensors_stay_0d(make):
    tensor = make()
    assert tensor.shape == ()
    assert np.asarray(tensor).shape == ()
    assert scale(tensor, 2.0).shape == ()
