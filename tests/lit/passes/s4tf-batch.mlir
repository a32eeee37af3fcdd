// RUN: s4tf-opt %s --split-input-file -p 's4tf-batch{function=f batched=0 size=8}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p 's4tf-batch{function=f batched=0 size=8}' | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// s4tf-batch writes @f_batched: the batched argument gets a leading axis of `size`, each op
// with a batched operand is rewritten by its batching rule, unbatched ops are copied, and a
// callee is batched on demand. Every result of @f_batched is batched (an unbatched one is
// broadcast); a callee's results that do not depend on its batched arguments stay unbatched
// (s4tf.batched_results lists the others). Numbers: tests/batching/.

// VALID-NOT: error

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<8x2xf32>, tensor<8xf32>)
// CHECK-SAME:    s4tf.batch_size = 8 : i64, s4tf.batched = array<i64: 0>, s4tf.batched_of = @f
// CHECK-NEXT:    %[[G:.*]] = call @g_batched(%arg0) : (tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[G]], %arg0) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[D:.*]] = "s4tf.dot_general"(%[[M]], %arg1) {lhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_batch = array<i64>, rhs_contract = array<i64: 0>}
// CHECK-NEXT:    %[[S:.*]] = "s4tf.reduce_sum"(%arg1) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<3x2xf32>) -> tensor<f32>
// CHECK-NEXT:    %[[B:.*]] = "s4tf.broadcast_in_dim"(%[[S]]) {broadcast_dimensions = array<i64>, shape = array<i64: 8>}
// CHECK-NEXT:    return %[[D]], %[[B]] : tensor<8x2xf32>, tensor<8xf32>
// CHECK-LABEL: func.func private @g_batched(%arg0: tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    "s4tf.sin"(%arg0) : (tensor<8x3xf32>) -> tensor<8x3xf32>
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @f(%x: tensor<3xf32>, %w: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %0 = call @g(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.mul"(%0, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.dot_general"(%1, %w) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 0>, rhs_contract = array<i64: 0>} : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  %3 = "s4tf.reduce_sum"(%w) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<3x2xf32>) -> tensor<f32>
  return %2, %3 : tensor<2xf32>, tensor<f32>
}

// -----

// A rule may leave the batch axis elsewhere: here the transpose keeps it in front by
// permuting it first, and the unbatched operand of the add broadcasts against the batched
// one after the batched one gets size-1 axes up to the per-example rank.

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<8x3x2xf32>
// CHECK-NEXT:    %[[R:.*]] = "s4tf.reshape"(%arg0) {shape = array<i64: 8, 1, 3>}
// CHECK-NEXT:    %[[A:.*]] = "s4tf.add"(%[[R]], %arg1) : (tensor<8x1x3xf32>, tensor<2x3xf32>) -> tensor<8x2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = "s4tf.transpose"(%[[A]]) {permutation = array<i64: 0, 2, 1>}
// CHECK-NEXT:    return %[[T]] : tensor<8x3x2xf32>
func.func @f(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "s4tf.add"(%x, %y) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "s4tf.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// s4tf.if: its branches are outlined and batched. An unbatched predicate keeps the if,
// whose branches call the batched branches.

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<i1>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[R:.*]] = "s4tf.if"(%arg1, %arg0) ({
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<8x3xf32>):
// CHECK-NEXT:      %[[T:.*]] = func.call @f_r0_then_batched(%[[A]])
// CHECK-NEXT:      stablehlo.return %[[T]]
// CHECK:           func.call @f_r0_else_batched(
// CHECK:         return %[[R]] : tensor<8x3xf32>
// CHECK-LABEL: func.func private @f_r0_then_batched(%arg0: tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    "s4tf.sin"(%arg0) : (tensor<8x3xf32>) -> tensor<8x3xf32>
func.func @f(%x: tensor<3xf32>, %p: tensor<i1>) -> tensor<3xf32> {
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

// A callee hands back an argument that is not batched (as vjp's forward half hands a weight
// to its backward half): its batched version returns it unbatched, and the caller uses it
// unbatched, not broadcast to 8 copies. Only @f's own unbatched result is broadcast.

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<8x2xf32>, tensor<8x3x2xf32>)
// CHECK-NEXT:    %[[C:.*]]:2 = call @g_batched(%arg0, %arg1) : (tensor<8x3xf32>, tensor<3x2xf32>) -> (tensor<8x3xf32>, tensor<3x2xf32>)
// CHECK-NEXT:    %[[D:.*]] = "s4tf.dot_general"(%[[C]]#0, %[[C]]#1) {lhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_batch = array<i64>, rhs_contract = array<i64: 0>} : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
// CHECK-NEXT:    %[[B:.*]] = "s4tf.broadcast_in_dim"(%[[C]]#1) {broadcast_dimensions = array<i64: 1, 2>, shape = array<i64: 8, 3, 2>}
// CHECK-NEXT:    return %[[D]], %[[B]] : tensor<8x2xf32>, tensor<8x3x2xf32>
// CHECK-LABEL: func.func private @g_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<8x3xf32>, tensor<3x2xf32>)
// CHECK-SAME:    s4tf.batched_results = array<i64: 0>
// CHECK-NEXT:    %[[S:.*]] = "s4tf.sin"(%arg0) : (tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    return %[[S]], %arg1 : tensor<8x3xf32>, tensor<3x2xf32>
func.func @g(%x: tensor<3xf32>, %w: tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3x2xf32>) {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %w : tensor<3xf32>, tensor<3x2xf32>
}
func.func @f(%x: tensor<3xf32>, %w: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %0:2 = call @g(%x, %w) : (tensor<3xf32>, tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3x2xf32>)
  %1 = "s4tf.dot_general"(%0#0, %0#1) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 0>, rhs_contract = array<i64: 0>} : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  return %1, %0#1 : tensor<2xf32>, tensor<3x2xf32>
}

// -----

// dot_general with only its rhs batched and no free axis of its own (a matrix times a batch
// of vectors, as in jacrev's pullback over a basis): the operands swap, so the product is
// one matrix product with the batch axis in front and no transpose follows.

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<8x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    %[[D:.*]] = "s4tf.dot_general"(%arg0, %arg1) {lhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_batch = array<i64>, rhs_contract = array<i64: 0>} : (tensor<8x3xf32>, tensor<3x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    return %[[D]] : tensor<8x4xf32>
func.func @f(%v: tensor<3xf32>, %w: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.dot_general"(%w, %v) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 0>, rhs_contract = array<i64: 0>} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
