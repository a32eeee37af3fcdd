// IREE 3.13 performance report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A loop that writes one row of a carried tensor per iteration copies the whole tensor
// every iteration, so writing T rows costs O(T^2) bytes (XLA updates it in place):
//
//   iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
//     while_carried_update_copies.mlir --compile-to=stream
//
// shows, inside the loop's block, a fresh `stream.resource.alloca` of the 1 MiB tensor and a
// `stream.cmd.copy` of all of it before the row is written. On an idle 2-core Xeon
// (`iree-benchmark-module --device=local-task`) 64 rows of 16 KiB take 17 ms, 256 rows
// 243 ms. The copy stays whether the tensor starts from a constant or from a value computed
// at run time, whether the loop reads it or only writes it, and whether it is the only
// carried tensor. A `dynamic_update_slice` of a row is `flow.tensor.update` tied to the
// carried block argument; stream's copy elision keeps the clone across the loop's back edge.
//
// s4tf works around it where it matters (IREE-3.13-WORKAROUND): reverse mode keeps one row of
// the carried state per iteration rather than every residual of the body (the residuals of a
// GRU language model's step, 12 rows an iteration, made its training step 2x slower), and a
// host-stepped counted loop runs up to 8 iterations a trip in reverse mode, which copies its
// tapes and stacks 8 times less (passes/autodiff/region_derivatives.py, `_copies`).
func.func @main(%x: tensor<32x128xf32>) -> tensor<64x32x128xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<64> : tensor<i32>
  %x0 = stablehlo.slice %x [0:1, 0:1] : (tensor<32x128xf32>) -> tensor<1x1xf32>
  %x00 = stablehlo.reshape %x0 : (tensor<1x1xf32>) -> tensor<f32>
  %zb = stablehlo.broadcast_in_dim %x00, dims = [] : (tensor<f32>) -> tensor<64x32x128xf32>
  %r:2 = stablehlo.while(%i = %c0, %t = %zb) : tensor<i32>, tensor<64x32x128xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<1x32x128xf32>
    %xr = stablehlo.reshape %x : (tensor<32x128xf32>) -> tensor<1x32x128xf32>
    %row = stablehlo.add %b, %xr : tensor<1x32x128xf32>
    %t2 = stablehlo.dynamic_update_slice %t, %row, %i, %c0, %c0 : (tensor<64x32x128xf32>, tensor<1x32x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<64x32x128xf32>
    %i2 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i2, %t2 : tensor<i32>, tensor<64x32x128xf32>
  }
  return %r#1 : tensor<64x32x128xf32>
}
