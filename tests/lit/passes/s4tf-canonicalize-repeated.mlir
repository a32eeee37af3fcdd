// RUN: s4tf-opt %s --split-input-file -p s4tf-canonicalize | filecheck %s

// A reduction of one value repeated (a splat constant, or a broadcast of a one-element
// constant) folds however large its operand, without materializing it: c * n for a sum,
// c for a mean, max or min, c ** n for a product. (Operands up to 65536 elements fold by
// NumPy, as every op does: s4tf-canonicalize.mlir.)

// CHECK-LABEL: func.func @sum_of_huge_zeros
// CHECK-NEXT:    return %arg0 : tensor<f32>
func.func @sum_of_huge_zeros(%a: tensor<f32>) -> tensor<f32> {
  %z = "s4tf.constant"() {value = dense<0.0> : tensor<1099511627776xf32>} : () -> tensor<1099511627776xf32>
  %s = "s4tf.reduce_sum"(%z) {axes = array<i64: 0>, keepdims = false} : (tensor<1099511627776xf32>) -> tensor<f32>
  %0 = "s4tf.add"(%s, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// sum(broadcast(c)) over the broadcast axis: c * n, as a splat of the result's shape
// (MLIR prints a large splat in hex: 0x4A400000 is 3.0 * 2^20).
// CHECK-LABEL: func.func @sum_of_a_broadcast_constant
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<0x4A400000> : tensor<1048576xf32>} : () -> tensor<1048576xf32>
// CHECK-NEXT:    return %[[C]] : tensor<1048576xf32>
func.func @sum_of_a_broadcast_constant() -> tensor<1048576xf32> {
  %c = "s4tf.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %b = "s4tf.broadcast_in_dim"(%c) {shape = array<i64: 1048576, 1048576>, broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<1048576x1048576xf32>
  %s = "s4tf.reduce_sum"(%b) {axes = array<i64: 0>, keepdims = false} : (tensor<1048576x1048576xf32>) -> tensor<1048576xf32>
  return %s : tensor<1048576xf32>
}

// -----

// Integer sums wrap as int32 arithmetic does: 7 * 2^32 is 0 in 32 bits, 7 * 2^20 is not.
// CHECK-LABEL: func.func @integer_sums_wrap
// CHECK-DAG:     "s4tf.constant"() {value = dense<0> : tensor<i32>}
// CHECK-DAG:     "s4tf.constant"() {value = dense<7340032> : tensor<i32>}
func.func @integer_sums_wrap() -> (tensor<i32>, tensor<i32>) {
  %big = "s4tf.constant"() {value = dense<7> : tensor<65536x65536xi32>} : () -> tensor<65536x65536xi32>
  %small = "s4tf.constant"() {value = dense<7> : tensor<1048576xi32>} : () -> tensor<1048576xi32>
  %0 = "s4tf.reduce_sum"(%big) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<65536x65536xi32>) -> tensor<i32>
  %1 = "s4tf.reduce_sum"(%small) {axes = array<i64: 0>, keepdims = false} : (tensor<1048576xi32>) -> tensor<i32>
  return %0, %1 : tensor<i32>, tensor<i32>
}

// -----

// Mean, max and min are the value itself (keepdims keeps the size-1 axes); a product is c ** n.
// CHECK-LABEL: func.func @mean_max_min_prod
// CHECK-DAG:     "s4tf.constant"() {value = dense<-2.500000e-01> : tensor<1x1xf32>}
// CHECK-DAG:     "s4tf.constant"() {value = dense<-2.500000e-01> : tensor<f32>}
// CHECK-DAG:     "s4tf.constant"() {value = dense<1.000000e+00> : tensor<f64>}
// CHECK-NOT:     s4tf.reduce
func.func @mean_max_min_prod() -> (tensor<1x1xf32>, tensor<f32>, tensor<f32>, tensor<f64>) {
  %x = "s4tf.constant"() {value = dense<-0.25> : tensor<100000x3xf32>} : () -> tensor<100000x3xf32>
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<100000xf64>} : () -> tensor<100000xf64>
  %0 = "s4tf.reduce_mean"(%x) {axes = array<i64: 0, 1>, keepdims = true} : (tensor<100000x3xf32>) -> tensor<1x1xf32>
  %1 = "s4tf.reduce_max"(%x) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<100000x3xf32>) -> tensor<f32>
  %2 = "s4tf.reduce_min"(%x) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<100000x3xf32>) -> tensor<f32>
  %3 = "s4tf.reduce_prod"(%one) {axes = array<i64: 0>, keepdims = false} : (tensor<100000xf64>) -> tensor<f64>
  return %0, %1, %2, %3 : tensor<1x1xf32>, tensor<f32>, tensor<f32>, tensor<f64>
}

// -----

// A reduction of a value that is not one constant stays.
// CHECK-LABEL: func.func @not_repeated
// CHECK:         "s4tf.reduce_sum"
func.func @not_repeated(%x: tensor<100000xf32>) -> tensor<f32> {
  %s = "s4tf.reduce_sum"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<100000xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
