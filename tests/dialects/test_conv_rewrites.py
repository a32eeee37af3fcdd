"""The convolution rewrites of the lowering pipeline (``s4tf-full-convs-to-matmul``), run
numerically: each convolution is lowered with and without the rewrite, both are run by
IREE, and both are compared with NumPy (``Conv2D.reference`` in float64); the gradient
through a rewritten input gradient is checked against float64 finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from tests.autodiff.gradient_checks import directional_check

import s4tf
from s4tf.dialects.linalg_ops import Conv2D
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.passes.iree.conv_taps import FullConvsToMatmul
from s4tf.passes.pipeline import LOWERING_PIPELINE, Pipeline

WITHOUT = Pipeline(element for element in LOWERING_PIPELINE if not isinstance(element, FullConvsToMatmul))
RNG = np.random.default_rng(7)

# id: (input NHWC, filter HWIO, padding (top, bottom, left, right)); all outputs outgrow the input
FULL = {
    "lenet_input_gradient": ((4, 10, 10, 16), (5, 5, 16, 6), (4, 4, 4, 4)),
    "uneven_padding": ((2, 5, 6, 3), (3, 2, 3, 4), (2, 1, 0, 3)),
    "padding_wider_than_the_filter": ((1, 4, 4, 2), (2, 2, 2, 3), (4, 3, 2, 5)),
    "one_channel": ((3, 6, 6, 1), (3, 3, 1, 5), (2, 2, 2, 2)),
}


def _attrs(padding):
    return {"strides": (1, 1), "padding": padding, "lhs_dilation": (1, 1), "rhs_dilation": (1, 1), "feature_group_count": 1}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", FULL)
def test_full_convolution_with_and_without_the_rewrite_against_numpy(name, dtype):
    x_shape, w_shape, padding = FULL[name]
    x, w = RNG.standard_normal(x_shape).astype(dtype), RNG.standard_normal(w_shape).astype(dtype)
    lowered = s4tf.function(lambda x, w: s4tf.op("conv2d", x, w, **_attrs(padding))).lower(x, w)
    rewritten, plain = lowered.stablehlo(), lowered.stablehlo(WITHOUT)
    assert "stablehlo.convolution" not in rewritten and "stablehlo.dot_general" in rewritten
    assert "stablehlo.convolution" in plain
    expected = Conv2D.reference(x.astype(np.float64), w.astype(np.float64), **_attrs(padding))
    results = [np.asarray(compile_and_load(text).invoke(lowered.entry, [x, w])[0]) for text in (rewritten, plain)]
    tolerance = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    for result in results:
        assert result.dtype == dtype and result.shape == expected.shape
        np.testing.assert_allclose(result, expected, **tolerance)
    np.testing.assert_allclose(results[0], results[1], **tolerance)


def test_same_and_valid_convolutions_are_not_rewritten():
    x, w = RNG.standard_normal((2, 8, 8, 3)), RNG.standard_normal((3, 3, 3, 4))
    for padding in ((1, 1, 1, 1), (0, 0, 0, 0), (2, 2, 0, 0)):
        text = s4tf.function(lambda x, w: s4tf.op("conv2d", x, w, **_attrs(padding))).lower(x, w).stablehlo()
        assert "stablehlo.convolution" in text and "stablehlo.dot_general" not in text


def test_gradient_of_a_valid_convolution_through_the_rewritten_input_gradient():
    """The input gradient of a valid 5x5 convolution is a full convolution: rewritten, it
    must still match float64 finite differences, forward and reverse."""
    x, w = RNG.standard_normal((2, 7, 7, 3)), RNG.standard_normal((5, 5, 3, 2))
    conv = lambda x, w: s4tf.op("conv2d", x, w, **_attrs((0, 0, 0, 0)))  # noqa: E731
    text = s4tf.function(lambda x, w: s4tf.grad(lambda x: s4tf.sum(conv(x, w) ** 2))(x)).lower(x, w).stablehlo()
    assert "stablehlo.dot_general" in text
    directional_check(conv, [x, w])
