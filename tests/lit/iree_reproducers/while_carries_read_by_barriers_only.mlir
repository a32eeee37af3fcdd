// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A `while` whose body replaces two carries without reading them, each new value leaving
// the body through an `optimization_barrier` beside the carry it replaces, compiles but
// fails at run time, on llvm-cpu and vmvx alike:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_carries_read_by_barriers_only.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --device=local-sync --function=main \
//     --input="8xf32=1 2 3 4 5 6 7 8"
//
//   INVALID_ARGUMENT; ref is null
//
// The expected result is 5.4961815e-4 (what XLA computes: the loop halves the vector until its
// sum is under 1e-3 and returns the last sum plus its square). With one such carry the
// module runs; with the second barrier beside a value an op computes from the carry
// (`stablehlo.negate %a`) it runs too. Without the barriers IREE fails to compile it
// (while_condition_only_carry.mlir); returning the new values directly with one barrier
// for both, or with barriers beside other carries, crashes iree-compile (signal 11).
// s4tf met it in `jvp` of `jvp` of a `while_loop` over a dict carry stopping on a residual
// ("indirect buffer reference slot 0 is out range of the declared binding capacity" in the
// larger module). IREE-3.13-WORKAROUND: passes/iree/condition_carries.py puts a negated
// first element of each carry beside its new value.
// Root cause (found later): IREE's VM register allocator. The loop's back edge passes one
// buffer (the small carries IREE packed into one allocation) to several block arguments;
// the allocator gives an earlier argument the buffer's own register and omits that copy,
// then moves the buffer (clearing its register) at its last occurrence, so the block reads
// a null buffer. A ref repeated in one branch, one occurrence coalesced and another moved:
// RegisterAllocation::remapSuccessorRegisters. s4tf compiles the module in two steps
// (--compile-to=vm, --compile-from=vm) and passes each repeat as a value of its own between
// them (passes/iree/branch_refs.py, s4tf-distinct-branch-refs); then it runs right.
func.func @main(%x: tensor<8xf32>) -> tensor<f32> {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:3 = stablehlo.while(%err = %one, %v = %x, %a = %zero) : tensor<f32>, tensor<8xf32>, tensor<f32>
  cond {
    %p = stablehlo.compare GT, %err, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<8xf32>
    %m = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %s = stablehlo.multiply %m, %m : tensor<f32>
    %t:2 = stablehlo.optimization_barrier %m, %err : tensor<f32>, tensor<f32>
    %u:2 = stablehlo.optimization_barrier %s, %a : tensor<f32>, tensor<f32>
    stablehlo.return %t#0, %w, %u#0 : tensor<f32>, tensor<8xf32>, tensor<f32>
  }
  %o = stablehlo.add %r#0, %r#2 : tensor<f32>
  return %o : tensor<f32>
}
