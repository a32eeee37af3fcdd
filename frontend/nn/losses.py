"""Losses (means over the batch) and metrics.

```python
loss = softmax_cross_entropy(logits, labels)   # labels: int class ids (N,) or one-hot (N, C)
acc = accuracy(logits, labels)                 # fraction of argmax(logits) == labels
```
"""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.dialects.types import is_float
from s4tf.core.locations import shape_error


def one_hot(labels, num_classes: int, dtype=np.float32):
    """``(..., num_classes)`` with a 1 at each label's class."""
    labels = snp.asarray(labels)
    classes = snp.iota((*labels.shape, num_classes), dimension=len(labels.shape), dtype=labels.dtype)
    return snp.astype(snp.equal(snp.expand_dims(labels, -1), classes), dtype)


def _class_ids(name, logits, labels) -> bool:
    """Whether ``labels`` are class ids (else probabilities shaped like ``logits``)."""
    logits_shape, labels_shape = tuple(snp.shape_of(logits)), tuple(snp.shape_of(labels))
    if labels_shape == logits_shape[:-1] and not is_float(snp.dtype_of(labels)):
        return True
    if labels_shape == logits_shape:
        return False
    raise shape_error(
        f"{name}: labels of shape {labels_shape} are neither integer class ids of shape {logits_shape[:-1]} "
        f"nor one-hot rows of shape {logits_shape}"
    )


def softmax_cross_entropy(logits, labels):
    """Mean over the batch of ``-sum(p * log_softmax(logits))`` (stable for large logits)."""
    if _class_ids("softmax_cross_entropy", logits, labels):
        labels = one_hot(labels, snp.shape_of(logits)[-1], snp.dtype_of(logits))
    return -snp.mean(snp.sum(labels * snp.log_softmax(logits, axis=-1), axis=-1))


def mse(predictions, targets):
    """Mean squared error over all elements; integer targets are taken at the predictions'
    float dtype (NumPy's promotion would make float32 predictions and int32 targets float64)."""
    if is_float(snp.dtype_of(predictions)) and not is_float(snp.dtype_of(targets)):
        targets = snp.astype(targets, snp.dtype_of(predictions))
    return snp.mean(snp.square(predictions - targets))


def accuracy(logits, labels):
    """Fraction of rows whose largest logit is at the label's class (ids or one-hot)."""
    if not _class_ids("accuracy", logits, labels):
        labels = snp.argmax(labels, axis=-1)
    predicted = snp.argmax(logits, axis=-1)
    return snp.mean(snp.astype(snp.equal(predicted, snp.astype(labels, snp.dtype_of(predicted))), np.float32))
