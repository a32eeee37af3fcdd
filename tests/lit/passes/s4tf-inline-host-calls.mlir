// RUN: s4tf-opt %s --split-input-file -p s4tf-inline-host-calls | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p s4tf-inline-host-calls,s4tf-partition | filecheck %s --check-prefix=PART
// RUN: s4tf-opt %s --split-input-file -p s4tf-inline-host-calls | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// What vmap builds: @step calls @vmap_f, which calls @f_batched, which calls the host.
// Both calls are inlined; the functions that called the host and that nothing calls any
// more (@f_batched, @vmap_f, and the unbatched @f the batched one was built from) are
// erased. @square makes no host call: its call stays, and so does it.

// CHECK-LABEL: func.func @step(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%arg0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[E]]) {callee = "normalize", result_types = [tensor<4x3xf32>]}
// CHECK-NEXT:    %[[S:.*]] = call @square(%[[H]]) : (tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[S]] : tensor<4x3xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @square(
// CHECK-NOT:   func.func
// CHECK:       }
// CHECK-NOT:   func.func

// PART-LABEL: func.func @step(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {s4tf.host_program} {
// PART-NEXT:    %[[D0:.*]] = call @step_device_0(%arg0)
// PART-NEXT:    %[[R:.*]] = "s4tf.recv"(%[[D0]])
// PART-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[R]]) {callee = "normalize"
// PART-NEXT:    %[[S:.*]] = "s4tf.send"(%[[H]])
// PART-NEXT:    %[[D1:.*]] = call @step_device_1(%[[S]])
// PART-NEXT:    return %[[D1]]

// VALID: func.func @step

func.func @step(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = call @vmap_f(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func private @vmap_f(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = call @f_batched(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.host_call"(%0) {callee = "normalize", result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func private @f_batched(%x: tensor<4x3xf32>) -> tensor<4x3xf32> attributes {s4tf.batch_size = 4 : i64, s4tf.batched = array<i64: 0>, s4tf.batched_of = @f} {
  %0 = "s4tf.exp"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = "s4tf.host_call"(%0) {callee = "normalize", result_types = [tensor<4x3xf32>]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = call @square(%1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}
func.func private @square(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "s4tf.mul"(%x, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A call inside control flow stays, and so does its callee: s4tf-partition reports it.
// A public function that calls the host is kept even where nothing calls it.

// CHECK-LABEL: func.func @branch(
// CHECK:         "s4tf.if"
// CHECK:         call @helper(
// CHECK-LABEL: func.func @helper(
// CHECK:         "s4tf.host_call"

func.func @branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<4xf32>):
    // expected-error @below {{'helper' calls host function 'cumulative' at line 79; it is called inside 's4tf.if', and an extracted function calls s4tf.host at its top level, outside control flow}}
    %1 = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %1 : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A recursive function is not inlined (it would not end): s4tf-partition reports its call.

// CHECK-LABEL: func.func @loop(
// CHECK:         call @again(
// CHECK-LABEL: func.func private @again(
// CHECK:         "s4tf.host_call"
// CHECK:         call @again(

func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'again' calls host function 'cumulative'}}
  %0 = call @again(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @again(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{'again' calls host function 'cumulative'}}
  %1 = call @again(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
