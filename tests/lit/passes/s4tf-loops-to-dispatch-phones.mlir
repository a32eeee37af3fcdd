// RUN: s4tf-opt %s -p 's4tf-loops-to-dispatch{target=cpu}' | filecheck %s
// RUN: s4tf-opt %s --verify-diagnostics -p 's4tf-loops-to-dispatch{target=android-arm64 remarks=true}' | filecheck %s --check-prefix=PHONE

// A loop that fills a tape it makes itself (a constant of 1025x4 float32s: 16,400 bytes, two
// buffers) runs inside one dispatch on cpu; on a phone it stays host-stepped, with a remark.

// CHECK-LABEL: func.func @tape_on_a_phone
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
// PHONE-LABEL: func.func @tape_on_a_phone
// PHONE-NOT:     flow.dispatch.region
// PHONE:         stablehlo.while
func.func @tape_on_a_phone(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<1025x4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<4xf32>
  %t0 = stablehlo.constant dense<0.0> : tensor<1025x4xf32>
  // expected-warning @below {{loop stays host-stepped: the tapes it makes take 16400 bytes, 32800 in stack buffers (one for each and one for each loop starting from it), and the tapes nobody reads after it 0 more (at most 32768 of stack on target 'android-arm64')}}
  %r:3 = stablehlo.while(%i = %zero, %v = %x, %t = %t0) : tensor<i32>, tensor<4xf32>, tensor<1025x4xf32>
  cond {
    %go = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %row = stablehlo.reshape %v : (tensor<4xf32>) -> tensor<1x4xf32>
    %t2 = stablehlo.dynamic_update_slice %t, %row, %i, %zero : (tensor<1025x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1025x4xf32>
    %v2 = stablehlo.multiply %v, %half : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v2, %t2 : tensor<i32>, tensor<4xf32>, tensor<1025x4xf32>
  }
  return %r#2 : tensor<1025x4xf32>
}
