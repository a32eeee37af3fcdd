// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile fails on a valid program:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_copies_of_an_if.mlir -o out.vmfb
//
//   error: failed to solve for timepoint coverage
//
// (also with --iree-hal-target-backends=vmvx). The program: a host-stepped loop whose body
// is four copies of one step that reads a row of two tapes (dynamic_slice at the counter),
// computes a predicate from them and branches on it with a stablehlo.if (each branch an
// elementwise product). Three copies compile; four and more fail. It is the backward loop
// of reverse mode through a 9-step `scan` whose step holds a `cond`, with eight steps run
// four a trip (s4tf's s4tf-unroll-host-loops, or its reverse mode's own copies for loops
// carrying more than 256 KiB). s4tf no longer copies a loop body holding control flow on
// the host (passes/iree/unroll_host_loops.py, passes/autodiff/region_derivatives.py
// `_holds_control_flow`). Not reduced further: removing any one line leaves an invalid
// module or one that compiles.
module {
  func.func @backward(%arg0: tensor<i32>, %arg1: tensor<8xf32>, %arg2: tensor<9xf32>, %arg3: tensor<9xi32>, %arg4: tensor<9x8xf32>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<9xf32>, %arg8: tensor<9xi32>) -> (tensor<8xf32>, tensor<9xf32>) {
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %c_0 = stablehlo.constant dense<8> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %cst = stablehlo.constant dense<1.100000e+00> : tensor<f32>
    %c_3 = stablehlo.constant dense<9> : tensor<i32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %c_5 = stablehlo.constant dense<8> : tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:9 = stablehlo.while(%iterArg = %arg0, %iterArg_8 = %arg1, %iterArg_9 = %arg2, %iterArg_10 = %arg3, %iterArg_11 = %arg4, %iterArg_12 = %arg5, %iterArg_13 = %arg6, %iterArg_14 = %arg7, %iterArg_15 = %arg8) : tensor<i32>, tensor<8xf32>, tensor<9xf32>, tensor<9xi32>, tensor<9x8xf32>, tensor<i32>, tensor<i32>, tensor<9xf32>, tensor<9xi32> attributes {s4tf.trip_count = 2 : i64}
    cond {
      %1 = stablehlo.compare GT, %iterArg, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.subtract %iterArg, %c_4 : tensor<i32>
      %2 = stablehlo.dynamic_slice %iterArg_10, %1, sizes = [1] : (tensor<9xi32>, tensor<i32>) -> tensor<1xi32>
      %3 = stablehlo.reshape %2 : (tensor<1xi32>) -> tensor<i32>
      %4 = stablehlo.dynamic_slice %iterArg_11, %1, %c_6, sizes = [1, 8] : (tensor<9x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %5 = stablehlo.reshape %4 : (tensor<1x8xf32>) -> tensor<8xf32>
      %6 = stablehlo.compare LT, %3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.add %3, %c_3 : tensor<i32>
      %8 = stablehlo.select %6, %7, %3 : tensor<i1>, tensor<i32>
      %9 = stablehlo.reshape %8 : (tensor<i32>) -> tensor<1xi32>
      %10 = stablehlo.broadcast_in_dim %c_0, dims = [0] : (tensor<1xi32>) -> tensor<1xi32>
      %11 = stablehlo.clamp %c_6, %9, %10 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %12 = "stablehlo.gather"(%iterArg_15, %11) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<1xi32>) -> tensor<i32>
      %13 = stablehlo.divide %12, %c_1 : tensor<i32>
      %14 = stablehlo.multiply %13, %c_1 : tensor<i32>
      %15 = stablehlo.subtract %12, %14 : tensor<i32>
      %16 = stablehlo.compare NE, %15, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %17 = stablehlo.compare LT, %15, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %18 = stablehlo.compare NE, %17, %c_2, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %19 = stablehlo.and %16, %18 : tensor<i1>
      %20 = stablehlo.add %15, %c_1 : tensor<i32>
      %21 = stablehlo.select %19, %20, %15 : tensor<i1>, tensor<i32>
      %22 = stablehlo.compare EQ, %21, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %23 = stablehlo.reshape %9 : (tensor<1xi32>) -> tensor<i32>
      %24 = stablehlo.maximum %23, %c_6 : tensor<i32>
      %25 = stablehlo.minimum %24, %c_5 : tensor<i32>
      %26 = stablehlo.compare EQ, %23, %25, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %27 = stablehlo.dynamic_slice %iterArg_9, %25, sizes = [1] : (tensor<9xf32>, tensor<i32>) -> tensor<1xf32>
      %28 = stablehlo.reshape %27 : (tensor<1xf32>) -> tensor<f32>
      %29 = stablehlo.select %26, %cst_7, %28 : tensor<i1>, tensor<f32>
      %30 = stablehlo.reshape %29 : (tensor<f32>) -> tensor<1xf32>
      %31 = stablehlo.dynamic_update_slice %iterArg_9, %30, %25 : (tensor<9xf32>, tensor<1xf32>, tensor<i32>) -> tensor<9xf32>
      %32 = "stablehlo.gather"(%iterArg_9, %11) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xf32>, tensor<1xi32>) -> tensor<f32>
      %33 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %34 = stablehlo.compare GE, %9, %33, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %35 = stablehlo.compare LE, %9, %c_0, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %36 = stablehlo.and %34, %35 : tensor<1xi1>
      %37 = stablehlo.convert %36 : (tensor<1xi1>) -> tensor<1xi32>
      %38 = stablehlo.reduce(%37 init: %c) applies stablehlo.minimum across dimensions = [0] : (tensor<1xi32>, tensor<i32>) -> tensor<i32>
      %39 = stablehlo.compare EQ, %38, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %40 = stablehlo.convert %39 : (tensor<i1>) -> tensor<f32>
      %41 = stablehlo.multiply %32, %40 : tensor<f32>
      %42 = stablehlo.reshape %41 : (tensor<f32>) -> tensor<1xf32>
      %43 = stablehlo.broadcast_in_dim %42, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
      %44 = stablehlo.add %iterArg_8, %43 : tensor<8xf32>
      %45 = "stablehlo.if"(%22) ({
        %175 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %176 = stablehlo.multiply %44, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }, {
        %175 = stablehlo.cosine %5 : tensor<8xf32>
        %176 = stablehlo.multiply %44, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }) : (tensor<i1>) -> tensor<8xf32>
      %46 = stablehlo.subtract %1, %c_4 : tensor<i32>
      %47 = stablehlo.dynamic_slice %iterArg_10, %46, sizes = [1] : (tensor<9xi32>, tensor<i32>) -> tensor<1xi32>
      %48 = stablehlo.reshape %47 : (tensor<1xi32>) -> tensor<i32>
      %49 = stablehlo.dynamic_slice %iterArg_11, %46, %c_6, sizes = [1, 8] : (tensor<9x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %50 = stablehlo.reshape %49 : (tensor<1x8xf32>) -> tensor<8xf32>
      %51 = stablehlo.compare LT, %48, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %52 = stablehlo.add %48, %c_3 : tensor<i32>
      %53 = stablehlo.select %51, %52, %48 : tensor<i1>, tensor<i32>
      %54 = stablehlo.reshape %53 : (tensor<i32>) -> tensor<1xi32>
      %55 = stablehlo.clamp %c_6, %54, %10 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %56 = "stablehlo.gather"(%iterArg_15, %55) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<1xi32>) -> tensor<i32>
      %57 = stablehlo.divide %56, %c_1 : tensor<i32>
      %58 = stablehlo.multiply %57, %c_1 : tensor<i32>
      %59 = stablehlo.subtract %56, %58 : tensor<i32>
      %60 = stablehlo.compare NE, %59, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %61 = stablehlo.compare LT, %59, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %62 = stablehlo.compare NE, %61, %c_2, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %63 = stablehlo.and %60, %62 : tensor<i1>
      %64 = stablehlo.add %59, %c_1 : tensor<i32>
      %65 = stablehlo.select %63, %64, %59 : tensor<i1>, tensor<i32>
      %66 = stablehlo.compare EQ, %65, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %67 = stablehlo.reshape %54 : (tensor<1xi32>) -> tensor<i32>
      %68 = stablehlo.maximum %67, %c_6 : tensor<i32>
      %69 = stablehlo.minimum %68, %c_5 : tensor<i32>
      %70 = stablehlo.compare EQ, %67, %69, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %71 = stablehlo.dynamic_slice %31, %69, sizes = [1] : (tensor<9xf32>, tensor<i32>) -> tensor<1xf32>
      %72 = stablehlo.reshape %71 : (tensor<1xf32>) -> tensor<f32>
      %73 = stablehlo.select %70, %cst_7, %72 : tensor<i1>, tensor<f32>
      %74 = stablehlo.reshape %73 : (tensor<f32>) -> tensor<1xf32>
      %75 = stablehlo.dynamic_update_slice %31, %74, %69 : (tensor<9xf32>, tensor<1xf32>, tensor<i32>) -> tensor<9xf32>
      %76 = "stablehlo.gather"(%31, %55) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xf32>, tensor<1xi32>) -> tensor<f32>
      %77 = stablehlo.compare GE, %54, %33, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %78 = stablehlo.compare LE, %54, %c_0, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %79 = stablehlo.and %77, %78 : tensor<1xi1>
      %80 = stablehlo.convert %79 : (tensor<1xi1>) -> tensor<1xi32>
      %81 = stablehlo.reduce(%80 init: %c) applies stablehlo.minimum across dimensions = [0] : (tensor<1xi32>, tensor<i32>) -> tensor<i32>
      %82 = stablehlo.compare EQ, %81, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %83 = stablehlo.convert %82 : (tensor<i1>) -> tensor<f32>
      %84 = stablehlo.multiply %76, %83 : tensor<f32>
      %85 = stablehlo.reshape %84 : (tensor<f32>) -> tensor<1xf32>
      %86 = stablehlo.broadcast_in_dim %85, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
      %87 = stablehlo.add %45, %86 : tensor<8xf32>
      %88 = "stablehlo.if"(%66) ({
        %175 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %176 = stablehlo.multiply %87, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }, {
        %175 = stablehlo.cosine %50 : tensor<8xf32>
        %176 = stablehlo.multiply %87, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }) : (tensor<i1>) -> tensor<8xf32>
      %89 = stablehlo.subtract %46, %c_4 : tensor<i32>
      %90 = stablehlo.dynamic_slice %iterArg_10, %89, sizes = [1] : (tensor<9xi32>, tensor<i32>) -> tensor<1xi32>
      %91 = stablehlo.reshape %90 : (tensor<1xi32>) -> tensor<i32>
      %92 = stablehlo.dynamic_slice %iterArg_11, %89, %c_6, sizes = [1, 8] : (tensor<9x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %93 = stablehlo.reshape %92 : (tensor<1x8xf32>) -> tensor<8xf32>
      %94 = stablehlo.compare LT, %91, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %95 = stablehlo.add %91, %c_3 : tensor<i32>
      %96 = stablehlo.select %94, %95, %91 : tensor<i1>, tensor<i32>
      %97 = stablehlo.reshape %96 : (tensor<i32>) -> tensor<1xi32>
      %98 = stablehlo.clamp %c_6, %97, %10 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %99 = "stablehlo.gather"(%iterArg_15, %98) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<1xi32>) -> tensor<i32>
      %100 = stablehlo.divide %99, %c_1 : tensor<i32>
      %101 = stablehlo.multiply %100, %c_1 : tensor<i32>
      %102 = stablehlo.subtract %99, %101 : tensor<i32>
      %103 = stablehlo.compare NE, %102, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %104 = stablehlo.compare LT, %102, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %105 = stablehlo.compare NE, %104, %c_2, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %106 = stablehlo.and %103, %105 : tensor<i1>
      %107 = stablehlo.add %102, %c_1 : tensor<i32>
      %108 = stablehlo.select %106, %107, %102 : tensor<i1>, tensor<i32>
      %109 = stablehlo.compare EQ, %108, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %110 = stablehlo.reshape %97 : (tensor<1xi32>) -> tensor<i32>
      %111 = stablehlo.maximum %110, %c_6 : tensor<i32>
      %112 = stablehlo.minimum %111, %c_5 : tensor<i32>
      %113 = stablehlo.compare EQ, %110, %112, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %114 = stablehlo.dynamic_slice %75, %112, sizes = [1] : (tensor<9xf32>, tensor<i32>) -> tensor<1xf32>
      %115 = stablehlo.reshape %114 : (tensor<1xf32>) -> tensor<f32>
      %116 = stablehlo.select %113, %cst_7, %115 : tensor<i1>, tensor<f32>
      %117 = stablehlo.reshape %116 : (tensor<f32>) -> tensor<1xf32>
      %118 = stablehlo.dynamic_update_slice %75, %117, %112 : (tensor<9xf32>, tensor<1xf32>, tensor<i32>) -> tensor<9xf32>
      %119 = "stablehlo.gather"(%75, %98) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xf32>, tensor<1xi32>) -> tensor<f32>
      %120 = stablehlo.compare GE, %97, %33, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %121 = stablehlo.compare LE, %97, %c_0, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %122 = stablehlo.and %120, %121 : tensor<1xi1>
      %123 = stablehlo.convert %122 : (tensor<1xi1>) -> tensor<1xi32>
      %124 = stablehlo.reduce(%123 init: %c) applies stablehlo.minimum across dimensions = [0] : (tensor<1xi32>, tensor<i32>) -> tensor<i32>
      %125 = stablehlo.compare EQ, %124, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %126 = stablehlo.convert %125 : (tensor<i1>) -> tensor<f32>
      %127 = stablehlo.multiply %119, %126 : tensor<f32>
      %128 = stablehlo.reshape %127 : (tensor<f32>) -> tensor<1xf32>
      %129 = stablehlo.broadcast_in_dim %128, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
      %130 = stablehlo.add %88, %129 : tensor<8xf32>
      %131 = "stablehlo.if"(%109) ({
        %175 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %176 = stablehlo.multiply %130, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }, {
        %175 = stablehlo.cosine %93 : tensor<8xf32>
        %176 = stablehlo.multiply %130, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }) : (tensor<i1>) -> tensor<8xf32>
      %132 = stablehlo.subtract %89, %c_4 : tensor<i32>
      %133 = stablehlo.dynamic_slice %iterArg_10, %132, sizes = [1] : (tensor<9xi32>, tensor<i32>) -> tensor<1xi32>
      %134 = stablehlo.reshape %133 : (tensor<1xi32>) -> tensor<i32>
      %135 = stablehlo.dynamic_slice %iterArg_11, %132, %c_6, sizes = [1, 8] : (tensor<9x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %136 = stablehlo.reshape %135 : (tensor<1x8xf32>) -> tensor<8xf32>
      %137 = stablehlo.compare LT, %134, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %138 = stablehlo.add %134, %c_3 : tensor<i32>
      %139 = stablehlo.select %137, %138, %134 : tensor<i1>, tensor<i32>
      %140 = stablehlo.reshape %139 : (tensor<i32>) -> tensor<1xi32>
      %141 = stablehlo.clamp %c_6, %140, %10 : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
      %142 = "stablehlo.gather"(%iterArg_15, %141) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<1xi32>) -> tensor<i32>
      %143 = stablehlo.divide %142, %c_1 : tensor<i32>
      %144 = stablehlo.multiply %143, %c_1 : tensor<i32>
      %145 = stablehlo.subtract %142, %144 : tensor<i32>
      %146 = stablehlo.compare NE, %145, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %147 = stablehlo.compare LT, %145, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %148 = stablehlo.compare NE, %147, %c_2, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %149 = stablehlo.and %146, %148 : tensor<i1>
      %150 = stablehlo.add %145, %c_1 : tensor<i32>
      %151 = stablehlo.select %149, %150, %145 : tensor<i1>, tensor<i32>
      %152 = stablehlo.compare EQ, %151, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %153 = stablehlo.reshape %140 : (tensor<1xi32>) -> tensor<i32>
      %154 = stablehlo.maximum %153, %c_6 : tensor<i32>
      %155 = stablehlo.minimum %154, %c_5 : tensor<i32>
      %156 = stablehlo.compare EQ, %153, %155, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %157 = stablehlo.dynamic_slice %118, %155, sizes = [1] : (tensor<9xf32>, tensor<i32>) -> tensor<1xf32>
      %158 = stablehlo.reshape %157 : (tensor<1xf32>) -> tensor<f32>
      %159 = stablehlo.select %156, %cst_7, %158 : tensor<i1>, tensor<f32>
      %160 = stablehlo.reshape %159 : (tensor<f32>) -> tensor<1xf32>
      %161 = stablehlo.dynamic_update_slice %118, %160, %155 : (tensor<9xf32>, tensor<1xf32>, tensor<i32>) -> tensor<9xf32>
      %162 = "stablehlo.gather"(%118, %141) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xf32>, tensor<1xi32>) -> tensor<f32>
      %163 = stablehlo.compare GE, %140, %33, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %164 = stablehlo.compare LE, %140, %c_0, SIGNED : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi1>
      %165 = stablehlo.and %163, %164 : tensor<1xi1>
      %166 = stablehlo.convert %165 : (tensor<1xi1>) -> tensor<1xi32>
      %167 = stablehlo.reduce(%166 init: %c) applies stablehlo.minimum across dimensions = [0] : (tensor<1xi32>, tensor<i32>) -> tensor<i32>
      %168 = stablehlo.compare EQ, %167, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %169 = stablehlo.convert %168 : (tensor<i1>) -> tensor<f32>
      %170 = stablehlo.multiply %162, %169 : tensor<f32>
      %171 = stablehlo.reshape %170 : (tensor<f32>) -> tensor<1xf32>
      %172 = stablehlo.broadcast_in_dim %171, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
      %173 = stablehlo.add %131, %172 : tensor<8xf32>
      %174 = "stablehlo.if"(%152) ({
        %175 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
        %176 = stablehlo.multiply %173, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }, {
        %175 = stablehlo.cosine %136 : tensor<8xf32>
        %176 = stablehlo.multiply %173, %175 : tensor<8xf32>
        stablehlo.return %176 : tensor<8xf32>
      }) : (tensor<i1>) -> tensor<8xf32>
      stablehlo.return %132, %174, %161, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15 : tensor<i32>, tensor<8xf32>, tensor<9xf32>, tensor<9xi32>, tensor<9x8xf32>, tensor<i32>, tensor<i32>, tensor<9xf32>, tensor<9xi32>
    }
    return %0#1, %0#2 : tensor<8xf32>, tensor<9xf32>
  }
}
