// RUN: s4tf-opt %s --split-input-file -p s4tf-materialize-conv-filters | filecheck %s

// s4tf-materialize-conv-filters puts a stablehlo.optimization_barrier between a
// convolution and a filter made by stablehlo.transpose or stablehlo.reverse (IREE would
// fold them into the convolution and lose its named form); one barrier per filter value.

// CHECK-LABEL: func.func @transposed_filter_shared_by_two_convolutions
// CHECK:         %[[R:.*]] = stablehlo.reverse %arg1, dims = [0, 1]
// CHECK-NEXT:    %[[T:.*]] = stablehlo.transpose %[[R]], dims = [0, 1, 3, 2]
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[T]] : tensor<3x3x4x2xf32>
// CHECK-NEXT:    %[[C0:.*]] = stablehlo.convolution(%arg0, %[[B]])
// CHECK-NEXT:    %[[C1:.*]] = stablehlo.convolution(%arg0, %[[B]])
// CHECK-NOT:     optimization_barrier
func.func @transposed_filter_shared_by_two_convolutions(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x4xf32>) -> (tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>) {
  %r = stablehlo.reverse %w, dims = [0, 1] : tensor<3x3x2x4xf32>
  %t = stablehlo.transpose %r, dims = [0, 1, 3, 2] : (tensor<3x3x2x4xf32>) -> tensor<3x3x4x2xf32>
  %0 = stablehlo.convolution(%x, %t) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  %1 = stablehlo.convolution(%x, %t) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  return %0, %1 : tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>
}

// -----

// A filter that is an argument, or made by any other op, is read as it is.

// CHECK-LABEL: func.func @plain_filters_untouched
// CHECK-NOT:     optimization_barrier
func.func @plain_filters_untouched(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x2xf32>) -> (tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  %n = stablehlo.negate %w : tensor<3x3x4x2xf32>
  %1 = stablehlo.convolution(%x, %n) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  return %0, %1 : tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>
}
