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
// back wrong, some as garbage (-7e31): in most runs on an idle machine, in about one run of
// 10 under load. The product returned alone, or with its transpose returned apart, is right;
// the transpose computed as the product of the swapped operands
// (passes/iree/transposed_products.py) and the two products in dispatches of their own (an
// optimization_barrier on one: passes/iree/products_apart.py), which s4tf emits on vulkan,
// is wrong in about one run of 200 under load (rows summed over other rows: 1.25 for 2), a
// race IREE's SPIR-V code or lavapipe (Mesa 22) still has. Found with reverse mode of
// `sum(x @ x.T)`, whose gradient is this sum.
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
