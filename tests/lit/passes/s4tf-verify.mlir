// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p s4tf-verify | filecheck %s
// RUN: not s4tf-opt %s --split-input-file -p s4tf-verify 2>&1 | filecheck %s --check-prefix=PLAIN

// s4tf-verify checks every s4tf op against its definition: the op exists, has the right
// number of operands, its attributes are present and of the right kind, and its result
// types are the ones inferred from the operands. Well-formed chunks pass unchanged.

// CHECK-LABEL: func.func @well_formed
// CHECK-NEXT:    "s4tf.add"(%arg0, %arg1) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    "s4tf.lt"(%{{.*}}, %arg1) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
// CHECK-NEXT:    "s4tf.reduce_sum"(%{{.*}}) {axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    "s4tf.cast"(%{{.*}}) {dtype = i32} : (tensor<4x1xf32>) -> tensor<4x1xi32>
// CHECK-NEXT:    "s4tf.concatenate"(%arg1, %arg1, %arg1) {axis = 0 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<9xf32>
// CHECK-NEXT:    return
func.func @well_formed(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> (tensor<4x3xi1>, tensor<4x1xi32>, tensor<9xf32>) {
  %0 = "s4tf.add"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = "s4tf.lt"(%0, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %2 = "s4tf.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %3 = "s4tf.cast"(%2) {dtype = i32} : (tensor<4x1xf32>) -> tensor<4x1xi32>
  %4 = "s4tf.concatenate"(%y, %y, %y) {axis = 0 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<9xf32>
  return %1, %3, %4 : tensor<4x3xi1>, tensor<4x1xi32>, tensor<9xf32>
}

// -----

// Without --verify-diagnostics, errors are printed as file:line:col (column 8: the op's '=').
// PLAIN: s4tf-verify.mlir:[[# @LINE + 3]]:8: error: 's4tf.add' result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>
func.func @wrong_result_shape(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @below {{'s4tf.add' result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>}}
  %0 = "s4tf.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @wrong_result_dtype(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'s4tf.lt' result type(s) tensor<2xf32> do not match the inferred tensor<2xi1>}}
  %0 = "s4tf.lt"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_result_count(%x: tensor<2xf32>) {
  // expected-error @below {{'s4tf.neg' result type(s) none do not match the inferred tensor<2xf32>}}
  "s4tf.neg"(%x) : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @unknown_attribute(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @below {{'s4tf.neg' has no attribute(s) bogus (its attributes: none); an attribute of another kind needs a dialect prefix, e.g. 's4tf.bogus'}}
  %0 = "s4tf.neg"(%x) {bogus = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @prefixed_attributes_are_allowed(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-LABEL: func.func @prefixed_attributes_are_allowed
  // CHECK: "s4tf.neg"(%arg0) {my.note = "kept"}
  %0 = "s4tf.neg"(%x) {my.note = "kept"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @attribute_of_wrong_kind(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @below {{'s4tf.reduce_sum' attribute 'axes' must be array of i64}}
  %0 = "s4tf.reduce_sum"(%x) {axes = 1 : i64, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An array of another element type than i64: MLIR's Python bindings cannot even read
// array<ui8: ...>, which is still a wrong kind, not an internal error.
func.func @array_of_unsigned_elements(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{'s4tf.transpose' attribute 'permutation' must be array of i64}}
  %0 = "s4tf.transpose"(%x) {permutation = array<ui8: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// MLIR takes the unregistered s4tf.sin for a possible terminator: the missing return is
// s4tf-verify's to report.
func.func @return_missing(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'s4tf.sin' ends its block, but s4tf ops are not terminators: the block's return is missing}}
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
}

// -----

// An operand of an element type s4tf has no dtype for (the result of an op that failed).
func.func @unsigned_operand(%x: tensor<ui8>) -> tensor<f32> {
  // expected-error @below {{'s4tf.cast' operands: unknown dtype 'ui8'}}
  %0 = "s4tf.cast"(%x) {dtype = f32} : (tensor<ui8>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Ops whose shape rule computes with sizes declare static_shapes.
func.func @dynamic_shape(%x: tensor<2x?xf32>) -> tensor<6xf32> {
  // expected-error @below {{'s4tf.reshape' does not take operands of dynamic shape (tensor<2x?xf32>)}}
  %0 = "s4tf.reshape"(%x) {shape = array<i64: 6>} : (tensor<2x?xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @dtype_attribute_not_a_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @below {{'s4tf.cast' attribute 'dtype' must be element type}}
  %0 = "s4tf.cast"(%x) {dtype = 3 : i64} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @constant_value_not_dense(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{'s4tf.constant' attribute 'value' must be dense elements}}
  %0 = "s4tf.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @attribute_value_out_of_range(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{permutation [0, 0] is not a permutation of 2 axes}}
  %0 = "s4tf.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @missing_attribute(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @below {{'s4tf.reduce_sum' needs attribute(s) keepdims}}
  %0 = "s4tf.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_attributes_missing(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @below {{'s4tf.argmax' needs attribute(s) axis, dtype, keepdims}}
  %0 = "s4tf.argmax"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @unknown_op(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{unknown op 's4tf.frobnicate'}}
  %0 = "s4tf.frobnicate"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @too_few_operands(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{s4tf.add takes 2 operand(s) (lhs, rhs), got 1}}
  %0 = "s4tf.add"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @too_many_operands(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{s4tf.select takes 3 operand(s) (pred, on_true, on_false), got 4}}
  %0 = "s4tf.select"(%x, %x, %x, %x) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @variadic_without_operands() -> tensor<0xf32> {
  // expected-error @below {{s4tf.concatenate needs at least one operand}}
  %0 = "s4tf.concatenate"() {axis = 0 : i64} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @int_operand_to_float_op(%x: tensor<4x3xi32>) -> tensor<4x3xi32> {
  // expected-error @below {{s4tf.exp: operand dtype i32 is not a float type}}
  %0 = "s4tf.exp"(%x) : (tensor<4x3xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

func.func @int_operand_to_mean(%x: tensor<4x3xi32>) -> tensor<4xi32> {
  // expected-error @below {{s4tf.reduce_mean: mean needs a float operand, got i32}}
  %0 = "s4tf.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @float_operand_to_logical_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{s4tf.and: operand dtype f32 is not an integer or bool type}}
  %0 = "s4tf.and"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mixed_dtypes(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @below {{s4tf.mul: operands must have one dtype, got f32, i32}}
  %0 = "s4tf.mul"(%x, %y) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shapes_do_not_broadcast(%x: tensor<4x3xf32>, %y: tensor<4xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{s4tf.sub: shapes (4, 3) and (4,) do not broadcast}}
  %0 = "s4tf.sub"(%x, %y) : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @predicate_not_bool(%p: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{s4tf.select: predicate must be i1, got f32}}
  %0 = "s4tf.select"(%p, %x, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @contracting_sizes_differ(%a: tensor<4x3xf32>, %b: tensor<2x5xf32>) -> tensor<4x5xf32> {
  // expected-error @below {{contracting axis 1 of lhs has size 3, axis 0 of rhs has size 2}}
  %0 = "s4tf.dot_general"(%a, %b) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<4x3xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @conv_channels_differ(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @below {{input (1, 8, 8, 3) has 3 channels but filter (3, 3, 2, 4) expects 2 input channels}}
  %0 = "s4tf.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @unranked_operand(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @below {{'s4tf.neg' operands must be ranked tensors}}
  %0 = "s4tf.neg"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Rules that need static shapes say so, rather than failing inside.
func.func @dynamic_slice(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @below {{'s4tf.slice' does not take operands of dynamic shape (tensor<?x3xf32>)}}
  %0 = "s4tf.slice"(%x) {start = array<i64: 0, 0>, limit = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Every malformed op is reported, not only the first; ops nested in regions are checked too.
func.func @several_errors(%x: tensor<4xi32>, %y: tensor<4xf32>) -> tensor<4xi32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>  // expected-error {{operand dtype i32 is not a float type}}
  %1 = "s4tf.neg"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  // expected-error @+1 {{'s4tf.abs' result type(s) tensor<4xf32> do not match the inferred tensor<4xi32>}}
  %2 = "s4tf.abs"(%1) : (tensor<4xi32>) -> tensor<4xf32>
  %3 = scf.execute_region -> tensor<4xf32> {
    // expected-error @below {{unknown op 's4tf.frobnicate'}}
    %4 = "s4tf.frobnicate"(%y) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %4 : tensor<4xf32>
  }
  return %1 : tensor<4xi32>
}

// -----

// A splat constant is checked from its one element, never materialized: this one would
// take 37 GiB as an array.
// CHECK-LABEL: func.func @huge_splat
// CHECK:         "s4tf.constant"() {value = dense<1.000000e+00> : tensor<100000x100000xf32>}
// CHECK:         "s4tf.neg"
func.func @huge_splat() -> tensor<100000x100000xf32> {
  %0 = "s4tf.constant"() {value = dense<1.0> : tensor<100000x100000xf32>} : () -> tensor<100000x100000xf32>
  %1 = "s4tf.neg"(%0) : (tensor<100000x100000xf32>) -> tensor<100000x100000xf32>
  return %1 : tensor<100000x100000xf32>
}

// -----

func.func @huge_splat_of_the_wrong_type() -> tensor<100000x100000xi32> {
  // expected-error @below {{'s4tf.constant' result type(s) tensor<100000x100000xi32> do not match the inferred tensor<100000x100000xf32>}}
  %0 = "s4tf.constant"() {value = dense<1.0> : tensor<100000x100000xf32>} : () -> tensor<100000x100000xi32>
  return %0 : tensor<100000x100000xi32>
}
