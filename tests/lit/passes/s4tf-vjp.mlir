// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// Reverse mode through region ops. Numbers: tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// if: the predicate and the branch inputs are residuals; the backward pass is an s4tf.if
// on the same predicate whose branches call the branches' VJPs (the taken branch is
// recomputed there).

// CHECK-LABEL: func.func private @f_linearize_r0_lin(tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.linear_args = array<i64: 2>, s4tf.transpose = @f_linearize_r0_lin_transpose}
// CHECK-LABEL: func.func private @f_linearize_r0_lin_transpose(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[CT:.*]] = "s4tf.if"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[T:.*]]:2 = func.call @f_r0_then_vjp(%[[X]], %[[C]])
// CHECK-NEXT:      stablehlo.return %[[T]]#1 : tensor<3xf32>
// CHECK:           func.call @f_r0_else_vjp(
// CHECK:         return %[[CT]] : tensor<3xf32>
// CHECK-LABEL: func.func private @f_vjp_fwd(%arg0: tensor<i1>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<i1>, tensor<3xf32>)
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.if"(%arg0, %arg1)
// CHECK:         return %[[Y]], %arg0, %arg1
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

// while: the forward loop pushes the value that changes (%v) onto a tape and counts; %b
// passes through unchanged and is kept once. The backward loop runs the count down,
// reads iteration i's state and applies the body's VJP.

// CHECK-LABEL: func.func private @f_linearize_r0_lin_transpose(%arg0: tensor<?x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<i32>, %arg3: tensor<3xf32>, %arg4: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK:         "s4tf.while"(%arg2, %arg3, %arg4, %arg0, %arg1)
// CHECK:           "s4tf.gt"
// CHECK:         }, {
// CHECK-NEXT:    ^bb0(%[[I:.*]]: tensor<i32>, %[[CV:.*]]: tensor<3xf32>, %[[CB:.*]]: tensor<3xf32>, %[[TP:.*]]: tensor<?x3xf32>, %[[KB:.*]]: tensor<3xf32>):
// CHECK:           %[[PREV:.*]] = "s4tf.sub"(%[[I]],
// CHECK-NEXT:      %[[STATE:.*]] = "s4tf.tape_read"(%[[TP]], %[[PREV]])
// CHECK-NEXT:      %[[G:.*]]:4 = func.call @f_r0_body_vjp(%[[STATE]], %[[KB]], %[[CV]], %[[CB]])
// CHECK-NEXT:      stablehlo.return %[[PREV]], %[[G]]#2, %[[G]]#3, %[[TP]], %[[KB]]
// CHECK-LABEL: func.func private @f_vjp_fwd(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>, tensor<3xf32>, tensor<i32>)
// CHECK-NEXT:    %[[TAPE:.*]] = "s4tf.tape_empty"(%arg0) : (tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = "s4tf.constant"() {value = dense<0> : tensor<i32>}
// CHECK-NEXT:    %[[L:.*]]:4 = "s4tf.while"(%arg0, %arg1, %[[TAPE]], %[[ZERO]]) ({
// CHECK:         }, {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<?x3xf32>, %[[N:.*]]: tensor<i32>):
// CHECK-NEXT:      %[[PUSHED:.*]] = "s4tf.tape_push"(%[[T]], %[[N]], %[[V]])
// CHECK-NEXT:      %[[NEXT:.*]]:2 = func.call @f_r0_body(%[[V]], %[[B]])
// CHECK:           stablehlo.return %[[NEXT]]#0, %[[NEXT]]#1, %[[PUSHED]], %{{.*}}
// CHECK:         return %[[L]]#0, %[[L]]#2, %[[L]]#1, %[[L]]#3
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
