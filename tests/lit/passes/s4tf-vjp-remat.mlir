// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp,s4tf-canonicalize,cse | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp,s4tf-lower-to-stablehlo,inline,canonicalize,cse | filecheck %s --check-prefix=LOWERED

// Reverse mode through functions marked s4tf.remat (s4tf.remat in Python): the forward
// pass keeps only each marked call's inputs; the backward pass recomputes the call's
// forward from them, once the call's cotangent exists (s4tf.after), before its pullback.
// Numbers: tests/autodiff/test_remat.py.

// VALID-NOT: error

// The residuals of @f's forward half are the inputs of the two calls of @block (x and
// block(x)), not block's exp and tanh values.

// CHECK-LABEL: func.func private @block_remat_lin(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.linear_args = array<i64: 1>, s4tf.transpose = @block_remat_lin_transpose}
// CHECK-LABEL: func.func private @block_remat_body_vjp_fwd(%arg0: tensor<3xf32>)
// CHECK-DAG:     "s4tf.exp"(%arg0)
// CHECK-DAG:     "s4tf.tanh"
// CHECK-LABEL: func.func private @block_remat_lin_transpose(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[X:.*]] = "s4tf.after"(%arg0, %arg1)
// CHECK-NEXT:    %[[R:.*]]:3 = call @block_remat_body_vjp_fwd(%[[X]])
// CHECK-NEXT:    %[[CT:.*]] = call @block_remat_body_vjp_bwd(%[[R]]#1, %[[R]]#2, %arg1)
// CHECK-NEXT:    return %[[CT]]
// CHECK-LABEL: func.func private @block_linearize(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>)
// CHECK-NEXT:    call @block(%arg0)
// CHECK-NEXT:    call @block_remat_lin(%arg0, %arg1)
// CHECK-LABEL: func.func private @f_vjp_fwd(%arg0: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[B0:.*]]:2 = call @block_vjp_fwd(%arg0)
// CHECK-NEXT:    %[[B1:.*]]:2 = call @block_vjp_fwd(%[[B0]]#0)
// CHECK:         return %{{.*}}, %[[B0]]#1, %[[B1]]#1
// CHECK-LABEL: func.func private @block_vjp_fwd(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[Y:.*]] = call @block(%arg0)
// CHECK-NEXT:    return %[[Y]], %arg0
// CHECK-LABEL: func.func private @block_vjp_bwd(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>)
// CHECK-NEXT:    call @block_remat_lin_transpose(%arg0, %arg1)

// Lowered and inlined, the backward half of @f recomputes exp and tanh of each
// block's input multiplied by a wait token, exactly 1, taken from one element of the
// block's cotangent: CSE cannot merge them with the forward half's, and IREE cannot run
// them before the cotangent exists (the second block's: the seed %arg2; the first
// block's: the second block's pullback). No optimization barrier, which IREE would wait
// for on the host.

// LOWERED-LABEL: func.func private @f_vjp_bwd(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<f32>)
// LOWERED-NOT:     optimization_barrier
// LOWERED:         %[[SEED:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [0] : (tensor<1xf32>) -> tensor<3xf32>
// LOWERED:         %[[E1:.*]] = stablehlo.slice %[[SEED]] [0:1]
// LOWERED:         %[[T1:.*]] = stablehlo.reshape %[[E1]]
// LOWERED:         %[[F1:.*]] = stablehlo.is_finite %[[T1]]
// LOWERED-NEXT:    %[[ONE1:.*]] = stablehlo.select %[[F1]]
// LOWERED-NEXT:    %[[B1:.*]] = stablehlo.broadcast_in_dim %[[ONE1]], dims = []
// LOWERED-NEXT:    %[[X1:.*]] = stablehlo.multiply %arg1, %[[B1]]
// LOWERED-NEXT:    stablehlo.exponential %[[X1]]
// LOWERED-NEXT:    stablehlo.tanh
// LOWERED:         %[[E0:.*]] = stablehlo.slice %{{.*}} [0:1] : (tensor<3xf32>)
// LOWERED:         %[[F0:.*]] = stablehlo.is_finite
// LOWERED-NEXT:    %[[ONE0:.*]] = stablehlo.select %[[F0]]
// LOWERED-NEXT:    %[[B0:.*]] = stablehlo.broadcast_in_dim %[[ONE0]], dims = []
// LOWERED-NEXT:    %[[X0:.*]] = stablehlo.multiply %arg0, %[[B0]]
// LOWERED-NEXT:    stablehlo.exponential %[[X0]]
// LOWERED-NEXT:    stablehlo.tanh
// LOWERED-NOT:     optimization_barrier
// LOWERED:         return
func.func private @block(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.remat} {
  %0 = "s4tf.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.tanh"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func @f(%x: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = call @block(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = call @block(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.reduce_sum"(%1) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// s4tf.remat_allow_cse (prevent_cse=False): no ordering, the recomputation reads the input
// itself (and CSE may merge it with the forward pass once inlined). The residuals are
// g's inputs, x included (not differentiated, but read by the recomputation).

// CHECK-LABEL: func.func private @g_remat_lin_wrt_1_transpose(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    call @g_remat_body_vjp_fwd_wrt_1(%arg0, %arg1)
// CHECK-LABEL: func.func private @h_vjp_fwd_wrt_1(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>)
// CHECK-NEXT:    %[[G:.*]]:3 = call @g_vjp_fwd_wrt_1(%arg0, %arg1)
// CHECK:         return %{{.*}}, %[[G]]#1, %[[G]]#2

// LOWERED-LABEL: func.func private @h_vjp_bwd_wrt_1(
// LOWERED-NOT:     is_finite
// LOWERED-NOT:     optimization_barrier
// LOWERED:         return
func.func private @g(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> attributes {s4tf.remat, s4tf.remat_allow_cse} {
  %0 = "s4tf.dot_general"(%x, %w) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "s4tf.tanh"(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
func.func @h(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = call @g(%x, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "s4tf.reduce_sum"(%0) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
