"""ModuleTraits: the facts the runtime reads from a lowered module's IR (loops, dynamic
shapes, the largest tensor, products, convolutions, f64 libm calls, dispatch regions), from one walk."""

import numpy as np

import s4tf
from s4tf.passes.module_traits import ModuleTraits
from s4tf.passes.pipeline import lowering_pipeline


def traits_of(fn, *args) -> ModuleTraits:
    lowered = s4tf.function(fn).lower(*args)
    module = lowered.lowered_module(lowering_pipeline("cpu"))
    from_ir = ModuleTraits.of(module)
    assert ModuleTraits.parse(str(module)) == from_ir  # text and IR agree
    return from_ir


def test_a_straight_line_product_module():
    a, b = np.ones((128, 256), np.float32), np.ones((256, 64), np.float64)
    traits = traits_of(lambda a, b: s4tf.tanh(a @ a.T), a, b)
    assert traits.product_types == ("f32",) and not traits.loops and not traits.dynamic_shapes
    assert traits.largest_tensor_bytes == 256 * 128 * 4 and traits.convolutions == 0 and not traits.f64_libm_ops
    assert traits_of(lambda a, b: b.T @ b, a, b).product_types == ("f64",)


def test_loops_convolutions_and_libm_calls():
    h = np.ones(4, np.float64)
    traits = traits_of(lambda x, n: s4tf.fori_loop(0, n, lambda i, x: s4tf.sin(x) * 0.5, x), h, np.int32(3))
    assert traits.loops and traits.f64_libm_ops and traits.dispatch_regions == 1  # the loop inside one dispatch
    assert traits_of(lambda a: s4tf.tanh(a), h).dispatch_regions == 0
    assert not traits_of(lambda x: s4tf.sin(x), h.astype(np.float32)).f64_libm_ops
    conv = traits_of(lambda x, k: s4tf.conv2d(x, k), np.ones((1, 8, 8, 1), np.float32), np.ones((3, 3, 1, 2), np.float32))
    assert conv.convolutions == 1


def test_dynamic_shapes_and_bits_below_a_byte():
    text = """func.func @f(%x: tensor<?x4xf32>, %b: tensor<3x5xi1>) -> tensor<3x5xi1> {
  return %b : tensor<3x5xi1>
}"""
    traits = ModuleTraits.parse(text)
    assert traits.dynamic_shapes and traits.largest_tensor_bytes == 15
