"""Data for training: a batching iterator with seeded shuffling, and scikit-learn's digits.

```python
(x_train, y_train), (x_test, y_test) = load_digits()        # NHWC float32 28x28, int32 labels
for x, y in batches((x_train, y_train), 64, seed=0, epoch=3):
    ...
```
"""

from __future__ import annotations

import numpy as np

from s4tf.core.errors import S4tfError


def batches(arrays, batch_size: int, *, shuffle: bool = True, seed: int = 0, epoch: int = 0, drop_remainder: bool = True):
    """Yield tuples of ``batch_size`` rows of each array in ``arrays``.

    The order is a permutation drawn from ``(seed, epoch)``: the same seed and epoch give
    the same batches, each epoch a new order. With ``drop_remainder`` every batch has the
    same shape (so a compiled step is reused); otherwise the last one may be smaller.
    """
    arrays = tuple(np.asarray(a) for a in arrays)
    count = len(arrays[0])
    if any(len(a) != count for a in arrays):
        raise S4tfError(f"batches: arrays have different lengths {[len(a) for a in arrays]}")
    if batch_size < 1:
        raise S4tfError(f"batches: batch_size must be positive, got {batch_size}")
    order = np.random.default_rng([seed, epoch]).permutation(count) if shuffle else np.arange(count)
    stop = count - count % batch_size if drop_remainder else count
    for start in range(0, stop, batch_size):
        index = order[start:start + batch_size]
        yield tuple(a[index] for a in arrays)


def batch_count(count: int, batch_size: int, drop_remainder: bool = True) -> int:
    return count // batch_size if drop_remainder else -(-count // batch_size)


def load_digits(image_size: int = 28, test_fraction: float = 0.2, seed: int = 0):
    """scikit-learn's 1,797 8x8 handwritten digits as ``((x_train, y_train), (x_test, y_test))``.

    Images are scaled to [0, 1], enlarged by repeating pixels (8 -> 24 for 28) and padded
    with zeros to ``image_size``, NHWC with one channel; the held-out split is a seeded
    random ``test_fraction`` of the images, stratified by class.
    """
    from sklearn.datasets import load_digits as sklearn_digits  # imported on use: it is slow to import

    digits = sklearn_digits()
    factor = image_size // 8
    if factor < 1:
        raise S4tfError(f"load_digits: image_size must be at least 8, got {image_size}")
    images = (digits.images / 16.0).astype(np.float32).repeat(factor, axis=1).repeat(factor, axis=2)
    margin = image_size - 8 * factor
    images = np.pad(images, ((0, 0), (margin // 2, margin - margin // 2), (margin // 2, margin - margin // 2)))
    x, y = images[..., None], digits.target.astype(np.int32)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(y), bool)
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        test[members[: round(len(members) * test_fraction)]] = True
    return (x[~test], y[~test]), (x[test], y[test])
