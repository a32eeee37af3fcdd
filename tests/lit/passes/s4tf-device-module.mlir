// RUN: s4tf-opt %s -p s4tf-partition,s4tf-device-module | filecheck %s
// RUN: s4tf-opt %s -p s4tf-device-module | filecheck %s --check-prefix=UNPARTITIONED

// What IREE compiles of a partitioned module: the host program (@step) is dropped, the
// device functions it launches become public; other functions are kept as they are.

// CHECK-NOT:   @step(
// CHECK-LABEL: func.func @step_device_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    "s4tf.exp"(%arg0)
// CHECK:       func.func @step_device_1(
// CHECK-SAME:    attributes {s4tf.device_function}
// CHECK-NEXT:    "s4tf.add"
// CHECK:       func.func private @helper(
// CHECK-NOT:   s4tf.host_call

// A module without host programs is left as it is.
// UNPARTITIONED: func.func @step(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// UNPARTITIONED: "s4tf.host_call"
// UNPARTITIONED: func.func private @helper(
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.host_call"(%0) {callee = "simulate", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
