// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile crashes (segmentation fault) in GenericVectorizationPass on a valid program:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic gauss_seidel_row_update_crashes.mlir -o out.vmfb
//
// (any x86-64 target CPU; vmvx compiles it). The program: one Gauss-Seidel sweep over a
// 5x5 matrix held as a constant, v[i] = (x[i] - (a[i] @ v - a[i, i] * v[i])) / a[i, i] for
// i = 0..4, a loop setting one element of its carried vector per iteration. IREE fuses the
// dot product a[i] @ v (a `linalg.dot`, or a multiply and a reduction when written so) with
// the 0-d elementwise op after it, which reads a[i, i], v[i] and x[i] as `tensor.extract`s
// at run-time indices, into one dispatch, and vectorizing that dispatch crashes (the stack
// top is in llvm::xxh3_64bits). The same dispatch compiled alone from its
// `--iree-hal-dump-executable-sources-to` source crashes the same way. Reading a[i, i] from
// the row a[i] instead of the matrix fails too, with "'arith.subf' op requires the same
// type for all operands and results"; with the matrix passed through an
// optimization_barrier outside the loop it compiles, inside the loop it crashes.
//
// Found with a Gauss-Seidel solver written as two nested `fori_loop`s with
// `v.at[i].set(...)` (tests/control_flow/test_loop_programs.py): its value and its reverse-mode
// gradient reached this crash on `cpu` (forward mode, `vmap` and `hessian` compiled).
// s4tf's workaround (IREE-3.13-WORKAROUND in dialects/indexing_ops.py, `Gather.lower`): a
// gather of one element (`v[i]`, `a[i, i]`) comes out through an optimization_barrier, so
// IREE reads it in a dispatch of its own; with the three scalar reads so, this program
// compiles.
module {
  func.func @f(%arg0: tensor<8xf32>, %v0: tensor<5xf32>) -> tensor<5xf32> {
    %c = stablehlo.constant dense<4> : tensor<2xi32>
    %c_7 = stablehlo.constant dense<4> : tensor<1xi32>
    %cst_8 = stablehlo.constant dense<[[1.91980684, -0.132435903, -0.0248361621, 0.0420445241, 0.113604657], [0.01097064, 1.94473529, -0.0784780383, 0.0748745799, 0.1634783], [0.0272768773, -0.123332873, 1.90417349, 0.160001919, 0.0202882439], [-0.173213482, -8.369620e-03, -0.116322599, 1.9370712, -0.0488005839], [-0.0713313445, 0.0553378463, -0.00630859751, -0.0589431301, 2.04096389]]> : tensor<5x5xf32>
    %c_9 = stablehlo.constant dense<5> : tensor<i32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<5xf32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %c_12 = stablehlo.constant dense<4> : tensor<i32>
    %c_13 = stablehlo.constant dense<1> : tensor<i32>
    %39:5 = stablehlo.while(%iterArg_18 = %c_11, %iterArg_19 = %c_9, %iterArg_20 = %c_13, %iterArg_21 = %v0, %iterArg_22 = %arg0) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<8xf32> attributes {s4tf.trip_count = 5 : i64}
    cond {
      %41 = stablehlo.compare GT, %iterArg_20, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %42 = stablehlo.compare LT, %iterArg_18, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %43 = stablehlo.compare GT, %iterArg_18, %iterArg_19, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %44 = stablehlo.select %41, %42, %43 : tensor<i1>, tensor<i1>
      stablehlo.return %44 : tensor<i1>
    } do {
      %41 = stablehlo.slice %iterArg_22 [0:5] : (tensor<8xf32>) -> tensor<5xf32>
      %42 = stablehlo.compare LT, %iterArg_18, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %43 = stablehlo.add %iterArg_18, %c_9 : tensor<i32>
      %44 = stablehlo.select %42, %43, %iterArg_18 : tensor<i1>, tensor<i32>
      %45 = stablehlo.reshape %44 : (tensor<i32>) -> tensor<1xi32>
      %46 = stablehlo.broadcast_in_dim %c_7, dims = [0] : (tensor<1xi32>) -> tensor<1xi32>
      %47 = stablehlo.clamp %c_11, %45, %46 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %48 = "stablehlo.gather"(%41, %47) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<5xf32>, tensor<1xi32>) -> tensor<f32>
      %49 = "stablehlo.gather"(%cst_8, %47) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 5>}> : (tensor<5x5xf32>, tensor<1xi32>) -> tensor<5xf32>
      %50 = stablehlo.reshape %49 : (tensor<5xf32>) -> tensor<1x5xf32>
      %51 = stablehlo.reshape %iterArg_21 : (tensor<5xf32>) -> tensor<5x1xf32>
      %52 = stablehlo.dot_general %50, %51, contracting_dims = [1] x [0] : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32>
      %53 = stablehlo.reshape %52 : (tensor<1x1xf32>) -> tensor<f32>
      %54 = stablehlo.concatenate %45, %45, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %55 = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<2xi32>) -> tensor<2xi32>
      %56 = stablehlo.clamp %c_11, %54, %55 : (tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
      %57 = "stablehlo.gather"(%cst_8, %56) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x5xf32>, tensor<2xi32>) -> tensor<f32>
      %58 = "stablehlo.gather"(%iterArg_21, %47) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<5xf32>, tensor<1xi32>) -> tensor<f32>
      %59 = stablehlo.multiply %57, %58 : tensor<f32>
      %60 = stablehlo.subtract %53, %59 : tensor<f32>
      %61 = stablehlo.subtract %48, %60 : tensor<f32>
      %62 = stablehlo.divide %61, %57 : tensor<f32>
      %63 = stablehlo.reshape %45 : (tensor<1xi32>) -> tensor<i32>
      %64 = stablehlo.maximum %63, %c_11 : tensor<i32>
      %65 = stablehlo.minimum %64, %c_12 : tensor<i32>
      %66 = stablehlo.compare EQ, %63, %65, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %67 = stablehlo.dynamic_slice %iterArg_21, %65, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
      %68 = stablehlo.reshape %67 : (tensor<1xf32>) -> tensor<f32>
      %69 = stablehlo.select %66, %62, %68 : tensor<i1>, tensor<f32>
      %70 = stablehlo.reshape %69 : (tensor<f32>) -> tensor<1xf32>
      %71 = stablehlo.dynamic_update_slice %iterArg_21, %70, %65 : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
      %72 = stablehlo.add %iterArg_18, %iterArg_20 : tensor<i32>
      stablehlo.return %72, %iterArg_19, %iterArg_20, %71, %iterArg_22 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<8xf32>
    }
    return %39#3 : tensor<5xf32>
  }
}
