// RUN: s4tf-opt %s --split-input-file -p s4tf-constant-carries | filecheck %s

// s4tf-constant-carries: a while carry that starts from a constant and that the body yields
// unchanged is read as the constant in the condition, the body and after the loop (the
// carry stays as a pass-through); a barrier around a gather of a constant goes. Carries the
// body changes, and pass-throughs of run-time values, stay read from the loop. Numbers:
// tests/control_flow/test_loop_programs.py, tests/runtime/test_iree_reproducers.py.

// CHECK-LABEL: func.func @tangent_of_a_constant
// CHECK-SAME:    (%[[X:.*]]: tensor<8xf32>)
// CHECK:         %[[ZEROS:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK:         %[[R:.*]]:4 = stablehlo.while(%[[I:[a-zA-Z0-9_]+]] = %{{.*}}, %[[ACC:[a-zA-Z0-9_]+]] = %{{.*}}, %[[V:[a-zA-Z0-9_]+]] = %[[X]], %[[T:[a-zA-Z0-9_]+]] = %[[ZEROS]])
// CHECK:         cond {
// CHECK:           stablehlo.reduce(%[[ZEROS]] init:
// CHECK:         do {
// CHECK:           %[[G:.*]] = "stablehlo.gather"(%[[V]],
// CHECK-NEXT:      %[[GB:.*]] = stablehlo.optimization_barrier %[[G]] : tensor<f32>
// CHECK-NEXT:      %[[Z:.*]] = "stablehlo.gather"(%[[ZEROS]],
// CHECK-NEXT:      stablehlo.multiply %[[GB]], %[[Z]] : tensor<f32>
// CHECK:           stablehlo.return %{{.*}}, %{{.*}}, %[[V]], %[[T]] :
// CHECK:         stablehlo.add %[[R]]#1, %{{.*}} : tensor<f32>
// CHECK-NEXT:    return %{{.*}}, %[[ZEROS]] :
func.func @tangent_of_a_constant(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %zeros = stablehlo.constant dense<0.0> : tensor<8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c7 = stablehlo.constant dense<7> : tensor<i32>
  %r:4 = stablehlo.while(%i = %c0, %acc = %zero, %v = %x, %t = %zeros) : tensor<i32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %s = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %q = stablehlo.compare GE, %s, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pq = stablehlo.and %p, %q : tensor<i1>
    stablehlo.return %pq : tensor<i1>
  } do {
    %idx = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.gather"(%v, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %gb = stablehlo.optimization_barrier %g : tensor<f32>
    %z = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<8xf32>, tensor<1xi32>) -> tensor<f32>
    %zb = stablehlo.optimization_barrier %z : tensor<f32>
    %m = stablehlo.multiply %gb, %zb : tensor<f32>
    %acc2 = stablehlo.add %acc, %m : tensor<f32>
    %i2 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i2, %acc2, %v, %t : tensor<i32>, tensor<f32>, tensor<8xf32>, tensor<8xf32>
  }
  %o = stablehlo.add %r#1, %zero : tensor<f32>
  return %o, %r#3 : tensor<f32>, tensor<8xf32>
}
