// RUN: s4tf-opt %s --split-input-file -p s4tf-canonicalize | filecheck %s

// s4tf-canonicalize folds ops whose operands are constants, applies algebraic identities
// (x + 0, x * 1, neg(neg(x)), reshape chains, no-op reshapes/transposes/casts) and erases
// unused pure ops, until nothing changes.

// -- constant folding ---------------------------------------------------------------------

// CHECK-LABEL: func.func @fold_arithmetic_chain
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<[1.600000e+01, 2.500000e+01]> : tensor<2xf32>} : () -> tensor<2xf32>
// CHECK-NEXT:    return %[[C]] : tensor<2xf32>
func.func @fold_arithmetic_chain() -> tensor<2xf32> {
  %a = "s4tf.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = "s4tf.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%a, %b) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = "s4tf.mul"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// Integer division truncates toward zero; comparisons fold to i1 constants.
// CHECK-LABEL: func.func @fold_integer_and_compare
// CHECK-NEXT:    %[[Q:.*]] = "s4tf.constant"() {value = dense<[-3, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
// CHECK-NEXT:    %[[P:.*]] = "s4tf.constant"() {value = dense<[true, false]> : tensor<2xi1>} : () -> tensor<2xi1>
// CHECK-NEXT:    return %[[Q]], %[[P]] : tensor<2xi32>, tensor<2xi1>
func.func @fold_integer_and_compare() -> (tensor<2xi32>, tensor<2xi1>) {
  %i = "s4tf.constant"() {value = dense<[-7, 7]> : tensor<2xi32>} : () -> tensor<2xi32>
  %two = "s4tf.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %0 = "s4tf.div"(%i, %two) : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %1 = "s4tf.lt"(%0, %two) : (tensor<2xi32>, tensor<i32>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi32>, tensor<2xi1>
}

// -----

// Ops with attributes fold too (reduce, transpose, reshape, cast).
// CHECK-LABEL: func.func @fold_with_attributes
// CHECK-NEXT:    %[[S:.*]] = "s4tf.constant"() {value = dense<[3, 7]> : tensor<2xi32>} : () -> tensor<2xi32>
// CHECK-NEXT:    %[[T:.*]] = "s4tf.constant"() {value = dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
// CHECK-NEXT:    return %[[S]], %[[T]]
func.func @fold_with_attributes() -> (tensor<2xi32>, tensor<2x2xf32>) {
  %m = "s4tf.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "s4tf.reshape"(%m) {shape = array<i64: 2, 2>} : (tensor<4xf32>) -> tensor<2x2xf32>
  %1 = "s4tf.cast"(%0) {dtype = i32} : (tensor<2x2xf32>) -> tensor<2x2xi32>
  %2 = "s4tf.reduce_sum"(%1) {axes = array<i64: 1>, keepdims = false} : (tensor<2x2xi32>) -> tensor<2xi32>
  %3 = "s4tf.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2, %3 : tensor<2xi32>, tensor<2x2xf32>
}

// -----

// Results of more than 2**16 elements are not folded: the op stays.
// CHECK-LABEL: func.func @no_fold_large
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<1.000000e+00> : tensor<300x300xf32>}
// CHECK-NEXT:    %[[A:.*]] = "s4tf.add"(%[[C]], %[[C]])
// CHECK-NEXT:    return %[[A]]
func.func @no_fold_large() -> tensor<300x300xf32> {
  %big = "s4tf.constant"() {value = dense<1.0> : tensor<300x300xf32>} : () -> tensor<300x300xf32>
  %0 = "s4tf.add"(%big, %big) : (tensor<300x300xf32>, tensor<300x300xf32>) -> tensor<300x300xf32>
  return %0 : tensor<300x300xf32>
}

// -----

// -- algebraic identities -----------------------------------------------------------------

