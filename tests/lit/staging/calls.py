# RUN: python %s | filecheck %s
#
# A staged function called from another staged function becomes a func.call to one
# private func.func per (function, signature): calling it twice with one signature gives
# two calls and one definition; Python scalars are static and folded into the callee.

import numpy as np

import s4tf


@s4tf.function
def layer(w, scale, x):
    return s4tf.relu(x @ w) * scale


@s4tf.function
def model(w, x):
    h = layer(w, 0.5, x)
    return layer(w, 0.5, h + 1)


# CHECK-LABEL: func.func @model(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
# CHECK-NEXT:    %[[H:.*]] = call @layer(%arg0, %arg1) : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT:    %[[ONE:.*]] = "s4tf.constant"() {value = dense<1.000000e+00> : tensor<f32>}
# CHECK-NEXT:    %[[H1:.*]] = "s4tf.add"(%[[H]], %[[ONE]])
# CHECK-NEXT:    %[[Y:.*]] = call @layer(%arg0, %[[H1]]) : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT:    return %[[Y]] : tensor<4x3xf32>
# CHECK-NEXT:  }
# CHECK-NEXT:  func.func private @layer(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
# CHECK-NEXT:    "s4tf.dot_general"(%arg1, %arg0)
# CHECK-NEXT:    "s4tf.constant"() {value = dense<0.000000e+00> : tensor<f32>}
# CHECK-NEXT:    "s4tf.maximum"
# CHECK-NEXT:    "s4tf.constant"() {value = dense<5.000000e-01> : tensor<f32>}
# CHECK-NEXT:    "s4tf.mul"
# CHECK-NEXT:    return
# CHECK-NEXT:  }
# CHECK-NEXT: }
# CHECK-NOT:   func.func
square = np.ones((3, 3), np.float32)
print(model.lower(square, np.ones((4, 3), np.float32)))


@s4tf.function
def two_signatures(w, x):
    wide = layer(w, 0.5, x)
    narrow = layer(w[:, :2], 0.5, x)
    again = layer(w, 0.5, wide)
    scaled = layer(w, 2.0, x)
    return narrow, again, scaled


# A new signature (shapes, or a different static scalar) is a new private function.
# CHECK-LABEL: func.func @two_signatures
# CHECK-NEXT:    %[[WIDE:.*]] = call @layer(%arg0, %arg1) : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT:    %[[W2:.*]] = "s4tf.slice"(%arg0)
# CHECK-NEXT:    call @layer_1(%[[W2]], %arg1) : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    call @layer(%arg0, %[[WIDE]]) : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT:    call @layer_2(%arg0, %arg1) : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT:    return
# CHECK-NEXT:  }
# CHECK-NEXT:  func.func private @layer(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
# CHECK:         dense<5.000000e-01>
# CHECK:       func.func private @layer_1(%arg0: tensor<3x2xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x2xf32> {
# CHECK:         dense<5.000000e-01>
# CHECK:       func.func private @layer_2(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32> {
# CHECK:         dense<2.000000e+00>
# CHECK-NOT:   func.func
print(two_signatures.lower(square, np.ones((4, 3), np.float32)))
