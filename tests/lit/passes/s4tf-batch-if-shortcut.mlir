// RUN: s4tf-opt %s -p 's4tf-batch{function=f batched=1 size=4}' | filecheck %s

// An s4tf.if marked s4tf.shortcut with an unbatched predicate stays an s4tf.if, still marked:
// a later vmap may batch its predicate, and then runs the else branch alone (jacfwd of
// jacrev through a while: vmap of a vjp, then of its jvp).

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<i1>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[R:.*]] = "s4tf.if"(%arg0, %arg1)
// CHECK:           call @f_r0_then_batched
// CHECK:           call @f_r0_else_batched
// CHECK:         }) {s4tf.shortcut} : (tensor<i1>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x3xf32>
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
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
