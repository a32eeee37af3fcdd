// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// Reverse mode of a loop marked with its trip count (`s4tf.trip_count`: scan's and
// fori_loop's with Python bounds): the tape holds every state (5 iterations: 5 rows and a
// spare), and the backward pass is one loop reading it, with no `s4tf.if` choosing segment
// replays. The backward pass runs from the known count, a constant: the forward pass is
// the recording loop alone. (The carries share one type for dialects/irdl.py's check of
// the inputs.) Numbers:
// tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @counted_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<6x3xf32>, %arg1: tensor<6x3xf32>,
// CHECK-NOT:     s4tf.if
// CHECK:         "s4tf.while"
// CHECK-NOT:     "s4tf.while"
// CHECK-NOT:     s4tf.if
// CHECK:         return
// CHECK-LABEL: func.func private @counted_vjp_fwd(
// CHECK:         %[[L:.*]]:6 = "s4tf.while"(
// CHECK-NOT:     "s4tf.while"
// CHECK:         return %[[L]]#1, %[[L]]#2, %[[L]]#3 : tensor<3xf32>, tensor<6x3xf32>, tensor<6x3xf32>
func.func @counted(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %r:2 = "s4tf.while"(%start, %x) ({
  ^bb0(%i: tensor<3xf32>, %y: tensor<3xf32>):
    %first = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<5.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%first, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<3xf32>, %y: tensor<3xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %i2, %y2 : tensor<3xf32>, tensor<3xf32>
  }) {s4tf.trip_count = 5 : i64} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#1 : tensor<3xf32>
}

// -----

// The same loop without its trip count: a counting loop first, checkpoints every `stride`
// iterations and the backward pass choosing between reading the tape and replaying
// segments.

// CHECK-LABEL: func.func private @run_time_bound_linearize_r{{[0-9]+}}_lin_transpose(
// CHECK:         "s4tf.if"
// CHECK-LABEL: func.func private @run_time_bound_vjp_fwd(
// CHECK:         "s4tf.while"
// CHECK:         "s4tf.while"
func.func @run_time_bound(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %r:2 = "s4tf.while"(%start, %x) ({
  ^bb0(%i: tensor<3xf32>, %y: tensor<3xf32>):
    %first = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<5.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%first, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<3xf32>, %y: tensor<3xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %i2, %y2 : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %r#1 : tensor<3xf32>
}

// -----

// A counted loop whose tapes and state take more than 256 KiB (2 rows of 64 KiB, and the
// state) runs 8 iterations a trip in reverse mode: the forward and backward loops call
// `@..._body_x8` (8 calls of the body) and its VJP, and the tape holds one row a trip (and
// a spare).

// CHECK-LABEL: func.func private @wide_r{{[0-9]+}}_body_x8(
// CHECK-COUNT-8: call @wide_r{{[0-9]+}}_body(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func private @wide_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<2x8192xf32>, %arg1: tensor<2x8192xf32>,
// CHECK-NOT:     s4tf.if
// CHECK:         call @wide_r{{[0-9]+}}_body_x8_vjp
func.func @wide(%x: tensor<8192xf32>) -> tensor<8192xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
  %r:2 = "s4tf.while"(%start, %x) ({
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %first = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<8192xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%first, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<8192xf32>) -> tensor<8192xf32>
    stablehlo.return %i2, %y2 : tensor<8192xf32>, tensor<8192xf32>
  }) {s4tf.trip_count = 8 : i64} : (tensor<8192xf32>, tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>)
  return %r#1 : tensor<8192xf32>
}

// -----

// The same loop of 19 iterations (no divisor up to 8 but 1): its first 3 run before the
// loop as one call of `@..._body_x3` (linearized, so its transpose runs after the loop's
// in the backward pass), then the loop runs 8 a trip, twice; the tape holds one row a trip
// and a spare.

// CHECK-LABEL: func.func private @wide_odd_linearize(
// CHECK:         call @wide_odd_r{{[0-9]+}}_body_x3_linearize_wrt_1(
// CHECK:         "s4tf.while"
// CHECK:         func.call @wide_odd_r{{[0-9]+}}_body_x8(
// CHECK:         call @wide_odd_linearize_r{{[0-9]+}}_lin({{.*}}) : (tensor<3x8192xf32>, tensor<3x8192xf32>,
// CHECK-LABEL: func.func private @wide_odd_r{{[0-9]+}}_body_x3(
// CHECK-COUNT-3: call @wide_odd_r{{[0-9]+}}_body(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func private @wide_odd_r{{[0-9]+}}_body_x8(
// CHECK-COUNT-8: call @wide_odd_r{{[0-9]+}}_body(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func private @wide_odd_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<3x8192xf32>, %arg1: tensor<3x8192xf32>,
// CHECK:         call @wide_odd_r{{[0-9]+}}_body_x8_vjp
func.func @wide_odd(%x: tensor<8192xf32>) -> tensor<8192xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
  %r:2 = "s4tf.while"(%start, %x) ({
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %first = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<8192xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<19.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%first, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %y2 = "s4tf.sin"(%y) : (tensor<8192xf32>) -> tensor<8192xf32>
    stablehlo.return %i2, %y2 : tensor<8192xf32>, tensor<8192xf32>
  }) {s4tf.trip_count = 19 : i64} : (tensor<8192xf32>, tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>)
  return %r#1 : tensor<8192xf32>
}

// -----

// The same loop whose body holds an `s4tf.if` (sine for the first four iterations, then
// cosine) runs one iteration a trip: IREE 3.13 fails on
// copies of control flow that steps on the host (passes/iree/unroll_host_loops.py). The
// tape holds every state (8 rows and a spare).

// CHECK-LABEL: func.func private @wide_branchy_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<9x8192xf32>, %arg1: tensor<9x8192xf32>,
// CHECK-NOT:     _x{{[0-9]+}}
// CHECK:         return
func.func @wide_branchy(%x: tensor<8192xf32>) -> tensor<8192xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
  %r:2 = "s4tf.while"(%start, %x) ({
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %first = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<8192xf32>) -> tensor<f32>
    %bound = "s4tf.constant"() {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
    %go = "s4tf.lt"(%first, %bound) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<8192xf32>, %y: tensor<8192xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<8192xf32>} : () -> tensor<8192xf32>
    %i2 = "s4tf.add"(%i, %one) : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %m = "s4tf.reduce_max"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<8192xf32>) -> tensor<f32>
    %half = "s4tf.constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %q = "s4tf.lt"(%m, %half) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %y2 = "s4tf.if"(%q, %y) ({
    ^bb0(%a: tensor<8192xf32>):
      %s = "s4tf.sin"(%a) : (tensor<8192xf32>) -> tensor<8192xf32>
      stablehlo.return %s : tensor<8192xf32>
    }, {
    ^bb0(%a: tensor<8192xf32>):
      %c = "s4tf.cos"(%a) : (tensor<8192xf32>) -> tensor<8192xf32>
      stablehlo.return %c : tensor<8192xf32>
    }) : (tensor<i1>, tensor<8192xf32>) -> tensor<8192xf32>
    stablehlo.return %i2, %y2 : tensor<8192xf32>, tensor<8192xf32>
  }) {s4tf.trip_count = 8 : i64} : (tensor<8192xf32>, tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>)
  return %r#1 : tensor<8192xf32>
}
