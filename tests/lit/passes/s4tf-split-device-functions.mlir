// RUN: s4tf-opt %s --split-input-file -p s4tf-partition,s4tf-split-device-functions | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-partition,s4tf-split-device-functions | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// A step whose two host calls receive results of one device function (as a data-parallel
// step all-reduces two gradient buckets): the device function is split so that the first
// host call waits only for the ops it needs (the tanh), while the second part (the exp)
// runs. The call of @backward is inlined first; the constant is copied into each part
// that uses it.

func.func private @backward(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = "s4tf.constant"() {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.tanh"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.mul"(%0, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = "s4tf.exp"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "s4tf.mul"(%2, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[P0:.*]] = call @step_device_0_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[P1:.*]] = call @step_device_0_1(%[[P0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[LATE:.*]] = "s4tf.recv"(%[[P0]])
// CHECK-NEXT:    "s4tf.host_call"(%[[LATE]]) {callee = "reduce_late"
// CHECK-NEXT:    %[[EARLY:.*]] = "s4tf.recv"(%[[P1]])
// CHECK-NEXT:    "s4tf.host_call"(%[[EARLY]]) {callee = "reduce_early"
// CHECK:       func.func private @step_device_0_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK-NEXT:    %[[T:.*]] = "s4tf.tanh"(%arg0)
// CHECK-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[T]], %[[C]])
// CHECK-NEXT:    return %[[M]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @step_device_0_1(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[C2:.*]] = "s4tf.constant"() {value = dense<2.000000e+00> : tensor<f32>}
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%arg0)
// CHECK-NEXT:    %[[M2:.*]] = "s4tf.mul"(%[[E]], %[[C2]])
// CHECK-NEXT:    return %[[M2]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   @step_device_0(

// VALID-LABEL: func.func @step
// VALID: func.func private @step_device_0_1

func.func @step(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %g:2 = call @backward(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %late = "s4tf.host_call"(%g#0) {callee = "reduce_late", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %early = "s4tf.host_call"(%g#1) {callee = "reduce_early", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %late, %early : tensor<4xf32>, tensor<4xf32>
}

// -----

// One host call needs all the device work: nothing to split.

// CHECK-LABEL: func.func @log(
// CHECK-NEXT:    call @log_device_0(%arg0)
// CHECK-NOT:     call @
// CHECK:       func.func private @log_device_0(
// CHECK-NOT:   @log_device_0_

// VALID-LABEL: func.func @log(

func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "s4tf.host_call"(%0) {callee = "log", result_types = []} : (tensor<4xf32>) -> ()
  return %0 : tensor<4xf32>
}

// -----

// A computation made twice (a forward pass traced for the loss and again for the
// accuracy) is merged before splitting: the second part reads the first part's tanh
// instead of computing it again, which IREE could no longer merge across the parts.

// CHECK-LABEL: func.func @twice(
// CHECK:       func.func private @twice_device_0_0(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[T:.*]] = "s4tf.tanh"(%arg0)
// CHECK-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[T]])
// CHECK-NEXT:    return %[[T]], %[[E]]
// CHECK:       func.func private @twice_device_0_1(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    "s4tf.log"(%arg0)
// CHECK-NOT:     s4tf.tanh

func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "s4tf.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "s4tf.log"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %a = "s4tf.host_call"(%1) {callee = "first", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %b = "s4tf.host_call"(%3) {callee = "second", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
