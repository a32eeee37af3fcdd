// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-vjp{strict=true}'
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-jvp{strict=true}'

// Differentiability checking in strict mode, in both modes: a piecewise-constant op (whose
// derivative, zero almost everywhere, is otherwise taken as zero: s4tf-jvp.mlir) on a path
// from a differentiated argument to a differentiated result is an error at that op, naming
// it and suggesting s4tf.stop_gradient; a result that depends on no differentiated argument
// is a warning at the function, and its derivative is zero.

// argmax is piecewise constant; casting the index back to a float does not change that.
func.func @argmax(%x: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  // expected-error @below {{'s4tf.argmax' is piecewise constant: the derivative through it is zero; wrap its operand in s4tf.stop_gradient(...) to say that this is intended}}
  %0 = "s4tf.argmax"(%x) {axis = 0 : i64, keepdims = false, dtype = i32} : (tensor<3xf32>) -> tensor<i32>
  %1 = "s4tf.cast"(%0) {dtype = f32} : (tensor<i32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A comparison used as a value (a 0/1 mask multiplied in).
func.func @comparison_as_value(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  // expected-error @below {{'s4tf.gt' is piecewise constant}}
  %0 = "s4tf.gt"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %1 = "s4tf.cast"(%0) {dtype = f32} : (tensor<3xi1>) -> tensor<3xf32>
  %2 = "s4tf.mul"(%1, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// A cast to an integer type; the cast back to f32 is fine, the first one is reported.
func.func @cast_to_integer(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  // expected-error @below {{'s4tf.cast' is piecewise constant}}
  %0 = "s4tf.cast"(%x) {dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
  %1 = "s4tf.cast"(%0) {dtype = f32} : (tensor<3xi32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// round is piecewise constant.
func.func @round(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.round"(%x) : (tensor<3xf32>) -> tensor<3xf32>  // expected-error {{'s4tf.round' is piecewise constant}}
  return %0 : tensor<3xf32>
}

// -----

// The same ops are fine off the active path: an argmax of an argument that is not
// differentiated, a comparison behind stop_gradient, and select's predicate (a mask that
// chooses values, as in relu or in the derivative rules of maximum and max_pool2d).
func.func @inactive(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.argmax"(%y) {axis = 0 : i64, keepdims = false, dtype = i32} : (tensor<3xf32>) -> tensor<i32>
  %1 = "s4tf.cast"(%0) {dtype = f32} : (tensor<i32>) -> tensor<f32>
  %2 = "s4tf.stop_gradient"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "s4tf.gt"(%2, %1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %4 = "s4tf.cast"(%3) {dtype = f32} : (tensor<3xi1>) -> tensor<3xf32>
  %5 = "s4tf.mul"(%4, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %6 = "s4tf.gt"(%x, %1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %7 = "s4tf.select"(%6, %5, %1) : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %7 : tensor<3xf32>
}

// -----

// Result #1 does not depend on %x: a warning, and the result's derivative is zero.
// expected-warning @below {{result #1 of '@independent' does not depend on any differentiated argument; its derivative is zero}}
func.func @independent(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Every non-differentiable op on an active path is reported, not only the first.
func.func @two_errors(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  // expected-error @below {{'s4tf.round' is piecewise constant}}
  %0 = "s4tf.round"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @below {{'s4tf.floor' is piecewise constant}}
  %1 = "s4tf.floor"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.add"(%0, %1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
