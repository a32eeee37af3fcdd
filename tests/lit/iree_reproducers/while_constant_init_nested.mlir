// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// iree-compile segfaults in stream's resource usage analysis:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_constant_init_nested.mlir -o out.vmfb
//
//   #4 IREE::Stream::ResourceType::getLifetime() const
//   #5 AbstractResourceUsage<DFX::ValueElement>::initializeFromType(ResourceType)
//   #7 ValueResourceUsage::updateFromUse(...)::'lambda'(scf::YieldOp)
//   #14 ValueResourceUsage::updateFromUse(...)::'lambda'(scf::ConditionOp)
//
// (also with --iree-hal-target-backends=vmvx). The trigger: the outer while's init
// %9 comes from a non-splat constant (the one-hot %8, hoisted to a global; its
// optimization_barrier is irrelevant) and is carried through two nested whiles. Before
// iree-stream-refine-usage the innermost scf.while carries the resource's size as an
// `index` before-argument that its after-region does not receive:
//   scf.while (%a = .., %b = .., %size = %arg3, %c = ..) : (!stream.resource<*>,
//     !stream.resource<*>, index, !stream.resource<*>) -> (3 x !stream.resource<*>)
// and the analysis maps the after-region's scf.yield operand #2 (an index) to the
// while's result #2 (a resource) and casts. Computing %9 from a runtime value (e.g.
// `select(%n >= 0 or %n < 0, %8, 0)`) compiles and runs: s4tf's lowering does that
// (s4tf-runtime-loop-inits, passes/iree/runtime_loop_inits.py). Found with the gradient
// of GradBench's ODE (RK-style fori_loop, grad of y[-1]).
module {
  func.func @_lambda_(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<7> : tensor<i64>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %cst_2 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %cst_3 = stablehlo.constant dense<2.000000e-01> : tensor<f32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_5 = stablehlo.constant dense<0.0333333351> : tensor<f32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<1025x8xf32>
    %c_7 = stablehlo.constant dense<0> : tensor<1025xi32>
    %c_8 = stablehlo.constant dense<1024> : tensor<i32>
    %c_9 = stablehlo.constant dense<1023> : tensor<i32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %c_12 = stablehlo.constant dense<10> : tensor<i32>
    %c_13 = stablehlo.constant dense<1> : tensor<i32>
    %0:6 = stablehlo.while(%iterArg = %c_11, %iterArg_14 = %c_12, %iterArg_15 = %c_13, %iterArg_16 = %cst_10, %iterArg_17 = %arg0, %iterArg_18 = %c_11) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
    cond {
      %13 = stablehlo.compare GT, %iterArg_15, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %14 = stablehlo.compare LT, %iterArg, %iterArg_14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %15 = stablehlo.compare GT, %iterArg, %iterArg_14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %16 = stablehlo.select %13, %14, %15 : tensor<i1>, tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %13 = stablehlo.slice %iterArg_17 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
      %14 = stablehlo.slice %iterArg_17 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
      %15 = stablehlo.slice %iterArg_16 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %16 = stablehlo.multiply %14, %15 : tensor<7xf32>
      %17 = stablehlo.concatenate %13, %16, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %19 = stablehlo.multiply %18, %17 : tensor<8xf32>
      %20 = stablehlo.add %iterArg_16, %19 : tensor<8xf32>
      %21 = stablehlo.slice %20 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %22 = stablehlo.multiply %14, %21 : tensor<7xf32>
      %23 = stablehlo.concatenate %13, %22, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %24 = stablehlo.multiply %18, %23 : tensor<8xf32>
      %25 = stablehlo.add %iterArg_16, %24 : tensor<8xf32>
      %26 = stablehlo.slice %25 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %27 = stablehlo.multiply %14, %26 : tensor<7xf32>
      %28 = stablehlo.concatenate %13, %27, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %29 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %30 = stablehlo.multiply %29, %28 : tensor<8xf32>
      %31 = stablehlo.add %iterArg_16, %30 : tensor<8xf32>
      %32 = stablehlo.slice %31 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %33 = stablehlo.multiply %14, %32 : tensor<7xf32>
      %34 = stablehlo.concatenate %13, %33, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %35 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %36 = stablehlo.multiply %35, %23 : tensor<8xf32>
      %37 = stablehlo.add %17, %36 : tensor<8xf32>
      %38 = stablehlo.multiply %35, %28 : tensor<8xf32>
      %39 = stablehlo.add %37, %38 : tensor<8xf32>
      %40 = stablehlo.add %39, %34 : tensor<8xf32>
      %41 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %42 = stablehlo.multiply %41, %40 : tensor<8xf32>
      %43 = stablehlo.add %iterArg_16, %42 : tensor<8xf32>
      %44 = stablehlo.add %iterArg, %iterArg_15 : tensor<i32>
      %45 = stablehlo.add %iterArg_18, %c_13 : tensor<i32>
      stablehlo.return %44, %iterArg_14, %iterArg_15, %43, %iterArg_17, %45 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
    }
    %1 = stablehlo.add %0#5, %c_9 : tensor<i32>
    %2 = stablehlo.divide %1, %c_8 : tensor<i32>
    %3 = stablehlo.maximum %2, %c_13 : tensor<i32>
    %4:9 = stablehlo.while(%iterArg = %c_11, %iterArg_14 = %c_12, %iterArg_15 = %c_13, %iterArg_16 = %cst_10, %iterArg_17 = %arg0, %iterArg_18 = %c_7, %iterArg_19 = %cst_6, %iterArg_20 = %c_11, %iterArg_21 = %3) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>
    cond {
      %13 = stablehlo.compare GT, %iterArg_15, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %14 = stablehlo.compare LT, %iterArg, %iterArg_14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %15 = stablehlo.compare GT, %iterArg, %iterArg_14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %16 = stablehlo.select %13, %14, %15 : tensor<i1>, tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %13 = stablehlo.divide %iterArg_20, %iterArg_21 : tensor<i32>
      %14 = stablehlo.multiply %13, %iterArg_21 : tensor<i32>
      %15 = stablehlo.subtract %iterArg_20, %14 : tensor<i32>
      %16 = stablehlo.compare EQ, %15, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %17 = stablehlo.select %16, %13, %c_8 : tensor<i1>, tensor<i32>
      %18 = stablehlo.reshape %iterArg : (tensor<i32>) -> tensor<1xi32>
      %19 = stablehlo.dynamic_update_slice %iterArg_18, %18, %17 : (tensor<1025xi32>, tensor<1xi32>, tensor<i32>) -> tensor<1025xi32>
      %20 = stablehlo.reshape %iterArg_16 : (tensor<8xf32>) -> tensor<1x8xf32>
      %21 = stablehlo.dynamic_update_slice %iterArg_19, %20, %17, %c_11 : (tensor<1025x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x8xf32>
      %22 = stablehlo.slice %iterArg_17 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
      %23 = stablehlo.slice %iterArg_17 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
      %24 = stablehlo.slice %iterArg_16 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %25 = stablehlo.multiply %23, %24 : tensor<7xf32>
      %26 = stablehlo.concatenate %22, %25, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %27 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %28 = stablehlo.multiply %27, %26 : tensor<8xf32>
      %29 = stablehlo.add %iterArg_16, %28 : tensor<8xf32>
      %30 = stablehlo.slice %29 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %31 = stablehlo.multiply %23, %30 : tensor<7xf32>
      %32 = stablehlo.concatenate %22, %31, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %33 = stablehlo.multiply %27, %32 : tensor<8xf32>
      %34 = stablehlo.add %iterArg_16, %33 : tensor<8xf32>
      %35 = stablehlo.slice %34 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %36 = stablehlo.multiply %23, %35 : tensor<7xf32>
      %37 = stablehlo.concatenate %22, %36, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %38 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %39 = stablehlo.multiply %38, %37 : tensor<8xf32>
      %40 = stablehlo.add %iterArg_16, %39 : tensor<8xf32>
      %41 = stablehlo.slice %40 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
      %42 = stablehlo.multiply %23, %41 : tensor<7xf32>
      %43 = stablehlo.concatenate %22, %42, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
      %44 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %45 = stablehlo.multiply %44, %32 : tensor<8xf32>
      %46 = stablehlo.add %26, %45 : tensor<8xf32>
      %47 = stablehlo.multiply %44, %37 : tensor<8xf32>
      %48 = stablehlo.add %46, %47 : tensor<8xf32>
      %49 = stablehlo.add %48, %43 : tensor<8xf32>
      %50 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
      %51 = stablehlo.multiply %50, %49 : tensor<8xf32>
      %52 = stablehlo.add %iterArg_16, %51 : tensor<8xf32>
      %53 = stablehlo.add %iterArg, %iterArg_15 : tensor<i32>
      %54 = stablehlo.add %iterArg_20, %c_13 : tensor<i32>
      stablehlo.return %53, %iterArg_14, %iterArg_15, %52, %iterArg_17, %19, %21, %54, %iterArg_21 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>
    }
    %5 = stablehlo.reshape %cst : (tensor<f32>) -> tensor<1xf32>
    %6 = stablehlo.slice %cst_10 [7:8] : (tensor<8xf32>) -> tensor<1xf32>
    %7 = stablehlo.add %6, %5 : tensor<1xf32>
    %8 = stablehlo.dynamic_update_slice %cst_10, %7, %c : (tensor<8xf32>, tensor<1xf32>, tensor<i64>) -> tensor<8xf32>
    %9 = stablehlo.optimization_barrier %8 : tensor<8xf32>
    %10 = stablehlo.optimization_barrier %cst_10 : tensor<8xf32>
    %11 = stablehlo.compare EQ, %3, %c_13, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %13 = stablehlo.subtract %3, %c_13 : tensor<i32>
      %14 = stablehlo.add %0#5, %13 : tensor<i32>
      %15 = stablehlo.divide %14, %3 : tensor<i32>
      %16:12 = stablehlo.while(%iterArg = %15, %iterArg_14 = %9, %iterArg_15 = %10, %iterArg_16 = %c_7, %iterArg_17 = %cst_6, %iterArg_18 = %3, %iterArg_19 = %0#5, %iterArg_20 = %4#5, %iterArg_21 = %4#6, %iterArg_22 = %4#1, %iterArg_23 = %4#2, %iterArg_24 = %4#4) : tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<8xf32>
      cond {
        %17 = stablehlo.compare GT, %iterArg, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %17 : tensor<i1>
      } do {
        %17 = stablehlo.subtract %iterArg, %c_13 : tensor<i32>
        %18 = stablehlo.multiply %17, %iterArg_18 : tensor<i32>
        %19 = stablehlo.subtract %iterArg_19, %18 : tensor<i32>
        %20 = stablehlo.minimum %iterArg_18, %19 : tensor<i32>
        %21 = stablehlo.add %20, %c_9 : tensor<i32>
        %22 = stablehlo.divide %21, %c_8 : tensor<i32>
        %23 = stablehlo.maximum %22, %c_13 : tensor<i32>
        %24 = stablehlo.dynamic_slice %iterArg_20, %17, sizes = [1] : (tensor<1025xi32>, tensor<i32>) -> tensor<1xi32>
        %25 = stablehlo.reshape %24 : (tensor<1xi32>) -> tensor<i32>
        %26 = stablehlo.dynamic_slice %iterArg_21, %17, %c_11, sizes = [1, 8] : (tensor<1025x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
        %27 = stablehlo.reshape %26 : (tensor<1x8xf32>) -> tensor<8xf32>
        %28:10 = stablehlo.while(%iterArg_25 = %25, %iterArg_26 = %iterArg_22, %iterArg_27 = %iterArg_23, %iterArg_28 = %27, %iterArg_29 = %iterArg_24, %iterArg_30 = %iterArg_16, %iterArg_31 = %iterArg_17, %iterArg_32 = %c_11, %iterArg_33 = %20, %iterArg_34 = %23) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>
        cond {
          %32 = stablehlo.compare LT, %iterArg_32, %iterArg_33, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %32 : tensor<i1>
        } do {
          %32 = stablehlo.divide %iterArg_32, %iterArg_34 : tensor<i32>
          %33 = stablehlo.multiply %32, %iterArg_34 : tensor<i32>
          %34 = stablehlo.subtract %iterArg_32, %33 : tensor<i32>
          %35 = stablehlo.compare EQ, %34, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          %36 = stablehlo.select %35, %32, %c_8 : tensor<i1>, tensor<i32>
          %37 = stablehlo.reshape %iterArg_25 : (tensor<i32>) -> tensor<1xi32>
          %38 = stablehlo.dynamic_update_slice %iterArg_30, %37, %36 : (tensor<1025xi32>, tensor<1xi32>, tensor<i32>) -> tensor<1025xi32>
          %39 = stablehlo.reshape %iterArg_28 : (tensor<8xf32>) -> tensor<1x8xf32>
          %40 = stablehlo.dynamic_update_slice %iterArg_31, %39, %36, %c_11 : (tensor<1025x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x8xf32>
          %41 = stablehlo.slice %iterArg_29 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %42 = stablehlo.slice %iterArg_29 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %43 = stablehlo.slice %iterArg_28 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %44 = stablehlo.multiply %42, %43 : tensor<7xf32>
          %45 = stablehlo.concatenate %41, %44, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %46 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %47 = stablehlo.multiply %46, %45 : tensor<8xf32>
          %48 = stablehlo.add %iterArg_28, %47 : tensor<8xf32>
          %49 = stablehlo.slice %48 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %50 = stablehlo.multiply %42, %49 : tensor<7xf32>
          %51 = stablehlo.concatenate %41, %50, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %52 = stablehlo.multiply %46, %51 : tensor<8xf32>
          %53 = stablehlo.add %iterArg_28, %52 : tensor<8xf32>
          %54 = stablehlo.slice %53 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %55 = stablehlo.multiply %42, %54 : tensor<7xf32>
          %56 = stablehlo.concatenate %41, %55, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %57 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %58 = stablehlo.multiply %57, %56 : tensor<8xf32>
          %59 = stablehlo.add %iterArg_28, %58 : tensor<8xf32>
          %60 = stablehlo.slice %59 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %61 = stablehlo.multiply %42, %60 : tensor<7xf32>
          %62 = stablehlo.concatenate %41, %61, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %63 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %64 = stablehlo.multiply %63, %51 : tensor<8xf32>
          %65 = stablehlo.add %45, %64 : tensor<8xf32>
          %66 = stablehlo.multiply %63, %56 : tensor<8xf32>
          %67 = stablehlo.add %65, %66 : tensor<8xf32>
          %68 = stablehlo.add %67, %62 : tensor<8xf32>
          %69 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %70 = stablehlo.multiply %69, %68 : tensor<8xf32>
          %71 = stablehlo.add %iterArg_28, %70 : tensor<8xf32>
          %72 = stablehlo.add %iterArg_25, %iterArg_27 : tensor<i32>
          %73 = stablehlo.add %iterArg_32, %c_13 : tensor<i32>
          stablehlo.return %72, %iterArg_26, %iterArg_27, %71, %iterArg_29, %38, %40, %73, %iterArg_33, %iterArg_34 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>
        }
        %29:9 = stablehlo.while(%iterArg_25 = %20, %iterArg_26 = %iterArg_14, %iterArg_27 = %iterArg_15, %iterArg_28 = %23, %iterArg_29 = %28#5, %iterArg_30 = %28#6, %iterArg_31 = %iterArg_22, %iterArg_32 = %iterArg_23, %iterArg_33 = %iterArg_24) : tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<8xf32>
        cond {
          %32 = stablehlo.compare GT, %iterArg_25, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %32 : tensor<i1>
        } do {
          %32 = stablehlo.subtract %iterArg_25, %c_13 : tensor<i32>
          %33 = stablehlo.divide %32, %iterArg_28 : tensor<i32>
          %34 = stablehlo.multiply %33, %iterArg_28 : tensor<i32>
          %35 = stablehlo.dynamic_slice %iterArg_29, %33, sizes = [1] : (tensor<1025xi32>, tensor<i32>) -> tensor<1xi32>
          %36 = stablehlo.reshape %35 : (tensor<1xi32>) -> tensor<i32>
          %37 = stablehlo.dynamic_slice %iterArg_30, %33, %c_11, sizes = [1, 8] : (tensor<1025x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
          %38 = stablehlo.reshape %37 : (tensor<1x8xf32>) -> tensor<8xf32>
          %39:7 = stablehlo.while(%iterArg_34 = %34, %iterArg_35 = %36, %iterArg_36 = %iterArg_31, %iterArg_37 = %iterArg_32, %iterArg_38 = %38, %iterArg_39 = %iterArg_33, %iterArg_40 = %32) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
          cond {
            %123 = stablehlo.compare LT, %iterArg_34, %iterArg_40, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
            stablehlo.return %123 : tensor<i1>
          } do {
            %123 = stablehlo.add %iterArg_34, %c_13 : tensor<i32>
            %124 = stablehlo.slice %iterArg_39 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
            %125 = stablehlo.slice %iterArg_39 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
            %126 = stablehlo.slice %iterArg_38 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
            %127 = stablehlo.multiply %125, %126 : tensor<7xf32>
            %128 = stablehlo.concatenate %124, %127, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
            %129 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
            %130 = stablehlo.multiply %129, %128 : tensor<8xf32>
            %131 = stablehlo.add %iterArg_38, %130 : tensor<8xf32>
            %132 = stablehlo.slice %131 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
            %133 = stablehlo.multiply %125, %132 : tensor<7xf32>
            %134 = stablehlo.concatenate %124, %133, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
            %135 = stablehlo.multiply %129, %134 : tensor<8xf32>
            %136 = stablehlo.add %iterArg_38, %135 : tensor<8xf32>
            %137 = stablehlo.slice %136 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
            %138 = stablehlo.multiply %125, %137 : tensor<7xf32>
            %139 = stablehlo.concatenate %124, %138, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
            %140 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
            %141 = stablehlo.multiply %140, %139 : tensor<8xf32>
            %142 = stablehlo.add %iterArg_38, %141 : tensor<8xf32>
            %143 = stablehlo.slice %142 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
            %144 = stablehlo.multiply %125, %143 : tensor<7xf32>
            %145 = stablehlo.concatenate %124, %144, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
            %146 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
            %147 = stablehlo.multiply %146, %134 : tensor<8xf32>
            %148 = stablehlo.add %128, %147 : tensor<8xf32>
            %149 = stablehlo.multiply %146, %139 : tensor<8xf32>
            %150 = stablehlo.add %148, %149 : tensor<8xf32>
            %151 = stablehlo.add %150, %145 : tensor<8xf32>
            %152 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
            %153 = stablehlo.multiply %152, %151 : tensor<8xf32>
            %154 = stablehlo.add %iterArg_38, %153 : tensor<8xf32>
            %155 = stablehlo.add %iterArg_35, %iterArg_37 : tensor<i32>
            stablehlo.return %123, %155, %iterArg_36, %iterArg_37, %154, %iterArg_39, %iterArg_40 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>
          }
          %40 = stablehlo.slice %39#5 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %41 = stablehlo.slice %39#5 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %42 = stablehlo.slice %39#4 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %43 = stablehlo.multiply %41, %42 : tensor<7xf32>
          %44 = stablehlo.concatenate %40, %43, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %45 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %46 = stablehlo.multiply %45, %44 : tensor<8xf32>
          %47 = stablehlo.add %39#4, %46 : tensor<8xf32>
          %48 = stablehlo.slice %47 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %49 = stablehlo.multiply %41, %48 : tensor<7xf32>
          %50 = stablehlo.concatenate %40, %49, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %51 = stablehlo.multiply %45, %50 : tensor<8xf32>
          %52 = stablehlo.add %39#4, %51 : tensor<8xf32>
          %53 = stablehlo.slice %52 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %54 = stablehlo.multiply %41, %53 : tensor<7xf32>
          %55 = stablehlo.concatenate %40, %54, dim = 0 : (tensor<1xf32>, tensor<7xf32>) -> tensor<8xf32>
          %56 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %57 = stablehlo.multiply %56, %55 : tensor<8xf32>
          %58 = stablehlo.add %39#4, %57 : tensor<8xf32>
          %59 = stablehlo.slice %58 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %60 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %61 = stablehlo.multiply %iterArg_26, %60 : tensor<8xf32>
          %62 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
          %63 = stablehlo.multiply %61, %62 : tensor<8xf32>
          %64 = stablehlo.slice %61 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %65 = stablehlo.slice %61 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %66 = stablehlo.multiply %65, %41 : tensor<7xf32>
          %67 = stablehlo.multiply %65, %59 : tensor<7xf32>
          %68 = stablehlo.slice %cst_10 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %69 = stablehlo.add %68, %66 : tensor<7xf32>
          %70 = stablehlo.dynamic_update_slice %cst_10, %69, %c_1 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %71 = stablehlo.slice %iterArg_27 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %72 = stablehlo.add %71, %67 : tensor<7xf32>
          %73 = stablehlo.dynamic_update_slice %iterArg_27, %72, %c_0 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %74 = stablehlo.slice %73 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %75 = stablehlo.add %74, %64 : tensor<1xf32>
          %76 = stablehlo.dynamic_update_slice %73, %75, %c_1 : (tensor<8xf32>, tensor<1xf32>, tensor<i64>) -> tensor<8xf32>
          %77 = stablehlo.add %iterArg_26, %70 : tensor<8xf32>
          %78 = stablehlo.multiply %70, %56 : tensor<8xf32>
          %79 = stablehlo.add %63, %78 : tensor<8xf32>
          %80 = stablehlo.slice %79 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %81 = stablehlo.slice %79 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %82 = stablehlo.multiply %81, %41 : tensor<7xf32>
          %83 = stablehlo.multiply %81, %53 : tensor<7xf32>
          %84 = stablehlo.add %68, %82 : tensor<7xf32>
          %85 = stablehlo.dynamic_update_slice %cst_10, %84, %c_1 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %86 = stablehlo.slice %76 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %87 = stablehlo.add %86, %83 : tensor<7xf32>
          %88 = stablehlo.dynamic_update_slice %76, %87, %c_0 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %89 = stablehlo.slice %88 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %90 = stablehlo.add %89, %80 : tensor<1xf32>
          %91 = stablehlo.dynamic_update_slice %88, %90, %c_1 : (tensor<8xf32>, tensor<1xf32>, tensor<i64>) -> tensor<8xf32>
          %92 = stablehlo.add %77, %85 : tensor<8xf32>
          %93 = stablehlo.multiply %85, %45 : tensor<8xf32>
          %94 = stablehlo.add %63, %93 : tensor<8xf32>
          %95 = stablehlo.slice %94 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %96 = stablehlo.slice %94 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %97 = stablehlo.multiply %96, %41 : tensor<7xf32>
          %98 = stablehlo.multiply %96, %48 : tensor<7xf32>
          %99 = stablehlo.add %68, %97 : tensor<7xf32>
          %100 = stablehlo.dynamic_update_slice %cst_10, %99, %c_1 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %101 = stablehlo.slice %91 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %102 = stablehlo.add %101, %98 : tensor<7xf32>
          %103 = stablehlo.dynamic_update_slice %91, %102, %c_0 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %104 = stablehlo.slice %103 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %105 = stablehlo.add %104, %95 : tensor<1xf32>
          %106 = stablehlo.dynamic_update_slice %103, %105, %c_1 : (tensor<8xf32>, tensor<1xf32>, tensor<i64>) -> tensor<8xf32>
          %107 = stablehlo.add %92, %100 : tensor<8xf32>
          %108 = stablehlo.multiply %100, %45 : tensor<8xf32>
          %109 = stablehlo.add %61, %108 : tensor<8xf32>
          %110 = stablehlo.slice %109 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %111 = stablehlo.slice %109 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %112 = stablehlo.multiply %111, %41 : tensor<7xf32>
          %113 = stablehlo.multiply %111, %42 : tensor<7xf32>
          %114 = stablehlo.slice %107 [0:7] : (tensor<8xf32>) -> tensor<7xf32>
          %115 = stablehlo.add %114, %112 : tensor<7xf32>
          %116 = stablehlo.dynamic_update_slice %107, %115, %c_1 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %117 = stablehlo.slice %106 [1:8] : (tensor<8xf32>) -> tensor<7xf32>
          %118 = stablehlo.add %117, %113 : tensor<7xf32>
          %119 = stablehlo.dynamic_update_slice %106, %118, %c_0 : (tensor<8xf32>, tensor<7xf32>, tensor<i64>) -> tensor<8xf32>
          %120 = stablehlo.slice %119 [0:1] : (tensor<8xf32>) -> tensor<1xf32>
          %121 = stablehlo.add %120, %110 : tensor<1xf32>
          %122 = stablehlo.dynamic_update_slice %119, %121, %c_1 : (tensor<8xf32>, tensor<1xf32>, tensor<i64>) -> tensor<8xf32>
          stablehlo.return %32, %116, %122, %iterArg_28, %iterArg_29, %iterArg_30, %iterArg_31, %iterArg_32, %iterArg_33 : tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<i32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<8xf32>
        }
        %30 = stablehlo.optimization_barrier %29#1 : tensor<8xf32>
        %31 = stablehlo.optimization_barrier %29#2 : tensor<8xf32>
        stablehlo.return %17, %30, %31, %28#5, %28#6, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24 : tensor<i32>, tensor<8xf32>, tensor<8xf32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<1025xi32>, tensor<1025x8xf32>, tensor<i32>, tensor<i32>, tensor<8xf32>
      }
    return %16#2 : tensor<8xf32>
  }
}
