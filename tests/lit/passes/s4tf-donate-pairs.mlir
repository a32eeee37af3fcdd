// RUN: s4tf-opt %s --split-input-file -p 's4tf-donate{entry=step args=0,1}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-donate{entry=step args=0,1 remarks=true}' >/dev/null

// Several donated arguments: each decision takes the earlier ones into account (the plan
// is made before any rewrite, as if the earlier pairs were applied).

// Each update reads the other argument: %a's update waits for the product, which then
// feeds %a's barrier, so the product cannot also wait for the sum: %b keeps its buffer.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %arg1, %arg0
// CHECK-NEXT:    %[[B:.*]]:3 = stablehlo.optimization_barrier %arg0, %arg1, %[[P]]
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[B]]#0, %[[B]]#1
// CHECK-NEXT:    return %[[S]], %[[P]]
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a barrier}}
    %a: tensor<4xf32>,
    // expected-remark @below {{argument 1 keeps its buffer: result 1: the result is used by more than the return}}
    %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %b, %a : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// One value returned twice, written without waiting: both arguments hold it.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32> {iree.abi.output = 1 : index})
func.func @step(
    // expected-remark @below {{argument 0 holds result 0}}
    %a: tensor<4xf32>,
    // expected-remark @below {{argument 1 holds result 1}}
    %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// One value returned twice that must wait for a reader: it waits through one token, for
// the first argument only.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32>)
// CHECK-COUNT-1: is_finite
// CHECK-NOT:     is_finite
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a wait token}}
    %a: tensor<4xf32>,
    // expected-remark @below {{argument 1 keeps its buffer: result 1: its value is written into argument 0 after other work already}}
    %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %0 = stablehlo.multiply %a, %a : tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0, %0, %1 : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}

// -----

// No result of the argument's type.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<2xf32>)
func.func @step(
    // expected-remark @below {{argument 0 holds result 0}}
    %a: tensor<4xf32>,
    // expected-remark @below {{argument 1 keeps its buffer: no unpaired result of type tensor<2xf32>}}
    %b: tensor<2xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