// CHECK-LABEL: func.func @neutral_elements
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>)
// CHECK-NOT:     s4tf.
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] : tensor<3xf32>
func.func @neutral_elements(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = "s4tf.add"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = "s4tf.add"(%zero, %x) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.sub"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = "s4tf.mul"(%x, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.mul"(%one, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %5 = "s4tf.div"(%x, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %6 = "s4tf.pow"(%x, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Not identities: 0 - x, 1 / x, x * 0 (NaN * 0 is NaN), and x + 0 that broadcasts x.
// CHECK-LABEL: func.func @not_identities
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-DAG:     %[[ZERO:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK-DAG:     %[[ONE:.*]] = "s4tf.constant"() {value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK:         %[[A:.*]] = "s4tf.sub"(%[[ZERO]], %[[X]])
// CHECK-NEXT:    %[[B:.*]] = "s4tf.div"(%[[ONE]], %[[X]])
// CHECK-NEXT:    %[[C:.*]] = "s4tf.mul"(%[[X]], %[[ZERO]])
// CHECK-NEXT:    %[[D:.*]] = "s4tf.add"(%[[S]], %[[ZERO]]) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @not_identities(%x: tensor<3xf32>, %s: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = "s4tf.sub"(%zero, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.div"(%one, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.mul"(%x, %zero) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = "s4tf.add"(%s, %zero) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @double_negation
// CHECK-SAME:    (%[[X:.*]]: tensor<3xi32>)
// CHECK-NEXT:    %[[N:.*]] = "s4tf.neg"(%[[X]])
// CHECK-NEXT:    return %[[X]], %[[N]]
func.func @double_negation(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = "s4tf.neg"(%x) : (tensor<3xi32>) -> tensor<3xi32>
  %1 = "s4tf.neg"(%0) : (tensor<3xi32>) -> tensor<3xi32>
  %2 = "s4tf.neg"(%1) : (tensor<3xi32>) -> tensor<3xi32>
  %3 = "s4tf.neg"(%2) : (tensor<3xi32>) -> tensor<3xi32>
  %4 = "s4tf.neg"(%3) : (tensor<3xi32>) -> tensor<3xi32>
  return %3, %4 : tensor<3xi32>, tensor<3xi32>
}

// -----

// reshape(reshape(reshape(x))) is one reshape of x; a reshape back to x's shape is x.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT:    %[[R:.*]] = "s4tf.reshape"(%[[X]]) {shape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    return %[[R]], %[[X]] : tensor<3x4xf32>, tensor<2x6xf32>
func.func @reshape_chain(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
  %0 = "s4tf.reshape"(%x) {shape = array<i64: 12>} : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = "s4tf.reshape"(%0) {shape = array<i64: 4, 3>} : (tensor<12xf32>) -> tensor<4x3xf32>
  %2 = "s4tf.reshape"(%1) {shape = array<i64: 3, 4>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %3 = "s4tf.reshape"(%2) {shape = array<i64: 2, 6>} : (tensor<3x4xf32>) -> tensor<2x6xf32>
  return %2, %3 : tensor<3x4xf32>, tensor<2x6xf32>
}

// -----

// Identity permutations, same-dtype casts, full slices, same-shape broadcasts and
// one-operand concatenates are x; a real transpose stays.
// CHECK-LABEL: func.func @no_op_shape_ops
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[T:.*]] = "s4tf.transpose"(%[[X]]) {permutation = array<i64: 1, 0>}
// CHECK-NEXT:    return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[T]] :
func.func @no_op_shape_ops(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = "s4tf.transpose"(%x) {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "s4tf.cast"(%x) {dtype = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "s4tf.slice"(%x) {start = array<i64: 0, 0>, limit = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "s4tf.broadcast_in_dim"(%x) {shape = array<i64: 2, 3>, broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "s4tf.concatenate"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "s4tf.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// -- dead code ------------------------------------------------------------------------------

// Unused pure ops go, also when they only feed other unused ops; func.call stays.
// CHECK-LABEL: func.func @dead_code
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT:    call @callee(%[[X]])
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[X]])
// CHECK-NEXT:    return %[[E]]
// CHECK-NOT:     s4tf.
// CHECK-LABEL: func.func private @callee
func.func @dead_code(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.tanh"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.mul"(%0, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.reduce_sum"(%1) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  %3 = func.call @callee(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %5 = "s4tf.log"(%4) : (tensor<3xf32>) -> tensor<3xf32>
  return %4 : tensor<3xf32>
}
func.func private @callee(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// Every function of the module is canonicalized; identities expose folds, folds expose
// dead constants.
// CHECK-LABEL: func.func @first
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<-2.000000e+00> : tensor<f32>}
// CHECK-NEXT:    return %[[C]]
// CHECK-LABEL: func.func @second
// CHECK-SAME:    (%[[Y:.*]]: tensor<2xf32>)
// CHECK-NEXT:    return %[[Y]]
func.func @first() -> tensor<f32> {
  %two = "s4tf.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%two, %zero) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = "s4tf.neg"(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @second(%y: tensor<2xf32>) -> tensor<2xf32> {
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.mul"(%y, %one) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = "s4tf.neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "s4tf.neg"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// Huge splats are read from their one element: x + 0 is x, and a reduction of 10^10
// ones folds to 1e10 without materializing them (s4tf-canonicalize-repeated.mlir).
// CHECK-LABEL: func.func @huge_splats
// CHECK-SAME:    (%[[X:.*]]: tensor<100000x100000xf32>)
// CHECK-NEXT:    %[[SUM:.*]] = "s4tf.constant"() {value = dense<1.000000e+10> : tensor<f32>}
// CHECK-NEXT:    return %[[X]], %[[SUM]]
func.func @huge_splats(%x: tensor<100000x100000xf32>) -> (tensor<100000x100000xf32>, tensor<f32>) {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<100000x100000xf32>} : () -> tensor<100000x100000xf32>
  %ones = "s4tf.constant"() {value = dense<1.0> : tensor<100000x100000xf32>} : () -> tensor<100000x100000xf32>
  %0 = "s4tf.add"(%x, %zero) : (tensor<100000x100000xf32>, tensor<100000x100000xf32>) -> tensor<100000x100000xf32>
  %1 = "s4tf.reduce_sum"(%ones) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<100000x100000xf32>) -> tensor<f32>
  return %0, %1 : tensor<100000x100000xf32>, tensor<f32>
}
