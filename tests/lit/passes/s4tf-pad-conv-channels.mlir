// RUN: s4tf-opt %s --split-input-file -p s4tf-pad-conv-channels | filecheck %s

// s4tf-pad-conv-channels pads the input and filter of an NHWC/HWIO convolution with one
// input channel to four channels of which three are zeros (IREE would otherwise drop the
// unit dimension and lose the convolution's named form).

// CHECK-LABEL: func.func @one_channel
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[X:.*]] = stablehlo.pad %arg0, %[[Z]], low = [0, 0, 0, 0], high = [0, 0, 0, 3], interior = [0, 0, 0, 0] : (tensor<2x8x8x1xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.pad %arg1, %[[Z]], low = [0, 0, 0, 0], high = [0, 0, 3, 0], interior = [0, 0, 0, 0] : (tensor<3x3x1x5xf32>, tensor<f32>) -> tensor<3x3x4x5xf32>
// CHECK-NEXT:    stablehlo.convolution(%[[X]], %[[W]]) {{.*}} : (tensor<2x8x8x4xf32>, tensor<3x3x4x5xf32>) -> tensor<2x6x6x5xf32>
func.func @one_channel(%x: tensor<2x8x8x1xf32>, %w: tensor<3x3x1x5xf32>) -> tensor<2x6x6x5xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x1xf32>, tensor<3x3x1x5xf32>) -> tensor<2x6x6x5xf32>
  return %0 : tensor<2x6x6x5xf32>
}

// -----

// Two or more input channels, another layout, or an integer convolution: untouched.

// CHECK-LABEL: func.func @others_untouched
// CHECK-NOT:     stablehlo.pad
func.func @others_untouched(%x: tensor<2x8x8x2xf32>, %w: tensor<3x3x2x5xf32>, %y: tensor<2x1x8x8xf32>, %v: tensor<5x1x3x3xf32>, %i: tensor<2x8x8x1xi32>, %k: tensor<3x3x1x5xi32>) -> (tensor<2x6x6x5xf32>, tensor<2x5x6x6xf32>, tensor<2x6x6x5xi32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x2xf32>, tensor<3x3x2x5xf32>) -> tensor<2x6x6x5xf32>
  %1 = stablehlo.convolution(%y, %v) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x1x8x8xf32>, tensor<5x1x3x3xf32>) -> tensor<2x5x6x6xf32>
  %2 = stablehlo.convolution(%i, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x8x1xi32>, tensor<3x3x1x5xi32>) -> tensor<2x6x6x5xi32>
  return %0, %1, %2 : tensor<2x6x6x5xf32>, tensor<2x5x6x6xf32>, tensor<2x6x6x5xi32>
}
