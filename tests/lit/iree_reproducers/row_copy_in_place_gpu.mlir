// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A loop copying element 2i of a tensor to element i in place, its trip count carried
// through the loop, does not compile for the GPU backends (it does for llvm-cpu and vmvx;
// with the count read from outside the loop it does for the GPUs too):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=vulkan-spirv \
//     row_copy_in_place_gpu.mlir -o out.vmfb
//   error: failed to legalize operation 'hal.interface.binding.subspan' that was explicitly
//   marked illegal (a readwrite binding of the tensor)
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=cuda \
//     row_copy_in_place_gpu.mlir -o out.vmfb
//   error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
//
// IREE fuses the slice and the update into one dispatch that reads and writes the tensor's
// buffer. With the element read through a stablehlo.optimization_barrier (a buffer of its
// own) both compile and run right, which s4tf emits on the GPU targets
// (passes/iree/row_copies.py). Found with reverse mode of a data-dependent `while` (Newton's
// square root), whose tapes of checkpoints are thinned so (row 2i to row i).
module {
  func.func @main(%t: tensor<1009xf32>, %n: tensor<i32>) -> tensor<1009xf32> {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %c2 = stablehlo.constant dense<2> : tensor<i32>
      %r:3 = stablehlo.while(%i = %c1, %v = %t, %m = %n) : tensor<i32>, tensor<1009xf32>, tensor<i32>
      cond {
        %p = stablehlo.compare LT, %i, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %j = stablehlo.multiply %i, %c2 : tensor<i32>
        %x = stablehlo.dynamic_slice %v, %j, sizes = [1] : (tensor<1009xf32>, tensor<i32>) -> tensor<1xf32>
        %u = stablehlo.dynamic_update_slice %v, %x, %i : (tensor<1009xf32>, tensor<1xf32>, tensor<i32>) -> tensor<1009xf32>
        %i1 = stablehlo.add %i, %c1 : tensor<i32>
        stablehlo.return %i1, %u, %m : tensor<i32>, tensor<1009xf32>, tensor<i32>
      }
      return %r#1 : tensor<1009xf32>
  }
}
