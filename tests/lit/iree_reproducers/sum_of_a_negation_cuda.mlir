// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A sum of negated numbers does not compile for the cuda backend (it does for llvm-cpu,
// vmvx and vulkan-spirv):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=cuda \
//     sum_of_a_negation_cuda.mlir -o out.vmfb
//   error: failed to get neutral element for reduction
//   error: 'linalg.generic' op Failed to get an identity value for the reduction operation.
//   error: tiling of level PartialReduction failed
//
// `sum(-x * y)`, `sum(x - y)` and `sum(exp(-x))` compile; `sum(-(x * y))` does not. s4tf
// sums the numbers and negates the sum on cuda (passes/iree/negated_sums.py). Found with
// reverse mode of a transformer block's LayerNorm, whose gradient sums a negated cotangent.
module {
  func.func @main(%x: tensor<64x32xf32>) -> tensor<64xf32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %n = stablehlo.negate %x : tensor<64x32xf32>
    %s = stablehlo.reduce(%n init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64xf32>
    return %s : tensor<64xf32>
  }
}
