# RUN: python %s | filecheck %s
#
# The README's model, staged: x @ w is one dot_general contracting x's axis 1 with w's
# axis 0, + b broadcasts b, tanh is elementwise. Arguments are specialized on shape and
# dtype; Lowered.stablehlo() is the module after the default lowering pipeline.

import numpy as np

import s4tf


@s4tf.function
def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


w = np.ones((3, 2), np.float32)
b = np.zeros(2, np.float32)
x = np.ones((4, 3), np.float32)

# CHECK-LABEL: func.func @predict(%arg0: tensor<3x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<4x3xf32>) -> tensor<4x2xf32> {
# CHECK-NEXT:    %[[MM:.*]] = "s4tf.dot_general"(%arg2, %arg0) {lhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_batch = array<i64>, rhs_contract = array<i64: 0>} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[MM]], %arg1) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    %[[Y:.*]] = "s4tf.tanh"(%[[SUM]]) : (tensor<4x2xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    return %[[Y]] : tensor<4x2xf32>
# CHECK-NEXT:  }
# CHECK-NEXT: }
lowered = predict.lower(w, b, x)
print(lowered)

# CHECK-LABEL: func.func @predict
# CHECK-NEXT:    %[[MM:.*]] = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<4x2xf32>
# CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[MM]], %[[B]] : tensor<4x2xf32>
# CHECK-NEXT:    %[[Y:.*]] = stablehlo.tanh %[[SUM]] : tensor<4x2xf32>
# CHECK-NEXT:    return %[[Y]] : tensor<4x2xf32>
print(lowered.stablehlo())

# Another signature, another specialization.
# CHECK-LABEL: func.func @predict(%arg0: tensor<3x2xf64>, %arg1: tensor<2xf64>, %arg2: tensor<5x3xf64>) -> tensor<5x2xf64> {
# CHECK-NEXT:    "s4tf.dot_general"{{.*}} : (tensor<5x3xf64>, tensor<3x2xf64>) -> tensor<5x2xf64>
# CHECK-NEXT:    "s4tf.add"{{.*}} : (tensor<5x2xf64>, tensor<2xf64>) -> tensor<5x2xf64>
# CHECK-NEXT:    "s4tf.tanh"{{.*}} : (tensor<5x2xf64>) -> tensor<5x2xf64>
print(predict.lower(w.astype(np.float64), b.astype(np.float64), np.ones((5, 3))))
