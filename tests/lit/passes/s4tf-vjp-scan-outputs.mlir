// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// A `scan` sets row `i` of an output stack it carries with a scatter marked
// `s4tf.scan_output` (dialects/control_flow.py): every iteration sets a row of its own.
// The tangent's scatter keeps the mark, and its transpose leaves the stack's cotangent as
// it came (the body's VJP returns it unchanged) rather than clearing the row it read, so
// the backward loop passes it through: IREE 3.13 copies a buffer a host-stepped loop
// updates every trip. Without the mark the row is cleared (a scatter of zeros). Numbers:
// tests/control_flow/test_scan.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @stacked_r{{[0-9]+}}_body_linearize(
// CHECK:         "s4tf.scatter"({{.*}}) {{{.*}}kind = "set", s4tf.scan_output}
// CHECK-LABEL: func.func private @stacked_r{{[0-9]+}}_body_vjp_bwd(%arg0: tensor<3xf32>, %arg1: tensor<1xi32>, %arg2: tensor<3xf32>, %arg3: tensor<4x3xf32>)
// CHECK-NOT:     "s4tf.scatter"
// CHECK:         return %{{[0-9]+}}, %arg3 : tensor<3xf32>, tensor<4x3xf32>
func.func @stacked(%x: tensor<3xf32>) -> tensor<4x3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %stack = "s4tf.constant"() {value = dense<0.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %r:3 = "s4tf.while"(%zero, %x, %stack) ({
  ^bb0(%i: tensor<i32>, %y: tensor<3xf32>, %s: tensor<4x3xf32>):
    %bound = "s4tf.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
    %go = "s4tf.lt"(%i, %bound) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %y: tensor<3xf32>, %s: tensor<4x3xf32>):
    %one = "s4tf.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    %row = "s4tf.reshape"(%i) {shape = array<i64: 1>} : (tensor<i32>) -> tensor<1xi32>
    %s2 = "s4tf.scatter"(%s, %row, %y2) {axes = array<i64: 0>, kind = "set", s4tf.scan_output} : (tensor<4x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<4x3xf32>
    stablehlo.return %i2, %y2, %s2 : tensor<i32>, tensor<3xf32>, tensor<4x3xf32>
  }) {s4tf.trip_count = 4 : i64} : (tensor<i32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<4x3xf32>)
  return %r#2 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func private @overwritten_r{{[0-9]+}}_body_vjp_bwd(%arg0: tensor<3xf32>, %arg1: tensor<1xi32>, %arg2: tensor<3xf32>, %arg3: tensor<4x3xf32>)
// CHECK:         %[[CLEARED:.*]] = "s4tf.scatter"(%arg3, %arg1, %{{.*}}) {{{.*}}kind = "set"}
// CHECK:         return %{{[0-9]+}}, %[[CLEARED]] : tensor<3xf32>, tensor<4x3xf32>
func.func @overwritten(%x: tensor<3xf32>) -> tensor<4x3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %stack = "s4tf.constant"() {value = dense<0.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %r:3 = "s4tf.while"(%zero, %x, %stack) ({
  ^bb0(%i: tensor<i32>, %y: tensor<3xf32>, %s: tensor<4x3xf32>):
    %bound = "s4tf.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
    %go = "s4tf.lt"(%i, %bound) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %y: tensor<3xf32>, %s: tensor<4x3xf32>):
    %one = "s4tf.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    %row = "s4tf.reshape"(%i) {shape = array<i64: 1>} : (tensor<i32>) -> tensor<1xi32>
    %s2 = "s4tf.scatter"(%s, %row, %y2) {axes = array<i64: 0>, kind = "set"} : (tensor<4x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<4x3xf32>
    stablehlo.return %i2, %y2, %s2 : tensor<i32>, tensor<3xf32>, tensor<4x3xf32>
  }) {s4tf.trip_count = 4 : i64} : (tensor<i32>, tensor<3xf32>, tensor<4x3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<4x3xf32>)
  return %r#2 : tensor<4x3xf32>
}
