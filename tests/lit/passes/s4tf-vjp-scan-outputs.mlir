// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// A `scan` sets row `i` of an output stack it carries with a scatter marked
// `s4tf.scan_output` (dialects/control_flow.py): every iteration sets a row of its own.
// The tangent's scatter keeps the mark, and its transpose leaves the stack's cotangent as
// it came (the body's VJP returns it unchanged) rather than clearing the row it read, so
// the backward loop passes it through: IREE 3.13 copies a buffer a host-stepped loop
// updates every trip. Without the mark the row is cleared (a scatter of zeros). (The
// carries share one type for dialects/irdl.py's check of the inputs.) Numbers:
// tests/control_flow/test_scan.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @stacked_r{{[0-9]+}}_body_linearize{{.*}}(
// CHECK:         "s4tf.scatter"({{.*}}) {{{.*}}kind = "set", s4tf.scan_output}
// CHECK-LABEL: func.func private @stacked_r{{[0-9]+}}_body_vjp_bwd{{.*}}(%arg0: tensor<4x3xf32>, %arg1: tensor<1x1xi32>, %arg2: tensor<4x3xf32>, %arg3: tensor<4x3xf32>, %arg4: tensor<4x3xf32>)
// CHECK-NOT:     "s4tf.scatter"
// CHECK:         return %{{[0-9]+}}, %arg4 : tensor<4x3xf32>, tensor<4x3xf32>
func.func @stacked(%x: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %r:3 = "s4tf.while"(%zero, %x, %zero) ({
  ^bb0(%i: tensor<4x3xf32>, %y: tensor<4x3xf32>, %s: tensor<4x3xf32>):
    %count = "s4tf.reduce_max"(%i) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%count, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<4x3xf32>, %y: tensor<4x3xf32>, %s: tensor<4x3xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %first = "s4tf.slice"(%y2) {limit = array<i64: 1, 3>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<1x3xf32>
    %count = "s4tf.reduce_max"(%i) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<f32>
    %index = "s4tf.cast"(%count) {dtype = i32} : (tensor<f32>) -> tensor<i32>
    %row = "s4tf.reshape"(%index) {shape = array<i64: 1, 1>} : (tensor<i32>) -> tensor<1x1xi32>
    %s2 = "s4tf.scatter"(%s, %row, %first) {axes = array<i64: 0>, kind = "set", s4tf.scan_output} : (tensor<4x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<4x3xf32>
    stablehlo.return %i2, %y2, %s2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  }) {s4tf.trip_count = 4 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  return %r#2 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func private @overwritten_r{{[0-9]+}}_body_vjp_bwd{{.*}}(%arg0: tensor<4x3xf32>, %arg1: tensor<1x1xi32>, %arg2: tensor<4x3xf32>, %arg3: tensor<4x3xf32>, %arg4: tensor<4x3xf32>)
// CHECK:         %[[CLEARED:.*]] = "s4tf.scatter"(%arg4, %arg1, %{{.*}}) {{{.*}}kind = "set"}
// CHECK:         return %{{[0-9]+}}, %[[CLEARED]] : tensor<4x3xf32>, tensor<4x3xf32>
func.func @overwritten(%x: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %r:3 = "s4tf.while"(%zero, %x, %zero) ({
  ^bb0(%i: tensor<4x3xf32>, %y: tensor<4x3xf32>, %s: tensor<4x3xf32>):
    %count = "s4tf.reduce_max"(%i) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%count, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<4x3xf32>, %y: tensor<4x3xf32>, %s: tensor<4x3xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %first = "s4tf.slice"(%y2) {limit = array<i64: 1, 3>, start = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<1x3xf32>
    %count = "s4tf.reduce_max"(%i) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<f32>
    %index = "s4tf.cast"(%count) {dtype = i32} : (tensor<f32>) -> tensor<i32>
    %row = "s4tf.reshape"(%index) {shape = array<i64: 1, 1>} : (tensor<i32>) -> tensor<1x1xi32>
    %s2 = "s4tf.scatter"(%s, %row, %first) {axes = array<i64: 0>, kind = "set"} : (tensor<4x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<4x3xf32>
    stablehlo.return %i2, %y2, %s2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  }) {s4tf.trip_count = 4 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  return %r#2 : tensor<4x3xf32>
}
