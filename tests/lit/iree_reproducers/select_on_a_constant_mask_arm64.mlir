// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A select on a constant boolean mask gives wrong results on aarch64 (android-arm64 and
// linux-arm64, run under qemu-aarch64); the same module is right on x86-64:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-triple=aarch64-linux-android34 --iree-llvmcpu-target-cpu=generic \
//     select_on_a_constant_mask_arm64.mlir -o out.vmfb
//   qemu-aarch64 iree-run-module --module=out.vmfb --device=local-task --function=main \
//     --input="6x3xf32=1"
//
// The last row should be the input's (1 1 1); it comes back as zeros: the mask's true
// positions read as false. A mask compared from an i8 constant fails the same way (IREE
// folds it into the same constant); a mask computed from an iota (iota == 5) is right, which
// is what s4tf's static updates (`x.at[5].set(v)`) use (frontend/arrays/indexing.py,
// `_positions_mask`). Found with a sweep of loop programs on android-arm64: the first row of
// a reversed `scan` is set so. Which masks fail is erratic: 6x3, 2x3 and 6x2 masks whose last
// row alone is true fail; 3x3, 4x3, 7x3 and 6x4 ones, and random masks, are right. The same
// constant read through a stablehlo.optimization_barrier is right for all of them, which is
// what s4tf does with the constant masks users write on the aarch64 targets
// (passes/iree/bool_constants.py).
module {
  func.func @main(%x: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %mask = stablehlo.constant dense<[[false, false, false], [false, false, false], [false, false, false], [false, false, false], [false, false, false], [true, true, true]]> : tensor<6x3xi1>
    %zeros = stablehlo.constant dense<0.000000e+00> : tensor<6x3xf32>
    %r = stablehlo.select %mask, %x, %zeros : tensor<6x3xi1>, tensor<6x3xf32>
    return %r : tensor<6x3xf32>
  }
}
