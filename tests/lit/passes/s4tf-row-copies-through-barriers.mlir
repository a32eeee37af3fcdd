// RUN: s4tf-opt %s --split-input-file -p s4tf-row-copies-through-barriers | filecheck %s

// s4tf-row-copies-through-barriers reads a slice copied into the tensor it comes from
// (through reshapes) through a stablehlo.optimization_barrier (IREE 3.13's GPU backends
// refused the fused read-and-write); updates with other values are left alone.

// CHECK-LABEL: func.func @thinned_tape
// CHECK:         %[[ROW:.*]] = stablehlo.dynamic_slice %[[T:[a-zA-Z0-9_]+]], %{{.*}}, %{{.*}}, sizes = [1, 4]
// CHECK-NEXT:    %[[FLAT:.*]] = stablehlo.reshape %[[ROW]]
// CHECK-NEXT:    %[[BACK:.*]] = stablehlo.reshape %[[FLAT]]
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[BACK]] : tensor<1x4xf32>
// CHECK-NEXT:    stablehlo.dynamic_update_slice %[[T]], %[[B]]
// CHECK:         %[[OTHER:.*]] = stablehlo.dynamic_slice %arg1
// CHECK-NEXT:    stablehlo.dynamic_update_slice %{{.*}}, %[[OTHER]]
func.func @thinned_tape(%tape: tensor<16x4xf32>, %other: tensor<16x4xf32>, %i: tensor<i32>) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %j = stablehlo.multiply %i, %c2 : tensor<i32>
  %row = stablehlo.dynamic_slice %tape, %j, %c0, sizes = [1, 4] : (tensor<16x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %flat = stablehlo.reshape %row : (tensor<1x4xf32>) -> tensor<4xf32>
  %back = stablehlo.reshape %flat : (tensor<4xf32>) -> tensor<1x4xf32>
  %u = stablehlo.dynamic_update_slice %tape, %back, %i, %c0 : (tensor<16x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<16x4xf32>
  %o = stablehlo.dynamic_slice %other, %j, %c0, sizes = [1, 4] : (tensor<16x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %v = stablehlo.dynamic_update_slice %u, %o, %i, %c0 : (tensor<16x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<16x4xf32>
  return %u, %v : tensor<16x4xf32>, tensor<16x4xf32>
}
