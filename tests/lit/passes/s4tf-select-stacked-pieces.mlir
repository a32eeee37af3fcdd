// RUN: s4tf-opt %s --split-input-file -p s4tf-select-stacked-pieces | filecheck %s

// s4tf-select-stacked-pieces writes a concatenation of pieces one element thick along its
// axis (a stack of rows, of scalars) as selects of the pieces broadcast to the result, along
// an iota of the axis: elementwise code IREE fuses with the pieces' producers.

// CHECK-LABEL: func.func @rows
// CHECK:         %[[I:.*]] = stablehlo.iota dim = 0 : tensor<3x2xi32>
// CHECK:         %[[A:.*]] = stablehlo.reshape %arg0 : (tensor<1x2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[BA:.*]] = stablehlo.broadcast_in_dim %[[A]], dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[BB:.*]] = stablehlo.broadcast_in_dim {{.*}}, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[BC:.*]] = stablehlo.broadcast_in_dim {{.*}}, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:         %[[ONE:.*]] = stablehlo.compare EQ, %[[I]], {{.*}} : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
// CHECK-NEXT:    %[[S1:.*]] = stablehlo.select %[[ONE]], %[[BB]], %[[BC]]
// CHECK:         %[[ZERO:.*]] = stablehlo.compare EQ, %[[I]]
// CHECK-NEXT:    %[[S0:.*]] = stablehlo.select %[[ZERO]], %[[BA]], %[[S1]]
// CHECK-NOT:     stablehlo.concatenate
// CHECK:         return %[[S0]]
func.func @rows(%a: tensor<1x2xf32>, %b: tensor<1x2xf32>, %c: tensor<1x2xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.concatenate %a, %b, %c, dim = 0 : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Pieces thicker than one element along the axis, and concatenations over the size limit
// (4096 elements), stay.

// CHECK-LABEL: func.func @thick
// CHECK:         stablehlo.concatenate
func.func @thick(%a: tensor<2x2xf32>, %b: tensor<1x2xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @large
// CHECK:         stablehlo.concatenate
func.func @large(%a: tensor<1x4096xf32>, %b: tensor<1x4096xf32>) -> tensor<2x4096xf32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x4096xf32>, tensor<1x4096xf32>) -> tensor<2x4096xf32>
  return %0 : tensor<2x4096xf32>
}

// CHECK-LABEL: func.func @many
// CHECK:         stablehlo.concatenate
func.func @many(%a: tensor<1xf32>) -> tensor<17xf32> {
  %0 = stablehlo.concatenate %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, dim = 0 : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<17xf32>
  return %0 : tensor<17xf32>
}
