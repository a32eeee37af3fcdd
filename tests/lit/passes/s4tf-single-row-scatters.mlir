// RUN: s4tf-opt %s --split-input-file -p s4tf-single-row-scatters | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-single-row-scatters,s4tf-verify | filecheck %s --check-prefix=VALID

// s4tf-single-row-scatters: a `set` scatter of one full row along axis 0 (scan's
// `ys.at[i].set(y)`, and reverse mode's zeroing of that row of the cotangent) becomes a
// row write at the clamped coordinate, of the update where the coordinate is in range
// and of the row already there otherwise. Numbers: tests/passes/test_single_row_scatters.py.

// VALID-NOT: error

// CHECK-LABEL: func.func @one_coordinate
// CHECK-NEXT:    %[[I:.*]] = "s4tf.reshape"(%arg1) {shape = array<i64>} : (tensor<1xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[LOW:.*]] = "s4tf.constant"() {value = dense<0> : tensor<i32>}
// CHECK-NEXT:    %[[HIGH:.*]] = "s4tf.constant"() {value = dense<63> : tensor<i32>}
// CHECK-NEXT:    %[[UP:.*]] = "s4tf.maximum"(%[[I]], %[[LOW]])
// CHECK-NEXT:    %[[ROW:.*]] = "s4tf.minimum"(%[[UP]], %[[HIGH]])
// CHECK-NEXT:    %[[INSIDE:.*]] = "s4tf.eq"(%[[I]], %[[ROW]])
// CHECK-NEXT:    %[[OLD:.*]] = "s4tf.tape_read"(%arg0, %[[ROW]]) : (tensor<64x32xf32>, tensor<i32>) -> tensor<32xf32>
// CHECK-NEXT:    %[[NEW:.*]] = "s4tf.select"(%[[INSIDE]], %arg2, %[[OLD]])
// CHECK-NEXT:    %[[W:.*]] = "s4tf.tape_write"(%arg0, %[[ROW]], %[[NEW]]) : (tensor<64x32xf32>, tensor<i32>, tensor<32xf32>) -> tensor<64x32xf32>
// CHECK-NEXT:    return %[[W]]
// CHECK-NOT:     s4tf.scatter
func.func @one_coordinate(%x: tensor<64x32xf32>, %i: tensor<1xi32>, %u: tensor<32xf32>) -> tensor<64x32xf32> {
  %0 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "set"} : (tensor<64x32xf32>, tensor<1xi32>, tensor<32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// A scan's output row (`s4tf.scan_output`: the loop's step, in range): the update alone,
// no row read.

// CHECK-LABEL: func.func @scan_output
// CHECK:         %[[ROW:.*]] = "s4tf.minimum"(
// CHECK-NEXT:    %[[W:.*]] = "s4tf.tape_write"(%arg0, %[[ROW]], %arg2) : (tensor<64x32xf32>, tensor<i32>, tensor<32xf32>) -> tensor<64x32xf32>
// CHECK-NEXT:    return %[[W]]
// CHECK-NOT:     s4tf.tape_read
func.func @scan_output(%x: tensor<64x32xf32>, %i: tensor<1xi32>, %u: tensor<32xf32>) -> tensor<64x32xf32> {
  %0 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "set", s4tf.scan_output} : (tensor<64x32xf32>, tensor<1xi32>, tensor<32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// One index row with a leading axis of 1: the update's leading 1 is reshaped away.

// CHECK-LABEL: func.func @one_index_row
// CHECK:         %[[ROW:.*]] = "s4tf.reshape"(%arg2) {shape = array<i64: 2, 3>} : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
// CHECK:         "s4tf.select"(%{{.*}}, %[[ROW]], %{{.*}})
// CHECK:         "s4tf.tape_write"(%arg0,
// CHECK-NOT:     s4tf.scatter
func.func @one_index_row(%x: tensor<5x2x3xf32>, %i: tensor<1x1xi32>, %u: tensor<1x2x3xf32>) -> tensor<5x2x3xf32> {
  %0 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "set"} : (tensor<5x2x3xf32>, tensor<1x1xi32>, tensor<1x2x3xf32>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}

// -----

// An `add` of one row (reverse mode of `xs[i]`) writes the row plus the update.

// CHECK-LABEL: func.func @one_row_added
// CHECK:         %[[INSIDE:.*]] = "s4tf.eq"
// CHECK-NEXT:    %[[OLD:.*]] = "s4tf.tape_read"(%arg0, %[[ROW:.*]]) : (tensor<5x3xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[OLD]], %arg2)
// CHECK-NEXT:    %[[NEW:.*]] = "s4tf.select"(%[[INSIDE]], %[[SUM]], %[[OLD]])
// CHECK-NEXT:    "s4tf.tape_write"(%arg0, %[[ROW]], %[[NEW]])
// CHECK-NOT:     s4tf.scatter
func.func @one_row_added(%x: tensor<5x3xf32>, %i: tensor<1xi32>, %u: tensor<3xf32>) -> tensor<5x3xf32> {
  %0 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Left alone: two index rows (they may collide), another kind, another axis, a
// coordinate with two axes.

// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: "s4tf.scatter"
// CHECK-NOT:     s4tf.tape_write
func.func @left_alone(%x: tensor<5x3xf32>, %two: tensor<2x1xi32>, %rows: tensor<2x3xf32>, %i: tensor<1xi32>, %u: tensor<3xf32>,
                      %v: tensor<5xf32>, %ij: tensor<2xi32>, %s: tensor<f32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
  %0 = "s4tf.scatter"(%x, %two, %rows) {axes = array<i64: 0>, kind = "set"} : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  %2 = "s4tf.scatter"(%x, %i, %v) {axes = array<i64: 1>, kind = "set"} : (tensor<5x3xf32>, tensor<1xi32>, tensor<5xf32>) -> tensor<5x3xf32>
  %3 = "s4tf.scatter"(%x, %ij, %s) {axes = array<i64: 0, 1>, kind = "set"} : (tensor<5x3xf32>, tensor<2xi32>, tensor<f32>) -> tensor<5x3xf32>
  %4 = "s4tf.scatter"(%3, %i, %u) {axes = array<i64: 0>, kind = "max"} : (tensor<5x3xf32>, tensor<1xi32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %0, %2, %4 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
}
