// RUN: s4tf-opt %s --split-input-file -p s4tf-partition | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p 's4tf-partition{warn_transfers=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: s4tf-opt %s --split-input-file -p s4tf-partition --warn-transfers 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: s4tf-opt %s --split-input-file -p s4tf-partition | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID
// RUN: s4tf-opt %s --split-input-file -p s4tf-canonicalize,s4tf-partition | filecheck %s --check-prefix=CANON

// The issue's step: device work, a receive for two host calls, a send, device work again.
// Device work that needs no host result (the tanh) joins the first device function; the
// constant is evaluated by the host for cpu_solver and copied into the device function
// that uses it, never sent.

// CHECK-LABEL: func.func @step(%arg0: tensor<3x4xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"() {value = dense<2.000000e+00> : tensor<2x4xf32>}
// CHECK-NEXT:    %[[D0:.*]]:2 = call @step_device_0(%arg1, %arg0) : (tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT:    %[[LOGITS:.*]] = "s4tf.recv"(%[[D0]]#0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    "s4tf.host_call"(%[[LOGITS]]) {callee = "log_histogram", result_types = []} : (tensor<2x4xf32>) -> ()
// CHECK-NEXT:    %[[PLAN:.*]] = "s4tf.host_call"(%[[LOGITS]], %[[C]]) {callee = "cpu_solver", result_types = [tensor<2x4xf32>]}
// CHECK-NEXT:    %[[SENT:.*]] = "s4tf.send"(%[[PLAN]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[D1:.*]] = call @step_device_1(%[[D0]]#0, %[[SENT]]) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[D1]], %[[D0]]#1 : tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @step_device_0(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[X:.*]] = "s4tf.dot_general"(%arg0, %arg1)
// CHECK-NEXT:    %[[T:.*]] = "s4tf.tanh"(%[[X]])
// CHECK-NEXT:    return %[[X]], %[[T]]
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @step_device_1(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[C2:.*]] = "s4tf.constant"() {value = dense<2.000000e+00> : tensor<2x4xf32>}
// CHECK-NEXT:    %[[S:.*]] = "s4tf.add"(%arg0, %arg1)
// CHECK-NEXT:    "s4tf.mul"(%[[S]], %[[C2]])
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// WARN: s4tf-partition.mlir:[[# @LINE + 6]]:3: warning: value of type tensor<2x4xf32> is copied from the device to the host for host function 'log_histogram'
// WARN: s4tf-partition.mlir:[[# @LINE + 6]]:8: warning: result of host function 'cpu_solver' (tensor<2x4xf32>) is copied from the host to the device
// VALID: func.func @step
func.func @step(%w: tensor<3x4xf32>, %x: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = "s4tf.dot_general"(%x, %w) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %c = "s4tf.constant"() {value = dense<2.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  "s4tf.host_call"(%0) {callee = "log_histogram", result_types = []} : (tensor<2x4xf32>) -> ()
  %1 = "s4tf.host_call"(%0, %c) {callee = "cpu_solver", result_types = [tensor<2x4xf32>]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = "s4tf.add"(%0, %1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = "s4tf.mul"(%2, %c) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = "s4tf.tanh"(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %3, %4 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Host work that needs no device value runs right after the launch, while the device
// works; its argument is received (arguments are device values), its result sent back.

// CHECK-LABEL: func.func @overlap(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[D:.*]] = call @overlap_device_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = "s4tf.recv"(%arg1)
// CHECK-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[A]]) {callee = "simulate"
// CHECK-NEXT:    %[[S:.*]] = "s4tf.send"(%[[H]])
// CHECK-NEXT:    return %[[D]], %[[S]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @overlap_device_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    "s4tf.exp"(%arg0)
// CHECK-NEXT:    "s4tf.exp"
// CHECK-NEXT:    return

// WARN: s4tf-partition.mlir:[[# @LINE + 4]]:8: warning: value of type tensor<4xf32> is copied from the device to the host for host function 'simulate'
// WARN: s4tf-partition.mlir:[[# @LINE + 3]]:8: warning: result of host function 'simulate' (tensor<4xf32>) is copied from the host to the device
func.func @overlap(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.host_call"(%y) {callee = "simulate", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %2, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A host call whose operands are only arguments, and device work waiting for its result:
// there is no device work before it, so no empty device function; the host call runs as
// soon as the call starts.

// CHECK-LABEL: func.func @arguments_only(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[A:.*]] = "s4tf.recv"(%arg0)
// CHECK-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[A]]) {callee = "cumulative"
// CHECK-NEXT:    %[[S:.*]] = "s4tf.send"(%[[H]])
// CHECK-NEXT:    %[[D:.*]] = call @arguments_only_device_0(%[[S]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @arguments_only_device_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"
// CHECK-NEXT:    "s4tf.add"(%arg0, %[[C]])
// CHECK-NEXT:    return
// CHECK-NEXT:  }
func.func @arguments_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "s4tf.add"(%0, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// `host(cumulative)(x * 1) + 1`: the multiplication is device work before the host call
// until s4tf-canonicalize removes it (CANON); then the host call reads the argument, and the
// one device function left is the addition after it.

// CHECK-LABEL: func.func @canonicalized_away(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[D0:.*]] = call @canonicalized_away_device_0(%arg0)
// CHECK-NEXT:    %[[A:.*]] = "s4tf.recv"(%[[D0]])
// CHECK:         call @canonicalized_away_device_1(
// CHECK:       func.func private @canonicalized_away_device_0(
// CHECK-NEXT:    %[[C:.*]] = "s4tf.constant"
// CHECK-NEXT:    "s4tf.mul"(%arg0, %[[C]])
// CHECK:       func.func private @canonicalized_away_device_1(

// CANON-LABEL: func.func @canonicalized_away(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.host_program} {
// CANON-NEXT:    %[[A:.*]] = "s4tf.recv"(%arg0)
// CANON-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[A]]) {callee = "cumulative"
// CANON-NEXT:    %[[S:.*]] = "s4tf.send"(%[[H]])
// CANON-NEXT:    %[[D:.*]] = call @canonicalized_away_device_0(%[[S]]) : (tensor<4xf32>) -> tensor<4xf32>
// CANON-NEXT:    return %[[D]] : tensor<4xf32>
// CANON-NEXT:  }
// CANON-NEXT:  func.func private @canonicalized_away_device_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.device_function} {
// CANON-NEXT:    %[[C:.*]] = "s4tf.constant"
// CANON-NEXT:    "s4tf.add"(%arg0, %[[C]])
// CANON-NEXT:    return
// CANON-NEXT:  }
// CANON-NOT:   canonicalized_away_device_1
func.func @canonicalized_away(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.mul"(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "s4tf.host_call"(%0) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.add"(%1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Only host work: no device function at all; the host program receives the argument and
// sends the host call's result.

// CHECK-LABEL: func.func @host_only(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.host_program} {
// CHECK-NEXT:    %[[A:.*]] = "s4tf.recv"(%arg0)
// CHECK-NEXT:    %[[H:.*]] = "s4tf.host_call"(%[[A]]) {callee = "cumulative"
// CHECK-NEXT:    %[[S:.*]] = "s4tf.send"(%[[H]])
// CHECK-NEXT:    return %[[S]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   s4tf.device_function
func.func @host_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A function without host calls is left alone.

// CHECK-LABEL: func.func @pure(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    "s4tf.exp"(%arg0)
// CHECK-NEXT:    return
// CHECK-NOT:   s4tf.device_function
func.func @pure(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A declaration (no body) is left alone too.

// CHECK-LABEL: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @calls_declared(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    call @declared(%arg0)
func.func private @declared(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @calls_declared(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @declared(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
