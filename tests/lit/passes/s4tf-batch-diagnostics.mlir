// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-batch{function=f batched=0 size=4}'

// An op without a batching rule is an error at that op, naming it (never a loop).

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'s4tf.cumsum' has no batching rule}}
  %0 = "s4tf.cumsum"(%x) {axis = 0 : i64, reverse = false} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

