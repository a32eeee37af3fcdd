// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A `reverse` whose operand is a `slice` with a stride on the innermost axis does not
// compile for llvm-cpu:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic reverse_of_a_strided_slice.mlir -o out.vmfb
//
//   error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
//   error: failed to serialize executable for target backend llvm-cpu
//
// for any element type (f32, f64, i32) and length (5 and 1000 tried). It compiles with the
// stride on an outer axis only, with an elementwise op between the two, or in the other
// order (a slice of the reversed operand, the same elements). s4tf meets it in `x[::2][::-1]`,
// `s4tf.flip(x[::2])` and reverse mode of `x.at[1::2, ::-2].set(v)`
// (IREE-3.13-WORKAROUND: passes/iree/reversed_slices.py, `s4tf-reverse-before-slice`).
func.func @main(%x: tensor<5xf32>) -> tensor<3xf32> {
  %0 = stablehlo.slice %x [0:5:2] : (tensor<5xf32>) -> tensor<3xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<3xf32>
  return %1 : tensor<3xf32>
}
