// RUN: s4tf-opt %s -p 's4tf-batch{function=f batched=0,1 size=4}' | filecheck %s
// RUN: s4tf-opt %s -p 's4tf-batch{function=f batched=0,1 size=4}' | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// A gather with both its operand and its coordinates batched reads each example's own
// slice: every coordinate row gets its example's number as a first coordinate, built
// element by element (the example's iota where the column is 0, the coordinate c - 1 at
// column c), not by a concatenate (IREE 3.13 miscompiled two such concatenates in one loop:
// tests/lit/iree_reproducers/concatenate_shared_prefix.mlir). Numbers:
// tests/control_flow/test_loop_programs.py, tests/batching/test_batching_rules.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @f_batched(%arg0: tensor<4x5x3xf32>, %arg1: tensor<4x2x1xi32>) -> tensor<4x2x3xf32>
// CHECK-NOT:     s4tf.concatenate
// CHECK:         %[[COLUMN:.*]] = "s4tf.iota"() {dimension = 2 : i64, dtype = i32, shape = array<i64: 4, 2, 2>}
// CHECK:         %[[LANE:.*]] = "s4tf.iota"() {dimension = 0 : i64, dtype = i32, shape = array<i64: 4, 2, 2>}
// CHECK:         %[[FIRST:.*]] = "s4tf.slice"(%arg1)
// CHECK:         %[[IS1:.*]] = "s4tf.eq"(%[[COLUMN]], %{{.*}})
// CHECK:         %[[COORDINATES:.*]] = "s4tf.select"(%[[IS1]], %{{.*}}, %[[LANE]])
// CHECK-NOT:     s4tf.concatenate
// CHECK:         "s4tf.gather"(%arg0, %[[COORDINATES]]) {axes = array<i64: 0, 1>} : (tensor<4x5x3xf32>, tensor<4x2x2xi32>) -> tensor<4x2x3xf32>
func.func @f(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0 = "s4tf.gather"(%x, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
