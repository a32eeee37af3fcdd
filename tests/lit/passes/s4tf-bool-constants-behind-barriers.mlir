// RUN: s4tf-opt %s --split-input-file -p s4tf-bool-constants-behind-barriers | filecheck %s

// s4tf-bool-constants-behind-barriers reads each boolean constant that is not one repeated
// value through a stablehlo.optimization_barrier (IREE 3.13 selects wrongly on some
// constant masks on aarch64); every reader reads the barrier. Repeated values, scalars and
// other element types are left alone.

// CHECK-LABEL: func.func @mask_read_twice
// CHECK:         %[[M:.*]] = stablehlo.constant dense<{{\[}}[false, false, false], [true, true, true]]> : tensor<2x3xi1>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[M]] : tensor<2x3xi1>
// CHECK:         stablehlo.select %[[B]], %arg0, %{{.*}}
// CHECK-NEXT:    stablehlo.select %[[B]], %{{.*}}, %arg0
// CHECK-NOT:     optimization_barrier
func.func @mask_read_twice(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %m = stablehlo.constant dense<[[false, false, false], [true, true, true]]> : tensor<2x3xi1>
  %z = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %0 = stablehlo.select %m, %x, %z : tensor<2x3xi1>, tensor<2x3xf32>
  %1 = stablehlo.select %m, %z, %x : tensor<2x3xi1>, tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @repeated_scalar_and_integer_constants_kept
// CHECK-NOT:     optimization_barrier
func.func @repeated_scalar_and_integer_constants_kept(%x: tensor<3xf32>, %p: tensor<i1>) -> (tensor<3xf32>, tensor<i1>, tensor<3xi8>) {
  %m = stablehlo.constant dense<true> : tensor<3xi1>
  %t = stablehlo.constant dense<false> : tensor<i1>
  %k = stablehlo.constant dense<[0, 1, 0]> : tensor<3xi8>
  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %0 = stablehlo.select %m, %x, %z : tensor<3xi1>, tensor<3xf32>
  %1 = stablehlo.and %p, %t : tensor<i1>
  return %0, %1, %k : tensor<3xf32>, tensor<i1>, tensor<3xi8>
}

// -----

// A mask inside a host-stepped loop's body is read through a barrier there.
// CHECK-LABEL: func.func @mask_in_a_loop_body
// CHECK:         stablehlo.while
// CHECK:           %[[M:.*]] = stablehlo.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NEXT:      %[[B:.*]] = stablehlo.optimization_barrier %[[M]] : tensor<2xi1>
// CHECK:           stablehlo.select %[[B]]
func.func @mask_in_a_loop_body(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %m = stablehlo.constant dense<[false, true]> : tensor<2xi1>
    %s = stablehlo.sine %v : tensor<2xf32>
    %u = stablehlo.select %m, %s, %v : tensor<2xi1>, tensor<2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}
