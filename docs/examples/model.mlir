// The staged module of docs/examples/quickstart.py's `predict`, as s4tf-opt reads it.
func.func @predict(%w: tensor<3x2xf32>, %b: tensor<2xf32>, %x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.dot_general"(%x, %w) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = "s4tf.add"(%0, %b) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %2 = "s4tf.add"(%1, %zero) : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %3 = "s4tf.tanh"(%2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}
