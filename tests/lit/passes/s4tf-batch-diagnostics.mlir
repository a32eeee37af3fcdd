// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-batch{function=f batched=0 size=4}'

// A host function not declared vectorized cannot take a batch: an error at the call,
// saying how to declare it (never a loop of host calls).

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{host function 'cpu_solver' is called on a batch (vmap): declare s4tf.host(cpu_solver, vectorized=True)}}
  %0 = "s4tf.host_call"(%x) {callee = "cpu_solver", result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @below {{cannot batch '@f' along argument 0: it has 0 argument(s)}}
func.func @f() -> tensor<f32> {
  %0 = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An op whose operands are all unbatched is copied as it is, region ops too: no rule is
// needed, and no error is reported.

func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.if"(%p, %y) ({
  ^bb0(%a: tensor<3xf32>):
    stablehlo.return %a : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.neg"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.mul"(%x, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// A custom batching rule is a Python function registered by @s4tf.batching_rule; a
// module that names one this process does not know is an error at the function.

// expected-error @below {{'@f' has a custom batching rule 'unknown#0' that is not registered in this process}}
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.custom_batch = "unknown#0"} {
  %0 = "s4tf.neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
