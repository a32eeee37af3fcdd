// mlir-opt's habits: long options with one dash, --allow-unregistered-dialect, the input's
// file name in locations, --mlir-print-ir-after-change and --mlir-timing.
// RUN: s4tf-opt %s -split-input-file -verify-diagnostics
// RUN: s4tf-opt %s -split-input-file -allow-unregistered-dialect -mlir-print-debuginfo | filecheck %s
// RUN: s4tf-opt %s -split-input-file -allow-unregistered-dialect -pass-pipeline='builtin.module(s4tf-canonicalize,cse)' -mlir-print-ir-after-change -o %t 2>&1 | filecheck %s --check-prefix=CHANGE
// RUN: s4tf-opt %s -split-input-file -allow-unregistered-dialect -p s4tf-canonicalize,cse -mlir-timing -o %t 2>&1 | filecheck %s --check-prefix=TIMING

// CHECK-LABEL: func.func @foreign
// CHECK: "foo.bar"(%arg0) : (tensor<3xf32>) -> tensor<3xf32> loc([[FOREIGN:#loc[0-9]+]])
func.func @foreign(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'foo.bar' is an op of the unregistered dialect 'foo': pass --allow-unregistered-dialect to accept it}}
  %0 = "foo.bar"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
// CHECK: [[FOREIGN]] = loc("{{.*}}s4tf-opt-options.mlir":12:8)

// -----

// CHECK-LABEL: func.func @f
// CHECK: "s4tf.add"(%arg0, %0) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> loc([[ADD:#loc[0-9]+]])
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = "s4tf.exp"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
// CHECK: [[ADD]] = loc("{{.*}}s4tf-opt-options.mlir":23:8)

// Only s4tf-canonicalize changes the second function (it removes the addition of zero).
// CHANGE-NOT: IR Dump After CSEPass
// CHANGE: IR Dump After s4tf-canonicalize
// CHANGE-NOT: "s4tf.add"
// CHANGE-NOT: IR Dump After CSEPass

// TIMING: Execution time report
// TIMING: s4tf-canonicalize
// TIMING: CSEPass
