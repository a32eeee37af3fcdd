// RUN: s4tf-opt %s --split-input-file -p s4tf-reverse-before-slice | filecheck %s

// s4tf-reverse-before-slice writes a reverse of a slice as a slice of the reversed operand
// (IREE 3.13 fails to compile the first order when the slice strides its innermost axis:
// tests/lit/iree_reproducers/reverse_of_a_strided_slice.mlir). Along a reversed axis of n,
// start:limit:stride of c elements becomes n - 1 - (start + stride (c - 1)) : n - start : stride.

// CHECK-LABEL: func.func @every_other
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reverse %arg0, dims = [0] : tensor<7xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[R]] [0:7:2] : (tensor<7xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @every_other(%x: tensor<7xf32>) -> tensor<4xf32> {
  %0 = stablehlo.slice %x [0:7:2] : (tensor<7xf32>) -> tensor<4xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Only the reversed axes move: rows 1 and 4 of 5 (reversed: 0 and 3), columns 1, 3, 5 of 6
// (reversed: 0, 2, 4); the slice stays for its other user.

// CHECK-LABEL: func.func @two_axes_one_reversed
// CHECK:         %[[S0:.*]] = stablehlo.slice %arg0 [1:5:3, 1:6:2]
// CHECK:         %[[R:.*]] = stablehlo.reverse %arg0, dims = [1] : tensor<5x6xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[R]] [1:5:3, 0:5:2] : (tensor<5x6xf32>) -> tensor<2x3xf32>
// CHECK:         return %[[S]], %[[S0]]
func.func @two_axes_one_reversed(%x: tensor<5x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.slice %x [1:5:3, 1:6:2] : (tensor<5x6xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.reverse %0, dims = [1] : tensor<2x3xf32>
  return %1, %0 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @not_a_slice
// CHECK-NEXT:    stablehlo.negate
// CHECK-NEXT:    stablehlo.reverse
func.func @not_a_slice(%x: tensor<7xf32>) -> tensor<7xf32> {
  %0 = stablehlo.negate %x : tensor<7xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<7xf32>
  return %1 : tensor<7xf32>
}

// -----

// Through a reshape that drops axes of 1 (an int index: x[0, ::2][::-1]).

// CHECK-LABEL: func.func @through_a_reshape
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reverse %arg0, dims = [1] : tensor<6x7xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[R]] [0:1, 0:7:2] : (tensor<6x7xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[E:.*]] = stablehlo.reshape %[[S]] : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[E]]
func.func @through_a_reshape(%x: tensor<6x7xf32>) -> tensor<4xf32> {
  %0 = stablehlo.slice %x [0:1, 0:7:2] : (tensor<6x7xf32>) -> tensor<1x4xf32>
  %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
  %2 = stablehlo.reverse %1, dims = [0] : tensor<4xf32>
  return %2 : tensor<4xf32>
}
