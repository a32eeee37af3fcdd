"""IREE's threads only while a core is idle; the code is the same bits either way (so the
choice is not part of the cache key)."""

import iree.compiler

from s4tf.runtime.compile_threads import DISABLE_THREADING, threading_flags, usable_cpus
from s4tf.runtime.targets import compile_flags

MODULE = """
func.func @main(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
  %0 = stablehlo.multiply %a, %b : tensor<64xf32>
  %1 = stablehlo.exponential %0 : tensor<64xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
  return %1, %2 : tensor<64xf32>, tensor<f32>
}
"""


def test_threads_only_while_a_core_is_idle():
    assert threading_flags(load=usable_cpus() - 1.0) == []
    assert threading_flags(load=float(usable_cpus())) == [DISABLE_THREADING]
    assert threading_flags(load=usable_cpus() + 3.0) == [DISABLE_THREADING]


def test_the_code_is_the_same_bits_with_and_without_threads():
    flags = compile_flags("cpu")
    with_threads = iree.compiler.compile_str(MODULE, input_type="stablehlo", extra_args=flags)
    without = iree.compiler.compile_str(MODULE, input_type="stablehlo", extra_args=[*flags, DISABLE_THREADING])
    assert with_threads == without
