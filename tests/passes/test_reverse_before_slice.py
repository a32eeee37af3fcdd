"""``s4tf-reverse-before-slice`` against NumPy on IREE: strided reads flipped afterwards
(``x[::2][::-1]``, ``s4tf.flip`` of a strided slice along each axis), which IREE 3.13 fails
to compile in the order the program writes them
(tests/lit/iree_reproducers/reverse_of_a_strided_slice.mlir)."""

import numpy as np

import s4tf
from s4tf.passes.pipeline import lowering_pipeline

X = np.arange(42.0, dtype=np.float32).reshape(6, 7)


def test_flipped_strided_slices_match_numpy():
    programs = [
        (lambda x: x[0, ::2][::-1], lambda x: x[0, ::2][::-1]),
        (lambda x: s4tf.flip(x[1:6:2, 1::3]), lambda x: np.flip(x[1:6:2, 1::3])),
        (lambda x: s4tf.flip(x[1:6:2, 1::3], 1) * 2, lambda x: np.flip(x[1:6:2, 1::3], 1) * 2),
        (lambda x: s4tf.flip(x[::5, 2:7:2], 0), lambda x: np.flip(x[::5, 2:7:2], 0)),
    ]
    results = s4tf.function(lambda x: [ours(x) for ours, _ in programs])(X)
    for result, (_, numpy) in zip(results, programs, strict=True):
        np.testing.assert_array_equal(np.asarray(result), numpy(X))


def test_no_reverse_of_a_slice_reaches_iree():
    for program in (lambda x: s4tf.flip(x[1:6:2, 1::3]), lambda x: x[0, ::2][::-1]):
        text = s4tf.function(program).lower(X).stablehlo(lowering_pipeline("cpu"))
        assert "stablehlo.reverse %arg0" in text and text.count("stablehlo.slice") == 1
