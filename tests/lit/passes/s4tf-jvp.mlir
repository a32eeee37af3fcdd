// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID
// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp,s4tf-canonicalize,cse | filecheck %s --check-prefix=CANON

// Forward mode through region ops: each region becomes a function (s4tf.outlined) and the
// JVP is a region op of the same kind carrying primals and tangents, whose regions call
// the outlined functions' JVPs. Numbers: tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @f_jvp(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[R:.*]]:2 = "s4tf.if"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[T:.*]]:2 = func.call @f_r0_then_jvp(%[[X]], %[[DX]])
// CHECK-NEXT:      stablehlo.return %[[T]]#0, %[[T]]#1
// CHECK:           func.call @f_r0_else_jvp(
// CHECK:         return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func private @f_r0_then(%arg0: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.outlined}
// CHECK-NEXT:    "s4tf.sin"(%arg0)
// CHECK-LABEL: func.func private @f_r0_then_jvp(
// CHECK:         "s4tf.cos"(%arg0)
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The loop carries the tangents of both values; its condition sees the primals only.

// CHECK-LABEL: func.func private @f_jvp(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[R:.*]]:4 = "s4tf.while"(%arg0, %arg1, %arg2, %arg3) ({
// CHECK-NEXT:    ^bb0(%[[V:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
// CHECK-NEXT:      %[[C:.*]] = func.call @f_r0_cond(%[[V]], %[[B]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %[[C]] : tensor<i1>
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%[[V2:.*]]: tensor<3xf32>, %[[B2:.*]]: tensor<3xf32>, %[[DV:.*]]: tensor<3xf32>, %[[DB:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[N:.*]]:4 = func.call @f_r0_body_jvp(%[[V2]], %[[B2]], %[[DV]], %[[DB]])
// CHECK-NEXT:      stablehlo.return %[[N]]#0, %[[N]]#1, %[[N]]#2, %[[N]]#3
// CHECK:         return %[[R]]#0, %[[R]]#2 : tensor<3xf32>, tensor<3xf32>
func.func @f(%x: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0:2 = "s4tf.while"(%x, %a) ({
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %s = "s4tf.reduce_sum"(%v) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%s, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %1 = "s4tf.mul"(%v, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1, %b : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

// Straight-line code, checked after s4tf-canonicalize and cse (CANON).
// s4tf-jvp adds @f_jvp(x..., dx[wrt]...) -> (y..., dy...) for every function marked with
// s4tf.wrt; the name gets _wrt_<i> when not every float argument is differentiated. Each
// active op is copied and followed by its JVP rule; other ops are copied alone.

// Activity: only %x is differentiated, so exp(%y) is copied but gets no derivative code,
// and mul(sin(x), y) is differentiated in its first operand only.
// CANON-LABEL: func.func private @sin_times_jvp_wrt_0
// CANON-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
// CANON-SAME:    attributes {s4tf.jvp_of = @sin_times, s4tf.wrt = array<i64: 0>}
// CANON-NEXT:    %[[SIN:.*]] = "s4tf.sin"(%[[X]])
// CANON-NEXT:    %[[COS:.*]] = "s4tf.cos"(%[[X]])
// CANON-NEXT:    %[[DSIN:.*]] = "s4tf.mul"(%[[DX]], %[[COS]])
// CANON-NEXT:    %[[PROD:.*]] = "s4tf.mul"(%[[SIN]], %[[Y]])
// CANON-NEXT:    %[[DPROD:.*]] = "s4tf.mul"(%[[DSIN]], %[[Y]])
// CANON-NEXT:    %[[EXP:.*]] = "s4tf.exp"(%[[Y]])
// CANON-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[PROD]], %[[EXP]])
// CANON-NEXT:    %[[OUT:.*]] = "s4tf.reduce_sum"(%[[SUM]]) {axes = array<i64: 0>, keepdims = false}
// CANON-NEXT:    %[[DOUT:.*]] = "s4tf.reduce_sum"(%[[DPROD]]) {axes = array<i64: 0>, keepdims = false}
// CANON-NEXT:    return %[[OUT]], %[[DOUT]] : tensor<f32>, tensor<f32>
func.func @sin_times(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.mul"(%0, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.exp"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "s4tf.add"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.reduce_sum"(%3) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// tanh(x) depends on %x but reaches the result only through stop_gradient: it is varied
// but not useful, so no tanh derivative (1 - tanh^2) is emitted.
// CANON-LABEL: func.func private @stopped_jvp
// CANON-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>)
// CANON-NEXT:    %[[T:.*]] = "s4tf.tanh"(%[[X]])
// CANON-NEXT:    %[[S:.*]] = "s4tf.stop_gradient"(%[[T]])
// CANON-NEXT:    %[[Y:.*]] = "s4tf.mul"(%[[S]], %[[X]])
// CANON-NEXT:    %[[DY:.*]] = "s4tf.mul"(%[[DX]], %[[S]])
// CANON-NEXT:    return %[[Y]], %[[DY]]
func.func @stopped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.tanh"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.stop_gradient"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.mul"(%1, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// A call is differentiated by a call of the callee's JVP, generated once for both calls
// and not inlined; the broadcasting add's tangent broadcasts %db the same way.
// CANON-LABEL: func.func private @caller_jvp
// CANON-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<2x3xf32>, %[[DB:.*]]: tensor<3xf32>)
// CANON-NEXT:    %[[Z:.*]] = "s4tf.add"(%[[X]], %[[B]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CANON-NEXT:    %[[DZ:.*]] = "s4tf.add"(%[[DX]], %[[DB]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CANON-NEXT:    %[[R:.*]]:2 = call @softplus_jvp(%[[Z]], %[[DZ]])
// CANON-NEXT:    %[[S:.*]]:2 = call @softplus_jvp(%[[R]]#0, %[[R]]#1)
// CANON-NEXT:    return %[[S]]#0, %[[S]]#1
// CANON-LABEL: func.func private @softplus_jvp
// CANON-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[DX:.*]]: tensor<2x3xf32>)
// CANON-SAME:    attributes {s4tf.jvp_of = @softplus, s4tf.wrt = array<i64: 0>}
// CANON-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[X]])
// CANON-NEXT:    %[[DE:.*]] = "s4tf.mul"(%[[DX]], %[[E]])
// CANON-NEXT:    %[[Y:.*]] = "s4tf.log1p"(%[[E]])
// CANON:         %[[DENOM:.*]] = "s4tf.add"(%{{.*}}, %[[E]]) : (tensor<f32>, tensor<2x3xf32>)
// CANON:         %[[INV:.*]] = "s4tf.div"(%{{.*}}, %[[DENOM]])
// CANON-NEXT:    %[[DY:.*]] = "s4tf.mul"(%[[DE]], %[[INV]])
// CANON-NEXT:    return %[[Y]], %[[DY]]
// CANON-NOT:     func.func private @softplus_jvp
func.func @caller(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0 = "s4tf.add"(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = func.call @softplus(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = func.call @softplus(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
func.func private @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "s4tf.log1p"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Piecewise-constant ops carry no derivative (it is zero almost everywhere): floor and a
// comparison used as a value (%4) are copied without tangent code, and only abs's term
// remains. abs's derivative, its sign, is a constant (stop_gradient), so that the JVP can
// be differentiated again (second derivatives through abs, relu, maximum).
// CHECK-LABEL: func.func private @pieces_jvp(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    "s4tf.constant"
// CHECK-NEXT:    "s4tf.floor"(%arg0)
// CHECK-NEXT:    "s4tf.gt"(%arg0,
// CHECK-NEXT:    "s4tf.cast"
// CHECK-NEXT:    %[[PIECES:.*]] = "s4tf.add"
// CHECK-NEXT:    %[[ABS:.*]] = "s4tf.abs"(%arg0)
// CHECK-NEXT:    %[[SIGN:.*]] = "s4tf.sign"(%arg0)
// CHECK-NEXT:    %[[MASK:.*]] = "s4tf.stop_gradient"(%[[SIGN]])
// CHECK-NEXT:    %[[DABS:.*]] = "s4tf.mul"(%arg1, %[[MASK]])
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.mul"(%[[PIECES]], %[[ABS]])
// CHECK-NEXT:    %[[DY:.*]] = "s4tf.mul"(%[[DABS]], %[[PIECES]])
// CHECK-NEXT:    return %[[Y]], %[[DY]]
func.func @pieces(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.floor"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.gt"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %2 = "s4tf.cast"(%1) {dtype = f32} : (tensor<3xi1>) -> tensor<3xf32>
  %3 = "s4tf.add"(%0, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.abs"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %5 = "s4tf.mul"(%3, %4) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %5 : tensor<3xf32>
}

// -----

// The JVP of an s4tf.if marked s4tf.shortcut is marked too: the JVPs of branches that
// compute the same values compute the same values, so vmap may run the else branch alone.

// CHECK-LABEL: func.func private @f_jvp(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[R:.*]]:2 = "s4tf.if"(%arg0, %arg1, %arg2) ({
// CHECK:         }) {s4tf.shortcut} : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.add"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %c = "s4tf.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.mul"(%a, %c) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) {s4tf.shortcut} : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
