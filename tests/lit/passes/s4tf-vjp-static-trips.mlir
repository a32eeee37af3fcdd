// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// Reverse mode of a counted loop whose start, bound and step are constants (scan's and
// fori_loop's shape: i, bound, step carried first, `i < bound` for a positive step, `i +=
// step`): its trip count is known, so the forward pass runs no counting loop, the tape
// holds every state (5 iterations: 5 rows and a spare), and the backward pass is one loop
// reading it, with no `s4tf.if` choosing segment replays. Numbers:
// tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @counted_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<6xi32>, %arg1: tensor<6x3xf32>,
// CHECK-NOT:     s4tf.if
// CHECK:         "s4tf.while"
// CHECK-NOT:     "s4tf.while"
// CHECK-NOT:     s4tf.if
// CHECK:         return
// CHECK-LABEL: func.func private @counted_vjp_fwd(
// CHECK:         "s4tf.constant"() {value = dense<5> : tensor<i32>}
// CHECK:         "s4tf.while"
// CHECK-NOT:     "s4tf.while"
// CHECK:         return
func.func @counted(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %bound = "s4tf.constant"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %step = "s4tf.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %r:4 = "s4tf.while"(%start, %bound, %step, %x) ({
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<3xf32>):
    %zero = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %up = "s4tf.gt"(%s, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %below = "s4tf.lt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %above = "s4tf.gt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %go = "s4tf.select"(%up, %below, %above) : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<3xf32>):
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    %i2 = "s4tf.add"(%i, %s) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %i2, %n, %s, %y2 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>
  }) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>)
  return %r#3 : tensor<3xf32>
}

// -----

// The same loop with a bound known only at run time: a counting loop first, checkpoints
// every `stride` iterations and the backward pass choosing between reading the tape and
// replaying segments.

// CHECK-LABEL: func.func private @run_time_bound_linearize_r{{[0-9]+}}_lin_transpose(
// CHECK:         "s4tf.if"
// CHECK-LABEL: func.func private @run_time_bound_vjp_fwd(
// CHECK:         "s4tf.while"
// CHECK:         "s4tf.while"
func.func @run_time_bound(%x: tensor<3xf32>, %bound: tensor<i32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %step = "s4tf.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %r:4 = "s4tf.while"(%start, %bound, %step, %x) ({
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<3xf32>):
    %zero = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %up = "s4tf.gt"(%s, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %below = "s4tf.lt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %above = "s4tf.gt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %go = "s4tf.select"(%up, %below, %above) : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<3xf32>):
    %y2 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
    %i2 = "s4tf.add"(%i, %s) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %i2, %n, %s, %y2 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>
  }) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3xf32>)
  return %r#3 : tensor<3xf32>
}

// -----

// A counted loop whose tapes and state take more than 256 KiB (9 rows of 32 KiB and the
// state) runs 8 iterations a trip in reverse mode: the forward and backward loops call
// `@..._body_x8` (8 calls of the body) and its VJP, and the tape holds one row a trip (and
// a spare).

// CHECK-LABEL: func.func private @wide_r{{[0-9]+}}_body_x8(
// CHECK-COUNT-8: call @wide_r{{[0-9]+}}_body(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func private @wide_linearize_r{{[0-9]+}}_lin_transpose(%arg0: tensor<2xi32>, %arg1: tensor<2x8192xf32>,
// CHECK-NOT:     s4tf.if
// CHECK:         call @wide_r{{[0-9]+}}_body_x8_vjp
func.func @wide(%x: tensor<8192xf32>) -> tensor<8192xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %start = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %bound = "s4tf.constant"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
  %step = "s4tf.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %r:4 = "s4tf.while"(%start, %bound, %step, %x) ({
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<8192xf32>):
    %zero = "s4tf.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %up = "s4tf.gt"(%s, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %below = "s4tf.lt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %above = "s4tf.gt"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %go = "s4tf.select"(%up, %below, %above) : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %n: tensor<i32>, %s: tensor<i32>, %y: tensor<8192xf32>):
    %y2 = "s4tf.sin"(%y) : (tensor<8192xf32>) -> tensor<8192xf32>
    %i2 = "s4tf.add"(%i, %s) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %i2, %n, %s, %y2 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<8192xf32>
  }) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<8192xf32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<8192xf32>)
  return %r#3 : tensor<8192xf32>
}
