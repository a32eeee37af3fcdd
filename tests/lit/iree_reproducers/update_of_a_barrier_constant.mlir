// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A `dynamic_update_slice` of a constant behind an `optimization_barrier` is written into
// the constant's own buffer: ops that read the constant (here `iota`, which CSE makes one
// with `1.0 * iota`) see the update, and so does every later call. With x = ones(8):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic update_of_a_barrier_constant.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --function=main --input=8xf32=1 --input=i32=5
//
// returns 23 for the sum (28: x . iota); a second call in the same process (row 4) gives 19:
// row 5 stays zero.
// XLA returns 28 every call. A wrong number, not an error. s4tf meets it where
// s4tf-unroll-host-loops makes a loop straight-line code: reverse mode clears rows of a
// constant cotangent seed (behind a barrier so nothing folds it) that, inside the loop, was
// a block argument IREE copies every trip (IREE-3.13-WORKAROUND: passes/iree/unroll_host_loops.py,
// `_unshare_updates`, updates a copy). Found with `value_and_grad(..., has_aux=True)` of a
// 4-step `fori_loop` setting two rows a step, beside an update: 0 for the value.
func.func @main(%x: tensor<8xf32>, %i: tensor<i32>) -> (tensor<f32>, tensor<8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %row = stablehlo.constant dense<0.0> : tensor<1xf32>
  %ones = stablehlo.constant dense<1.0> : tensor<8xf32>
  %iota = stablehlo.iota dim = 0 : tensor<8xf32>
  %seed = stablehlo.multiply %ones, %iota : tensor<8xf32>
  %b = stablehlo.optimization_barrier %seed : tensor<8xf32>
  %u = stablehlo.dynamic_update_slice %b, %row, %i : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
  %v = stablehlo.multiply %u, %x : tensor<8xf32>
  %w = stablehlo.multiply %x, %iota : tensor<8xf32>
  %s = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  return %s, %v : tensor<f32>, tensor<8xf32>
}
