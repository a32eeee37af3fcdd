// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp,s4tf-canonicalize,cse | filecheck %s

// s4tf-jvp adds @f_jvp(x..., dx[wrt]...) -> (y..., dy...) for every function marked with
// s4tf.wrt; the name gets _wrt_<i> when not every float argument is differentiated. Each
// active op is copied and followed by its JVP rule; other ops are copied alone.

// Activity: only %x is differentiated, so exp(%y) is copied but gets no derivative code,
// and mul(sin(x), y) is differentiated in its first operand only.
// CHECK-LABEL: func.func private @sin_times_jvp_wrt_0
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK-SAME:    attributes {s4tf.jvp_of = @sin_times, s4tf.wrt = array<i64: 0>}
// CHECK-NEXT:    %[[SIN:.*]] = "s4tf.sin"(%[[X]])
// CHECK-NEXT:    %[[COS:.*]] = "s4tf.cos"(%[[X]])
// CHECK-NEXT:    %[[DSIN:.*]] = "s4tf.mul"(%[[DX]], %[[COS]])
// CHECK-NEXT:    %[[PROD:.*]] = "s4tf.mul"(%[[SIN]], %[[Y]])
// CHECK-NEXT:    %[[DPROD:.*]] = "s4tf.mul"(%[[DSIN]], %[[Y]])
// CHECK-NEXT:    %[[EXP:.*]] = "s4tf.exp"(%[[Y]])
// CHECK-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[PROD]], %[[EXP]])
// CHECK-NEXT:    %[[OUT:.*]] = "s4tf.reduce_sum"(%[[SUM]]) {axes = array<i64: 0>, keepdims = false}
// CHECK-NEXT:    %[[DOUT:.*]] = "s4tf.reduce_sum"(%[[DPROD]]) {axes = array<i64: 0>, keepdims = false}
// CHECK-NEXT:    return %[[OUT]], %[[DOUT]] : tensor<f32>, tensor<f32>
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
// CHECK-LABEL: func.func private @stopped_jvp
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[T:.*]] = "s4tf.tanh"(%[[X]])
// CHECK-NEXT:    %[[S:.*]] = "s4tf.stop_gradient"(%[[T]])
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.mul"(%[[S]], %[[X]])
// CHECK-NEXT:    %[[DY:.*]] = "s4tf.mul"(%[[DX]], %[[S]])
// CHECK-NEXT:    return %[[Y]], %[[DY]]
func.func @stopped(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.tanh"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.stop_gradient"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.mul"(%1, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// A call is differentiated by a call of the callee's JVP, generated once for both calls
// and not inlined; the broadcasting add's tangent broadcasts %db the same way.
// CHECK-LABEL: func.func private @caller_jvp
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<2x3xf32>, %[[DB:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[Z:.*]] = "s4tf.add"(%[[X]], %[[B]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[DZ:.*]] = "s4tf.add"(%[[DX]], %[[DB]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]]:2 = call @softplus_jvp(%[[Z]], %[[DZ]])
// CHECK-NEXT:    %[[S:.*]]:2 = call @softplus_jvp(%[[R]]#0, %[[R]]#1)
// CHECK-NEXT:    return %[[S]]#0, %[[S]]#1
// CHECK-LABEL: func.func private @softplus_jvp
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[DX:.*]]: tensor<2x3xf32>)
// CHECK-SAME:    attributes {s4tf.jvp_of = @softplus, s4tf.wrt = array<i64: 0>}
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[X]])
// CHECK-NEXT:    %[[DE:.*]] = "s4tf.mul"(%[[DX]], %[[E]])
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.log1p"(%[[E]])
// CHECK:         %[[DENOM:.*]] = "s4tf.add"(%{{.*}}, %[[E]]) : (tensor<f32>, tensor<2x3xf32>)
// CHECK:         %[[INV:.*]] = "s4tf.div"(%{{.*}}, %[[DENOM]])
// CHECK-NEXT:    %[[DY:.*]] = "s4tf.mul"(%[[DE]], %[[INV]])
// CHECK-NEXT:    return %[[Y]], %[[DY]]
// CHECK-NOT:     func.func private @softplus_jvp
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
