// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile fails on a valid program:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_nested_batched_splat.mlir -o out.vmfb
//
//   error: 'stream.async.splat' op : streamable op expected to be in an execution region
//   error: 'stream.async.splat' op illegal for this phase of lowering in the stream
//     dialect; expected to have been converted or removed
//
// (also with --iree-hal-target-backends=vmvx; no partitioning or const-eval flag changes
// it). The error names the module's constant `1 : tensor<i32>`. The program is s4tf's
// reverse mode of `sum(vmap(f)(xs))`, f a 17-step fori_loop holding a 3-step one, for 3
// examples of 8 floats: a recording loop holding the inner loop, then a backward loop
// holding the inner loop's count, recording and backward loops. Their counters, bounds
// and conditions, the same for every example, are host scalars broadcast to the batch
// and taken back as example 0 (`reshape(slice(broadcast_in_dim(%i)))`, 16 such chains);
// with each chain folded back to its scalar the module compiles. s4tf's batching keeps a
// loop's unbatched values unbatched when every example steps alike (passes/batching.py,
// `_while`), which leaves no such chain. Not reduced further: removing any one line
// leaves an invalid module or one that compiles.
module {
  func.func @_lambda_(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<4x3x8xf32>
    %c = stablehlo.constant dense<0> : tensor<4xi32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %cst_3 = stablehlo.constant dense<1.010000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %cst_5 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %c_6 = stablehlo.constant dense<false> : tensor<i1>
    %cst_7 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_8 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<18x3x8xf32>
    %c_14 = stablehlo.constant dense<0> : tensor<18xi32>
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %c_16 = stablehlo.constant dense<17> : tensor<i32>
    %c_17 = stablehlo.constant dense<1> : tensor<i32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<3x8xf32>
    %0:5 = stablehlo.while(%iterArg = %c_15, %iterArg_19 = %c_16, %iterArg_20 = %c_17, %iterArg_21 = %c_15, %iterArg_22 = %cst_18) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>
    cond {
      %52 = stablehlo.compare GT, %iterArg_20, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %53 = stablehlo.compare LT, %iterArg, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %54 = stablehlo.compare GT, %iterArg, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %55 = stablehlo.select %52, %53, %54 : tensor<i1>, tensor<i1>
      %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<i1>) -> tensor<3xi1>
      %57 = stablehlo.slice %56 [0:1] : (tensor<3xi1>) -> tensor<1xi1>
      %58 = stablehlo.reshape %57 : (tensor<1xi1>) -> tensor<i1>
      stablehlo.return %58 : tensor<i1>
    } do {
      %52 = stablehlo.add %iterArg, %iterArg_20 : tensor<i32>
      %53 = stablehlo.broadcast_in_dim %52, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %54 = stablehlo.broadcast_in_dim %iterArg_19, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %55 = stablehlo.broadcast_in_dim %iterArg_20, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %56 = stablehlo.slice %53 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %57 = stablehlo.reshape %56 : (tensor<1xi32>) -> tensor<i32>
      %58 = stablehlo.slice %54 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %59 = stablehlo.reshape %58 : (tensor<1xi32>) -> tensor<i32>
      %60 = stablehlo.slice %55 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %61 = stablehlo.reshape %60 : (tensor<1xi32>) -> tensor<i32>
      %62 = stablehlo.add %iterArg_21, %c_17 : tensor<i32>
      stablehlo.return %57, %59, %61, %62, %iterArg_22 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>
    }
    %1:10 = stablehlo.while(%iterArg = %c_15, %iterArg_19 = %c_16, %iterArg_20 = %c_17, %iterArg_21 = %arg0, %iterArg_22 = %c_14, %iterArg_23 = %c_14, %iterArg_24 = %c_14, %iterArg_25 = %cst_13, %iterArg_26 = %c_15, %iterArg_27 = %c_17) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>, tensor<18xi32>, tensor<18xi32>, tensor<18xi32>, tensor<18x3x8xf32>, tensor<i32>, tensor<i32> attributes {s4tf.trip_count = 17 : i64}
    cond {
      %52 = stablehlo.compare GT, %iterArg_20, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %53 = stablehlo.compare LT, %iterArg, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %54 = stablehlo.compare GT, %iterArg, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %55 = stablehlo.select %52, %53, %54 : tensor<i1>, tensor<i1>
      %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<i1>) -> tensor<3xi1>
      %57 = stablehlo.slice %56 [0:1] : (tensor<3xi1>) -> tensor<1xi1>
      %58 = stablehlo.reshape %57 : (tensor<1xi1>) -> tensor<i1>
      stablehlo.return %58 : tensor<i1>
    } do {
      %52 = stablehlo.divide %iterArg_26, %iterArg_27 : tensor<i32>
      %53 = stablehlo.multiply %52, %iterArg_27 : tensor<i32>
      %54 = stablehlo.subtract %iterArg_26, %53 : tensor<i32>
      %55 = stablehlo.compare EQ, %54, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %56 = stablehlo.select %55, %52, %c_16 : tensor<i1>, tensor<i32>
      %57 = stablehlo.reshape %iterArg : (tensor<i32>) -> tensor<1xi32>
      %58 = stablehlo.dynamic_update_slice %iterArg_22, %57, %56 : (tensor<18xi32>, tensor<1xi32>, tensor<i32>) -> tensor<18xi32>
      %59 = stablehlo.reshape %iterArg_19 : (tensor<i32>) -> tensor<1xi32>
      %60 = stablehlo.dynamic_update_slice %iterArg_23, %59, %56 : (tensor<18xi32>, tensor<1xi32>, tensor<i32>) -> tensor<18xi32>
      %61 = stablehlo.reshape %iterArg_20 : (tensor<i32>) -> tensor<1xi32>
      %62 = stablehlo.dynamic_update_slice %iterArg_24, %61, %56 : (tensor<18xi32>, tensor<1xi32>, tensor<i32>) -> tensor<18xi32>
      %63 = stablehlo.reshape %iterArg_21 : (tensor<3x8xf32>) -> tensor<1x3x8xf32>
      %64 = stablehlo.dynamic_update_slice %iterArg_25, %63, %56, %c_15, %c_15 : (tensor<18x3x8xf32>, tensor<1x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<18x3x8xf32>
      %65:4 = stablehlo.while(%iterArg_28 = %c_15, %iterArg_29 = %c_2, %iterArg_30 = %c_17, %iterArg_31 = %iterArg_21) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32> attributes {s4tf.trip_count = 3 : i64}
      cond {
        %79 = stablehlo.compare GT, %iterArg_30, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %80 = stablehlo.compare LT, %iterArg_28, %iterArg_29, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %81 = stablehlo.compare GT, %iterArg_28, %iterArg_29, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %82 = stablehlo.select %79, %80, %81 : tensor<i1>, tensor<i1>
        %83 = stablehlo.broadcast_in_dim %82, dims = [] : (tensor<i1>) -> tensor<3xi1>
        %84 = stablehlo.slice %83 [0:1] : (tensor<3xi1>) -> tensor<1xi1>
        %85 = stablehlo.reshape %84 : (tensor<1xi1>) -> tensor<i1>
        stablehlo.return %85 : tensor<i1>
      } do {
        %79 = stablehlo.sine %iterArg_31 : tensor<3x8xf32>
        %80 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
        %81 = stablehlo.multiply %79, %80 : tensor<3x8xf32>
        %82 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
        %83 = stablehlo.add %81, %82 : tensor<3x8xf32>
        %84 = stablehlo.add %iterArg_28, %iterArg_30 : tensor<i32>
        %85 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %86 = stablehlo.broadcast_in_dim %iterArg_29, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %87 = stablehlo.broadcast_in_dim %iterArg_30, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %88 = stablehlo.slice %85 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %89 = stablehlo.reshape %88 : (tensor<1xi32>) -> tensor<i32>
        %90 = stablehlo.slice %86 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %91 = stablehlo.reshape %90 : (tensor<1xi32>) -> tensor<i32>
        %92 = stablehlo.slice %87 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %93 = stablehlo.reshape %92 : (tensor<1xi32>) -> tensor<i32>
        stablehlo.return %89, %91, %93, %83 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>
      }
      %66 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
      %67 = stablehlo.multiply %65#3, %66 : tensor<3x8xf32>
      %68 = stablehlo.add %iterArg, %iterArg_20 : tensor<i32>
      %69 = stablehlo.broadcast_in_dim %68, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %70 = stablehlo.broadcast_in_dim %iterArg_19, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %71 = stablehlo.broadcast_in_dim %iterArg_20, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %72 = stablehlo.slice %69 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %73 = stablehlo.reshape %72 : (tensor<1xi32>) -> tensor<i32>
      %74 = stablehlo.slice %70 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %75 = stablehlo.reshape %74 : (tensor<1xi32>) -> tensor<i32>
      %76 = stablehlo.slice %71 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
      %77 = stablehlo.reshape %76 : (tensor<1xi32>) -> tensor<i32>
      %78 = stablehlo.add %iterArg_26, %c_17 : tensor<i32>
      stablehlo.return %73, %75, %77, %67, %58, %60, %62, %64, %78, %iterArg_27 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>, tensor<18xi32>, tensor<18xi32>, tensor<18xi32>, tensor<18x3x8xf32>, tensor<i32>, tensor<i32>
    }
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %3 = stablehlo.compare EQ, %1#3, %2, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %4 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i1>) -> tensor<3x8xi1>
    %5 = stablehlo.and %4, %3 : tensor<3x8xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %7 = stablehlo.select %5, %6, %6 : tensor<3x8xi1>, tensor<3x8xf32>
    %8 = stablehlo.abs %1#3 : tensor<3x8xf32>
    %9 = stablehlo.power %8, %7 : tensor<3x8xf32>
    %10 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %11 = stablehlo.multiply %7, %10 : tensor<3x8xf32>
    %12 = stablehlo.floor %7 : tensor<3x8xf32>
    %13 = stablehlo.compare EQ, %12, %7, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %14 = stablehlo.floor %11 : tensor<3x8xf32>
    %15 = stablehlo.compare NE, %14, %11, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %16 = stablehlo.and %13, %15 : tensor<3x8xi1>
    %17 = stablehlo.divide %6, %1#3 : tensor<3x8xf32>
    %18 = stablehlo.compare LT, %1#3, %2, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %19 = stablehlo.compare LT, %17, %2, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %20 = stablehlo.or %18, %19 : tensor<3x8xi1>
    %21 = stablehlo.and %16, %20 : tensor<3x8xi1>
    %22 = stablehlo.negate %9 : tensor<3x8xf32>
    %23 = stablehlo.select %21, %22, %9 : tensor<3x8xi1>, tensor<3x8xf32>
    %24 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %25 = stablehlo.compare GT, %1#3, %24, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %26 = stablehlo.and %18, %25 : tensor<3x8xi1>
    %27 = stablehlo.not %13 : tensor<3x8xi1>
    %28 = stablehlo.and %26, %27 : tensor<3x8xi1>
    %29 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %30 = stablehlo.select %28, %29, %23 : tensor<3x8xi1>, tensor<3x8xf32>
    %31 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %32 = stablehlo.compare EQ, %1#3, %31, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %33 = stablehlo.abs %7 : tensor<3x8xf32>
    %34 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %35 = stablehlo.compare EQ, %33, %34, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %36 = stablehlo.and %32, %35 : tensor<3x8xi1>
    %37 = stablehlo.compare EQ, %7, %2, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %38 = stablehlo.compare EQ, %1#3, %6, FLOAT : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xi1>
    %39 = stablehlo.or %37, %38 : tensor<3x8xi1>
    %40 = stablehlo.or %39, %36 : tensor<3x8xi1>
    %41 = stablehlo.select %40, %6, %30 : tensor<3x8xi1>, tensor<3x8xf32>
    %42 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
    %43 = stablehlo.multiply %42, %41 : tensor<3x8xf32>
    %44 = stablehlo.reshape %cst : (tensor<f32>) -> tensor<1xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<1xf32>) -> tensor<3xf32>
    %46 = stablehlo.reshape %45 : (tensor<3xf32>) -> tensor<3x1xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x8xf32>
    %48 = stablehlo.multiply %47, %43 : tensor<3x8xf32>
    %49 = stablehlo.optimization_barrier %48 : tensor<3x8xf32>
    %50:6 = stablehlo.while(%iterArg = %0#3, %iterArg_19 = %49, %iterArg_20 = %1#4, %iterArg_21 = %1#5, %iterArg_22 = %1#6, %iterArg_23 = %1#7) : tensor<i32>, tensor<3x8xf32>, tensor<18xi32>, tensor<18xi32>, tensor<18xi32>, tensor<18x3x8xf32> attributes {s4tf.trip_count = 17 : i64}
    cond {
      %52 = stablehlo.compare GT, %iterArg, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %52 : tensor<i1>
    } do {
      %52 = stablehlo.subtract %iterArg, %c_17 : tensor<i32>
      %53 = stablehlo.dynamic_slice %iterArg_23, %52, %c_15, %c_15, sizes = [1, 3, 8] : (tensor<18x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x8xf32>
      %54 = stablehlo.reshape %53 : (tensor<1x3x8xf32>) -> tensor<3x8xf32>
      %55:5 = stablehlo.while(%iterArg_24 = %c_15, %iterArg_25 = %c_2, %iterArg_26 = %c_17, %iterArg_27 = %c_15, %iterArg_28 = %cst_18) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>
      cond {
        %62 = stablehlo.compare GT, %iterArg_26, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %63 = stablehlo.compare LT, %iterArg_24, %iterArg_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %64 = stablehlo.compare GT, %iterArg_24, %iterArg_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %65 = stablehlo.select %62, %63, %64 : tensor<i1>, tensor<i1>
        %66 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<i1>) -> tensor<3xi1>
        %67 = stablehlo.slice %66 [0:1] : (tensor<3xi1>) -> tensor<1xi1>
        %68 = stablehlo.reshape %67 : (tensor<1xi1>) -> tensor<i1>
        stablehlo.return %68 : tensor<i1>
      } do {
        %62 = stablehlo.add %iterArg_24, %iterArg_26 : tensor<i32>
        %63 = stablehlo.broadcast_in_dim %62, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %64 = stablehlo.broadcast_in_dim %iterArg_25, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %65 = stablehlo.broadcast_in_dim %iterArg_26, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %66 = stablehlo.slice %63 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %67 = stablehlo.reshape %66 : (tensor<1xi32>) -> tensor<i32>
        %68 = stablehlo.slice %64 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %69 = stablehlo.reshape %68 : (tensor<1xi32>) -> tensor<i32>
        %70 = stablehlo.slice %65 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %71 = stablehlo.reshape %70 : (tensor<1xi32>) -> tensor<i32>
        %72 = stablehlo.add %iterArg_27, %c_17 : tensor<i32>
        stablehlo.return %67, %69, %71, %72, %iterArg_28 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>
      }
      %56:10 = stablehlo.while(%iterArg_24 = %c_15, %iterArg_25 = %c_2, %iterArg_26 = %c_17, %iterArg_27 = %54, %iterArg_28 = %c, %iterArg_29 = %c, %iterArg_30 = %c, %iterArg_31 = %cst_0, %iterArg_32 = %c_15, %iterArg_33 = %c_17) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4x3x8xf32>, tensor<i32>, tensor<i32> attributes {s4tf.trip_count = 3 : i64}
      cond {
        %62 = stablehlo.compare GT, %iterArg_26, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %63 = stablehlo.compare LT, %iterArg_24, %iterArg_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %64 = stablehlo.compare GT, %iterArg_24, %iterArg_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %65 = stablehlo.select %62, %63, %64 : tensor<i1>, tensor<i1>
        %66 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<i1>) -> tensor<3xi1>
        %67 = stablehlo.slice %66 [0:1] : (tensor<3xi1>) -> tensor<1xi1>
        %68 = stablehlo.reshape %67 : (tensor<1xi1>) -> tensor<i1>
        stablehlo.return %68 : tensor<i1>
      } do {
        %62 = stablehlo.divide %iterArg_32, %iterArg_33 : tensor<i32>
        %63 = stablehlo.multiply %62, %iterArg_33 : tensor<i32>
        %64 = stablehlo.subtract %iterArg_32, %63 : tensor<i32>
        %65 = stablehlo.compare EQ, %64, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %66 = stablehlo.select %65, %62, %c_2 : tensor<i1>, tensor<i32>
        %67 = stablehlo.reshape %iterArg_24 : (tensor<i32>) -> tensor<1xi32>
        %68 = stablehlo.dynamic_update_slice %iterArg_28, %67, %66 : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
        %69 = stablehlo.reshape %iterArg_25 : (tensor<i32>) -> tensor<1xi32>
        %70 = stablehlo.dynamic_update_slice %iterArg_29, %69, %66 : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
        %71 = stablehlo.reshape %iterArg_26 : (tensor<i32>) -> tensor<1xi32>
        %72 = stablehlo.dynamic_update_slice %iterArg_30, %71, %66 : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
        %73 = stablehlo.reshape %iterArg_27 : (tensor<3x8xf32>) -> tensor<1x3x8xf32>
        %74 = stablehlo.dynamic_update_slice %iterArg_31, %73, %66, %c_15, %c_15 : (tensor<4x3x8xf32>, tensor<1x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x3x8xf32>
        %75 = stablehlo.sine %iterArg_27 : tensor<3x8xf32>
        %76 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
        %77 = stablehlo.multiply %75, %76 : tensor<3x8xf32>
        %78 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
        %79 = stablehlo.add %77, %78 : tensor<3x8xf32>
        %80 = stablehlo.add %iterArg_24, %iterArg_26 : tensor<i32>
        %81 = stablehlo.broadcast_in_dim %80, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %82 = stablehlo.broadcast_in_dim %iterArg_25, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %83 = stablehlo.broadcast_in_dim %iterArg_26, dims = [] : (tensor<i32>) -> tensor<3xi32>
        %84 = stablehlo.slice %81 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %85 = stablehlo.reshape %84 : (tensor<1xi32>) -> tensor<i32>
        %86 = stablehlo.slice %82 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %87 = stablehlo.reshape %86 : (tensor<1xi32>) -> tensor<i32>
        %88 = stablehlo.slice %83 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
        %89 = stablehlo.reshape %88 : (tensor<1xi32>) -> tensor<i32>
        %90 = stablehlo.add %iterArg_32, %c_17 : tensor<i32>
        stablehlo.return %85, %87, %89, %79, %68, %70, %72, %74, %90, %iterArg_33 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x8xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4x3x8xf32>, tensor<i32>, tensor<i32>
      }
      %57 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
      %58 = stablehlo.multiply %iterArg_19, %57 : tensor<3x8xf32>
      %59 = stablehlo.optimization_barrier %58 : tensor<3x8xf32>
      %60:6 = stablehlo.while(%iterArg_24 = %55#3, %iterArg_25 = %59, %iterArg_26 = %56#4, %iterArg_27 = %56#5, %iterArg_28 = %56#6, %iterArg_29 = %56#7) : tensor<i32>, tensor<3x8xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4x3x8xf32> attributes {s4tf.trip_count = 3 : i64}
      cond {
        %62 = stablehlo.compare GT, %iterArg_24, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %62 : tensor<i1>
      } do {
        %62 = stablehlo.subtract %iterArg_24, %c_17 : tensor<i32>
        %63 = stablehlo.dynamic_slice %iterArg_29, %62, %c_15, %c_15, sizes = [1, 3, 8] : (tensor<4x3x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x8xf32>
        %64 = stablehlo.reshape %63 : (tensor<1x3x8xf32>) -> tensor<3x8xf32>
        %65 = stablehlo.cosine %64 : tensor<3x8xf32>
        %66 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x8xf32>
        %67 = stablehlo.multiply %iterArg_25, %66 : tensor<3x8xf32>
        %68 = stablehlo.multiply %67, %65 : tensor<3x8xf32>
        stablehlo.return %62, %68, %iterArg_26, %iterArg_27, %iterArg_28, %iterArg_29 : tensor<i32>, tensor<3x8xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4x3x8xf32>
      }
      %61 = stablehlo.optimization_barrier %60#1 : tensor<3x8xf32>
      stablehlo.return %52, %61, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23 : tensor<i32>, tensor<3x8xf32>, tensor<18xi32>, tensor<18xi32>, tensor<18xi32>, tensor<18x3x8xf32>
    }
    %51 = stablehlo.optimization_barrier %50#1 : tensor<3x8xf32>
    return %51 : tensor<3x8xf32>
  }
}
