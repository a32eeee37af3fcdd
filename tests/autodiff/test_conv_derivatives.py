"""Convolution derivatives against float64 finite differences (``directional_check``):
first order, forward and reverse; second order as the derivatives of a gradient (forward
over reverse: Hessian-vector products; reverse over reverse) and of a JVP (forward over
forward, reverse over forward). The cases are those the transposes handle specially:
padding wider than the filter, negative padding (cropping), strides that leave rows
unread, filter and input dilation, grouped and depthwise convolutions."""

import numpy as np
import pytest
from gradient_checks import directional_check

import s4tf
from s4tf.dialects import linalg_ops as linalg

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(12)


def _attrs(strides=(1, 1), padding=(0, 0, 0, 0), lhs_dilation=(1, 1), rhs_dilation=(1, 1), groups=1):
    return {
        "strides": strides, "padding": padding, "lhs_dilation": lhs_dilation, "rhs_dilation": rhs_dilation,
        "feature_group_count": groups,
    }


# id: (conv2d attributes, input shape NHWC, filter shape HWIO)
CASES = {
    "padding_3": (_attrs(padding=(3, 3, 3, 3)), (1, 4, 5, 2), (3, 3, 2, 2)),
    "padding_4_stride_2": (_attrs(strides=(2, 2), padding=(4, 4, 4, 4)), (2, 5, 4, 2), (3, 3, 2, 2)),
    "padding_uneven_wide_dilated": (_attrs(padding=(5, 1, 0, 4), rhs_dilation=(2, 1)), (1, 4, 4, 1), (2, 3, 1, 2)),
    "stride_2_rows_unread": (_attrs(strides=(2, 2)), (1, 6, 7, 2), (3, 3, 2, 2)),
    "stride_2_padding_1": (_attrs(strides=(2, 2), padding=(1, 1, 1, 1)), (1, 6, 5, 2), (3, 3, 2, 2)),
    "stride_2_dilation_2": (_attrs(strides=(2, 2), padding=(1, 0, 2, 1), rhs_dilation=(2, 2)), (1, 7, 6, 1), (2, 3, 1, 2)),
    "stride_2_3_dilation_3_1": (_attrs(strides=(2, 3), rhs_dilation=(3, 1)), (1, 8, 7, 2), (2, 2, 2, 1)),
    "negative_padding": (_attrs(padding=(-1, 2, 1, -2)), (1, 5, 6, 2), (3, 2, 2, 2)),
    "negative_padding_strided": (_attrs(strides=(2, 2), padding=(-2, 0, 0, -1), rhs_dilation=(1, 2)), (1, 8, 7, 1), (2, 2, 1, 2)),
    "groups_2": (_attrs(padding=(1, 1, 1, 1), groups=2), (1, 4, 4, 4), (3, 3, 2, 6)),
    "depthwise": (_attrs(padding=(1, 1, 0, 2), groups=3), (2, 4, 4, 3), (3, 3, 1, 6)),
    "groups_strided_dilated_wide": (_attrs(strides=(2, 2), padding=(3, 2, 4, 0), rhs_dilation=(2, 1), groups=2), (1, 5, 5, 4), (2, 3, 2, 4)),
    "input_dilation": (_attrs(padding=(1, 2, 0, 1), lhs_dilation=(2, 3)), (1, 3, 3, 2), (2, 2, 2, 2)),
    "input_dilation_strided_grouped": (
        _attrs(strides=(2, 1), padding=(-1, 3, 1, 1), lhs_dilation=(2, 2), groups=2), (1, 4, 3, 2), (3, 2, 1, 4),
    ),
}


