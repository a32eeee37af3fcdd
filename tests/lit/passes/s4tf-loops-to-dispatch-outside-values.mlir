// RUN: s4tf-opt %s --split-input-file -p 's4tf-loops-to-dispatch{target=cpu}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-loops-to-dispatch{target=cpu remarks=true}'

// Values the loop reads that IREE would compute inside the dispatch region itself are
// computed there by the pass instead of read: a value computed from constants alone (IREE
// folds a repeated one into a linalg.fill) and a widening conversion (a "dequantization-like"
// linalg.generic). Either, cloned in by IREE, becomes the op IREE distributes over
// workgroups, and the region's own writes then fail ("write affecting operations on global
// resources are restricted to workgroup distributed contexts").

// The mean's gradient 1/96 as reverse mode writes it: a quotient of broadcast constants.
// CHECK-LABEL: func.func @from_constants
// CHECK:         flow.dispatch.region
// CHECK-NOT:       vector.transfer_read %{{[0-9]+}}[
// CHECK:           %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:           scf.while
// CHECK:             arith.mulf %{{.*}}, %[[Q]] : vector<4xf32>
func.func @from_constants(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %c1 = stablehlo.constant dense<1.0> : tensor<f32>
  %c96 = stablehlo.constant dense<96.0> : tensor<f32>
  %r1 = stablehlo.reshape %c1 : (tensor<f32>) -> tensor<1xf32>
  %b1 = stablehlo.broadcast_in_dim %r1, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
  %b96 = stablehlo.broadcast_in_dim %c96, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %w = stablehlo.divide %b1, %b96 : tensor<4xf32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.multiply %v, %w : tensor<4xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A widening conversion of an argument: the f32 argument is read, converted inside.
// CHECK-LABEL: func.func @widening
// CHECK:         flow.dispatch.region
// CHECK:           %[[X:.*]] = vector.transfer_read %arg0[%{{.*}}], %{{.*}} : tensor<3xf32>, vector<3xf32>
// CHECK:           %[[W:.*]] = arith.extf %[[X]] : vector<3xf32> to vector<3xf64>
// CHECK:           scf.while
// CHECK:             arith.addf %{{.*}}, %[[W]] : vector<3xf64>
func.func @widening(%x: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf64> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<3xf64>
  %w = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf64>
  %r:2 = stablehlo.while(%i = %zero, %v = %w) : tensor<i32>, tensor<3xf64>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %m = stablehlo.multiply %v, %half : tensor<3xf64>
    %y = stablehlo.add %m, %w : tensor<3xf64>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<3xf64>
  }
  return %r#1 : tensor<3xf64>
}

// -----

// A value computed from constants by an op the region cannot hold (a matrix product over
// the bound): reading it would fail IREE, so the loop stays host-stepped, and says why.
// CHECK-LABEL: func.func @from_constants_too_large
// CHECK-NOT:     flow.dispatch.region
// CHECK:         stablehlo.while
func.func @from_constants_too_large(%x: tensor<64xf32>, %n: tensor<i32>) -> tensor<64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %a = stablehlo.constant dense<0.5> : tensor<64x64xf32>
  %b = stablehlo.constant dense<0.25> : tensor<64xf32>
  %w = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64xf32>
  // expected-warning @below {{loop stays host-stepped: the loop has a matrix product of 4096 multiply-adds (at most 2048), computing outside it a value that it reads (IREE would compute it inside the dispatch, whose other writes its workgroup distribution then refuses)}}
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<64xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.add %v, %w : tensor<64xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<64xf32>
  }
  return %r#1 : tensor<64xf32>
}

// -----

// A dynamic slice (or gather) of a constant of one value repeated, at any index, is that
// value repeated: IREE folds it into a linalg.fill and clones it into the region, so the
// region makes it as a constant instead of reading it (`jvp` of `grad` through a `scan`
// holding a `map`: the backward loop's zero cotangent rows).
// CHECK-LABEL: func.func @slice_of_a_splat
// CHECK:         flow.dispatch.region
// CHECK-NOT:       vector.transfer_read %{{[0-9]+}}[
// CHECK:           %[[Z:.*]] = arith.constant dense<2.500000e-01> : vector<4xf32>
// CHECK:           scf.while
// CHECK:             arith.addf %{{.*}}, %[[Z]] : vector<4xf32>
func.func @slice_of_a_splat(%x: tensor<4xf32>, %n: tensor<i32>, %k: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %rows = stablehlo.constant dense<0.25> : tensor<3x4xf32>
  %row = stablehlo.dynamic_slice %rows, %k, %zero, sizes = [1, 4] : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
  %w = stablehlo.reshape %row : (tensor<1x4xf32>) -> tensor<4xf32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.add %v, %w : tensor<4xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
