// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A sort carrying a second operand crashes iree-compile for vulkan-spirv (it compiles for
// llvm-cpu, vmvx and cuda; a sort of one operand compiles for vulkan-spirv too):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=vulkan-spirv \
//     sort_with_positions_vulkan.mlir -o out.vmfb
//   crash (signal 11) in mlir::IntegerAttr::getInt
//
// Every s4tf.sort lowers to such a sort (the keys and their positions, which then gather the
// values), so s4tf reports a sort on vulkan at the user's line before IREE runs
// (passes/iree/availability.py).
module {
  func.func @main(%x: tensor<5xf32>, %i: tensor<5xi32>) -> tensor<5xi32> {
    %r:2 = "stablehlo.sort"(%x, %i) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %p: tensor<i32>, %q: tensor<i32>):
      %c = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    return %r#1 : tensor<5xi32>
  }
}
