// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile fails in stream partitioning on a valid program:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_copies_tape_rows.mlir -o out.vmfb
//
//   error: circular dependency: input operation uses partition output
//     %.. = "stream.async.dispatch"(...) ... - this indicates the operation should be
//     inside the partition
//
// (also with --iree-hal-target-backends=vmvx, and with every
// --iree-stream-partitioning-favor). The program: three one-trip loops in a row, each
// starting from the last one's result times 1.01, and each result written as a row of a
// 4x4 tensor by a dynamic_update_slice whose row index is computed from constants through
// a `divide` (which IREE does not fold before partitioning). With the row indices given
// as constants, or computed from a function argument, it compiles (two of the loops are
// enough to fail). Found with the gradient of a `fori_loop` of 3 to 40 steps holding
// another loop (reverse mode records each step's input as a tape row), once s4tf copied
// the outer loop's body to run several iterations a trip: s4tf's lowering no longer copies
// the body of a loop that holds a host-stepped loop (s4tf-unroll-host-loops,
// passes/iree/unroll_host_loops.py).
module {
  func.func @f(%arg0: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
    %scale = stablehlo.constant dense<1.010000e+00> : tensor<f32>
    %zeros = stablehlo.constant dense<0.000000e+00> : tensor<4x4xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %k5 = stablehlo.constant dense<0> : tensor<i32>
    %d5 = stablehlo.divide %k5, %c1 : tensor<i32>
    %p5 = stablehlo.compare EQ, %d5, %k5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.select %p5, %d5, %c3 : tensor<i1>, tensor<i32>
    %8 = stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<1x4xf32>
    %9 = stablehlo.dynamic_update_slice %zeros, %8, %5, %c0 : (tensor<4x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    %10:4 = stablehlo.while(%iterArg = %c0, %iterArg_8 = %c1, %iterArg_9 = %c1, %iterArg_10 = %arg0) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %78 = stablehlo.compare LT, %iterArg, %iterArg_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %78 : tensor<i1>
    } do {
      %77 = stablehlo.sine %iterArg_10 : tensor<4xf32>
      %78 = stablehlo.add %iterArg, %iterArg_9 : tensor<i32>
      stablehlo.return %78, %iterArg_8, %iterArg_9, %77 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    %11 = stablehlo.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.multiply %10#3, %11 : tensor<4xf32>
    %k19 = stablehlo.constant dense<1> : tensor<i32>
    %d19 = stablehlo.divide %k19, %c1 : tensor<i32>
    %p19 = stablehlo.compare EQ, %d19, %k19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %19 = stablehlo.select %p19, %d19, %c3 : tensor<i1>, tensor<i32>
    %22 = stablehlo.reshape %12 : (tensor<4xf32>) -> tensor<1x4xf32>
    %23 = stablehlo.dynamic_update_slice %9, %22, %19, %c0 : (tensor<4x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    %24:4 = stablehlo.while(%iterArg = %c0, %iterArg_8 = %c1, %iterArg_9 = %c1, %iterArg_10 = %12) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %78 = stablehlo.compare LT, %iterArg, %iterArg_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %78 : tensor<i1>
    } do {
      %77 = stablehlo.sine %iterArg_10 : tensor<4xf32>
      %78 = stablehlo.add %iterArg, %iterArg_9 : tensor<i32>
      stablehlo.return %78, %iterArg_8, %iterArg_9, %77 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    %25 = stablehlo.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.multiply %24#3, %25 : tensor<4xf32>
    %k33 = stablehlo.constant dense<2> : tensor<i32>
    %d33 = stablehlo.divide %k33, %c1 : tensor<i32>
    %p33 = stablehlo.compare EQ, %d33, %k33, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %33 = stablehlo.select %p33, %d33, %c3 : tensor<i1>, tensor<i32>
    %36 = stablehlo.reshape %26 : (tensor<4xf32>) -> tensor<1x4xf32>
    %37 = stablehlo.dynamic_update_slice %23, %36, %33, %c0 : (tensor<4x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    %38:4 = stablehlo.while(%iterArg = %c0, %iterArg_8 = %c1, %iterArg_9 = %c1, %iterArg_10 = %26) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %78 = stablehlo.compare LT, %iterArg, %iterArg_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %78 : tensor<i1>
    } do {
      %77 = stablehlo.sine %iterArg_10 : tensor<4xf32>
      %78 = stablehlo.add %iterArg, %iterArg_9 : tensor<i32>
      stablehlo.return %78, %iterArg_8, %iterArg_9, %77 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    %39 = stablehlo.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %40 = stablehlo.multiply %38#3, %39 : tensor<4xf32>
    return %37, %40 : tensor<4x4xf32>, tensor<4xf32>
  }
}
