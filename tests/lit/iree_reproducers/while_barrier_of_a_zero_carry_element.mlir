// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A `while` carrying a vector of zeros unchanged (%iterArg_16), whose body reads one element
// of it at the loop counter through an `optimization_barrier` (%16), compiles but fails at
// run time, on llvm-cpu and vmvx alike:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_barrier_of_a_zero_carry_element.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --device=local-sync --function=_lambda_ \
//     --input="8xf32=-0.15 0.39 -0.44 0.54 -0.66 0.84 -0.91 1.15"
//
//   INVALID_ARGUMENT; binding table slot requires a buffer but none was provided; binding
//   table slot 0
//
// XLA runs it (the sum of |x[i]| over the steps taken, plus zero). Without the barrier, or
// with the barrier around an element of the carried ones (%iterArg_12) instead, IREE runs it
// too. Reduced from `jvp` of `jvp` of a `while_loop` whose int result indexes the data after
// it (the zeros are the tangent of a constant). IREE-3.13-WORKAROUND:
// passes/iree/constant_carries.py reads a constant pass-through carry as the constant and
// drops the barrier around a gather of a constant (s4tf-constant-carries).
// Root cause (found later): IREE's VM register allocator. The loop's back edge passes one
// buffer (the small carries IREE packed into one allocation) to several block arguments;
// the allocator gives an earlier argument the buffer's own register and omits that copy,
// then moves the buffer (clearing its register) at its last occurrence, so the block reads
// a null buffer. A ref repeated in one branch, one occurrence coalesced and another moved:
// RegisterAllocation::remapSuccessorRegisters. s4tf compiles the module in two steps
// (--compile-to=vm, --compile-from=vm) and passes each repeat as a value of its own between
// them (passes/iree/branch_refs.py, s4tf-distinct-branch-refs); then it runs right.
func.func @_lambda_(%arg0: tensor<8xf32>) -> tensor<f32> {
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
  %c = stablehlo.constant dense<7> : tensor<i32>
  %cst_0 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
  %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
  %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %c_3 = stablehlo.constant dense<1> : tensor<i32>
  %c_4 = stablehlo.constant dense<7> : tensor<1xi32>
  %c_5 = stablehlo.constant dense<8> : tensor<i32>
  %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c_7 = stablehlo.constant dense<0> : tensor<i32>
  %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
  %0:9 = stablehlo.while(%iterArg = %c_7, %iterArg_9 = %cst_6, %iterArg_10 = %arg0, %iterArg_11 = %cst_6, %iterArg_12 = %cst, %iterArg_13 = %cst_6, %iterArg_14 = %cst, %iterArg_15 = %cst_6, %iterArg_16 = %cst_8) : tensor<i32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>
  cond {
    %2 = stablehlo.compare LT, %iterArg, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.compare LT, %iterArg_9, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.and %2, %3 : tensor<i1>
    stablehlo.return %4 : tensor<i1>
  } do {
    %2 = stablehlo.add %iterArg, %c_3 : tensor<i32>
    %3 = stablehlo.compare LT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.add %iterArg, %c_5 : tensor<i32>
    %5 = stablehlo.select %3, %4, %iterArg : tensor<i1>, tensor<i32>
    %6 = stablehlo.reshape %5 : (tensor<i32>) -> tensor<1xi32>
    %7 = stablehlo.broadcast_in_dim %c_4, dims = [0] : (tensor<1xi32>) -> tensor<1xi32>
    %8 = stablehlo.clamp %c_7, %6, %7 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
    %9 = "stablehlo.gather"(%iterArg_10, %8) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %10 = stablehlo.add %9, %cst_6 : tensor<f32>
    %11 = "stablehlo.gather"(%iterArg_14, %8) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %12 = stablehlo.add %11, %cst_6 : tensor<f32>
    %13 = "stablehlo.gather"(%iterArg_12, %8) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %14 = stablehlo.add %13, %cst_6 : tensor<f32>
    %15 = "stablehlo.gather"(%iterArg_16, %8) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %16 = stablehlo.optimization_barrier %15 : tensor<f32>
    %17 = stablehlo.abs %10 : tensor<f32>
    %18 = stablehlo.compare GT, %10, %cst_6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %19 = stablehlo.compare LT, %10, %cst_6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %20 = stablehlo.add %10, %cst_6 : tensor<f32>
    %21 = stablehlo.select %19, %cst_1, %20 : tensor<i1>, tensor<f32>
    %22 = stablehlo.select %18, %cst_2, %21 : tensor<i1>, tensor<f32>
    %23 = stablehlo.multiply %12, %22 : tensor<f32>
    %24 = stablehlo.multiply %14, %22 : tensor<f32>
    %25 = stablehlo.multiply %16, %22 : tensor<f32>
    %26 = stablehlo.add %iterArg_9, %17 : tensor<f32>
    %27 = stablehlo.add %iterArg_13, %23 : tensor<f32>
    %28 = stablehlo.add %iterArg_11, %24 : tensor<f32>
    %29 = stablehlo.add %iterArg_15, %25 : tensor<f32>
    stablehlo.return %2, %26, %iterArg_10, %28, %iterArg_12, %27, %iterArg_14, %29, %iterArg_16 : tensor<i32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>, tensor<f32>, tensor<8xf32>
  }
  %1 = stablehlo.add %0#7, %0#1 : tensor<f32>
  return %1 : tensor<f32>
}
