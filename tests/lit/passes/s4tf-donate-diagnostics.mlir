// RUN: not s4tf-opt %s -p 's4tf-donate{entry=nope args=0}' 2>&1 | filecheck %s --check-prefix=ENTRY
// RUN: not s4tf-opt %s -p 's4tf-donate{entry=step args=0,x}' 2>&1 | filecheck %s --check-prefix=ARGS
// RUN: not s4tf-opt %s -p 's4tf-donate{entry=step args=2}' 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not s4tf-opt %s -p 's4tf-donate{args=0}' 2>&1 | filecheck %s --check-prefix=OPTION

// Options that do not fit the module are errors naming what is wrong.
// ENTRY: error: s4tf-donate: no function 'nope' with a body in the module
// ARGS: s4tf-opt: error: option args=0,x of pass 's4tf-donate' must be integers separated by commas, as 0,1
// RANGE: error: s4tf-donate: args=2 must be argument positions of 'step' (0 to 1)
// OPTION: s4tf-opt: error: pass 's4tf-donate' needs option(s) entry: write s4tf-donate{entry=...}
func.func @step(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: not s4tf-opt %s -p 's4tf-donate{entry=declared args=0}' 2>&1 | filecheck %s --check-prefix=DECLARED
// RUN: not s4tf-opt %s -p 's4tf-donate{entry=marked args=0}' 2>&1 | filecheck %s --check-prefix=MARKED
// DECLARED: error: s4tf-donate: no function 'declared' with a body in the module
// MARKED: error: argument 0's iree.abi.output must be a result index, as 0 : index
func.func private @declared(%w: tensor<4xf32>) -> tensor<4xf32>
func.func @marked(%w: tensor<4xf32> {iree.abi.output = "x"}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
