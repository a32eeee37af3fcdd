// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-loops-to-dispatch{target=cpu remarks=true}' | filecheck %s

// A tape a region makes itself (from a splat constant) takes a stack buffer, and one more for
// each loop that starts from it (IREE 3.13); with the tapes nobody reads after the region they
// must fit the target's stack allocation limit (1 MiB on cpu; 32 KiB elsewhere:
// s4tf-loops-to-dispatch-phones.mlir).

// On cpu: one 1025x64 float32 tape (262,400 bytes) starting four carries takes five buffers,
// 1,312,000 bytes: the loop stays host-stepped (IREE 3.13 asked for 553,920 bytes for 110,700
// of tapes read by four loops: "exceeded stack allocation limit of 524288 bytes", the limit
// then); the same tape starting two carries (787,200 bytes) runs inside one dispatch.

// CHECK-LABEL: func.func @four_tapes_from_one
// CHECK-NOT:     flow.dispatch.region
// CHECK:         stablehlo.while
func.func @four_tapes_from_one(%x: tensor<64xf32>, %n: tensor<i32>) -> (tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<64xf32>
  %t0 = stablehlo.constant dense<0.0> : tensor<1025x64xf32>
  // expected-warning @below {{loop stays host-stepped: the tapes it makes take 262400 bytes, 1312000 in stack buffers (one for each and one for each loop starting from it), and the tapes nobody reads after it 0 more (at most 1048576 of stack on target 'cpu')}}
  %r:6 = stablehlo.while(%i = %zero, %v = %x, %a = %t0, %b = %t0, %c = %t0, %d = %t0) : tensor<i32>, tensor<64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>
  cond {
    %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %row = stablehlo.reshape %v : (tensor<64xf32>) -> tensor<1x64xf32>
    %a2 = stablehlo.dynamic_update_slice %a, %row, %i, %zero : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %v2 = stablehlo.multiply %v, %half : tensor<64xf32>
    %row2 = stablehlo.reshape %v2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %b2 = stablehlo.dynamic_update_slice %b, %row2, %i, %zero : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %c2 = stablehlo.dynamic_update_slice %c, %row, %zero, %i : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %d2 = stablehlo.dynamic_update_slice %d, %row2, %zero, %i : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v2, %a2, %b2, %c2, %d2 : tensor<i32>, tensor<64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>
  }
  return %r#2, %r#3, %r#4, %r#5 : tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>
}

// -----

// CHECK-LABEL: func.func @two_tapes_from_one
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
func.func @two_tapes_from_one(%x: tensor<64xf32>, %n: tensor<i32>) -> (tensor<1025x64xf32>, tensor<1025x64xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<64xf32>
  %t0 = stablehlo.constant dense<0.0> : tensor<1025x64xf32>
  %r:4 = stablehlo.while(%i = %zero, %v = %x, %a = %t0, %b = %t0) : tensor<i32>, tensor<64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>
  cond {
    %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %row = stablehlo.reshape %v : (tensor<64xf32>) -> tensor<1x64xf32>
    %a2 = stablehlo.dynamic_update_slice %a, %row, %i, %zero : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %v2 = stablehlo.multiply %v, %half : tensor<64xf32>
    %row2 = stablehlo.reshape %v2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %b2 = stablehlo.dynamic_update_slice %b, %row2, %i, %zero : (tensor<1025x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x64xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v2, %a2, %b2 : tensor<i32>, tensor<64xf32>, tensor<1025x64xf32>, tensor<1025x64xf32>
  }
  return %r#2, %r#3 : tensor<1025x64xf32>, tensor<1025x64xf32>
}
