// RUN: s4tf-opt %s --split-input-file -p s4tf-full-convs-to-matmul | filecheck %s

// s4tf-full-convs-to-matmul writes a stride-1 NHWC/HWIO convolution whose output is larger
// than its input (here 3x3 padded by 1 with a 2x2 filter: 4x4) as one dot_general over the
// channels and the sum of the filter's taps, each padded to its place in the output: tap
// (i, j) lands at low padding (top - i, left - j), negative where it crops.

// CHECK-LABEL: func.func @full
// CHECK:         %[[M:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [3] x [2] : (tensor<2x3x3x5xf32>, tensor<2x2x5x7xf32>) -> tensor<2x3x3x2x2x7xf32>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[S0:.*]] = stablehlo.slice %[[M]] [0:2, 0:3, 0:3, 0:1, 0:1, 0:7]
// CHECK:         %[[R0:.*]] = stablehlo.reshape %[[S0]] : (tensor<2x3x3x1x1x7xf32>) -> tensor<2x3x3x7xf32>
// CHECK:         %[[P0:.*]] = stablehlo.pad %[[R0]], %[[Z]], low = [0, 1, 1, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x3x3x7xf32>, tensor<f32>) -> tensor<2x4x4x7xf32>
// CHECK:         stablehlo.slice %[[M]] [0:2, 0:3, 0:3, 0:1, 1:2, 0:7]
// CHECK:         %[[P1:.*]] = stablehlo.pad {{.*}}, %[[Z]], low = [0, 1, 0, 0], high = [0, 0, 1, 0]
// CHECK:         %[[A1:.*]] = stablehlo.add %[[P0]], %[[P1]] : tensor<2x4x4x7xf32>
// CHECK:         stablehlo.slice %[[M]] [0:2, 0:3, 0:3, 1:2, 0:1, 0:7]
// CHECK:         %[[P2:.*]] = stablehlo.pad {{.*}}, %[[Z]], low = [0, 0, 1, 0], high = [0, 1, 0, 0]
// CHECK:         %[[A2:.*]] = stablehlo.add %[[A1]], %[[P2]]
// CHECK:         stablehlo.slice %[[M]] [0:2, 0:3, 0:3, 1:2, 1:2, 0:7]
// CHECK:         %[[P3:.*]] = stablehlo.pad {{.*}}, %[[Z]], low = [0, 0, 0, 0], high = [0, 1, 1, 0]
// CHECK:         %[[A3:.*]] = stablehlo.add %[[A2]], %[[P3]]
// CHECK-NOT:     stablehlo.convolution
// CHECK:         return %[[A3]]
func.func @full(%x: tensor<2x3x3x5xf32>, %w: tensor<2x2x5x7xf32>) -> tensor<2x4x4x7xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x3x5xf32>, tensor<2x2x5x7xf32>) -> tensor<2x4x4x7xf32>
  return %0 : tensor<2x4x4x7xf32>
}

// -----

// Padding wider than the filter: the taps that fall outside the output are cropped
// (negative padding).

// CHECK-LABEL: func.func @cropped
// CHECK:         stablehlo.pad {{.*}}, low = [0, 3, 3, 0], high = [0, -1, -1, 0]
// CHECK-NOT:     stablehlo.convolution
func.func @cropped(%x: tensor<1x2x2x1xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[3, -1], [3, -1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// -----

// Untouched: an output no larger than the input ("same" or "valid"), strides, dilations,
// groups, another layout, integers.

// CHECK-LABEL: func.func @others_untouched
// CHECK-NOT:     stablehlo.dot_general
// CHECK-COUNT-6: stablehlo.convolution
func.func @others_untouched(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>, %y: tensor<1x2x8x8xf32>, %v: tensor<4x2x3x3xf32>, %i: tensor<1x8x8x2xi32>, %k: tensor<3x3x2x4xi32>, %g: tensor<3x3x1x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x5x5x4xf32>, tensor<1x17x17x4xf32>, tensor<1x4x10x10xf32>, tensor<1x10x10x4xi32>, tensor<1x10x10x4xf32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x5x5x4xf32>
  %2 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x17x17x4xf32>
  %3 = stablehlo.convolution(%y, %v) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x10x10xf32>
  %4 = stablehlo.convolution(%i, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xi32>, tensor<3x3x2x4xi32>) -> tensor<1x10x10x4xi32>
  %5 = stablehlo.convolution(%x, %g) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x10x10x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x8x8x4xf32>, tensor<1x5x5x4xf32>, tensor<1x17x17x4xf32>, tensor<1x4x10x10xf32>, tensor<1x10x10x4xi32>, tensor<1x10x10x4xf32>
}
