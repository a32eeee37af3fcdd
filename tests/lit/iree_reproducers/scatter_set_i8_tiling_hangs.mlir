// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile does not finish (stopped after 150 s; a module of this size takes 3-4 s):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic scatter_set_i8_tiling_hangs.mlir -o out.vmfb
//
// (also with --iree-hal-target-backends=vmvx). It loops in
// iree-codegen-tile-and-distribute-to-workgroups-using-forall-op on one executable, an
// elementwise dispatch over 12 bytes: a tensor<12xi8> truncated to i1 and widened back
// (linalg.generic), then `tensor.extract_slice` of that result at a run-time offset and a
// second linalg.generic reading both the result and the extracted element (a select
// between them under a push-constant predicate). It comes from a `set` scatter of int8
// rows gathered from the same int8 tensor at per-example coordinates, whose out-of-range
// rows are replaced by a copy of the last row in range (a dynamic_slice of the updates),
// inside host-stepped loops: `vmap` of `hessian` of a `while` carrying an int32 counter, a
// bool and a float vector, for 2 examples (reverse mode keeps the bool on an int8 tape;
// halving the tape moves row 2j to row j). With one example it compiles. s4tf writes a
// batched row of an integer tape as a scatter-add of the difference from the row it
// replaces instead (dialects/tape.py, TapeWrite.batch), which never reads the updates at
// a run-time position. Not reduced further.
module {
  func.func @f(%arg0: tensor<2x3xf32>) -> tensor<2x3x3xf32> {
    %0 = ub.poison : vector<2xi1>
    %1 = ub.poison : vector<6xi1>
    %cst = arith.constant dense<2.000000e+00> : vector<6xf32>
    %2 = ub.poison : vector<18xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : vector<6xf32>
    %cst_1 = arith.constant dense<1.000000e-01> : vector<18xf32>
    %cst_2 = arith.constant dense<1.100000e+00> : vector<18xf32>
    %cst_3 = arith.constant dense<0> : vector<2xi32>
    %3 = ub.poison : vector<6xi32>
    %cst_4 = arith.constant dense<1> : vector<6xi32>
    %c-2147483648_i32 = arith.constant -2147483648 : i32
    %cst_5 = arith.constant 0.000000e+00 : f32
    %c0_i8 = arith.constant 0 : i8
    %c0_i32 = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %cst_6 = stablehlo.constant dense<[[1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
    %c = stablehlo.constant dense<1023> : tensor<i32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<1x1xf32>
    %c_8 = stablehlo.constant dense<512> : tensor<i32>
    %c_9 = stablehlo.constant dense<1> : tensor<i32>
    %c_10 = stablehlo.constant dense<2> : tensor<i32>
    %c_11 = stablehlo.constant dense<1024> : tensor<i32>
    %c_12 = stablehlo.constant dense<0> : tensor<i8>
    %c_13 = stablehlo.constant dense<true> : tensor<i1>
    %c_14 = stablehlo.constant dense<-1> : tensor<i32>
    %c_15 = stablehlo.constant dense<[1, 2, 1024]> : tensor<3xi32>
    %c_16 = stablehlo.constant dense<30> : tensor<i32>
    %cst_17 = stablehlo.constant dense<1.100000e+00> : tensor<f32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %c_19 = stablehlo.constant dense<false> : tensor<i1>
    %cst_20 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_21 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_22 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_23 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_26 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_27 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c_28 = stablehlo.constant dense<0> : tensor<i32>
    %c_29 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_30 = stablehlo.constant dense<true> : tensor<2x3xi1>
    %c_31 = stablehlo.constant dense<1> : tensor<2x3xi32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<2x3x1025x3xf32>
    %c_33 = stablehlo.constant dense<0> : tensor<2x3x1025xi8>
    %c_34 = stablehlo.constant dense<0> : tensor<2x3x1025xi32>
    %c_35 = stablehlo.constant dense<false> : tensor<2x3xi1>
    %c_36 = stablehlo.constant dense<0> : tensor<2x3xi32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x3x3xf32>
    %5 = stablehlo.broadcast_in_dim %cst_6, dims = [1, 2] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
    %6:11 = stablehlo.while(%iterArg = %c_36, %iterArg_37 = %c_35, %iterArg_38 = %4, %iterArg_39 = %c_34, %iterArg_40 = %c_33, %iterArg_41 = %cst_32, %iterArg_42 = %c_36, %iterArg_43 = %c_31, %iterArg_44 = %c_30, %iterArg_45 = %5, %iterArg_46 = %cst_32) : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
    cond {
      %91 = stablehlo.convert %iterArg_44 : (tensor<2x3xi1>) -> tensor<2x3xi32>
      %92 = stablehlo.reduce(%91 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
      %93 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %94 = stablehlo.compare GT, %92, %93, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %95 = stablehlo.convert %94 : (tensor<2xi1>) -> tensor<2xi32>
      %96 = stablehlo.reduce(%95 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
      %97 = stablehlo.compare GT, %96, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %97 : tensor<i1>
    } do {
      %91 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %92 = stablehlo.compare GT, %iterArg_42, %91, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
      %93 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %94 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %95 = stablehlo.select %92, %93, %94 : tensor<2x3xi1>, tensor<2x3xi32>
      %96:6 = stablehlo.while(%iterArg_47 = %c_31, %iterArg_48 = %iterArg_39, %iterArg_49 = %iterArg_40, %iterArg_50 = %iterArg_41, %iterArg_51 = %95, %iterArg_52 = %iterArg_46) : tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3x1025x3xf32>
      cond {
        %145 = stablehlo.compare LT, %iterArg_47, %iterArg_51, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %146 = stablehlo.convert %145 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %147 = stablehlo.reduce(%146 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %148 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %149 = stablehlo.compare GT, %147, %148, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %150 = stablehlo.convert %149 : (tensor<2xi1>) -> tensor<2xi32>
        %151 = stablehlo.reduce(%150 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
        %152 = stablehlo.compare GT, %151, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %152 : tensor<i1>
      } do {
        %145 = stablehlo.add %iterArg_47, %94 : tensor<2x3xi32>
        %146 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %147 = stablehlo.multiply %iterArg_47, %146 : tensor<2x3xi32>
        %148 = stablehlo.reshape %147 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %149 = stablehlo.iota dim = 1 : tensor<3x2xi32>
        %150 = stablehlo.iota dim = 0 : tensor<3x2xi32>
        %151 = stablehlo.broadcast_in_dim %148, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
        %152 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
        %153 = stablehlo.compare EQ, %149, %152, SIGNED : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
        %154 = stablehlo.broadcast_in_dim %153, dims = [1, 2] : (tensor<3x2xi1>) -> tensor<2x3x2xi1>
        %155 = stablehlo.broadcast_in_dim %150, dims = [1, 2] : (tensor<3x2xi32>) -> tensor<2x3x2xi32>
        %156 = stablehlo.select %154, %151, %155 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
        %157 = stablehlo.iota dim = 2 : tensor<2x3x3xi32>
        %158 = stablehlo.iota dim = 0 : tensor<2x3x3xi32>
        %159 = stablehlo.slice %156 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %160 = stablehlo.broadcast_in_dim %159, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %161 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %162 = stablehlo.compare EQ, %157, %161, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %163 = stablehlo.select %162, %160, %158 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %164 = stablehlo.slice %156 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %165 = stablehlo.broadcast_in_dim %164, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %166 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %167 = stablehlo.compare EQ, %157, %166, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %168 = stablehlo.select %167, %165, %163 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %169 = stablehlo.broadcast_in_dim %c_15, dims = [2] : (tensor<3xi32>) -> tensor<2x3x3xi32>
        %170 = stablehlo.clamp %c_28, %168, %169 : (tensor<i32>, tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi32>
        %171 = "stablehlo.gather"(%iterArg_48, %170) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi32>, tensor<2x3x3xi32>) -> tensor<2x3xi32>
        %172 = stablehlo.reshape %iterArg_47 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
        %174 = stablehlo.select %154, %173, %155 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
        %175 = stablehlo.slice %174 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %176 = stablehlo.broadcast_in_dim %175, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %177 = stablehlo.select %162, %176, %158 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %178 = stablehlo.slice %174 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %179 = stablehlo.broadcast_in_dim %178, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %180 = stablehlo.select %167, %179, %177 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %181 = stablehlo.iota dim = 0 : tensor<2x3x1025xi32>
        %182 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %183 = stablehlo.compare GT, %181, %182, SIGNED : (tensor<2x3x1025xi32>, tensor<2x3x1025xi32>) -> tensor<2x3x1025xi1>
        %184 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %185 = stablehlo.select %183, %iterArg_48, %184 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %186 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %187 = stablehlo.compare GE, %180, %186, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %188 = stablehlo.compare LE, %180, %169, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %189 = stablehlo.and %187, %188 : tensor<2x3x3xi1>
        %190 = stablehlo.reduce(%189 init: %c_13) applies stablehlo.and across dimensions = [2] : (tensor<2x3x3xi1>, tensor<i1>) -> tensor<2x3xi1>
        %191 = stablehlo.reshape %180 : (tensor<2x3x3xi32>) -> tensor<6x3xi32>
        %192 = stablehlo.reshape %171 : (tensor<2x3xi32>) -> tensor<6xi32>
        %193 = stablehlo.reshape %190 : (tensor<2x3xi1>) -> tensor<6xi1>
        %194 = stablehlo.iota dim = 0 : tensor<6xi32>
        %195 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<6xi32>
        %196 = stablehlo.select %193, %194, %195 : tensor<6xi1>, tensor<6xi32>
        %197 = stablehlo.reduce(%196 init: %c_14) applies stablehlo.maximum across dimensions = [0] : (tensor<6xi32>, tensor<i32>) -> tensor<i32>
        %198 = stablehlo.compare GE, %197, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %199 = stablehlo.maximum %197, %c_28 : tensor<i32>
        %200 = stablehlo.slice %iterArg_48 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi32>) -> tensor<1x1x1xi32>
        %201 = stablehlo.reshape %200 : (tensor<1x1x1xi32>) -> tensor<1xi32>
        %202 = stablehlo.broadcast_in_dim %201, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %203 = stablehlo.dynamic_slice %191, %199, %c_28, sizes = [1, 3] : (tensor<6x3xi32>, tensor<i32>, tensor<i32>) -> tensor<1x3xi32>
        %204 = stablehlo.broadcast_in_dim %203, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<6x3xi32>
        %205 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<6x3xi32>
        %206 = stablehlo.select %198, %204, %205 : tensor<i1>, tensor<6x3xi32>
        %207 = stablehlo.dynamic_slice %192, %199, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
        %208 = stablehlo.broadcast_in_dim %207, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %209 = stablehlo.select %198, %208, %202 : tensor<i1>, tensor<6xi32>
        %210 = stablehlo.broadcast_in_dim %193, dims = [0] : (tensor<6xi1>) -> tensor<6x3xi1>
        %211 = stablehlo.select %210, %191, %206 : tensor<6x3xi1>, tensor<6x3xi32>
        %212 = stablehlo.broadcast_in_dim %193, dims = [0] : (tensor<6xi1>) -> tensor<6xi1>
        %213 = stablehlo.select %212, %192, %209 : tensor<6xi1>, tensor<6xi32>
        %214 = "stablehlo.scatter"(%185, %211, %213) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
          stablehlo.return %arg2 : tensor<i32>
        }) : (tensor<2x3x1025xi32>, tensor<6x3xi32>, tensor<6xi32>) -> tensor<2x3x1025xi32>
        %215 = "stablehlo.gather"(%iterArg_49, %170) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi8>, tensor<2x3x3xi32>) -> tensor<2x3xi8>
        %216 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i8>) -> tensor<2x3x1025xi8>
        %217 = stablehlo.select %183, %iterArg_49, %216 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %218 = stablehlo.reshape %215 : (tensor<2x3xi8>) -> tensor<6xi8>
        %219 = stablehlo.slice %iterArg_49 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi8>) -> tensor<1x1x1xi8>
        %220 = stablehlo.reshape %219 : (tensor<1x1x1xi8>) -> tensor<1xi8>
        %221 = stablehlo.broadcast_in_dim %220, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %222 = stablehlo.dynamic_slice %218, %199, sizes = [1] : (tensor<6xi8>, tensor<i32>) -> tensor<1xi8>
        %223 = stablehlo.broadcast_in_dim %222, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %224 = stablehlo.select %198, %223, %221 : tensor<i1>, tensor<6xi8>
        %225 = stablehlo.select %212, %218, %224 : tensor<6xi1>, tensor<6xi8>
        %226 = "stablehlo.scatter"(%217, %211, %225) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i8>, %arg2: tensor<i8>):
          stablehlo.return %arg2 : tensor<i8>
        }) : (tensor<2x3x1025xi8>, tensor<6x3xi32>, tensor<6xi8>) -> tensor<2x3x1025xi8>
        %227 = "stablehlo.gather"(%iterArg_50, %170) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
        %228 = "stablehlo.gather"(%iterArg_52, %170) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
        %229 = stablehlo.iota dim = 0 : tensor<2x3x1025x3xi32>
        %230 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025x3xi32>
        %231 = stablehlo.compare GT, %229, %230, SIGNED : (tensor<2x3x1025x3xi32>, tensor<2x3x1025x3xi32>) -> tensor<2x3x1025x3xi1>
        %232 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x3x1025x3xf32>
        %233 = stablehlo.select %231, %iterArg_50, %232 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %234 = stablehlo.reshape %227 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %235 = stablehlo.slice %iterArg_50 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %236 = stablehlo.reshape %235 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %237 = stablehlo.broadcast_in_dim %236, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %238 = stablehlo.dynamic_slice %234, %199, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %239 = stablehlo.broadcast_in_dim %238, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %240 = stablehlo.select %198, %239, %237 : tensor<i1>, tensor<6x3xf32>
        %241 = stablehlo.select %210, %234, %240 : tensor<6x3xi1>, tensor<6x3xf32>
        %242 = "stablehlo.scatter"(%233, %211, %241) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %243 = stablehlo.select %231, %iterArg_52, %232 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %244 = stablehlo.reshape %228 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %245 = stablehlo.slice %iterArg_52 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %246 = stablehlo.reshape %245 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %247 = stablehlo.broadcast_in_dim %246, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %248 = stablehlo.dynamic_slice %244, %199, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %249 = stablehlo.broadcast_in_dim %248, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %250 = stablehlo.select %198, %249, %247 : tensor<i1>, tensor<6x3xf32>
        %251 = stablehlo.select %210, %244, %250 : tensor<6x3xi1>, tensor<6x3xf32>
        %252 = "stablehlo.scatter"(%243, %211, %251) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %253 = stablehlo.compare LT, %iterArg_47, %iterArg_51, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %254 = stablehlo.select %253, %145, %iterArg_47 : tensor<2x3xi1>, tensor<2x3xi32>
        %255 = stablehlo.reshape %253 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %256 = stablehlo.broadcast_in_dim %255, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
        %257 = stablehlo.select %256, %214, %iterArg_48 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %258 = stablehlo.select %256, %226, %iterArg_49 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %259 = stablehlo.reshape %253 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
        %260 = stablehlo.broadcast_in_dim %259, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %261 = stablehlo.select %260, %242, %iterArg_50 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %262 = stablehlo.select %253, %iterArg_51, %iterArg_51 : tensor<2x3xi1>, tensor<2x3xi32>
        %263 = stablehlo.select %260, %252, %iterArg_52 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %264 = stablehlo.convert %253 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %265 = stablehlo.reduce(%264 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %266 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %267 = stablehlo.compare GT, %265, %266, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %268 = stablehlo.reshape %267 : (tensor<2xi1>) -> tensor<2x1xi1>
        %269 = stablehlo.broadcast_in_dim %268, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
        %270 = stablehlo.select %269, %254, %iterArg_47 : tensor<2x3xi1>, tensor<2x3xi32>
        %271 = stablehlo.reshape %267 : (tensor<2xi1>) -> tensor<2x1x1xi1>
        %272 = stablehlo.broadcast_in_dim %271, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
        %273 = stablehlo.select %272, %257, %iterArg_48 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %274 = stablehlo.select %272, %258, %iterArg_49 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %275 = stablehlo.reshape %267 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
        %276 = stablehlo.broadcast_in_dim %275, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %277 = stablehlo.select %276, %261, %iterArg_50 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %278 = stablehlo.select %269, %262, %iterArg_51 : tensor<2x3xi1>, tensor<2x3xi32>
        %279 = stablehlo.select %276, %263, %iterArg_52 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        stablehlo.return %270, %273, %274, %277, %278, %279 : tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3x1025x3xf32>
      }
      %97 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %98 = stablehlo.multiply %iterArg_43, %97 : tensor<2x3xi32>
      %99 = stablehlo.select %92, %98, %iterArg_43 : tensor<2x3xi1>, tensor<2x3xi32>
      %100 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %101 = stablehlo.multiply %99, %100 : tensor<2x3xi32>
      %102:11 = stablehlo.while(%iterArg_47 = %iterArg, %iterArg_48 = %iterArg_37, %iterArg_49 = %iterArg_38, %iterArg_50 = %96#1, %iterArg_51 = %96#2, %iterArg_52 = %96#3, %iterArg_53 = %iterArg_42, %iterArg_54 = %101, %iterArg_55 = %99, %iterArg_56 = %iterArg_45, %iterArg_57 = %96#5) : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
      cond {
        %145 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %146 = stablehlo.compare LT, %iterArg_47, %145, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %147 = stablehlo.not %iterArg_48 : tensor<2x3xi1>
        %148 = stablehlo.and %146, %147 : tensor<2x3xi1>
        %149 = stablehlo.compare LT, %iterArg_53, %iterArg_54, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %150 = stablehlo.and %148, %149 : tensor<2x3xi1>
        %151 = stablehlo.convert %150 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %152 = stablehlo.reduce(%151 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %153 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %154 = stablehlo.compare GT, %152, %153, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %155 = stablehlo.convert %154 : (tensor<2xi1>) -> tensor<2xi32>
        %156 = stablehlo.reduce(%155 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
        %157 = stablehlo.compare GT, %156, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %157 : tensor<i1>
      } do {
        %145 = stablehlo.divide %iterArg_53, %iterArg_55 : tensor<2x3xi32>
        %146 = stablehlo.multiply %145, %iterArg_55 : tensor<2x3xi32>
        %147 = stablehlo.subtract %iterArg_53, %146 : tensor<2x3xi32>
        %148 = stablehlo.compare EQ, %147, %91, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %149 = stablehlo.select %148, %145, %100 : tensor<2x3xi1>, tensor<2x3xi32>
        %150 = stablehlo.reshape %149 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %151 = stablehlo.iota dim = 1 : tensor<3x2xi32>
        %152 = stablehlo.iota dim = 0 : tensor<3x2xi32>
        %153 = stablehlo.broadcast_in_dim %150, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
        %154 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
        %155 = stablehlo.compare EQ, %151, %154, SIGNED : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
        %156 = stablehlo.broadcast_in_dim %155, dims = [1, 2] : (tensor<3x2xi1>) -> tensor<2x3x2xi1>
        %157 = stablehlo.broadcast_in_dim %152, dims = [1, 2] : (tensor<3x2xi32>) -> tensor<2x3x2xi32>
        %158 = stablehlo.select %156, %153, %157 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
        %159 = stablehlo.iota dim = 2 : tensor<2x3x3xi32>
        %160 = stablehlo.iota dim = 0 : tensor<2x3x3xi32>
        %161 = stablehlo.slice %158 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %163 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %164 = stablehlo.compare EQ, %159, %163, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %165 = stablehlo.select %164, %162, %160 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %166 = stablehlo.slice %158 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %167 = stablehlo.broadcast_in_dim %166, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %168 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %169 = stablehlo.compare EQ, %159, %168, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %170 = stablehlo.select %169, %167, %165 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %171 = stablehlo.iota dim = 0 : tensor<2x3x1025xi32>
        %172 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %173 = stablehlo.compare GT, %171, %172, SIGNED : (tensor<2x3x1025xi32>, tensor<2x3x1025xi32>) -> tensor<2x3x1025xi1>
        %174 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %175 = stablehlo.select %173, %iterArg_50, %174 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %176 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %177 = stablehlo.broadcast_in_dim %c_15, dims = [2] : (tensor<3xi32>) -> tensor<2x3x3xi32>
        %178 = stablehlo.compare GE, %170, %176, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %179 = stablehlo.compare LE, %170, %177, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %180 = stablehlo.and %178, %179 : tensor<2x3x3xi1>
        %181 = stablehlo.reduce(%180 init: %c_13) applies stablehlo.and across dimensions = [2] : (tensor<2x3x3xi1>, tensor<i1>) -> tensor<2x3xi1>
        %182 = stablehlo.reshape %170 : (tensor<2x3x3xi32>) -> tensor<6x3xi32>
        %183 = stablehlo.reshape %iterArg_47 : (tensor<2x3xi32>) -> tensor<6xi32>
        %184 = stablehlo.reshape %181 : (tensor<2x3xi1>) -> tensor<6xi1>
        %185 = stablehlo.iota dim = 0 : tensor<6xi32>
        %186 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<6xi32>
        %187 = stablehlo.select %184, %185, %186 : tensor<6xi1>, tensor<6xi32>
        %188 = stablehlo.reduce(%187 init: %c_14) applies stablehlo.maximum across dimensions = [0] : (tensor<6xi32>, tensor<i32>) -> tensor<i32>
        %189 = stablehlo.compare GE, %188, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %190 = stablehlo.maximum %188, %c_28 : tensor<i32>
        %191 = stablehlo.slice %iterArg_50 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi32>) -> tensor<1x1x1xi32>
        %192 = stablehlo.reshape %191 : (tensor<1x1x1xi32>) -> tensor<1xi32>
        %193 = stablehlo.broadcast_in_dim %192, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %194 = stablehlo.dynamic_slice %182, %190, %c_28, sizes = [1, 3] : (tensor<6x3xi32>, tensor<i32>, tensor<i32>) -> tensor<1x3xi32>
        %195 = stablehlo.broadcast_in_dim %194, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<6x3xi32>
        %196 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<6x3xi32>
        %197 = stablehlo.select %189, %195, %196 : tensor<i1>, tensor<6x3xi32>
        %198 = stablehlo.dynamic_slice %183, %190, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
        %199 = stablehlo.broadcast_in_dim %198, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %200 = stablehlo.select %189, %199, %193 : tensor<i1>, tensor<6xi32>
        %201 = stablehlo.broadcast_in_dim %184, dims = [0] : (tensor<6xi1>) -> tensor<6x3xi1>
        %202 = stablehlo.select %201, %182, %197 : tensor<6x3xi1>, tensor<6x3xi32>
        %203 = stablehlo.broadcast_in_dim %184, dims = [0] : (tensor<6xi1>) -> tensor<6xi1>
        %204 = stablehlo.select %203, %183, %200 : tensor<6xi1>, tensor<6xi32>
        %205 = "stablehlo.scatter"(%175, %202, %204) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
          stablehlo.return %arg2 : tensor<i32>
        }) : (tensor<2x3x1025xi32>, tensor<6x3xi32>, tensor<6xi32>) -> tensor<2x3x1025xi32>
        %206 = stablehlo.convert %iterArg_48 : (tensor<2x3xi1>) -> tensor<2x3xi8>
        %207 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i8>) -> tensor<2x3x1025xi8>
        %208 = stablehlo.select %173, %iterArg_51, %207 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %209 = stablehlo.reshape %206 : (tensor<2x3xi8>) -> tensor<6xi8>
        %210 = stablehlo.slice %iterArg_51 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi8>) -> tensor<1x1x1xi8>
        %211 = stablehlo.reshape %210 : (tensor<1x1x1xi8>) -> tensor<1xi8>
        %212 = stablehlo.broadcast_in_dim %211, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %213 = stablehlo.dynamic_slice %209, %190, sizes = [1] : (tensor<6xi8>, tensor<i32>) -> tensor<1xi8>
        %214 = stablehlo.broadcast_in_dim %213, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %215 = stablehlo.select %189, %214, %212 : tensor<i1>, tensor<6xi8>
        %216 = stablehlo.select %203, %209, %215 : tensor<6xi1>, tensor<6xi8>
        %217 = "stablehlo.scatter"(%208, %202, %216) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i8>, %arg2: tensor<i8>):
          stablehlo.return %arg2 : tensor<i8>
        }) : (tensor<2x3x1025xi8>, tensor<6x3xi32>, tensor<6xi8>) -> tensor<2x3x1025xi8>
        %218 = stablehlo.iota dim = 0 : tensor<2x3x1025x3xi32>
        %219 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025x3xi32>
        %220 = stablehlo.compare GT, %218, %219, SIGNED : (tensor<2x3x1025x3xi32>, tensor<2x3x1025x3xi32>) -> tensor<2x3x1025x3xi1>
        %221 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x3x1025x3xf32>
        %222 = stablehlo.select %220, %iterArg_52, %221 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %223 = stablehlo.reshape %iterArg_49 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %224 = stablehlo.slice %iterArg_52 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %225 = stablehlo.reshape %224 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %226 = stablehlo.broadcast_in_dim %225, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %227 = stablehlo.dynamic_slice %223, %190, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %228 = stablehlo.broadcast_in_dim %227, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %229 = stablehlo.select %189, %228, %226 : tensor<i1>, tensor<6x3xf32>
        %230 = stablehlo.select %201, %223, %229 : tensor<6x3xi1>, tensor<6x3xf32>
        %231 = "stablehlo.scatter"(%222, %202, %230) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %232 = stablehlo.select %220, %iterArg_57, %221 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %233 = stablehlo.reshape %iterArg_56 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %234 = stablehlo.slice %iterArg_57 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %235 = stablehlo.reshape %234 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %236 = stablehlo.broadcast_in_dim %235, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %237 = stablehlo.dynamic_slice %233, %190, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %238 = stablehlo.broadcast_in_dim %237, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %239 = stablehlo.select %189, %238, %236 : tensor<i1>, tensor<6x3xf32>
        %240 = stablehlo.select %201, %233, %239 : tensor<6x3xi1>, tensor<6x3xf32>
        %241 = "stablehlo.scatter"(%232, %202, %240) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %242 = stablehlo.sine %iterArg_49 : tensor<2x3x3xf32>
        %243 = stablehlo.cosine %iterArg_49 : tensor<2x3x3xf32>
        %244 = stablehlo.multiply %iterArg_56, %243 : tensor<2x3x3xf32>
        %245 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
        %246 = stablehlo.multiply %242, %245 : tensor<2x3x3xf32>
        %247 = stablehlo.multiply %244, %245 : tensor<2x3x3xf32>
        %248 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
        %249 = stablehlo.add %246, %248 : tensor<2x3x3xf32>
        %250 = stablehlo.add %iterArg_47, %94 : tensor<2x3xi32>
        %251 = stablehlo.reduce(%249 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3xf32>
        %252 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
        %253 = stablehlo.compare GT, %251, %252, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
        %254 = stablehlo.add %iterArg_53, %94 : tensor<2x3xi32>
        %255 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %256 = stablehlo.compare LT, %iterArg_47, %255, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %257 = stablehlo.not %iterArg_48 : tensor<2x3xi1>
        %258 = stablehlo.and %256, %257 : tensor<2x3xi1>
        %259 = stablehlo.compare LT, %iterArg_53, %iterArg_54, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %260 = stablehlo.and %258, %259 : tensor<2x3xi1>
        %261 = stablehlo.select %260, %250, %iterArg_47 : tensor<2x3xi1>, tensor<2x3xi32>
        %262 = stablehlo.select %260, %253, %iterArg_48 : tensor<2x3xi1>, tensor<2x3xi1>
        %263 = stablehlo.reshape %260 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %264 = stablehlo.broadcast_in_dim %263, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x3xi1>
        %265 = stablehlo.select %264, %249, %iterArg_49 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %266 = stablehlo.broadcast_in_dim %263, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
        %267 = stablehlo.select %266, %205, %iterArg_50 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %268 = stablehlo.select %266, %217, %iterArg_51 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %269 = stablehlo.reshape %260 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
        %270 = stablehlo.broadcast_in_dim %269, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %271 = stablehlo.select %270, %231, %iterArg_52 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %272 = stablehlo.select %260, %254, %iterArg_53 : tensor<2x3xi1>, tensor<2x3xi32>
        %273 = stablehlo.select %260, %iterArg_54, %iterArg_54 : tensor<2x3xi1>, tensor<2x3xi32>
        %274 = stablehlo.select %260, %iterArg_55, %iterArg_55 : tensor<2x3xi1>, tensor<2x3xi32>
        %275 = stablehlo.select %264, %247, %iterArg_56 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %276 = stablehlo.select %270, %241, %iterArg_57 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %277 = stablehlo.convert %260 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %278 = stablehlo.reduce(%277 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %279 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %280 = stablehlo.compare GT, %278, %279, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %281 = stablehlo.reshape %280 : (tensor<2xi1>) -> tensor<2x1xi1>
        %282 = stablehlo.broadcast_in_dim %281, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
        %283 = stablehlo.select %282, %261, %iterArg_47 : tensor<2x3xi1>, tensor<2x3xi32>
        %284 = stablehlo.select %282, %262, %iterArg_48 : tensor<2x3xi1>, tensor<2x3xi1>
        %285 = stablehlo.reshape %280 : (tensor<2xi1>) -> tensor<2x1x1xi1>
        %286 = stablehlo.broadcast_in_dim %285, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
        %287 = stablehlo.select %286, %265, %iterArg_49 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %288 = stablehlo.broadcast_in_dim %285, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
        %289 = stablehlo.select %288, %267, %iterArg_50 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %290 = stablehlo.select %288, %268, %iterArg_51 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %291 = stablehlo.reshape %280 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
        %292 = stablehlo.broadcast_in_dim %291, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %293 = stablehlo.select %292, %271, %iterArg_52 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %294 = stablehlo.select %282, %272, %iterArg_53 : tensor<2x3xi1>, tensor<2x3xi32>
        %295 = stablehlo.select %282, %273, %iterArg_54 : tensor<2x3xi1>, tensor<2x3xi32>
        %296 = stablehlo.select %282, %274, %iterArg_55 : tensor<2x3xi1>, tensor<2x3xi32>
        %297 = stablehlo.select %286, %275, %iterArg_56 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %298 = stablehlo.select %292, %276, %iterArg_57 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        stablehlo.return %283, %284, %287, %289, %290, %293, %294, %295, %296, %297, %298 : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
      }
      %103 = stablehlo.broadcast_in_dim %c_16, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %104 = stablehlo.compare LT, %102#0, %103, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
      %105 = stablehlo.not %102#1 : tensor<2x3xi1>
      %106 = stablehlo.and %104, %105 : tensor<2x3xi1>
      %107 = stablehlo.select %iterArg_44, %102#0, %iterArg : tensor<2x3xi1>, tensor<2x3xi32>
      %108 = stablehlo.select %iterArg_44, %102#1, %iterArg_37 : tensor<2x3xi1>, tensor<2x3xi1>
      %109 = stablehlo.reshape %iterArg_44 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
      %110 = stablehlo.broadcast_in_dim %109, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x3xi1>
      %111 = stablehlo.select %110, %102#2, %iterArg_38 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
      %112 = stablehlo.broadcast_in_dim %109, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
      %113 = stablehlo.select %112, %102#3, %iterArg_39 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %114 = stablehlo.select %112, %102#4, %iterArg_40 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %115 = stablehlo.reshape %iterArg_44 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
      %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
      %117 = stablehlo.select %116, %102#5, %iterArg_41 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %118 = stablehlo.select %iterArg_44, %102#6, %iterArg_42 : tensor<2x3xi1>, tensor<2x3xi32>
      %119 = stablehlo.select %iterArg_44, %99, %iterArg_43 : tensor<2x3xi1>, tensor<2x3xi32>
      %120 = stablehlo.select %iterArg_44, %106, %iterArg_44 : tensor<2x3xi1>, tensor<2x3xi1>
      %121 = stablehlo.select %110, %102#9, %iterArg_45 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
      %122 = stablehlo.select %116, %102#10, %iterArg_46 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %123 = stablehlo.convert %iterArg_44 : (tensor<2x3xi1>) -> tensor<2x3xi32>
      %124 = stablehlo.reduce(%123 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
      %125 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %126 = stablehlo.compare GT, %124, %125, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %127 = stablehlo.reshape %126 : (tensor<2xi1>) -> tensor<2x1xi1>
      %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
      %129 = stablehlo.select %128, %107, %iterArg : tensor<2x3xi1>, tensor<2x3xi32>
      %130 = stablehlo.select %128, %108, %iterArg_37 : tensor<2x3xi1>, tensor<2x3xi1>
      %131 = stablehlo.reshape %126 : (tensor<2xi1>) -> tensor<2x1x1xi1>
      %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
      %133 = stablehlo.select %132, %111, %iterArg_38 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
      %134 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
      %135 = stablehlo.select %134, %113, %iterArg_39 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %136 = stablehlo.select %134, %114, %iterArg_40 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %137 = stablehlo.reshape %126 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
      %138 = stablehlo.broadcast_in_dim %137, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
      %139 = stablehlo.select %138, %117, %iterArg_41 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %140 = stablehlo.select %128, %118, %iterArg_42 : tensor<2x3xi1>, tensor<2x3xi32>
      %141 = stablehlo.select %128, %119, %iterArg_43 : tensor<2x3xi1>, tensor<2x3xi32>
      %142 = stablehlo.select %128, %120, %iterArg_44 : tensor<2x3xi1>, tensor<2x3xi1>
      %143 = stablehlo.select %132, %121, %iterArg_45 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
      %144 = stablehlo.select %138, %122, %iterArg_46 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      stablehlo.return %129, %130, %133, %135, %136, %139, %140, %141, %142, %143, %144 : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
    }
    %7 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %8 = stablehlo.compare EQ, %6#2, %7, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %9 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<i1>) -> tensor<2x3x3xi1>
    %10 = stablehlo.and %9, %8 : tensor<2x3x3xi1>
    %11 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %12 = stablehlo.select %10, %11, %11 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %13 = stablehlo.abs %6#2 : tensor<2x3x3xf32>
    %14 = stablehlo.power %13, %12 : tensor<2x3x3xf32>
    %15 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %16 = stablehlo.multiply %12, %15 : tensor<2x3x3xf32>
    %17 = stablehlo.floor %12 : tensor<2x3x3xf32>
    %18 = stablehlo.compare EQ, %17, %12, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %19 = stablehlo.floor %16 : tensor<2x3x3xf32>
    %20 = stablehlo.compare NE, %19, %16, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %21 = stablehlo.and %18, %20 : tensor<2x3x3xi1>
    %22 = stablehlo.divide %11, %6#2 : tensor<2x3x3xf32>
    %23 = stablehlo.compare LT, %6#2, %7, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %24 = stablehlo.compare LT, %22, %7, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %25 = stablehlo.or %23, %24 : tensor<2x3x3xi1>
    %26 = stablehlo.and %21, %25 : tensor<2x3x3xi1>
    %27 = stablehlo.negate %14 : tensor<2x3x3xf32>
    %28 = stablehlo.select %26, %27, %14 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %29 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %30 = stablehlo.compare GT, %6#2, %29, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %31 = stablehlo.and %23, %30 : tensor<2x3x3xi1>
    %32 = stablehlo.not %18 : tensor<2x3x3xi1>
    %33 = stablehlo.and %31, %32 : tensor<2x3x3xi1>
    %34 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %35 = stablehlo.select %33, %34, %28 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %36 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %37 = stablehlo.compare EQ, %6#2, %36, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %38 = stablehlo.abs %12 : tensor<2x3x3xf32>
    %39 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %40 = stablehlo.compare EQ, %38, %39, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %41 = stablehlo.and %37, %40 : tensor<2x3x3xi1>
    %42 = stablehlo.compare EQ, %12, %7, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %43 = stablehlo.compare EQ, %6#2, %11, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %44 = stablehlo.or %42, %43 : tensor<2x3x3xi1>
    %45 = stablehlo.or %44, %41 : tensor<2x3x3xi1>
    %46 = stablehlo.select %45, %11, %35 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %47 = stablehlo.and %42, %8 : tensor<2x3x3xi1>
    %48 = stablehlo.subtract %12, %11 : tensor<2x3x3xf32>
    %49 = stablehlo.select %47, %11, %48 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %50 = stablehlo.power %13, %49 : tensor<2x3x3xf32>
    %51 = stablehlo.multiply %49, %15 : tensor<2x3x3xf32>
    %52 = stablehlo.floor %49 : tensor<2x3x3xf32>
    %53 = stablehlo.compare EQ, %52, %49, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %54 = stablehlo.floor %51 : tensor<2x3x3xf32>
    %55 = stablehlo.compare NE, %54, %51, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %56 = stablehlo.and %53, %55 : tensor<2x3x3xi1>
    %57 = stablehlo.and %56, %25 : tensor<2x3x3xi1>
    %58 = stablehlo.negate %50 : tensor<2x3x3xf32>
    %59 = stablehlo.select %57, %58, %50 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %60 = stablehlo.not %53 : tensor<2x3x3xi1>
    %61 = stablehlo.and %31, %60 : tensor<2x3x3xi1>
    %62 = stablehlo.select %61, %34, %59 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %63 = stablehlo.abs %49 : tensor<2x3x3xf32>
    %64 = stablehlo.compare EQ, %63, %39, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %65 = stablehlo.and %37, %64 : tensor<2x3x3xi1>
    %66 = stablehlo.compare EQ, %49, %7, FLOAT : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xi1>
    %67 = stablehlo.or %66, %43 : tensor<2x3x3xi1>
    %68 = stablehlo.or %67, %65 : tensor<2x3x3xi1>
    %69 = stablehlo.select %68, %11, %62 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
    %70 = stablehlo.multiply %12, %69 : tensor<2x3x3xf32>
    %71 = stablehlo.multiply %6#9, %70 : tensor<2x3x3xf32>
    %72 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
    %73 = stablehlo.multiply %72, %46 : tensor<2x3x3xf32>
    %74 = stablehlo.multiply %71, %72 : tensor<2x3x3xf32>
    %75 = stablehlo.reshape %cst_7 : (tensor<1x1xf32>) -> tensor<1xf32>
    %76 = stablehlo.reshape %75 : (tensor<1xf32>) -> tensor<1x1xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x3xf32>
    %78 = stablehlo.reshape %73 : (tensor<2x3x3xf32>) -> tensor<2x3x1x3xf32>
    %79 = stablehlo.broadcast_in_dim %77, dims = [2, 3] : (tensor<1x3xf32>) -> tensor<2x3x1x3xf32>
    %80 = stablehlo.multiply %79, %78 : tensor<2x3x1x3xf32>
    %81 = stablehlo.reshape %74 : (tensor<2x3x3xf32>) -> tensor<2x3x1x3xf32>
    %82 = stablehlo.multiply %81, %79 : tensor<2x3x1x3xf32>
    %83 = stablehlo.optimization_barrier %80 : tensor<2x3x1x3xf32>
    %84 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %85 = stablehlo.subtract %6#7, %84 : tensor<2x3xi32>
    %86 = stablehlo.add %6#6, %85 : tensor<2x3xi32>
    %87 = stablehlo.divide %86, %6#7 : tensor<2x3xi32>
    %88:13 = stablehlo.while(%iterArg = %87, %iterArg_37 = %83, %iterArg_38 = %c_34, %iterArg_39 = %c_33, %iterArg_40 = %cst_32, %iterArg_41 = %6#7, %iterArg_42 = %6#6, %iterArg_43 = %6#3, %iterArg_44 = %6#4, %iterArg_45 = %6#5, %iterArg_46 = %82, %iterArg_47 = %cst_32, %iterArg_48 = %6#10) : tensor<2x3xi32>, tensor<2x3x1x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3x1x3xf32>, tensor<2x3x1025x3xf32>, tensor<2x3x1025x3xf32>
    cond {
      %91 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %92 = stablehlo.compare GT, %iterArg, %91, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
      %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1] : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
      %94 = stablehlo.reshape %93 : (tensor<2x3x1xi1>) -> tensor<2x3xi1>
      %95 = stablehlo.convert %94 : (tensor<2x3xi1>) -> tensor<2x3xi32>
      %96 = stablehlo.reduce(%95 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
      %97 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %98 = stablehlo.compare GT, %96, %97, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %99 = stablehlo.convert %98 : (tensor<2xi1>) -> tensor<2xi32>
      %100 = stablehlo.reduce(%99 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
      %101 = stablehlo.compare GT, %100, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %101 : tensor<i1>
    } do {
      %91 = stablehlo.subtract %iterArg, %84 : tensor<2x3xi32>
      %92 = stablehlo.multiply %91, %iterArg_41 : tensor<2x3xi32>
      %93 = stablehlo.subtract %iterArg_42, %92 : tensor<2x3xi32>
      %94 = stablehlo.minimum %iterArg_41, %93 : tensor<2x3xi32>
      %95 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %96 = stablehlo.add %94, %95 : tensor<2x3xi32>
      %97 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %98 = stablehlo.divide %96, %97 : tensor<2x3xi32>
      %99 = stablehlo.maximum %98, %84 : tensor<2x3xi32>
      %100 = stablehlo.reshape %91 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
      %101 = stablehlo.iota dim = 1 : tensor<3x2xi32>
      %102 = stablehlo.iota dim = 0 : tensor<3x2xi32>
      %103 = stablehlo.broadcast_in_dim %100, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
      %104 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
      %105 = stablehlo.compare EQ, %101, %104, SIGNED : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
      %106 = stablehlo.broadcast_in_dim %105, dims = [1, 2] : (tensor<3x2xi1>) -> tensor<2x3x2xi1>
      %107 = stablehlo.broadcast_in_dim %102, dims = [1, 2] : (tensor<3x2xi32>) -> tensor<2x3x2xi32>
      %108 = stablehlo.select %106, %103, %107 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
      %109 = stablehlo.iota dim = 2 : tensor<2x3x3xi32>
      %110 = stablehlo.iota dim = 0 : tensor<2x3x3xi32>
      %111 = stablehlo.slice %108 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
      %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
      %113 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
      %114 = stablehlo.compare EQ, %109, %113, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
      %115 = stablehlo.select %114, %112, %110 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
      %116 = stablehlo.slice %108 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
      %117 = stablehlo.broadcast_in_dim %116, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
      %118 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
      %119 = stablehlo.compare EQ, %109, %118, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
      %120 = stablehlo.select %119, %117, %115 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
      %121 = stablehlo.broadcast_in_dim %c_15, dims = [2] : (tensor<3xi32>) -> tensor<2x3x3xi32>
      %122 = stablehlo.clamp %c_28, %120, %121 : (tensor<i32>, tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi32>
      %123 = "stablehlo.gather"(%iterArg_43, %122) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi32>, tensor<2x3x3xi32>) -> tensor<2x3xi32>
      %124 = "stablehlo.gather"(%iterArg_44, %122) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi8>, tensor<2x3x3xi32>) -> tensor<2x3xi8>
      %125 = stablehlo.convert %124 : (tensor<2x3xi8>) -> tensor<2x3xi1>
      %126 = "stablehlo.gather"(%iterArg_45, %122) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
      %127 = "stablehlo.gather"(%iterArg_48, %122) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
      %128:11 = stablehlo.while(%iterArg_49 = %123, %iterArg_50 = %125, %iterArg_51 = %126, %iterArg_52 = %iterArg_38, %iterArg_53 = %iterArg_39, %iterArg_54 = %iterArg_40, %iterArg_55 = %c_36, %iterArg_56 = %94, %iterArg_57 = %99, %iterArg_58 = %127, %iterArg_59 = %iterArg_47) : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
      cond {
        %199 = stablehlo.compare LT, %iterArg_55, %iterArg_56, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %200 = stablehlo.convert %199 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %201 = stablehlo.reduce(%200 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %202 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %203 = stablehlo.compare GT, %201, %202, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %204 = stablehlo.convert %203 : (tensor<2xi1>) -> tensor<2xi32>
        %205 = stablehlo.reduce(%204 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
        %206 = stablehlo.compare GT, %205, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %206 : tensor<i1>
      } do {
        %199 = stablehlo.divide %iterArg_55, %iterArg_57 : tensor<2x3xi32>
        %200 = stablehlo.multiply %199, %iterArg_57 : tensor<2x3xi32>
        %201 = stablehlo.subtract %iterArg_55, %200 : tensor<2x3xi32>
        %202 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %203 = stablehlo.compare EQ, %201, %202, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %204 = stablehlo.select %203, %199, %97 : tensor<2x3xi1>, tensor<2x3xi32>
        %205 = stablehlo.reshape %204 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %206 = stablehlo.broadcast_in_dim %205, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
        %207 = stablehlo.select %106, %206, %107 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
        %208 = stablehlo.slice %207 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %209 = stablehlo.broadcast_in_dim %208, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %210 = stablehlo.select %114, %209, %110 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %211 = stablehlo.slice %207 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %212 = stablehlo.broadcast_in_dim %211, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %213 = stablehlo.select %119, %212, %210 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %214 = stablehlo.iota dim = 0 : tensor<2x3x1025xi32>
        %215 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %216 = stablehlo.compare GT, %214, %215, SIGNED : (tensor<2x3x1025xi32>, tensor<2x3x1025xi32>) -> tensor<2x3x1025xi1>
        %217 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x1025xi32>
        %218 = stablehlo.select %216, %iterArg_52, %217 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %219 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3x3xi32>
        %220 = stablehlo.compare GE, %213, %219, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %221 = stablehlo.compare LE, %213, %121, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
        %222 = stablehlo.and %220, %221 : tensor<2x3x3xi1>
        %223 = stablehlo.reduce(%222 init: %c_13) applies stablehlo.and across dimensions = [2] : (tensor<2x3x3xi1>, tensor<i1>) -> tensor<2x3xi1>
        %224 = stablehlo.reshape %213 : (tensor<2x3x3xi32>) -> tensor<6x3xi32>
        %225 = stablehlo.reshape %iterArg_49 : (tensor<2x3xi32>) -> tensor<6xi32>
        %226 = stablehlo.reshape %223 : (tensor<2x3xi1>) -> tensor<6xi1>
        %227 = stablehlo.iota dim = 0 : tensor<6xi32>
        %228 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<6xi32>
        %229 = stablehlo.select %226, %227, %228 : tensor<6xi1>, tensor<6xi32>
        %230 = stablehlo.reduce(%229 init: %c_14) applies stablehlo.maximum across dimensions = [0] : (tensor<6xi32>, tensor<i32>) -> tensor<i32>
        %231 = stablehlo.compare GE, %230, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %232 = stablehlo.maximum %230, %c_28 : tensor<i32>
        %233 = stablehlo.slice %iterArg_52 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi32>) -> tensor<1x1x1xi32>
        %234 = stablehlo.reshape %233 : (tensor<1x1x1xi32>) -> tensor<1xi32>
        %235 = stablehlo.broadcast_in_dim %234, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %236 = stablehlo.dynamic_slice %224, %232, %c_28, sizes = [1, 3] : (tensor<6x3xi32>, tensor<i32>, tensor<i32>) -> tensor<1x3xi32>
        %237 = stablehlo.broadcast_in_dim %236, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<6x3xi32>
        %238 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<6x3xi32>
        %239 = stablehlo.select %231, %237, %238 : tensor<i1>, tensor<6x3xi32>
        %240 = stablehlo.dynamic_slice %225, %232, sizes = [1] : (tensor<6xi32>, tensor<i32>) -> tensor<1xi32>
        %241 = stablehlo.broadcast_in_dim %240, dims = [0] : (tensor<1xi32>) -> tensor<6xi32>
        %242 = stablehlo.select %231, %241, %235 : tensor<i1>, tensor<6xi32>
        %243 = stablehlo.broadcast_in_dim %226, dims = [0] : (tensor<6xi1>) -> tensor<6x3xi1>
        %244 = stablehlo.select %243, %224, %239 : tensor<6x3xi1>, tensor<6x3xi32>
        %245 = stablehlo.broadcast_in_dim %226, dims = [0] : (tensor<6xi1>) -> tensor<6xi1>
        %246 = stablehlo.select %245, %225, %242 : tensor<6xi1>, tensor<6xi32>
        %247 = "stablehlo.scatter"(%218, %244, %246) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
          stablehlo.return %arg2 : tensor<i32>
        }) : (tensor<2x3x1025xi32>, tensor<6x3xi32>, tensor<6xi32>) -> tensor<2x3x1025xi32>
        %248 = stablehlo.convert %iterArg_50 : (tensor<2x3xi1>) -> tensor<2x3xi8>
        %249 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i8>) -> tensor<2x3x1025xi8>
        %250 = stablehlo.select %216, %iterArg_53, %249 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %251 = stablehlo.reshape %248 : (tensor<2x3xi8>) -> tensor<6xi8>
        %252 = stablehlo.slice %iterArg_53 [0:1, 0:1, 0:1] : (tensor<2x3x1025xi8>) -> tensor<1x1x1xi8>
        %253 = stablehlo.reshape %252 : (tensor<1x1x1xi8>) -> tensor<1xi8>
        %254 = stablehlo.broadcast_in_dim %253, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %255 = stablehlo.dynamic_slice %251, %232, sizes = [1] : (tensor<6xi8>, tensor<i32>) -> tensor<1xi8>
        %256 = stablehlo.broadcast_in_dim %255, dims = [0] : (tensor<1xi8>) -> tensor<6xi8>
        %257 = stablehlo.select %231, %256, %254 : tensor<i1>, tensor<6xi8>
        %258 = stablehlo.select %245, %251, %257 : tensor<6xi1>, tensor<6xi8>
        %259 = "stablehlo.scatter"(%250, %244, %258) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<i8>, %arg2: tensor<i8>):
          stablehlo.return %arg2 : tensor<i8>
        }) : (tensor<2x3x1025xi8>, tensor<6x3xi32>, tensor<6xi8>) -> tensor<2x3x1025xi8>
        %260 = stablehlo.iota dim = 0 : tensor<2x3x1025x3xi32>
        %261 = stablehlo.broadcast_in_dim %c_14, dims = [] : (tensor<i32>) -> tensor<2x3x1025x3xi32>
        %262 = stablehlo.compare GT, %260, %261, SIGNED : (tensor<2x3x1025x3xi32>, tensor<2x3x1025x3xi32>) -> tensor<2x3x1025x3xi1>
        %263 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x3x1025x3xf32>
        %264 = stablehlo.select %262, %iterArg_54, %263 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %265 = stablehlo.reshape %iterArg_51 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %266 = stablehlo.slice %iterArg_54 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %267 = stablehlo.reshape %266 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %268 = stablehlo.broadcast_in_dim %267, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %269 = stablehlo.dynamic_slice %265, %232, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %270 = stablehlo.broadcast_in_dim %269, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %271 = stablehlo.select %231, %270, %268 : tensor<i1>, tensor<6x3xf32>
        %272 = stablehlo.select %243, %265, %271 : tensor<6x3xi1>, tensor<6x3xf32>
        %273 = "stablehlo.scatter"(%264, %244, %272) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %274 = stablehlo.select %262, %iterArg_59, %263 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %275 = stablehlo.reshape %iterArg_58 : (tensor<2x3x3xf32>) -> tensor<6x3xf32>
        %276 = stablehlo.slice %iterArg_59 [0:1, 0:1, 0:1, 0:3] : (tensor<2x3x1025x3xf32>) -> tensor<1x1x1x3xf32>
        %277 = stablehlo.reshape %276 : (tensor<1x1x1x3xf32>) -> tensor<1x3xf32>
        %278 = stablehlo.broadcast_in_dim %277, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %279 = stablehlo.dynamic_slice %275, %232, %c_28, sizes = [1, 3] : (tensor<6x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
        %280 = stablehlo.broadcast_in_dim %279, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<6x3xf32>
        %281 = stablehlo.select %231, %280, %278 : tensor<i1>, tensor<6x3xf32>
        %282 = stablehlo.select %243, %275, %281 : tensor<6x3xi1>, tensor<6x3xf32>
        %283 = "stablehlo.scatter"(%274, %244, %282) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1, 2], scatter_dims_to_operand_dims = [0, 1, 2], index_vector_dim = 1>, unique_indices = false}> ({
        ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
          stablehlo.return %arg2 : tensor<f32>
        }) : (tensor<2x3x1025x3xf32>, tensor<6x3xi32>, tensor<6x3xf32>) -> tensor<2x3x1025x3xf32>
        %284 = stablehlo.sine %iterArg_51 : tensor<2x3x3xf32>
        %285 = stablehlo.cosine %iterArg_51 : tensor<2x3x3xf32>
        %286 = stablehlo.multiply %iterArg_58, %285 : tensor<2x3x3xf32>
        %287 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
        %288 = stablehlo.multiply %284, %287 : tensor<2x3x3xf32>
        %289 = stablehlo.multiply %286, %287 : tensor<2x3x3xf32>
        %290 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
        %291 = stablehlo.add %288, %290 : tensor<2x3x3xf32>
        %292 = stablehlo.add %iterArg_49, %84 : tensor<2x3xi32>
        %293 = stablehlo.reduce(%291 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3xf32>
        %294 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
        %295 = stablehlo.compare GT, %293, %294, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
        %296 = stablehlo.add %iterArg_55, %84 : tensor<2x3xi32>
        %297 = stablehlo.compare LT, %iterArg_55, %iterArg_56, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %298 = stablehlo.select %297, %292, %iterArg_49 : tensor<2x3xi1>, tensor<2x3xi32>
        %299 = stablehlo.select %297, %295, %iterArg_50 : tensor<2x3xi1>, tensor<2x3xi1>
        %300 = stablehlo.reshape %297 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %301 = stablehlo.broadcast_in_dim %300, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x3xi1>
        %302 = stablehlo.select %301, %291, %iterArg_51 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %303 = stablehlo.broadcast_in_dim %300, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
        %304 = stablehlo.select %303, %247, %iterArg_52 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %305 = stablehlo.select %303, %259, %iterArg_53 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %306 = stablehlo.reshape %297 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
        %307 = stablehlo.broadcast_in_dim %306, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %308 = stablehlo.select %307, %273, %iterArg_54 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %309 = stablehlo.select %297, %296, %iterArg_55 : tensor<2x3xi1>, tensor<2x3xi32>
        %310 = stablehlo.select %297, %iterArg_56, %iterArg_56 : tensor<2x3xi1>, tensor<2x3xi32>
        %311 = stablehlo.select %297, %iterArg_57, %iterArg_57 : tensor<2x3xi1>, tensor<2x3xi32>
        %312 = stablehlo.select %301, %289, %iterArg_58 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %313 = stablehlo.select %307, %283, %iterArg_59 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %314 = stablehlo.convert %297 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %315 = stablehlo.reduce(%314 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %316 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %317 = stablehlo.compare GT, %315, %316, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %318 = stablehlo.reshape %317 : (tensor<2xi1>) -> tensor<2x1xi1>
        %319 = stablehlo.broadcast_in_dim %318, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
        %320 = stablehlo.select %319, %298, %iterArg_49 : tensor<2x3xi1>, tensor<2x3xi32>
        %321 = stablehlo.select %319, %299, %iterArg_50 : tensor<2x3xi1>, tensor<2x3xi1>
        %322 = stablehlo.reshape %317 : (tensor<2xi1>) -> tensor<2x1x1xi1>
        %323 = stablehlo.broadcast_in_dim %322, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
        %324 = stablehlo.select %323, %302, %iterArg_51 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %325 = stablehlo.broadcast_in_dim %322, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
        %326 = stablehlo.select %325, %304, %iterArg_52 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %327 = stablehlo.select %325, %305, %iterArg_53 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %328 = stablehlo.reshape %317 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
        %329 = stablehlo.broadcast_in_dim %328, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %330 = stablehlo.select %329, %308, %iterArg_54 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %331 = stablehlo.select %319, %309, %iterArg_55 : tensor<2x3xi1>, tensor<2x3xi32>
        %332 = stablehlo.select %319, %310, %iterArg_56 : tensor<2x3xi1>, tensor<2x3xi32>
        %333 = stablehlo.select %319, %311, %iterArg_57 : tensor<2x3xi1>, tensor<2x3xi32>
        %334 = stablehlo.select %323, %312, %iterArg_58 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
        %335 = stablehlo.select %329, %313, %iterArg_59 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        stablehlo.return %320, %321, %324, %326, %327, %330, %331, %332, %333, %334, %335 : tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x3xf32>, tensor<2x3x1025x3xf32>
      }
      %129:8 = stablehlo.while(%iterArg_49 = %94, %iterArg_50 = %iterArg_37, %iterArg_51 = %99, %iterArg_52 = %128#3, %iterArg_53 = %128#4, %iterArg_54 = %128#5, %iterArg_55 = %iterArg_46, %iterArg_56 = %128#10) : tensor<2x3xi32>, tensor<2x3x1x3xf32>, tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3x1x3xf32>, tensor<2x3x1025x3xf32>
      cond {
        %199 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %200 = stablehlo.compare GT, %iterArg_49, %199, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %201 = stablehlo.broadcast_in_dim %200, dims = [0, 1] : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %202 = stablehlo.reshape %201 : (tensor<2x3x1xi1>) -> tensor<2x3xi1>
        %203 = stablehlo.convert %202 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %204 = stablehlo.reduce(%203 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %205 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %206 = stablehlo.compare GT, %204, %205, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %207 = stablehlo.convert %206 : (tensor<2xi1>) -> tensor<2xi32>
        %208 = stablehlo.reduce(%207 init: %c_29) applies stablehlo.maximum across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
        %209 = stablehlo.compare GT, %208, %c_28, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %209 : tensor<i1>
      } do {
        %199 = stablehlo.subtract %iterArg_49, %84 : tensor<2x3xi32>
        %200 = stablehlo.divide %199, %iterArg_51 : tensor<2x3xi32>
        %201 = stablehlo.multiply %200, %iterArg_51 : tensor<2x3xi32>
        %202 = stablehlo.reshape %200 : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %203 = stablehlo.broadcast_in_dim %202, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
        %204 = stablehlo.select %106, %203, %107 : tensor<2x3x2xi1>, tensor<2x3x2xi32>
        %205 = stablehlo.slice %204 [0:2, 0:3, 0:1] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %206 = stablehlo.broadcast_in_dim %205, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %207 = stablehlo.select %114, %206, %110 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %208 = stablehlo.slice %204 [0:2, 0:3, 1:2] : (tensor<2x3x2xi32>) -> tensor<2x3x1xi32>
        %209 = stablehlo.broadcast_in_dim %208, dims = [0, 1, 2] : (tensor<2x3x1xi32>) -> tensor<2x3x3xi32>
        %210 = stablehlo.select %119, %209, %207 : tensor<2x3x3xi1>, tensor<2x3x3xi32>
        %211 = stablehlo.clamp %c_28, %210, %121 : (tensor<i32>, tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi32>
        %212 = "stablehlo.gather"(%iterArg_52, %211) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi32>, tensor<2x3x3xi32>) -> tensor<2x3xi32>
        %213 = "stablehlo.gather"(%iterArg_53, %211) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1>}> : (tensor<2x3x1025xi8>, tensor<2x3x3xi32>) -> tensor<2x3xi8>
        %214 = stablehlo.convert %213 : (tensor<2x3xi8>) -> tensor<2x3xi1>
        %215 = "stablehlo.gather"(%iterArg_54, %211) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
        %216 = "stablehlo.gather"(%iterArg_56, %211) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1, 2], start_index_map = [0, 1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 3>}> : (tensor<2x3x1025x3xf32>, tensor<2x3x3xi32>) -> tensor<2x3x3xf32>
        %217 = stablehlo.convert %214 : (tensor<2x3xi1>) -> tensor<2x3xi8>
        %218:2 = flow.dispatch.region -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>) {
          %280 = vector.transfer_read %201[%c0, %c0], %c0_i32 {in_bounds = [true, true]} : tensor<2x3xi32>, vector<2x3xi32>
          %281 = vector.shape_cast %280 : vector<2x3xi32> to vector<6xi32>
          %282 = vector.transfer_read %212[%c0, %c0], %c0_i32 {in_bounds = [true, true]} : tensor<2x3xi32>, vector<2x3xi32>
          %283 = vector.shape_cast %282 : vector<2x3xi32> to vector<6xi32>
          %284 = vector.transfer_read %217[%c0, %c0], %c0_i8 {in_bounds = [true, true]} : tensor<2x3xi8>, vector<2x3xi8>
          %285 = vector.shape_cast %284 : vector<2x3xi8> to vector<6xi8>
          %286 = arith.trunci %285 : vector<6xi8> to vector<6xi1>
          %287 = vector.transfer_read %215[%c0, %c0, %c0], %cst_5 {in_bounds = [true, true, true]} : tensor<2x3x3xf32>, vector<2x3x3xf32>
          %288 = vector.shape_cast %287 : vector<2x3x3xf32> to vector<18xf32>
          %289 = vector.transfer_read %199[%c0, %c0], %c0_i32 {in_bounds = [true, true]} : tensor<2x3xi32>, vector<2x3xi32>
          %290 = vector.shape_cast %289 : vector<2x3xi32> to vector<6xi32>
          %291 = vector.transfer_read %216[%c0, %c0, %c0], %cst_5 {in_bounds = [true, true, true]} : tensor<2x3x3xf32>, vector<2x3x3xf32>
          %292 = vector.shape_cast %291 : vector<2x3x3xf32> to vector<18xf32>
          %293:5 = scf.while (%arg1 = %281, %arg2 = %283, %arg3 = %286, %arg4 = %288, %arg5 = %292) : (vector<6xi32>, vector<6xi32>, vector<6xi1>, vector<18xf32>, vector<18xf32>) -> (vector<6xi32>, vector<6xi32>, vector<6xi1>, vector<18xf32>, vector<18xf32>) {
            %299 = arith.cmpi slt, %arg1, %290 : vector<6xi32>
            %300 = arith.extui %299 : vector<6xi1> to vector<6xi32>
            %301 = vector.shuffle %300, %3 [0, 3] : vector<6xi32>, vector<6xi32>
            %302 = vector.shuffle %300, %3 [1, 4] : vector<6xi32>, vector<6xi32>
            %303 = arith.maxsi %301, %302 : vector<2xi32>
            %304 = vector.shuffle %300, %3 [2, 5] : vector<6xi32>, vector<6xi32>
            %305 = arith.maxsi %303, %304 : vector<2xi32>
            %306 = arith.cmpi sgt, %305, %cst_3 : vector<2xi32>
            %307 = arith.extui %306 : vector<2xi1> to vector<2xi32>
            %308 = vector.reduction <maxsi>, %307, %c-2147483648_i32 : vector<2xi32> into i32
            %309 = arith.cmpi sgt, %308, %c0_i32 : i32
            scf.condition(%309) %arg1, %arg2, %arg3, %arg4, %arg5 : vector<6xi32>, vector<6xi32>, vector<6xi1>, vector<18xf32>, vector<18xf32>
          } do {
          ^bb0(%arg1: vector<6xi32>, %arg2: vector<6xi32>, %arg3: vector<6xi1>, %arg4: vector<18xf32>, %arg5: vector<18xf32>):
            %299 = arith.addi %arg1, %cst_4 : vector<6xi32>
            %300 = math.sin %arg4 : vector<18xf32>
            %301 = math.cos %arg4 : vector<18xf32>
            %302 = arith.mulf %arg5, %301 : vector<18xf32>
            %303 = arith.mulf %300, %cst_2 : vector<18xf32>
            %304 = arith.mulf %302, %cst_2 : vector<18xf32>
            %305 = arith.addf %303, %cst_1 : vector<18xf32>
            %306 = arith.addi %arg2, %cst_4 : vector<6xi32>
            %307 = vector.shuffle %305, %2 [0, 3, 6, 9, 12, 15] : vector<18xf32>, vector<18xf32>
            %308 = arith.addf %307, %cst_0 : vector<6xf32>
            %309 = vector.shuffle %305, %2 [1, 4, 7, 10, 13, 16] : vector<18xf32>, vector<18xf32>
            %310 = arith.addf %308, %309 : vector<6xf32>
            %311 = vector.shuffle %305, %2 [2, 5, 8, 11, 14, 17] : vector<18xf32>, vector<18xf32>
            %312 = arith.addf %310, %311 : vector<6xf32>
            %313 = arith.cmpf ogt, %312, %cst : vector<6xf32>
            %314 = arith.cmpi slt, %arg1, %290 : vector<6xi32>
            %315 = arith.select %314, %299, %arg1 : vector<6xi1>, vector<6xi32>
            %316 = arith.select %314, %306, %arg2 : vector<6xi1>, vector<6xi32>
            %317 = arith.select %314, %313, %arg3 : vector<6xi1>, vector<6xi1>
            %318 = vector.shuffle %314, %1 [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5] : vector<6xi1>, vector<6xi1>
            %319 = arith.select %318, %305, %arg4 : vector<18xi1>, vector<18xf32>
            %320 = arith.select %318, %304, %arg5 : vector<18xi1>, vector<18xf32>
            %321 = arith.extui %314 : vector<6xi1> to vector<6xi32>
            %322 = vector.shuffle %321, %3 [0, 3] : vector<6xi32>, vector<6xi32>
            %323 = vector.shuffle %321, %3 [1, 4] : vector<6xi32>, vector<6xi32>
            %324 = arith.maxsi %322, %323 : vector<2xi32>
            %325 = vector.shuffle %321, %3 [2, 5] : vector<6xi32>, vector<6xi32>
            %326 = arith.maxsi %324, %325 : vector<2xi32>
            %327 = arith.cmpi sgt, %326, %cst_3 : vector<2xi32>
            %328 = vector.shuffle %327, %0 [0, 0, 0, 1, 1, 1] : vector<2xi1>, vector<2xi1>
            %329 = arith.select %328, %315, %arg1 : vector<6xi1>, vector<6xi32>
            %330 = arith.select %328, %316, %arg2 : vector<6xi1>, vector<6xi32>
            %331 = arith.select %328, %317, %arg3 : vector<6xi1>, vector<6xi1>
            %332 = vector.shuffle %327, %0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1] : vector<2xi1>, vector<2xi1>
            %333 = arith.select %332, %319, %arg4 : vector<18xi1>, vector<18xf32>
            %334 = arith.select %332, %320, %arg5 : vector<18xi1>, vector<18xf32>
            scf.yield %329, %330, %331, %333, %334 : vector<6xi32>, vector<6xi32>, vector<6xi1>, vector<18xf32>, vector<18xf32>
          }
          %294 = vector.shape_cast %293#3 : vector<18xf32> to vector<2x3x3xf32>
          %295 = tensor.empty() : tensor<2x3x3xf32>
          %296 = vector.transfer_write %294, %295[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<2x3x3xf32>, tensor<2x3x3xf32>
          %297 = vector.shape_cast %293#4 : vector<18xf32> to vector<2x3x3xf32>
          %298 = vector.transfer_write %297, %295[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<2x3x3xf32>, tensor<2x3x3xf32>
          flow.return %296, %298 : tensor<2x3x3xf32>, tensor<2x3x3xf32>
        }
        %219 = stablehlo.cosine %218#0 : tensor<2x3x3xf32>
        %220 = stablehlo.sine %218#0 : tensor<2x3x3xf32>
        %221 = stablehlo.negate %220 : tensor<2x3x3xf32>
        %222 = stablehlo.multiply %218#1, %221 : tensor<2x3x3xf32>
        %223 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x3x1x3xf32>
        %224 = stablehlo.multiply %iterArg_50, %223 : tensor<2x3x1x3xf32>
        %225 = stablehlo.multiply %iterArg_55, %223 : tensor<2x3x1x3xf32>
        %226 = stablehlo.reshape %219 : (tensor<2x3x3xf32>) -> tensor<2x3x1x3xf32>
        %227 = stablehlo.multiply %224, %226 : tensor<2x3x1x3xf32>
        %228 = stablehlo.multiply %225, %226 : tensor<2x3x1x3xf32>
        %229 = stablehlo.reshape %222 : (tensor<2x3x3xf32>) -> tensor<2x3x1x3xf32>
        %230 = stablehlo.multiply %229, %224 : tensor<2x3x1x3xf32>
        %231 = stablehlo.add %228, %230 : tensor<2x3x1x3xf32>
        %232 = stablehlo.broadcast_in_dim %199, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %233 = stablehlo.broadcast_in_dim %iterArg_51, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
        %234 = stablehlo.broadcast_in_dim %iterArg_52, dims = [0, 1, 3] : (tensor<2x3x1025xi32>) -> tensor<2x3x1x1025xi32>
        %235 = stablehlo.broadcast_in_dim %iterArg_53, dims = [0, 1, 3] : (tensor<2x3x1025xi8>) -> tensor<2x3x1x1025xi8>
        %236 = stablehlo.broadcast_in_dim %iterArg_54, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
        %237 = stablehlo.broadcast_in_dim %iterArg_56, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
        %238 = stablehlo.reshape %232 : (tensor<2x3x1xi32>) -> tensor<2x3xi32>
        %239 = stablehlo.reshape %233 : (tensor<2x3x1xi32>) -> tensor<2x3xi32>
        %240 = stablehlo.reshape %234 : (tensor<2x3x1x1025xi32>) -> tensor<2x3x1025xi32>
        %241 = stablehlo.reshape %235 : (tensor<2x3x1x1025xi8>) -> tensor<2x3x1025xi8>
        %242 = stablehlo.reshape %236 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
        %243 = stablehlo.reshape %237 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
        %244 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
        %245 = stablehlo.compare GT, %iterArg_49, %244, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
        %246 = stablehlo.broadcast_in_dim %245, dims = [0, 1] : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %247 = stablehlo.reshape %246 : (tensor<2x3x1xi1>) -> tensor<2x3xi1>
        %248 = stablehlo.select %247, %238, %iterArg_49 : tensor<2x3xi1>, tensor<2x3xi32>
        %249 = stablehlo.reshape %247 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
        %250 = stablehlo.broadcast_in_dim %249, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1x3xi1>
        %251 = stablehlo.select %250, %227, %iterArg_50 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
        %252 = stablehlo.select %247, %239, %iterArg_51 : tensor<2x3xi1>, tensor<2x3xi32>
        %253 = stablehlo.reshape %247 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
        %254 = stablehlo.broadcast_in_dim %253, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
        %255 = stablehlo.select %254, %240, %iterArg_52 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %256 = stablehlo.select %254, %241, %iterArg_53 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %257 = stablehlo.broadcast_in_dim %249, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %258 = stablehlo.select %257, %242, %iterArg_54 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %259 = stablehlo.select %250, %231, %iterArg_55 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
        %260 = stablehlo.select %257, %243, %iterArg_56 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %261 = stablehlo.convert %247 : (tensor<2x3xi1>) -> tensor<2x3xi32>
        %262 = stablehlo.reduce(%261 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
        %263 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %264 = stablehlo.compare GT, %262, %263, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
        %265 = stablehlo.reshape %264 : (tensor<2xi1>) -> tensor<2x1xi1>
        %266 = stablehlo.broadcast_in_dim %265, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
        %267 = stablehlo.select %266, %248, %iterArg_49 : tensor<2x3xi1>, tensor<2x3xi32>
        %268 = stablehlo.reshape %264 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
        %269 = stablehlo.broadcast_in_dim %268, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1x3xi1>
        %270 = stablehlo.select %269, %251, %iterArg_50 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
        %271 = stablehlo.select %266, %252, %iterArg_51 : tensor<2x3xi1>, tensor<2x3xi32>
        %272 = stablehlo.reshape %264 : (tensor<2xi1>) -> tensor<2x1x1xi1>
        %273 = stablehlo.broadcast_in_dim %272, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
        %274 = stablehlo.select %273, %255, %iterArg_52 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
        %275 = stablehlo.select %273, %256, %iterArg_53 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
        %276 = stablehlo.broadcast_in_dim %268, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
        %277 = stablehlo.select %276, %258, %iterArg_54 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        %278 = stablehlo.select %269, %259, %iterArg_55 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
        %279 = stablehlo.select %276, %260, %iterArg_56 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
        stablehlo.return %267, %270, %271, %274, %275, %277, %278, %279 : tensor<2x3xi32>, tensor<2x3x1x3xf32>, tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3x1x3xf32>, tensor<2x3x1025x3xf32>
      }
      %130 = stablehlo.optimization_barrier %129#1 : tensor<2x3x1x3xf32>
      %131 = stablehlo.broadcast_in_dim %91, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
      %132 = stablehlo.broadcast_in_dim %128#3, dims = [0, 1, 3] : (tensor<2x3x1025xi32>) -> tensor<2x3x1x1025xi32>
      %133 = stablehlo.broadcast_in_dim %128#4, dims = [0, 1, 3] : (tensor<2x3x1025xi8>) -> tensor<2x3x1x1025xi8>
      %134 = stablehlo.broadcast_in_dim %128#5, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
      %135 = stablehlo.broadcast_in_dim %128#10, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
      %136 = stablehlo.broadcast_in_dim %iterArg_41, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
      %137 = stablehlo.broadcast_in_dim %iterArg_42, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
      %138 = stablehlo.broadcast_in_dim %iterArg_43, dims = [0, 1, 3] : (tensor<2x3x1025xi32>) -> tensor<2x3x1x1025xi32>
      %139 = stablehlo.broadcast_in_dim %iterArg_44, dims = [0, 1, 3] : (tensor<2x3x1025xi8>) -> tensor<2x3x1x1025xi8>
      %140 = stablehlo.broadcast_in_dim %iterArg_45, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
      %141 = stablehlo.broadcast_in_dim %iterArg_48, dims = [0, 1, 3, 4] : (tensor<2x3x1025x3xf32>) -> tensor<2x3x1x1025x3xf32>
      %142 = stablehlo.reshape %131 : (tensor<2x3x1xi32>) -> tensor<2x3xi32>
      %143 = stablehlo.reshape %132 : (tensor<2x3x1x1025xi32>) -> tensor<2x3x1025xi32>
      %144 = stablehlo.reshape %133 : (tensor<2x3x1x1025xi8>) -> tensor<2x3x1025xi8>
      %145 = stablehlo.reshape %134 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
      %146 = stablehlo.reshape %135 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
      %147 = stablehlo.reshape %136 : (tensor<2x3x1xi32>) -> tensor<2x3xi32>
      %148 = stablehlo.reshape %137 : (tensor<2x3x1xi32>) -> tensor<2x3xi32>
      %149 = stablehlo.reshape %138 : (tensor<2x3x1x1025xi32>) -> tensor<2x3x1025xi32>
      %150 = stablehlo.reshape %139 : (tensor<2x3x1x1025xi8>) -> tensor<2x3x1025xi8>
      %151 = stablehlo.reshape %140 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
      %152 = stablehlo.reshape %141 : (tensor<2x3x1x1025x3xf32>) -> tensor<2x3x1025x3xf32>
      %153 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
      %154 = stablehlo.compare GT, %iterArg, %153, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
      %155 = stablehlo.broadcast_in_dim %154, dims = [0, 1] : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
      %156 = stablehlo.reshape %155 : (tensor<2x3x1xi1>) -> tensor<2x3xi1>
      %157 = stablehlo.select %156, %142, %iterArg : tensor<2x3xi1>, tensor<2x3xi32>
      %158 = stablehlo.reshape %156 : (tensor<2x3xi1>) -> tensor<2x3x1x1xi1>
      %159 = stablehlo.broadcast_in_dim %158, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1x3xi1>
      %160 = stablehlo.select %159, %130, %iterArg_37 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
      %161 = stablehlo.reshape %156 : (tensor<2x3xi1>) -> tensor<2x3x1xi1>
      %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2] : (tensor<2x3x1xi1>) -> tensor<2x3x1025xi1>
      %163 = stablehlo.select %162, %143, %iterArg_38 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %164 = stablehlo.select %162, %144, %iterArg_39 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %165 = stablehlo.broadcast_in_dim %158, dims = [0, 1, 2, 3] : (tensor<2x3x1x1xi1>) -> tensor<2x3x1025x3xi1>
      %166 = stablehlo.select %165, %145, %iterArg_40 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %167 = stablehlo.select %156, %147, %iterArg_41 : tensor<2x3xi1>, tensor<2x3xi32>
      %168 = stablehlo.select %156, %148, %iterArg_42 : tensor<2x3xi1>, tensor<2x3xi32>
      %169 = stablehlo.select %162, %149, %iterArg_43 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %170 = stablehlo.select %162, %150, %iterArg_44 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %171 = stablehlo.select %165, %151, %iterArg_45 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %172 = stablehlo.select %159, %129#6, %iterArg_46 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
      %173 = stablehlo.select %165, %146, %iterArg_47 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %174 = stablehlo.select %165, %152, %iterArg_48 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %175 = stablehlo.convert %156 : (tensor<2x3xi1>) -> tensor<2x3xi32>
      %176 = stablehlo.reduce(%175 init: %c_29) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
      %177 = stablehlo.broadcast_in_dim %c_28, dims = [] : (tensor<i32>) -> tensor<2xi32>
      %178 = stablehlo.compare GT, %176, %177, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
      %179 = stablehlo.reshape %178 : (tensor<2xi1>) -> tensor<2x1xi1>
      %180 = stablehlo.broadcast_in_dim %179, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
      %181 = stablehlo.select %180, %157, %iterArg : tensor<2x3xi1>, tensor<2x3xi32>
      %182 = stablehlo.reshape %178 : (tensor<2xi1>) -> tensor<2x1x1x1xi1>
      %183 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1x3xi1>
      %184 = stablehlo.select %183, %160, %iterArg_37 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
      %185 = stablehlo.reshape %178 : (tensor<2xi1>) -> tensor<2x1x1xi1>
      %186 = stablehlo.broadcast_in_dim %185, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x1025xi1>
      %187 = stablehlo.select %186, %163, %iterArg_38 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %188 = stablehlo.select %186, %164, %iterArg_39 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %189 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2, 3] : (tensor<2x1x1x1xi1>) -> tensor<2x3x1025x3xi1>
      %190 = stablehlo.select %189, %166, %iterArg_40 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %191 = stablehlo.select %180, %167, %iterArg_41 : tensor<2x3xi1>, tensor<2x3xi32>
      %192 = stablehlo.select %180, %168, %iterArg_42 : tensor<2x3xi1>, tensor<2x3xi32>
      %193 = stablehlo.select %186, %169, %iterArg_43 : tensor<2x3x1025xi1>, tensor<2x3x1025xi32>
      %194 = stablehlo.select %186, %170, %iterArg_44 : tensor<2x3x1025xi1>, tensor<2x3x1025xi8>
      %195 = stablehlo.select %189, %171, %iterArg_45 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %196 = stablehlo.select %183, %172, %iterArg_46 : tensor<2x3x1x3xi1>, tensor<2x3x1x3xf32>
      %197 = stablehlo.select %189, %173, %iterArg_47 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      %198 = stablehlo.select %189, %174, %iterArg_48 : tensor<2x3x1025x3xi1>, tensor<2x3x1025x3xf32>
      stablehlo.return %181, %184, %187, %188, %190, %191, %192, %193, %194, %195, %196, %197, %198 : tensor<2x3xi32>, tensor<2x3x1x3xf32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3x1025xi32>, tensor<2x3x1025xi8>, tensor<2x3x1025x3xf32>, tensor<2x3x1x3xf32>, tensor<2x3x1025x3xf32>, tensor<2x3x1025x3xf32>
    }
    %89 = stablehlo.reshape %88#10 : (tensor<2x3x1x3xf32>) -> tensor<2x3x3xf32>
    %90 = stablehlo.transpose %89, dims = [0, 2, 1] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    return %90 : tensor<2x3x3xf32>
  }
}