def _case(name):
    attrs, x_shape, w_shape = CASES[name]
    conv = lambda x, w: s4tf.op("conv2d", x, w, **attrs)  # noqa: E731
    return conv, [RNG.standard_normal(x_shape), RNG.standard_normal(w_shape)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_derivatives(name):
    conv, args = _case(name)
    directional_check(conv, args)


@pytest.mark.parametrize("name", ["groups_2", "stride_2_dilation_2", "input_dilation_strided_grouped"])
def test_first_derivatives_with_a_product_per_filter_tap(monkeypatch, name):
    """The filter gradient of a stack of windows too large for one product
    (``IM2COL_MAX_BYTES``) takes one product per window."""
    monkeypatch.setattr(linalg, "IM2COL_MAX_BYTES", 0)
    conv, args = _case(name)
    directional_check(conv, args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_of_the_gradient(name):
    """The gradient of sum(conv(x, w)^2) wrt both operands, differentiated again: its JVP
    is a Hessian-vector product (forward over reverse), its VJP reverse over reverse."""
    conv, args = _case(name)

    def gradient(x, w):
        grad_x, grad_w = s4tf.grad(lambda a, b: s4tf.sum(conv(a, b) ** 2), argnums=(0, 1))(x, w)
        return s4tf.concatenate([grad_x.reshape(-1), grad_w.reshape(-1)], axis=0)

    directional_check(gradient, args)


@pytest.mark.parametrize(
    "name", ["depthwise", "groups_strided_dilated_wide", "input_dilation_strided_grouped", "negative_padding_strided", "padding_4_stride_2"],
)
def test_derivatives_of_a_jvp(name):
    """The JVP of conv(x, w)^2 along a fixed direction, differentiated again: forward over
    forward and reverse over forward (one case of each kind: their rules are the first
    order's, met again)."""
    conv, args = _case(name)
    directions = [RNG.standard_normal(a.shape) for a in args]

    def tangent(x, w):
        return s4tf.jvp(lambda a, b: conv(a, b) ** 2, (x, w), tuple(directions))[1]

    directional_check(tangent, args)


def test_gradient_of_a_grouped_convolution_matches_the_per_group_convolutions():
    """A grouped convolution is the concatenation of ungrouped ones over channel slices,
    so its gradients are those of the slices' convolutions (which need no grouped rule)."""
    x, w = RNG.standard_normal((2, 5, 5, 6)), RNG.standard_normal((3, 3, 2, 6))
    probe = RNG.standard_normal((2, 3, 3, 6))

    def grouped(a, b):
        return s4tf.sum(s4tf.conv2d(a, b, groups=3) * probe)

    def split(a, b):
        parts = [s4tf.conv2d(a[..., 2 * g : 2 * g + 2], b[..., 2 * g : 2 * g + 2]) for g in range(3)]
        return s4tf.sum(s4tf.concatenate(parts, axis=3) * probe)

    expected = s4tf.grad(split, argnums=(0, 1))(x, w)
    for got, want in zip(s4tf.grad(grouped, argnums=(0, 1))(x, w), expected):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strides, groups", [(1, 1), (2, 1), (1, 2)])
def test_convolution_without_output_has_zero_gradients(strides, groups):
    """A filter larger than the padded input leaves no output position: both cotangents
    are zeros of the operands' shapes, as the finite differences are."""
    x, w = RNG.standard_normal((1, 2, 2, 2)), RNG.standard_normal((3, 3, 2 // groups, 2))
    grads = s4tf.grad(lambda a, b: s4tf.sum(s4tf.conv2d(a, b, strides=strides, groups=groups)), argnums=(0, 1))(x, w)
    for grad, operand in zip(grads, (x, w)):
        np.testing.assert_array_equal(np.asarray(grad), np.zeros_like(operand))


@pytest.mark.parametrize(
    "widths", [((0, 0), (-1, 2), (1, -2), (0, 0)), ((2, -3), (-2, -1), (0, 0), (1, 1))], ids=["crop_and_pad", "crop_both"]
)
def test_negative_pad_widths_derivatives(widths):
    """``s4tf.pad`` with cropping widths, first and second order (through a square)."""
    x = RNG.standard_normal((3, 5, 4, 2))
    directional_check(lambda v: s4tf.pad(v, widths, constant_values=0.5), [x])
    directional_check(lambda v: s4tf.grad(lambda u: s4tf.sum(s4tf.pad(u * u, widths) ** 2))(v), [x])


def test_pad_op_with_interior_and_cropping_derivatives_of_value_and_operand():
    """The pad op's cotangents, for operand and padding value, when its edges crop."""
    low, high, interior = (-1, 2, -3), (1, -4, 2), (1, 0, 2)
    x = RNG.standard_normal((4, 5, 3))

    def padded(v, c):
        return s4tf.op("pad", v * v, c * c, low=low, high=high, interior=interior)

    directional_check(padded, [x, np.float64(0.7)])
