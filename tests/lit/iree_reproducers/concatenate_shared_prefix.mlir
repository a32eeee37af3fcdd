// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A wrong result, no error. A loop writes one row per example of a carried buffer
// (2 examples x 6 rows x 3), row i = 0.5 * row (i - 1) + x, with a gather and a scatter whose
// coordinates are each a `stablehlo.concatenate` of the same example column (an iota) and
// the row index:
//
//   %119 = stablehlo.concatenate %61, %118, dim = 1   // (example, i - 1): the gather's
//   %129 = stablehlo.concatenate %61, %128, dim = 1   // (example, i): the scatter's
//
// XLA (through JAX) computes rows 1-5 of both examples; IREE (llvm-cpu and vmvx) leaves
// all zeros but row 0 of example 0, which holds example 1's x:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic concatenate_shared_prefix.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --function=f --input=2x3xf32=0.3,-0.2,0.5,0.1,0.4,-0.3
//
// In `--compile-to=flow` both concatenations start from one `flow.tensor.empty` hoisted
// out of the loop into which the shared column is written once (`%10`), and each then
// writes its own column into `%10` in place (`-> %10` twice): the gather's coordinates
// are overwritten by the scatter's. With the example column last, or the coordinates built
// element by element, IREE computes XLA's result. s4tf builds them element by element
// (IREE-3.13-WORKAROUND: dialects/indexing_ops.py, `with_lane_coordinate`). Found with
// `vmap` of `grad` through a `fori_loop` whose body sets a row of its carry from the
// previous row (zeros against JAX's gradient), and through a 3,000-step `while`.
func.func @f(%arg0: tensor<2x3xf32>) -> (tensor<2x6x3xf32>, tensor<2xi32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
    %c = stablehlo.constant dense<5> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %c_2 = stablehlo.constant dense<-1> : tensor<i32>
    %c_3 = stablehlo.constant dense<[1, 5]> : tensor<2xi32>
    %c_4 = stablehlo.constant dense<true> : tensor<i1>
    %c_5 = stablehlo.constant dense<5> : tensor<i32>
    %c_6 = stablehlo.constant dense<false> : tensor<i1>
    %cst_7 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_8 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_12 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_13 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c_14 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_15 = stablehlo.constant dense<0> : tensor<2xi32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<2x6x6x3xf32>
    %c_17 = stablehlo.constant dense<0> : tensor<2x6xi32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<2x6x3xf32>
    %c_19 = stablehlo.constant dense<6> : tensor<2xi32>
    %c_20 = stablehlo.constant dense<1> : tensor<2xi32>
    %c_21 = stablehlo.constant dense<1> : tensor<i32>
    %c_22 = stablehlo.constant dense<6> : tensor<i32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<6x3xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<3xf32>
    %c_25 = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %c_20, %iterArg_26 = %c_19, %iterArg_27 = %c_20, %iterArg_28 = %cst_18, %iterArg_29 = %arg0) : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x6x3xf32>, tensor<2x3xf32>
    cond {
      %53 = stablehlo.broadcast_in_dim %c_25, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %54 = stablehlo.compare GT, %iterArg_27, %53, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %55 = stablehlo.compare LT, %iterArg, %iterArg_26, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %56 = stablehlo.compare GT, %iterArg, %iterArg_26, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %57 = stablehlo.select %54, %55, %56 : tensor<2xi1>, tensor<2xi1>
      %58 = stablehlo.convert %57 : (tensor<2xi1>) -> tensor<2xi32>
      %59 = stablehlo.reduce(%58 init: %c_14) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
      %60 = stablehlo.compare GT, %59, %c_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %60 : tensor<i1>
    } do {
      %53 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %56 = stablehlo.broadcast_in_dim %c_25, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %61 = stablehlo.iota dim = 0 : tensor<2x1xi32>
      %68 = stablehlo.broadcast_in_dim %c_25, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
      %69 = stablehlo.broadcast_in_dim %c_3, dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
      %77 = stablehlo.iota dim = 0 : tensor<2xi32>
      %78 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %112 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %113 = stablehlo.subtract %iterArg, %112 : tensor<2xi32>
      %114 = stablehlo.compare LT, %113, %56, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %115 = stablehlo.broadcast_in_dim %c_22, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %116 = stablehlo.add %113, %115 : tensor<2xi32>
      %117 = stablehlo.select %114, %116, %113 : tensor<2xi1>, tensor<2xi32>
      %118 = stablehlo.reshape %117 : (tensor<2xi32>) -> tensor<2x1xi32>
      %119 = stablehlo.concatenate %61, %118, dim = 1 : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
      %120 = stablehlo.clamp %c_25, %119, %69 : (tensor<i32>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
      %121 = "stablehlo.gather"(%iterArg_28, %120) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 3>}> : (tensor<2x6x3xf32>, tensor<2x2xi32>) -> tensor<2x3xf32>
      %122 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %123 = stablehlo.multiply %121, %122 : tensor<2x3xf32>
      %124 = stablehlo.add %123, %iterArg_29 : tensor<2x3xf32>
      %125 = stablehlo.compare LT, %iterArg, %56, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %126 = stablehlo.add %iterArg, %115 : tensor<2xi32>
      %127 = stablehlo.select %125, %126, %iterArg : tensor<2xi1>, tensor<2xi32>
      %128 = stablehlo.reshape %127 : (tensor<2xi32>) -> tensor<2x1xi32>
      %129 = stablehlo.concatenate %61, %128, dim = 1 : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
      %130 = stablehlo.iota dim = 0 : tensor<2x6x3xi32>
      %131 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x6x3xi32>
      %132 = stablehlo.compare GT, %130, %131, SIGNED : (tensor<2x6x3xi32>, tensor<2x6x3xi32>) -> tensor<2x6x3xi1>
      %133 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x6x3xf32>
      %134 = stablehlo.select %132, %iterArg_28, %133 : tensor<2x6x3xi1>, tensor<2x6x3xf32>
      %135 = stablehlo.compare GE, %129, %68, SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
      %136 = stablehlo.compare LE, %129, %69, SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
      %137 = stablehlo.and %135, %136 : tensor<2x2xi1>
      %138 = stablehlo.reduce(%137 init: %c_4) applies stablehlo.and across dimensions = [1] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>
      %139 = stablehlo.reshape %129 : (tensor<2x2xi32>) -> tensor<2x2xi32>
      %140 = stablehlo.reshape %124 : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %141 = stablehlo.reshape %138 : (tensor<2xi1>) -> tensor<2xi1>
      %142 = stablehlo.select %141, %77, %78 : tensor<2xi1>, tensor<2xi32>
      %143 = stablehlo.reduce(%142 init: %c_2) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
      %144 = stablehlo.compare GE, %143, %c_25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %145 = stablehlo.maximum %143, %c_25 : tensor<i32>
      %146 = stablehlo.slice %iterArg_28 [0:1, 0:1, 0:3] : (tensor<2x6x3xf32>) -> tensor<1x1x3xf32>
      %147 = stablehlo.reshape %146 : (tensor<1x1x3xf32>) -> tensor<1x3xf32>
      %148 = stablehlo.broadcast_in_dim %147, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
      %149 = stablehlo.dynamic_slice %139, %145, %c_25, sizes = [1, 2] : (tensor<2x2xi32>, tensor<i32>, tensor<i32>) -> tensor<1x2xi32>
      %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1] : (tensor<1x2xi32>) -> tensor<2x2xi32>
      %151 = stablehlo.select %144, %150, %68 : tensor<i1>, tensor<2x2xi32>
      %152 = stablehlo.dynamic_slice %140, %145, %c_25, sizes = [1, 3] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %153 = stablehlo.broadcast_in_dim %152, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
      %154 = stablehlo.select %144, %153, %148 : tensor<i1>, tensor<2x3xf32>
      %155 = stablehlo.broadcast_in_dim %141, dims = [0] : (tensor<2xi1>) -> tensor<2x2xi1>
      %156 = stablehlo.select %155, %139, %151 : tensor<2x2xi1>, tensor<2x2xi32>
      %157 = stablehlo.broadcast_in_dim %141, dims = [0] : (tensor<2xi1>) -> tensor<2x3xi1>
      %158 = stablehlo.select %157, %140, %154 : tensor<2x3xi1>, tensor<2x3xf32>
      %159 = "stablehlo.scatter"(%134, %156, %158) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        stablehlo.return %arg2 : tensor<f32>
      }) : (tensor<2x6x3xf32>, tensor<2x2xi32>, tensor<2x3xf32>) -> tensor<2x6x3xf32>
      %166 = stablehlo.add %iterArg, %iterArg_27 : tensor<2xi32>
      %162 = stablehlo.compare GT, %iterArg_27, %56, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %163 = stablehlo.compare LT, %iterArg, %iterArg_26, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %164 = stablehlo.compare GT, %iterArg, %iterArg_26, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %165 = stablehlo.select %162, %163, %164 : tensor<2xi1>, tensor<2xi1>
      %169 = stablehlo.reshape %165 : (tensor<2xi1>) -> tensor<2x1x1xi1>
      %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x3xi1>
      %171 = stablehlo.select %170, %159, %iterArg_28 : tensor<2x6x3xi1>, tensor<2x6x3xf32>
      stablehlo.return %166, %iterArg_26, %iterArg_27, %171, %iterArg_29 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x6x3xf32>, tensor<2x3xf32>
    }
    return %1#3, %1#0 : tensor<2x6x3xf32>, tensor<2xi32>
}