// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp,s4tf-canonicalize,cse | filecheck %s

// s4tf-vjp adds, for every function marked with s4tf.wrt, the split pair
// @f_vjp_fwd(x...) -> (y..., residuals...) and @f_vjp_bwd(residuals..., ct...) -> ct_x...,
// and @f_vjp(x..., ct...) -> (y..., ct_x...) calling both. It linearizes the JVP
// (@f_linearize, @f_lin: not checked here) and transposes the linear part.

// Activity: only %x is differentiated. The forward half keeps cos(x) and %y as residuals;
// exp(%y) is computed for the value only, and the backward half is two multiplications
// after broadcasting the scalar cotangent of reduce_sum.
// CHECK-LABEL: func.func private @sin_times_vjp_fwd_wrt_0
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[SIN:.*]] = "s4tf.sin"(%[[X]])
// CHECK-NEXT:    %[[COS:.*]] = "s4tf.cos"(%[[X]])
// CHECK-NEXT:    %[[PROD:.*]] = "s4tf.mul"(%[[SIN]], %[[Y]])
// CHECK-NEXT:    %[[EXP:.*]] = "s4tf.exp"(%[[Y]])
// CHECK-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[PROD]], %[[EXP]])
// CHECK-NEXT:    %[[OUT:.*]] = "s4tf.reduce_sum"(%[[SUM]])
// CHECK-NEXT:    return %[[OUT]], %[[COS]], %[[Y]]
// CHECK-LABEL: func.func private @sin_times_vjp_bwd_wrt_0
// CHECK-SAME:    (%[[COS:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = "s4tf.reshape"(%[[CT]]) {shape = array<i64: 1>}
// CHECK-NEXT:    %[[B:.*]] = "s4tf.broadcast_in_dim"(%[[R]]) {broadcast_dimensions = array<i64: 0>, shape = array<i64: 3>}
// CHECK-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[B]], %[[Y]])
// CHECK-NEXT:    %[[DX:.*]] = "s4tf.mul"(%[[M]], %[[COS]])
// CHECK-NEXT:    return %[[DX]] : tensor<3xf32>
// CHECK-LABEL: func.func private @sin_times_vjp_wrt_0
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
// CHECK-NEXT:    %[[F:.*]]:3 = call @sin_times_vjp_fwd_wrt_0(%[[X]], %[[Y]])
// CHECK-NEXT:    %[[G:.*]] = call @sin_times_vjp_bwd_wrt_0(%[[F]]#1, %[[F]]#2, %[[CT]])
// CHECK-NEXT:    return %[[F]]#0, %[[G]]
func.func @sin_times(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.mul"(%0, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.exp"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "s4tf.add"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.reduce_sum"(%3) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// A call is differentiated through the callee's own split pair, not inlined: the caller's
// forward half calls @softplus_vjp_fwd and passes its residuals on; the backward half calls
// @softplus_vjp_bwd. Broadcasting of %b is undone by a sum over the broadcast axis.
// CHECK-LABEL: func.func private @caller_vjp_fwd
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[Z:.*]] = "s4tf.add"(%[[X]], %[[B]])
// CHECK-NEXT:    %[[F:.*]]:3 = call @softplus_vjp_fwd(%[[Z]])
// CHECK-NEXT:    return %[[F]]#0, %[[F]]#1, %[[F]]#2
// CHECK-LABEL: func.func private @softplus_vjp_fwd
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[X]])
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.log1p"(%[[E]])
// CHECK:         %[[INV:.*]] = "s4tf.div"
// CHECK-NEXT:    return %[[Y]], %[[E]], %[[INV]]
// CHECK-LABEL: func.func private @caller_vjp_bwd
// CHECK-SAME:    (%[[R0:.*]]: tensor<2x3xf32>, %[[R1:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[DZ:.*]] = call @softplus_vjp_bwd(%[[R0]], %[[R1]], %[[CT]])
// CHECK-NEXT:    %[[DB:.*]] = "s4tf.reduce_sum"(%[[DZ]]) {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[DZ]], %[[DB]]
// CHECK-LABEL: func.func private @softplus_vjp_bwd
// CHECK-SAME:    (%[[E:.*]]: tensor<2x3xf32>, %[[INV:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[CT]], %[[INV]])
// CHECK-NEXT:    %[[DX:.*]] = "s4tf.mul"(%[[M]], %[[E]])
// CHECK-NEXT:    return %[[DX]]
// CHECK-LABEL: func.func private @caller_vjp
// CHECK-NEXT:    call @caller_vjp_fwd
// CHECK-NEXT:    call @caller_vjp_bwd
// CHECK-NOT:     s4tf.exp
func.func @caller(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0 = "s4tf.add"(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = func.call @softplus(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
func.func private @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "s4tf.log1p"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Sparse adjoint: the two reads of parts of %x add their cotangents into one buffer with
// s4tf.add_slice (in place once lowered), not one zero-padded full-size tensor per read.
// CHECK-LABEL: func.func private @reads_vjp_bwd
// CHECK-SAME:    (%[[STRIDED:.*]]: tensor<2xf32>, %[[ONE:.*]]: tensor<1xf32>, %[[CT:.*]]: tensor<2xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %[[CT_STRIDED:.*]] = "s4tf.mul"(%[[CT]], %[[ONE]])
// CHECK-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[CT]], %[[STRIDED]])
// CHECK-NEXT:    %[[S:.*]] = "s4tf.reduce_sum"(%[[M]])
// CHECK-NEXT:    %[[CT_ONE:.*]] = "s4tf.reshape"(%[[S]]) {shape = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<6xf32>}
// CHECK-NEXT:    %[[B1:.*]] = "s4tf.add_slice"(%[[ZERO]], %[[CT_STRIDED]]) {start = array<i64: 2>, stride = array<i64: 2>}
// CHECK-NEXT:    %[[B2:.*]] = "s4tf.add_slice"(%[[B1]], %[[CT_ONE]]) {start = array<i64: 1>, stride = array<i64: 1>}
// CHECK-NEXT:    return %[[B2]] : tensor<6xf32>
func.func @reads(%x: tensor<6xf32>) -> tensor<2xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.slice"(%x) {start = array<i64: 1>, limit = array<i64: 2>, stride = array<i64: 1>} : (tensor<6xf32>) -> tensor<1xf32>
  %1 = "s4tf.slice"(%x) {start = array<i64: 2>, limit = array<i64: 6>, stride = array<i64: 2>} : (tensor<6xf32>) -> tensor<2xf32>
  %2 = "s4tf.mul"(%0, %1) : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
