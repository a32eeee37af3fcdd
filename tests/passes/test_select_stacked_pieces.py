"""``s4tf-select-stacked-pieces`` against NumPy on IREE: stacks of scalars and of rows along
each axis, in float, integer and boolean dtypes, a rotation built from sines and cosines
with its derivatives against finite differences, and no concatenation left for IREE."""

import sys
from pathlib import Path

import numpy as np

import s4tf
from s4tf.passes.pipeline import lowering_pipeline

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

RNG = np.random.default_rng(11)


def _stacks(np_, a, b, c):
    return [np_.stack([a[0, 0], b[1, 1], c[2, 0]]), np_.stack([a[0], b[1], c[2]]), np_.stack([a[:, 1], b[:, 0]], axis=1),
            np_.stack([a, b, c], axis=2), np_.concatenate([a[:1], c[2:]], axis=0)]


def test_stacks_match_numpy_in_every_dtype():
    for dtype in (np.float32, np.int32, np.bool_):
        a, b, c = ((RNG.normal(size=(3, 2)) * 4).astype(dtype) for _ in range(3))
        results = s4tf.function(lambda a, b, c: _stacks(s4tf, a, b, c))(a, b, c)
        for result, expected in zip(results, _stacks(np, a, b, c), strict=True):
            np.testing.assert_array_equal(np.asarray(result), expected)


def _rotation(angles):
    tx, tz = angles[0], angles[1]
    c, s, one, zero = s4tf.cos(tx), s4tf.sin(tx), s4tf.ones_like(tx), s4tf.zeros_like(tx)
    rx = s4tf.stack([s4tf.stack([one, zero, zero]), s4tf.stack([zero, c, -s]), s4tf.stack([zero, s, c])])
    rz = s4tf.stack([s4tf.stack([s4tf.cos(tz), -s4tf.sin(tz), zero]), s4tf.stack([s4tf.sin(tz), s4tf.cos(tz), zero]),
                     s4tf.stack([zero, zero, one])])
    return rz @ rx


def test_a_rotation_and_its_derivatives():
    angles = np.array([0.3, -1.1])
    (cx, sx), (cz, sz) = ((np.cos(t), np.sin(t)) for t in angles)
    expected = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    np.testing.assert_allclose(np.asarray(s4tf.function(_rotation)(angles)), expected, rtol=1e-15, atol=1e-15)
    directional_check(_rotation, [angles])


def test_no_concatenation_of_thin_pieces_reaches_iree():
    text = s4tf.function(_rotation).lower(np.zeros(2)).stablehlo(lowering_pipeline("cpu"))
    assert "stablehlo.concatenate" not in text and "stablehlo.select" in text
