// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A module that compiles fails at run time, on llvm-cpu and vmvx alike:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false \
//     while_constant_count_f64.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --device=local-sync --function=_lambda_ --input="3xf64=1 2 3"
//
//   command_buffer_validation.c:196: OUT_OF_RANGE; indirect buffer reference slot 0 is out
//   range of the declared binding capacity of the command buffer 0; while invoking native
//   function hal.command_buffer.copy_buffer
//
// The expected result is 3xf64=20 18 12, which the same module gives with float64 demoted
// to float32 (iree-compile's default). The program: the gradient of the sum of squared
// running totals of a 3-step scan (s4tf.grad of s4tf.scan). The first while records the
// states into tapes (%14#6, %14#7); the second runs backwards from a constant counter (%c_6,
// the known trip count) reading them. Starting the second loop from the first loop's last
// index (%14#8) fails the same way; starting it from the result of a separate loop that
// counts the iterations works. Found with a sweep of scan lengths (every float64 scan of 3
// or more steps failed).
// Root cause (found later): IREE's VM register allocator. The loop's back edge passes one
// buffer (the small carries IREE packed into one allocation) to several block arguments;
// the allocator gives an earlier argument the buffer's own register and omits that copy,
// then moves the buffer (clearing its register) at its last occurrence, so the block reads
// a null buffer. A ref repeated in one branch, one occurrence coalesced and another moved:
// RegisterAllocation::remapSuccessorRegisters. s4tf compiles the module in two steps
// (--compile-to=vm, --compile-from=vm) and passes each repeat as a value of its own between
// them (passes/iree/branch_refs.py, s4tf-distinct-branch-refs); then it runs right.
module {
  func.func @_lambda_(%arg0: tensor<3xf64>) -> tensor<3xf64> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<2147483647> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<1xi32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c_3 = stablehlo.constant dense<0> : tensor<3xi32>
    %c_4 = stablehlo.constant dense<3> : tensor<i32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %c_6 = stablehlo.constant dense<2> : tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %c_8 = stablehlo.constant dense<0> : tensor<1x1xi32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<3xf64>
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    %2 = stablehlo.multiply %1, %1 : tensor<f64>
    %3 = stablehlo.reshape %2 : (tensor<f64>) -> tensor<1xf64>
    %4 = stablehlo.reshape %c_8 : (tensor<1x1xi32>) -> tensor<i32>
    %5 = stablehlo.maximum %4, %c_7 : tensor<i32>
    %6 = stablehlo.minimum %5, %c_6 : tensor<i32>
    %7 = stablehlo.compare EQ, %4, %6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.reshape %3 : (tensor<1xf64>) -> tensor<f64>
    %9 = stablehlo.dynamic_slice %cst_9, %6, sizes = [1] : (tensor<3xf64>, tensor<i32>) -> tensor<1xf64>
    %10 = stablehlo.reshape %9 : (tensor<1xf64>) -> tensor<f64>
    %11 = stablehlo.select %7, %8, %10 : tensor<i1>, tensor<f64>
    %12 = stablehlo.reshape %11 : (tensor<f64>) -> tensor<1xf64>
    %13 = stablehlo.dynamic_update_slice %cst_9, %12, %6 : (tensor<3xf64>, tensor<1xf64>, tensor<i32>) -> tensor<3xf64>
    %14:10 = stablehlo.while(%iterArg = %c_5, %iterArg_10 = %c_4, %iterArg_11 = %c_5, %iterArg_12 = %1, %iterArg_13 = %13, %iterArg_14 = %arg0, %iterArg_15 = %c_3, %iterArg_16 = %cst_9, %iterArg_17 = %c_7, %iterArg_18 = %c_5) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xi32>, tensor<3xf64>, tensor<i32>, tensor<i32>
    cond {
      %35 = stablehlo.compare GT, %iterArg_11, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %36 = stablehlo.compare LT, %iterArg, %iterArg_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %37 = stablehlo.compare GT, %iterArg, %iterArg_10, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %38 = stablehlo.select %35, %36, %37 : tensor<i1>, tensor<i1>
      stablehlo.return %38 : tensor<i1>
    } do {
      %35 = stablehlo.divide %iterArg_17, %iterArg_18 : tensor<i32>
      %36 = stablehlo.multiply %35, %iterArg_18 : tensor<i32>
      %37 = stablehlo.subtract %iterArg_17, %36 : tensor<i32>
      %38 = stablehlo.compare EQ, %37, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %39 = stablehlo.select %38, %35, %c_6 : tensor<i1>, tensor<i32>
      %40 = stablehlo.reshape %iterArg : (tensor<i32>) -> tensor<1xi32>
      %41 = stablehlo.dynamic_update_slice %iterArg_15, %40, %39 : (tensor<3xi32>, tensor<1xi32>, tensor<i32>) -> tensor<3xi32>
      %42 = stablehlo.reshape %iterArg_12 : (tensor<f64>) -> tensor<1xf64>
      %43 = stablehlo.dynamic_update_slice %iterArg_16, %42, %39 : (tensor<3xf64>, tensor<1xf64>, tensor<i32>) -> tensor<3xf64>
      %44 = stablehlo.compare LT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %45 = stablehlo.add %iterArg, %c_4 : tensor<i32>
      %46 = stablehlo.select %44, %45, %iterArg : tensor<i1>, tensor<i32>
      %47 = stablehlo.reshape %46 : (tensor<i32>) -> tensor<1xi32>
      %48 = stablehlo.broadcast_in_dim %c_1, dims = [0] : (tensor<1xi32>) -> tensor<1xi32>
      %49 = stablehlo.clamp %c_7, %47, %48 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %50 = "stablehlo.gather"(%iterArg_14, %49) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<3xf64>, tensor<1xi32>) -> tensor<f64>
      %51 = stablehlo.add %iterArg_12, %50 : tensor<f64>
      %52 = stablehlo.multiply %51, %51 : tensor<f64>
      %53 = stablehlo.reshape %47 : (tensor<1xi32>) -> tensor<i32>
      %54 = stablehlo.maximum %53, %c_7 : tensor<i32>
      %55 = stablehlo.minimum %54, %c_6 : tensor<i32>
      %56 = stablehlo.compare EQ, %53, %55, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %57 = stablehlo.dynamic_slice %iterArg_13, %55, sizes = [1] : (tensor<3xf64>, tensor<i32>) -> tensor<1xf64>
      %58 = stablehlo.reshape %57 : (tensor<1xf64>) -> tensor<f64>
      %59 = stablehlo.select %56, %52, %58 : tensor<i1>, tensor<f64>
      %60 = stablehlo.reshape %59 : (tensor<f64>) -> tensor<1xf64>
      %61 = stablehlo.dynamic_update_slice %iterArg_13, %60, %55 : (tensor<3xf64>, tensor<1xf64>, tensor<i32>) -> tensor<3xf64>
      %62 = stablehlo.add %iterArg, %iterArg_11 : tensor<i32>
      %63 = stablehlo.add %iterArg_17, %c_5 : tensor<i32>
      stablehlo.return %62, %iterArg_10, %iterArg_11, %51, %61, %iterArg_14, %41, %43, %63, %iterArg_18 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xi32>, tensor<3xf64>, tensor<i32>, tensor<i32>
    }
    %15 = stablehlo.reshape %cst : (tensor<f64>) -> tensor<1xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<1xf64>) -> tensor<3xf64>
    %17 = stablehlo.optimization_barrier %cst_2 : tensor<f64>
    %18 = stablehlo.optimization_barrier %16 : tensor<3xf64>
    %19 = stablehlo.optimization_barrier %cst_9 : tensor<3xf64>
    %20:10 = stablehlo.while(%iterArg = %c_6, %iterArg_10 = %17, %iterArg_11 = %18, %iterArg_12 = %19, %iterArg_13 = %14#6, %iterArg_14 = %14#7, %iterArg_15 = %14#1, %iterArg_16 = %14#2, %iterArg_17 = %14#4, %iterArg_18 = %14#5) : tensor<i32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xi32>, tensor<3xf64>, tensor<i32>, tensor<i32>, tensor<3xf64>, tensor<3xf64>
    cond {
      %35 = stablehlo.compare GT, %iterArg, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %35 : tensor<i1>
    } do {
      %35 = stablehlo.subtract %iterArg, %c_5 : tensor<i32>
      %36 = stablehlo.dynamic_slice %iterArg_13, %35, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
      %37 = stablehlo.reshape %36 : (tensor<1xi32>) -> tensor<i32>
      %38 = stablehlo.dynamic_slice %iterArg_14, %35, sizes = [1] : (tensor<3xf64>, tensor<i32>) -> tensor<1xf64>
      %39 = stablehlo.reshape %38 : (tensor<1xf64>) -> tensor<f64>
      %40 = stablehlo.compare LT, %37, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %41 = stablehlo.add %37, %c_4 : tensor<i32>
      %42 = stablehlo.select %40, %41, %37 : tensor<i1>, tensor<i32>
      %43 = stablehlo.reshape %42 : (tensor<i32>) -> tensor<1xi32>
      %44 = stablehlo.broadcast_in_dim %c_1, dims = [0] : (tensor<1xi32>) -> tensor<1xi32>
      %45 = stablehlo.clamp %c_7, %43, %44 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %46 = "stablehlo.gather"(%iterArg_18, %45) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<3xf64>, tensor<1xi32>) -> tensor<f64>
      %47 = stablehlo.add %39, %46 : tensor<f64>
      %48 = stablehlo.reshape %43 : (tensor<1xi32>) -> tensor<i32>
      %49 = stablehlo.maximum %48, %c_7 : tensor<i32>
      %50 = stablehlo.minimum %49, %c_6 : tensor<i32>
      %51 = stablehlo.compare EQ, %48, %50, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %52 = stablehlo.dynamic_slice %iterArg_11, %50, sizes = [1] : (tensor<3xf64>, tensor<i32>) -> tensor<1xf64>
      %53 = stablehlo.reshape %52 : (tensor<1xf64>) -> tensor<f64>
      %54 = stablehlo.select %51, %cst_2, %53 : tensor<i1>, tensor<f64>
      %55 = stablehlo.reshape %54 : (tensor<f64>) -> tensor<1xf64>
      %56 = stablehlo.dynamic_update_slice %iterArg_11, %55, %50 : (tensor<3xf64>, tensor<1xf64>, tensor<i32>) -> tensor<3xf64>
      %57 = "stablehlo.gather"(%iterArg_11, %45) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<3xf64>, tensor<1xi32>) -> tensor<f64>
      %58 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %59 = stablehlo.compare GE, %43, %58, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %60 = stablehlo.compare LE, %43, %c_1, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %61 = stablehlo.and %59, %60 : tensor<1xi1>
      %62 = stablehlo.convert %61 : (tensor<1xi1>) -> tensor<1xi32>
      %63 = stablehlo.reduce(%62 init: %c_0) applies stablehlo.minimum across dimensions = [0] : (tensor<1xi32>, tensor<i32>) -> tensor<i32>
      %64 = stablehlo.compare EQ, %63, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %65 = stablehlo.convert %64 : (tensor<i1>) -> tensor<f64>
      %66 = stablehlo.multiply %57, %65 : tensor<f64>
      %67 = stablehlo.multiply %66, %47 : tensor<f64>
      %68 = stablehlo.add %iterArg_10, %67 : tensor<f64>
      %69 = stablehlo.add %68, %67 : tensor<f64>
      %70 = stablehlo.maximum %43, %58 : tensor<1xi32>
      %71 = stablehlo.minimum %70, %c_1 : tensor<1xi32>
      %72 = stablehlo.reshape %71 : (tensor<1xi32>) -> tensor<i32>
      %73 = stablehlo.maximum %72, %c_7 : tensor<i32>
      %74 = stablehlo.minimum %73, %c_6 : tensor<i32>
      %75 = stablehlo.compare EQ, %72, %74, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %76 = stablehlo.dynamic_slice %iterArg_12, %74, sizes = [1] : (tensor<3xf64>, tensor<i32>) -> tensor<1xf64>
      %77 = stablehlo.reshape %76 : (tensor<1xf64>) -> tensor<f64>
      %78 = stablehlo.add %77, %69 : tensor<f64>
      %79 = stablehlo.select %75, %78, %77 : tensor<i1>, tensor<f64>
      %80 = stablehlo.reshape %79 : (tensor<f64>) -> tensor<1xf64>
      %81 = stablehlo.dynamic_update_slice %iterArg_12, %80, %74 : (tensor<3xf64>, tensor<1xf64>, tensor<i32>) -> tensor<3xf64>
      stablehlo.return %35, %69, %56, %81, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18 : tensor<i32>, tensor<f64>, tensor<3xf64>, tensor<3xf64>, tensor<3xi32>, tensor<3xf64>, tensor<i32>, tensor<i32>, tensor<3xf64>, tensor<3xf64>
    }
    %21 = stablehlo.optimization_barrier %20#1 : tensor<f64>
    %22 = stablehlo.optimization_barrier %20#2 : tensor<3xf64>
    %23 = stablehlo.optimization_barrier %20#3 : tensor<3xf64>
    %24 = stablehlo.broadcast_in_dim %c_1, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %25 = stablehlo.clamp %c_7, %c_8, %24 : (tensor<i32>, tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x1xi32>
    %26 = "stablehlo.gather"(%22, %25) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<3xf64>, tensor<1x1xi32>) -> tensor<1xf64>
    %27 = stablehlo.reshape %26 : (tensor<1xf64>) -> tensor<f64>
    %28 = stablehlo.multiply %27, %1 : tensor<f64>
    %29 = stablehlo.add %21, %28 : tensor<f64>
    %30 = stablehlo.add %29, %28 : tensor<f64>
    %31 = stablehlo.reshape %30 : (tensor<f64>) -> tensor<1xf64>
    %32 = stablehlo.slice %23 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %33 = stablehlo.add %32, %31 : tensor<1xf64>
    %34 = stablehlo.dynamic_update_slice %23, %33, %c : (tensor<3xf64>, tensor<1xf64>, tensor<i64>) -> tensor<3xf64>
    return %34 : tensor<3xf64>
  }
}
