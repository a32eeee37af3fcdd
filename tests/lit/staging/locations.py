# RUN: python %s | filecheck %s
#
# as_text(debug_info=True) gives every staged op the file:line:col of the user's code that
# staged it; ops staged inside s4tf.name_scope(...) wrap it in a named location, nested
# scopes joined with '/'. Without debug_info there are no locations at all.

import numpy as np

import s4tf

# CHECK-NOT:     loc(
# CHECK-LABEL:   func.func @model(%arg0: tensor<3x2xf32>, %arg1: tensor<4x3xf32>) -> tensor<4xf32> {
# CHECK-NOT:     loc(
# CHECK:         ----

# Operand locations are printed as aliases, defined after the module.
# CHECK-LABEL:   func.func @model
# CHECK-SAME:      loc("{{.*}}locations.py":{{[0-9]+}}:0)
# CHECK-NEXT:      "s4tf.dot_general"{{.*}} loc(#[[DOT:loc[0-9]+]])
# CHECK-NEXT:      "s4tf.tanh"{{.*}} loc(#[[TANH:loc[0-9]+]])
# CHECK-NEXT:      "s4tf.constant"{{.*}} loc(#[[RELU:loc[0-9]+]])
# CHECK-NEXT:      "s4tf.maximum"{{.*}} loc(#[[RELU]])
# CHECK-NEXT:      "s4tf.reduce_sum"{{.*}} loc(#[[SUM:loc[0-9]+]])
# CHECK-NEXT:      return


@s4tf.function
def model(w, x):
    with s4tf.name_scope("layer1"):
        # CHECK:      #[[DOT_FILE:loc[0-9]+]] = loc("{{.*}}locations.py":[[# @LINE + 2]]:23)
        # CHECK-NEXT: #[[TANH_FILE:loc[0-9]+]] = loc("{{.*}}locations.py":[[# @LINE + 1]]:13)
        h = s4tf.tanh(x @ w)
    with s4tf.name_scope("layer2"):
        with s4tf.name_scope("act"):
            # CHECK-NEXT: #[[RELU_FILE:loc[0-9]+]] = loc("{{.*}}locations.py":[[# @LINE + 1]]:17)
            y = s4tf.relu(h)
    # Outside any scope: a plain file location.
    # CHECK-NEXT: #[[SUM]] = loc("{{.*}}locations.py":[[# @LINE + 1]]:12)
    return s4tf.sum(y, axis=1)


# CHECK-NEXT: #[[DOT]] = loc("layer1"(#[[DOT_FILE]]))
# CHECK-NEXT: #[[TANH]] = loc("layer1"(#[[TANH_FILE]]))
# CHECK-NEXT: #[[RELU]] = loc("layer2/act"(#[[RELU_FILE]]))

lowered = model.lower(np.ones((3, 2), np.float32), np.ones((4, 3), np.float32))
print(lowered.as_text())
print("----")
print(lowered.as_text(debug_info=True))
