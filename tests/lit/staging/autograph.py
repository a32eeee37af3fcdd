# RUN: python %s | filecheck %s
#
# AutoGraph: a Python `if` on a tensor is one s4tf.if whose regions hold the branches' ops,
# located at the user's lines; a `while` on a tensor is one s4tf.while whose condition
# region holds the test (traced once: nothing of it before the loop); a Python range is
# unrolled.

import numpy as np

import s4tf

# CHECK-LABEL:   func.func @piecewise(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> tensor<3xf32> {
# CHECK:           %[[PRED:.*]] = "s4tf.gt"(%arg1, %{{.*}})
# CHECK-NEXT:      %[[Y:.*]] = "s4tf.if"(%[[PRED]], %arg0) ({
# CHECK-NEXT:      ^bb0(%[[A:.*]]: tensor<3xf32>):
# CHECK-NEXT:        %[[SIN:.*]] = "s4tf.sin"(%[[A]])
# CHECK-NEXT:        stablehlo.return %[[SIN]] : tensor<3xf32>
# CHECK-NEXT:      }, {
# CHECK-NEXT:      ^bb0(%[[B:.*]]: tensor<3xf32>):
# CHECK-NEXT:        %[[SQUARE:.*]] = "s4tf.mul"(%[[B]], %[[B]])
# CHECK-NEXT:        stablehlo.return %[[SQUARE]] : tensor<3xf32>
# CHECK-NEXT:      }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
# CHECK-COUNT-2:   "s4tf.add"
# CHECK-NOT:       "s4tf.add"
# CHECK:           return

# CHECK-LABEL:   func.func @newton_sqrt(%arg0: tensor<3xf32>) -> tensor<3xf32> {
# CHECK-NEXT:      %[[LOOP:.*]]:2 = "s4tf.while"(%arg0, %arg0) ({
# CHECK-NEXT:      ^bb0(%[[X:.*]]: tensor<3xf32>, %[[AC:.*]]: tensor<3xf32>):
# CHECK-NEXT:        "s4tf.mul"(%[[X]], %[[X]])
# CHECK:             %[[TEST:.*]] = "s4tf.gt"
# CHECK-NEXT:        stablehlo.return %[[TEST]] : tensor<i1>
# CHECK-NEXT:      }, {
# CHECK-NEXT:      ^bb0(%[[XB:.*]]: tensor<3xf32>, %[[AB:.*]]: tensor<3xf32>):
# CHECK-NEXT:        "s4tf.div"(%[[AB]], %[[XB]])
# CHECK:             stablehlo.return %{{.*}}, %[[AB]] : tensor<3xf32>, tensor<3xf32>
# CHECK-NEXT:      })
# CHECK-NEXT:      return %[[LOOP]]#0 : tensor<3xf32>
# CHECK:         ----


@s4tf.function
def piecewise(x, t):
    # CHECK-DAG: loc("{{.*}}autograph.py":[[# @LINE + 1]]:5)
    if t > 0:
        # CHECK-DAG: loc("{{.*}}autograph.py":[[# @LINE + 1]]:13)
        y = s4tf.sin(x)
    else:
        # CHECK-DAG: loc("{{.*}}autograph.py":[[# @LINE + 1]]:13)
        y = x * x
    for i in range(2):
        y = y + i
    return y


@s4tf.function
def newton_sqrt(a):
    x = a
    while s4tf.abs(x * x - a).max() > 1e-6:
        x = 0.5 * (x + a / x)
    return x


x = np.ones(3, np.float32)
print(piecewise.lower(x, np.float32(1.0)).as_text())
print(newton_sqrt.lower(x).as_text())
print("----")
print(piecewise.lower(x, np.float32(1.0)).as_text(debug_info=True))
