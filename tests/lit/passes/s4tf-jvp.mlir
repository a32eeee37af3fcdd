// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-jvp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID

// Forward mode through region ops: each region becomes a function (s4tf.outlined) and the
// JVP is a region op of the same kind carrying primals and tangents, whose regions call
// the outlined functions' JVPs. Numbers: tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// CHECK-LABEL: func.func private @f_jvp(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[R:.*]]:2 = "s4tf.if"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<3xf32>, %[[DX:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[T:.*]]:2 = func.call @f_r0_then_jvp(%[[X]], %[[DX]])
// CHECK-NEXT:      stablehlo.return %[[T]]#0, %[[T]]#1
// CHECK:           func.call @f_r0_else_jvp(
// CHECK:         return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func private @f_r0_then(%arg0: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.outlined}
// CHECK-NEXT:    "s4tf.sin"(%arg0)
// CHECK-LABEL: func.func private @f_r0_then_jvp(
// CHECK:         "s4tf.cos"(%arg0)
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The loop carries the tangents of both values; its condition sees the primals only.

// CHECK-LABEL: func.func private @f_jvp(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[R:.*]]:4 = "s4tf.while"(%arg0, %arg1, %arg2, %arg3) ({
// CHECK-NEXT:    ^bb0(%[[V:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
// CHECK-NEXT:      %[[C:.*]] = func.call @f_r0_cond(%[[V]], %[[B]]) : (tensor<3xf32>, tensor<3xf32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %[[C]] : tensor<i1>
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%[[V2:.*]]: tensor<3xf32>, %[[B2:.*]]: tensor<3xf32>, %[[DV:.*]]: tensor<3xf32>, %[[DB:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[N:.*]]:4 = func.call @f_r0_body_jvp(%[[V2]], %[[B2]], %[[DV]], %[[DB]])
// CHECK-NEXT:      stablehlo.return %[[N]]#0, %[[N]]#1, %[[N]]#2, %[[N]]#3
// CHECK:         return %[[R]]#0, %[[R]]#2 : tensor<3xf32>, tensor<3xf32>
func.func @f(%x: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0:2 = "s4tf.while"(%x, %a) ({
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %s = "s4tf.reduce_sum"(%v) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%s, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %1 = "s4tf.mul"(%v, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1, %b : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}
