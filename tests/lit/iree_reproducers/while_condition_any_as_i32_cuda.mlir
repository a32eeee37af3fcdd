// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A loop's condition that converts a comparison's booleans to i32 and reduces them (their
// maximum, or their sum) does not compile for the cuda backend with constant evaluation
// off, as s4tf compiles (it does for llvm-cpu; the same reduction outside a loop, or of the
// booleans themselves, compiles for cuda, and so does this module with the default flags):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=cuda \
//     --iree-cuda-target=sm_80 --iree-opt-const-eval=false \
//     while_condition_any_as_i32_cuda.mlir -o out.vmfb
//   error: 'linalg.generic' op Failed to anaysis the reduction operation.
//   error: tiling of level PartialReduction failed
//
// s4tf's batching of a loop whose condition differs per example ran while any example's
// condition held, computed so: `jacfwd` and `hessian` of a 20-step `scan` (its counter
// batched) failed for cuda. It now reduces the booleans (`s4tf.reduce_max` of i1, as
// `s4tf.any` does: passes/batching.py). A user's `max(flags.astype(int32))` in a loop's
// condition still meets it on cuda (one line, and the module saved).
module {
  func.func @main(%x: tensor<320xf32>) -> tensor<320xf32> {
    %one = stablehlo.constant dense<1> : tensor<320xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %lowest = stablehlo.constant dense<-2147483648> : tensor<i32>
    %bound = stablehlo.constant dense<5> : tensor<320xi32>
    %start = stablehlo.constant dense<0> : tensor<320xi32>
    %half = stablehlo.constant dense<5.000000e-01> : tensor<320xf32>
    %r:2 = stablehlo.while(%i = %start, %y = %x) : tensor<320xi32>, tensor<320xf32>
    cond {
      %flags = stablehlo.compare LT, %i, %bound, SIGNED : (tensor<320xi32>, tensor<320xi32>) -> tensor<320xi1>
      %ints = stablehlo.convert %flags : (tensor<320xi1>) -> tensor<320xi32>
      %any = stablehlo.reduce(%ints init: %lowest) applies stablehlo.maximum across dimensions = [0] : (tensor<320xi32>, tensor<i32>) -> tensor<i32>
      %go = stablehlo.compare GT, %any, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %j = stablehlo.add %i, %one : tensor<320xi32>
      %z = stablehlo.multiply %y, %half : tensor<320xf32>
      stablehlo.return %j, %z : tensor<320xi32>, tensor<320xf32>
    }
    return %r#1 : tensor<320xf32>
  }
}
