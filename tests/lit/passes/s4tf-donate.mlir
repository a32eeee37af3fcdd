// RUN: s4tf-opt %s --split-input-file -p 's4tf-donate{entry=step args=0}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-donate{entry=step args=0 remarks=true}' >/dev/null
// RUN: s4tf-opt %s --split-input-file -p 's4tf-donate{entry=step args=0}' | s4tf-opt --split-input-file -p 's4tf-donate{entry=step args=0}' | filecheck %s

// s4tf-donate decides first which result each donated argument holds (the remarks, with
// remarks=true), then rewrites; a refused argument leaves the function as it was. Running
// the pass twice changes nothing more (third RUN line).

// An elementwise update that every reader of %w feeds: written in place, nothing moves.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT:    return %0 : tensor<4xf32>
func.func @step(
    // expected-remark @below {{argument 0 holds result 0}}
    %w: tensor<4xf32>,
    %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reader the update does not wait for (the sum): the update moves to the end and waits
// for it through a barrier.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
// CHECK:         %[[SUM:.*]] = stablehlo.reduce(%arg0 init:
// CHECK-NEXT:    %[[B:.*]]:3 = stablehlo.optimization_barrier %arg0, %arg1, %[[SUM]] : tensor<4xf32>, tensor<4xf32>, tensor<f32>
// CHECK-NEXT:    %[[NEW:.*]] = stablehlo.subtract %[[B]]#0, %[[B]]#1 : tensor<4xf32>
// CHECK-NEXT:    return %[[NEW]], %[[SUM]] : tensor<4xf32>, tensor<f32>
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a barrier}}
    %w: tensor<4xf32>,
    %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%w init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}

// -----

// A reader with no result cannot be waited for through a barrier: %w keeps its buffer and
// the function is left exactly as it was. (Before the plan was separate from the rewrite,
// the check moved the subtract behind a barrier, then refused, leaving both behind.)
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT:    stablehlo.custom_call @log_weights(%arg0) {has_side_effect = true} : (tensor<4xf32>) -> ()
// CHECK-NEXT:    return %0 : tensor<4xf32>
func.func @step(
    // expected-remark @below {{argument 0 keeps its buffer: result 0: 'stablehlo.custom_call' reads the argument and has no result a barrier could wait for}}
    %w: tensor<4xf32>,
    %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  stablehlo.custom_call @log_weights(%w) {has_side_effect = true} : (tensor<4xf32>) -> ()
  return %0 : tensor<4xf32>
}

// -----

// A result that is not computed elementwise (a product) is never written into an input.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-NOT:     iree.abi.output
func.func @step(
    // expected-remark @below {{argument 0 keeps its buffer: result 0: not computed by an elementwise op of the function's body}}
    %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %w, %w, contracting_dims = [0] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A non-elementwise reader (the transpose) whose result reaches the update through
// elementwise ops alone could be fused with it into one dispatch: refused.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-NOT:     iree.abi.output
func.func @step(
    // expected-remark @below {{argument 0 keeps its buffer: result 0: 'stablehlo.transpose' reads the argument and reaches the result through elementwise ops only}}
    %w: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = stablehlo.add %w, %t : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// The argument is returned as well: the update cannot wait for the caller.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NOT:     iree.abi.output
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 keeps its buffer: result 0: the argument is returned; result 1: not computed by an elementwise op}}
    %w: tensor<4xf32>,
    %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  return %0, %w : tensor<4xf32>, tensor<4xf32>
}
