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
// for it through a wait token, a value exactly 1 computed from the reader's result that
// multiplies the update's first operand; IREE keeps it in the same submission.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xf32> {iree.abi.output = 0 : index}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
// CHECK:         %[[SUM:.*]] = stablehlo.reduce(%arg0 init:
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.subtract %[[SUM]], %[[SUM]] : tensor<f32>
// CHECK-NEXT:    %[[NEAR:.*]] = stablehlo.add %[[ZERO]], %[[ONE]] : tensor<f32>
// CHECK-NEXT:    %[[FINITE:.*]] = stablehlo.is_finite %[[SUM]] : (tensor<f32>) -> tensor<i1>
// CHECK-NEXT:    %[[EXACT:.*]] = stablehlo.select %[[FINITE]], %[[NEAR]], %[[ONE]] : tensor<i1>, tensor<f32>
// CHECK-NEXT:    %[[SPREAD:.*]] = stablehlo.broadcast_in_dim %[[EXACT]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.multiply %arg0, %[[SPREAD]] : tensor<4xf32>
// CHECK-NEXT:    %[[NEW:.*]] = stablehlo.subtract %[[W]], %arg1 : tensor<4xf32>
// CHECK-NEXT:    return %[[NEW]], %[[SUM]] : tensor<4xf32>, tensor<f32>
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a wait token}}
    %w: tensor<4xf32>,
    %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%w init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}

// -----

// Back-propagation's product reading the weight (the reader of a training step): the
// token takes one element of the product's result.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x3xf32> {iree.abi.output = 0 : index}, %arg1: tensor<2x3xf32>, %arg2: tensor<4x3xf32>)
// CHECK:         %[[READ:.*]] = stablehlo.dot_general
// CHECK-NEXT:    %[[ELEMENT:.*]] = stablehlo.slice %[[READ]] [0:1, 0:1] : (tensor<4x2xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    %[[TOTAL:.*]] = stablehlo.reshape %[[ELEMENT]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK:         stablehlo.is_finite %[[TOTAL]]
// CHECK:         %[[W:.*]] = stablehlo.multiply %arg0, %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT:    stablehlo.subtract %[[W]], %arg1 : tensor<2x3xf32>
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a wait token}}
    %w: tensor<2x3xf32>,
    %g: tensor<2x3xf32>,
    %x: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<4x2xf32>) {
  %0 = stablehlo.subtract %w, %g : tensor<2x3xf32>
  %1 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [1] : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2xf32>
}

// -----

// A reader IREE could recompute inside the update's dispatch (a transpose, a slice, a
// widening convert: only ops with a reduction get dispatches of their own) is waited for
// behind a barrier, which also holds the update's operands.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x2xf32> {iree.abi.output = 0 : index}, %arg1: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0
// CHECK-NEXT:    %[[B:.*]]:3 = stablehlo.optimization_barrier %arg0, %arg1, %[[T]] : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
// CHECK-NEXT:    %[[NEW:.*]] = stablehlo.subtract %[[B]]#0, %[[B]]#1 : tensor<2x2xf32>
// CHECK-NEXT:    return %[[NEW]], %[[T]]
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a barrier}}
    %w: tensor<2x2xf32>,
    %g: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = stablehlo.subtract %w, %g : tensor<2x2xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %t : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A layout reader whose result, through more layout ops used once, feeds a barrier
// (s4tf-materialize-conv-filters' before a convolution with the flipped filter) waits
// through a token that reads the barrier's result: IREE cannot move the slice above it.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x2x1x3xf32> {iree.abi.output = 0 : index}, %arg1: tensor<2x2x1x3xf32>, %arg2: tensor<1x4x4x3xf32>)
// CHECK:         %[[T:.*]] = stablehlo.transpose
// CHECK-NEXT:    %[[M:.*]] = stablehlo.optimization_barrier %[[T]] : tensor<2x2x3x1xf32>
// CHECK:         %[[E:.*]] = stablehlo.slice %[[M]] [0:1, 0:1, 0:1, 0:1]
// CHECK:         stablehlo.is_finite
// CHECK-NOT:     optimization_barrier
// CHECK:         %[[W:.*]] = stablehlo.multiply %arg0, %{{.*}} : tensor<2x2x1x3xf32>
// CHECK-NEXT:    %[[NEW:.*]] = stablehlo.subtract %[[W]], %arg1
// CHECK-NEXT:    return %[[NEW]]
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 3 reader(s) of it, through a wait token}}
    %k: tensor<2x2x1x3xf32>,
    %g: tensor<2x2x1x3xf32>,
    %dy: tensor<1x4x4x3xf32>) -> (tensor<2x2x1x3xf32>, tensor<1x3x3x1xf32>) {
  %0 = stablehlo.subtract %k, %g : tensor<2x2x1x3xf32>
  %r = stablehlo.reverse %k, dims = [0, 1] : tensor<2x2x1x3xf32>
  %t = stablehlo.transpose %r, dims = [0, 1, 3, 2] : (tensor<2x2x1x3xf32>) -> tensor<2x2x3x1xf32>
  %m = stablehlo.optimization_barrier %t : tensor<2x2x3x1xf32>
  %dx = stablehlo.convolution(%dy, %m) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %0, %dx : tensor<2x2x1x3xf32>, tensor<1x3x3x1xf32>
}

// -----

// A transpose read by a product only: the token reads the product's result (IREE may fold
// the transpose into the product's dispatch, which still reads the weight first).
// CHECK-LABEL: func.func @step(%arg0: tensor<2x3xf32> {iree.abi.output = 0 : index}
// CHECK:         %[[P:.*]] = stablehlo.dot_general
// CHECK:         stablehlo.slice %[[P]] [0:1, 0:1]
// CHECK-NOT:     optimization_barrier
// CHECK:         return
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 2 reader(s) of it, through a wait token}}
    %w: tensor<2x3xf32>,
    %g: tensor<2x3xf32>,
    %x: tensor<4x2xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %0 = stablehlo.subtract %w, %g : tensor<2x3xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = stablehlo.dot_general %x, %t, contracting_dims = [1] x [1] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  return %0, %p : tensor<2x3xf32>, tensor<4x3xf32>
}

// -----

// The same transpose also returned (two uses): IREE could compute a slice of it from the
// weight inside the update's dispatch, so a barrier orders it.
// CHECK-LABEL: func.func @step(%arg0: tensor<2x3xf32> {iree.abi.output = 0 : index}
// CHECK:         stablehlo.optimization_barrier
// CHECK-NOT:     is_finite
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 2 reader(s) of it, through a barrier}}
    %w: tensor<2x3xf32>,
    %g: tensor<2x3xf32>,
    %x: tensor<4x2xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<3x2xf32>) {
  %0 = stablehlo.subtract %w, %g : tensor<2x3xf32>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = stablehlo.dot_general %x, %t, contracting_dims = [1] x [1] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  return %0, %p, %t : tensor<2x3xf32>, tensor<4x3xf32>, tensor<3x2xf32>
}

// -----

// An integer update cannot be multiplied by a float token: a barrier orders it.
// CHECK-LABEL: func.func @step(%arg0: tensor<4xi32> {iree.abi.output = 0 : index}, %arg1: tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>) {
// CHECK:         stablehlo.optimization_barrier
// CHECK-NOT:     is_finite
func.func @step(
    // expected-remark @below {{argument 0 holds result 0 after 1 reader(s) of it, through a barrier}}
    %n: tensor<4xi32>,
    %d: tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>) {
  %0 = stablehlo.add %n, %d : tensor<4xi32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.reduce(%n init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
  return %0, %1 : tensor<4xi32>, tensor<i32>
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
