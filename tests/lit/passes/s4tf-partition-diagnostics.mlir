// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p s4tf-partition

// Host calls must be made at the top level of the extracted function: a call of a function
// that makes host calls (itself, or through the functions it calls) is an error at the
// call, naming the host function and where it is called (s4tf-inline-host-calls, which
// @s4tf.function(extract=True) runs first, inlines those outside control flow); so is a
// host call inside control flow.

func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'inner' calls host function 'cumulative' at line}}
  %0 = call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Through a function that makes none itself: the error names the path.

func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'middle' calls host function 'cumulative' at line}}
  %0 = call @middle(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @middle(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'inner' calls host function 'cumulative' at line}}
  %0 = call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.sin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.host_call"(%0) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<4xf32>):
    // expected-error @below {{host function 'cumulative' is called inside 's4tf.if'; an extracted function calls s4tf.host at its top level, outside control flow}}
    %1 = "s4tf.host_call"(%a) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %1 : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A call inside control flow says so: inlining cannot take its host call out of the if.

func.func @branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<4xf32>):
    // expected-error @below {{'inner' calls host function 'cumulative' at line 72; it is called inside 's4tf.if', and an extracted function calls s4tf.host at its top level, outside control flow}}
    %1 = func.call @inner(%a) : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %1 : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    stablehlo.return %a : tensor<4xf32>
  }) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Calling a function without host calls from one with host calls is fine.

func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "cumulative", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @inner(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
