// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A sort carrying a second operand crashes iree-compile for vulkan-spirv for some shapes
// (it compiles for llvm-cpu, vmvx and cuda; a sort of one operand compiles for vulkan-spirv):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=vulkan-spirv \
//     sort_with_positions_vulkan.mlir -o out.vmfb
//   crash (signal 11) in mlir::IntegerAttr::getInt
//
// Which shapes fail is erratic: 1-D sorts of 5 and 10 elements and a 32x10 one along its
// rows crash, an 8x128 one fails ("'vector...'"), while 1-D sorts of 8, 16, 100 and 1,000
// elements and 2x5, 3x5 and 1x5 ones compile. Every s4tf.sort lowers to such a sort (the
// keys and their positions, which then gather the values); a blanket refusal would refuse
// the shapes that work, so s4tf passes IREE's failure on (one line, and the module saved).
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
