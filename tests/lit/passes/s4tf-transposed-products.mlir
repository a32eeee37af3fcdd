// RUN: s4tf-opt %s --split-input-file -p s4tf-transposed-products | filecheck %s

// s4tf-transposed-products computes a transpose that swaps the free dimensions of a
// stablehlo.dot_general's result as the product of the swapped operands (IREE 3.13's SPIR-V
// code read such transposes wrongly); batch dimensions stay first. Other permutations are
// kept, and a product with other readers stays beside the new one.

// CHECK-LABEL: func.func @gram_gradient
// CHECK-NEXT:    %[[T:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    return %[[T]]
func.func @gram_gradient(%x: tensor<4x6xf32>, %g: tensor<4x4xf32>) -> tensor<4x6xf32> {
  %p = stablehlo.dot_general %x, %g, contracting_dims = [0] x [0] : (tensor<4x6xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  %t = stablehlo.transpose %p, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %t : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @batched_with_two_free_dimensions_and_a_second_reader
// CHECK:         %[[P:.*]] = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [3] x [1]
// CHECK-NEXT:    %[[T:.*]] = stablehlo.dot_general %arg1, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [3], precision = [HIGH, DEFAULT] : (tensor<2x7x5xf32>, tensor<2x3x4x7xf32>) -> tensor<2x5x3x4xf32>
// CHECK-NEXT:    return %[[P]], %[[T]]
func.func @batched_with_two_free_dimensions_and_a_second_reader(%a: tensor<2x3x4x7xf32>, %b: tensor<2x7x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x5x3x4xf32>) {
  %p = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [3] x [1], precision = [DEFAULT, HIGH] : (tensor<2x3x4x7xf32>, tensor<2x7x5xf32>) -> tensor<2x3x4x5xf32>
  %t = stablehlo.transpose %p, dims = [0, 3, 1, 2] : (tensor<2x3x4x5xf32>) -> tensor<2x5x3x4xf32>
  return %p, %t : tensor<2x3x4x5xf32>, tensor<2x5x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @other_permutations_kept
// CHECK:         stablehlo.transpose %{{.*}}, dims = [0, 2, 1]
// CHECK:         stablehlo.transpose %{{.*}}, dims = [1, 0]
func.func @other_permutations_kept(%a: tensor<3x4x7xf32>, %b: tensor<7x5xf32>, %c: tensor<3x4xf32>) -> (tensor<3x5x4xf32>, tensor<4x3xf32>) {
  %p = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<3x4x7xf32>, tensor<7x5xf32>) -> tensor<3x4x5xf32>
  %t = stablehlo.transpose %p, dims = [0, 2, 1] : (tensor<3x4x5xf32>) -> tensor<3x5x4xf32>
  %u = stablehlo.transpose %c, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %t, %u : tensor<3x5x4xf32>, tensor<4x3xf32>
}
