// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// Two `dynamic_update_slice`s of a splat constant into adjacent elements, the second below
// the first, fail to compile:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic descending_splat_updates_fail.mlir -o out.vmfb
//
//   error: 'stream.async.fill' op has invalid Write access range [52 to 32 for 8] of
//   resource %0 with size 32; start > end
//
// The updates become fills, and the two fills are merged with a wrong range. In ascending
// order (rows 6 then 7), non-adjacent, or with the row behind an `optimization_barrier`, it
// compiles. In larger modules the merged range passes the check and the numbers are wrong:
// reverse mode clears a stack's rows last first, and the gradient of a 7-step `scan` with
// pytree `xs` (with `has_aux`, beside an update), its loops made straight-line code by
// s4tf-unroll-host-loops, was 6.1 off in its last element. IREE-3.13-WORKAROUND:
// passes/iree/unroll_host_loops.py, `_unshare_updates`, puts each row behind a barrier.
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<1xf32>
  %c6 = stablehlo.constant dense<6> : tensor<i32>
  %c7 = stablehlo.constant dense<7> : tensor<i32>
  %u = stablehlo.dynamic_update_slice %x, %zero, %c7 : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
  %v = stablehlo.dynamic_update_slice %u, %zero, %c6 : (tensor<8xf32>, tensor<1xf32>, tensor<i32>) -> tensor<8xf32>
  return %v : tensor<8xf32>
}
