// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile segfaults converting a dispatch to stream when a dispatch region uses a
// vector constant of more than 256 bytes:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic dispatch_region_vector_constant.mlir -o out.vmfb
//
//   #9  IREE::Stream::AsyncTransferOp::create(...)
//   #10 transferTensorOperands(...)
//   #11 ConvertDispatchOp::matchAndRewriteOnAffinity(...)
//   #22 ConvertToStreamPass::runOnOperation()
//
// (also on vmvx). The constant is hoisted out of the region, and outlining clones back only
// constants up to --iree-flow-inline-constants-max-byte-length (256 bytes): the
// `vector<65xf32>` (260 bytes) becomes an operand of `flow.dispatch`, which stream cannot
// convert (`vector<64xf32>` compiles). With the limit raised above the vector's size it
// compiles and runs. s4tf raises it to the largest value its loop dispatch regions hold
// for modules that have regions (IREE-3.13-WORKAROUND: runtime/compiler.py, `region_flags`).
// Found with a data-dependent `fori_loop` adding a constant of 100 float32s, and with the
// jvp of a 19-step float64 `scan` (its tangent inputs are constants inside the region).
func.func @main(%x: tensor<65xf32>) -> tensor<65xf32> {
  %r = flow.dispatch.region -> (tensor<65xf32>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %v = vector.transfer_read %x[%c0], %zero : tensor<65xf32>, vector<65xf32>
    %c = arith.constant dense<[0.00, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.20, 0.21, 0.22, 0.23, 0.24, 0.25, 0.26, 0.27, 0.28, 0.29, 0.30, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36, 0.37, 0.38, 0.39, 0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48, 0.49, 0.50, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60, 0.61, 0.62, 0.63, 0.64]> : vector<65xf32>
    %s = arith.addf %v, %c : vector<65xf32>
    %e = tensor.empty() : tensor<65xf32>
    %w = vector.transfer_write %s, %e[%c0] : vector<65xf32>, tensor<65xf32>
    flow.return %w : tensor<65xf32>
  }
  return %r : tensor<65xf32>
}
