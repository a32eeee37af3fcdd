"""Losses and metrics against NumPy; the cross-entropy gradient against finite differences."""

import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

LOGITS = np.array([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0], [1000.0, 0.0, -1000.0], [0.1, 0.2, 0.3]], np.float32)
LABELS = np.array([0, 2, 0, 2], np.int32)


def numpy_cross_entropy(logits, labels):
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    return -log_p[np.arange(len(labels)), labels].mean()


def test_softmax_cross_entropy_with_class_ids_and_one_hot_is_stable():
    loss = s4tf.function(nn.softmax_cross_entropy)
    expected = numpy_cross_entropy(LOGITS, LABELS)
    assert float(loss(LOGITS, LABELS)) == pytest.approx(expected, rel=1e-5)
    assert float(loss(LOGITS, np.eye(3, dtype=np.float32)[LABELS])) == pytest.approx(expected, rel=1e-5)
    assert np.isfinite(float(loss(LOGITS, LABELS)))


def test_cross_entropy_gradient_matches_finite_differences():
    check_model_gradient(lambda logits, y: nn.softmax_cross_entropy(logits, y), np.asarray(LOGITS[[0, 1, 3]]), LABELS[[0, 1, 3]])


def test_mse_and_accuracy():
    p, t = np.array([1.0, 2.0, 4.0], np.float32), np.array([1.0, 0.0, 1.0], np.float32)
    assert float(s4tf.function(nn.mse)(p, t)) == pytest.approx(13 / 3)
    integer_targets = s4tf.function(nn.mse)(p, t.astype(np.int32))
    assert integer_targets.dtype == np.float32 and float(integer_targets) == pytest.approx(13 / 3)
    accuracy = s4tf.function(nn.accuracy)
    assert float(accuracy(LOGITS, LABELS)) == pytest.approx(0.75)  # row 1 predicts class 1, label 2
    assert float(accuracy(LOGITS, np.eye(3, dtype=np.float32)[LABELS])) == pytest.approx(0.75)


def test_labels_of_the_wrong_shape_are_an_error():
    with pytest.raises(s4tf.ShapeError, match="neither integer class ids"):
        s4tf.function(nn.softmax_cross_entropy)(LOGITS, LABELS[:3])
