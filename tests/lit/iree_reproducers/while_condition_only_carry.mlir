// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A `while` whose condition reads a carry that the body replaces without reading it (the
// residual a loop stops on, returned after it) fails to compile on every CPU backend:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_condition_only_carry.mlir -o out.vmfb
//
//   error: failed to legalize unresolved source materialization from () to
//   ('tensor<8xf32>') that remained live after conversion (no matching callback)
//
// IREE rotates the loop into an `if` around a do-while whose `before` region no longer
// takes the residual, and ConvertToStream's `scf.while` conversion then loses the vector
// carry (with more carries it segfaults in ScfWhileOpConversion). s4tf meets it wherever
// such a loop is stepped from the host (every loop on `vmvx`; on `cpu` loops over more than
// the one-dispatch limit): `s4tf.while_loop(lambda s: s[0] > 1e-3, ...)` returning `s[0]`
// did not compile. IREE-3.13-WORKAROUND: passes/iree/condition_carries.py gives the body
// the carry to read (an `optimization_barrier` of the new value beside the old).
func.func @main(%x: tensor<8xf32>) -> tensor<f32> {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.while(%err = %one, %v = %x) : tensor<f32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare GT, %err, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<8xf32>
    %m = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %m, %w : tensor<f32>, tensor<8xf32>
  }
  return %r#0 : tensor<f32>
}
