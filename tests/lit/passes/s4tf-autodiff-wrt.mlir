// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p s4tf-jvp
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p s4tf-vjp
// RUN: not s4tf-opt %s --split-input-file -p s4tf-vjp 2>&1 | filecheck %s

// What s4tf-jvp and s4tf-vjp cannot differentiate is an error at the function, in both
// modes: an s4tf.wrt that does not list distinct float arguments by index, a function
// without a body or with other than static tensor types, a custom rule that names no
// function. The tool exits 1 with one located line per error, and no Python traceback.

// CHECK-NOT: Traceback
// CHECK: s4tf-autodiff-wrt.mlir:[[# @LINE + 2]]:1: error: 's4tf.wrt' of '@out_of_range' names argument 1, but '@out_of_range' has 1 argument(s)
// expected-error @below {{'s4tf.wrt' of '@out_of_range' names argument 1, but '@out_of_range' has 1 argument(s)}}
func.func @out_of_range(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.wrt' of '@negative' names argument -1, but '@negative' has 1 argument(s)}}
func.func @negative(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: -1>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.wrt' of '@duplicate' names argument 0 twice}}
func.func @duplicate(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0, 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.wrt' of '@not_an_array' must list argument indices as array<i64: ...>, not 0 : i64}}
func.func @not_an_array(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = 0 : i64} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An array of unsigned integers, which MLIR's Python bindings cannot read.
// expected-error @below {{'s4tf.wrt' of '@unsigned' must list argument indices as array<i64: ...>, not an array of another element type}}
func.func @unsigned(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<ui8: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.wrt' of '@integer' names argument 1 of type tensor<3xi32>: only float arguments have derivatives}}
func.func @integer(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{cannot differentiate '@dynamic': its argument #0 has type tensor<?xf32>; differentiation needs tensors of static shape}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A callee without a body is reported at its declaration.
// expected-error @below {{cannot differentiate '@external': it has no body (or more than one block)}}
func.func private @external(%x: tensor<3xf32>) -> tensor<3xf32>
func.func @calls_external(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = func.call @external(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.custom_jvp' of '@bad_rule' must name a function (@rule), not "rule"}}
func.func @bad_rule(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>, s4tf.custom_jvp = "rule"} {
  return %x : tensor<3xf32>
}

// -----

// expected-error @below {{'s4tf.custom_jvp' of '@missing_rule' names '@nothing', which is not a defined function}}
func.func @missing_rule(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>, s4tf.custom_jvp = @nothing} {
  return %x : tensor<3xf32>
}

// -----

// A well-formed mark, for contrast: any subset of the float arguments, in any order.
func.func @valid(%x: tensor<3xf32>, %n: tensor<3xi32>, %y: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 2, 0>} {
  %0 = "s4tf.mul"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
