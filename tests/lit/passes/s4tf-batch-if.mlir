// RUN: s4tf-opt %s --split-input-file -p 's4tf-batch{function=f batched=0,1 size=4}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p 's4tf-batch{function=f batched=0,1 size=4}' | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// s4tf.if with a batched predicate: both batched branches run, and the result is a select
// (by the select op's batching rule) between them, per example.

// VALID-NOT: error

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<4xi1>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[T:.*]] = call @f_r0_then_batched(%arg1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[E:.*]] = call @f_r0_else_batched(%arg1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[P:.*]] = "s4tf.reshape"(%arg0) {shape = array<i64: 4, 1>} : (tensor<4xi1>) -> tensor<4x1xi1>
// CHECK-NEXT:    %[[S:.*]] = "s4tf.select"(%[[P]], %[[T]], %[[E]]) : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[S]] : tensor<4x3xf32>
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.neg"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An s4tf.if marked s4tf.shortcut (its then branch computes what its else branch does,
// faster: reverse mode through a short loop) runs its else branch alone under a batched
// predicate.

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<4xi1>, %arg1: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[E:.*]] = call @f_r0_else_batched(%arg1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[E]] : tensor<4x3xf32>
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
