// RUN: s4tf-opt %s --split-input-file -p s4tf-negations-out-of-sums | filecheck %s

// s4tf-negations-out-of-sums sums the numbers a stablehlo.negate (or reshapes of one)
// negates and negates the sum, its initial value negated (IREE 3.13's cuda backend refused
// sums of negations); other reductions are left alone.

// CHECK-LABEL: func.func @through_a_reshape
// CHECK:         %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.negate %[[ZERO:.*]] : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.reduce(%[[R]] init: %[[I]]) applies stablehlo.add across dimensions = [2]
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate %[[S]] : tensor<4x2xf32>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.exponential %[[N]]
// CHECK-NEXT:    return %[[T]], %[[N]]
func.func @through_a_reshape(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %n = stablehlo.negate %x : tensor<4x8xf32>
  %r = stablehlo.reshape %n : (tensor<4x8xf32>) -> tensor<4x2x4xf32>
  %s = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<4x2x4xf32>, tensor<f32>) -> tensor<4x2xf32>
  %t = stablehlo.exponential %s : tensor<4x2xf32>
  return %t, %s : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @other_reductions_kept
// CHECK:         stablehlo.reduce(%[[N:.*]] init: %{{.*}}) applies stablehlo.maximum
// CHECK:         stablehlo.reduce(%[[E:.*]] init: %{{.*}}) applies stablehlo.add
// CHECK-NOT:     stablehlo.negate
func.func @other_reductions_kept(%x: tensor<8xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %n = stablehlo.negate %x : tensor<8xf32>
  %m = stablehlo.reduce(%n init: %zero) applies stablehlo.maximum across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  %e = stablehlo.exponential %n : tensor<8xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  return %m, %s : tensor<f32>, tensor<f32>
}
