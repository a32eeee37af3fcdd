// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A dispatch region that returns one value twice (two writes of it into two
// `tensor.empty`s, which CSE makes one) gives one of its results another result's
// elements: with x = [0.3, -0.2, 0.5],
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic dispatch_region_duplicate_results.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --function=main --input=3xf32=0.3,-0.2,0.5
//
// returns sin(x), cos(x) and sin(x) again, not cos(x), for the third result. A wrong
// number, not an error. s4tf-loops-to-dispatch returns each value once and lets each result
// read it (IREE-3.13-WORKAROUND: passes/iree/loop_dispatch_emitter.py, `dispatch`; a
// branch's results that yield the same values in both branches are one:
// passes/iree/loop_dispatch_ops.py, `op_if`). Found with `jvp` of `jvp` through `cond`,
// whose two tangents along one direction are the same value in each branch (-7.65 against
// 2.16).
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = flow.dispatch.region -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %v = vector.transfer_read %x[%c0], %zero : tensor<3xf32>, vector<3xf32>
    %a = math.sin %v : vector<3xf32>
    %b = math.cos %v : vector<3xf32>
    %e0 = tensor.empty() : tensor<3xf32>
    %w0 = vector.transfer_write %a, %e0[%c0] : vector<3xf32>, tensor<3xf32>
    %e1 = tensor.empty() : tensor<3xf32>
    %w1 = vector.transfer_write %b, %e1[%c0] : vector<3xf32>, tensor<3xf32>
    %e2 = tensor.empty() : tensor<3xf32>
    %w2 = vector.transfer_write %b, %e2[%c0] : vector<3xf32>, tensor<3xf32>
    flow.return %w0, %w1, %w2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
