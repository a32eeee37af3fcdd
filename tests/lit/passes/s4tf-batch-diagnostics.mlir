// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-batch{function=f batched=0 size=4}'

// An op without a batching rule is an error at that op, naming it (never a loop).

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{'s4tf.while' cannot be batched yet (no batching rule)}}
  %0 = "s4tf.while"(%x) ({
  ^bb0(%a: tensor<f32>):
    %c = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %p = "s4tf.lt"(%a, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    %1 = "s4tf.add"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A case a rule does not cover is an error naming the op too.

func.func @f(%v: tensor<f32>, %x: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @below {{'s4tf.pad' has no batching rule for a padding value that differs per example}}
  %0 = "s4tf.pad"(%x, %v) {low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
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
