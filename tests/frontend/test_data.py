"""Data: seeded batching and scikit-learn's digits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits as sklearn_digits

from s4tf.data import batch_count, batches, load_digits
from s4tf.core.errors import S4tfError


def test_batches_cover_every_row_once_per_epoch_in_a_seeded_order():
    x, y = np.arange(10.0)[:, None], np.arange(10)
    first = list(batches((x, y), 3, seed=1, epoch=0))
    assert len(first) == batch_count(10, 3) == 3
    rows = np.concatenate([b[1] for b in first])
    assert len(set(rows)) == 9 and set(rows) <= set(range(10))
    for bx, by in first:
        np.testing.assert_array_equal(bx[:, 0], by)  # rows stay paired
    again = list(batches((x, y), 3, seed=1, epoch=0))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(first, again))
    other_epoch = np.concatenate([b[1] for b in batches((x, y), 3, seed=1, epoch=1)])
    assert not np.array_equal(rows, other_epoch)


def test_the_remainder_is_kept_on_request_and_order_is_kept_without_shuffling():
    kept = list(batches((np.arange(7),), 3, shuffle=False, drop_remainder=False))
    assert [b[0].tolist() for b in kept] == [[0, 1, 2], [3, 4, 5], [6]]
    assert batch_count(7, 3, drop_remainder=False) == 3


@pytest.mark.parametrize("arrays, size, message", [
    ((np.zeros(3), np.zeros(4)), 2, "different lengths"),
    ((np.zeros(3),), 0, "must be positive"),
])
def test_bad_batching_is_a_clear_error(arrays, size, message):
    with pytest.raises(S4tfError, match=message):
        list(batches(arrays, size))


def test_digits_are_a_stratified_held_out_split_of_28x28_images():
    (x_train, y_train), (x_test, y_test) = load_digits()
    assert x_train.shape[1:] == x_test.shape[1:] == (28, 28, 1)
    assert x_train.dtype == np.float32 and y_train.dtype == np.int32
    assert len(x_train) + len(x_test) == 1797 and abs(len(x_test) / 1797 - 0.2) < 0.01
    assert 0 <= x_train.min() and x_train.max() <= 1
    assert set(np.bincount(y_test)) <= set(range(34, 39))  # about a fifth of each class's ~180
    (x8, y8), _ = load_digits(image_size=8, test_fraction=0.0)  # no resizing, no split: the originals
    np.testing.assert_allclose(x8[..., 0], sklearn_digits().images / 16.0, rtol=1e-6)
    np.testing.assert_array_equal(y8, sklearn_digits().target)


def test_image_sizes_below_8_are_an_error():
    with pytest.raises(S4tfError, match="at least 8"):
        load_digits(image_size=4)
