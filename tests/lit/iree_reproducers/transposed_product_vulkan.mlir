// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A product whose result is read transposed by an elementwise op fused with it gives wrong
// numbers on vulkan-spirv (Mesa 22's lavapipe; right on llvm-cpu):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=vulkan-spirv \
//     transposed_product_vulkan.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --device=vulkan --function=main \
//     --input="4x6xf32=[[1 2 3 4 5 6][1 2 3 4 5 6][1 2 3 4 5 6][1 2 3 4 5 6]]"
//
// Every element should be twice its column's number (2 4 6 8 10 12 in each row); some come
// back wrong, some as garbage (-7e31). The product returned alone, or with its transpose
// returned apart, is right; so is the transpose computed as the product of the swapped
// operands (passes/iree/transposed_products.py) -- most of the time: the two products
// added, fused into one dispatch, race, and about one run in 30 comes back with rows summed
// over other rows (8.5 for 2) when the machine is busy. Each product in a dispatch of its
// own (an optimization_barrier on one of them: passes/iree/products_apart.py) is right in
// 30 runs of 30. s4tf emits both on vulkan. Found with reverse mode of `sum(x @ x.T)`, whose
// gradient is this sum.
module {
  func.func @main(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %c = stablehlo.constant dense<2.500000e-01> : tensor<4x4xf32>
    %quarter = stablehlo.abs %c : tensor<4x4xf32>
    %p = stablehlo.dot_general %x, %quarter, contracting_dims = [0] x [0] : (tensor<4x6xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
    %t = stablehlo.transpose %p, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
    %q = stablehlo.dot_general %quarter, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %r = stablehlo.add %q, %t : tensor<4x6xf32>
    return %r : tensor<4x6xf32>
  }
}
