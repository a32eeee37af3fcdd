// Two chunks for `s4tf-opt --split-input-file --verify-diagnostics`: one well formed,
// one with the error s4tf-verify must report on the line below the comment.
func.func @well_formed(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "s4tf.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @wrong_result_type(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @below {{'s4tf.add' result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>}}
  %0 = "s4tf.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
