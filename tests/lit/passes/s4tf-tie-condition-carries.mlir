// RUN: s4tf-opt %s --split-input-file -p s4tf-tie-condition-carries | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p 's4tf-tie-condition-carries{read_after=true}' | filecheck %s --check-prefix=AFTER

// s4tf-tie-condition-carries: a carry the body replaces without reading it (the residual
// the condition tests), or with a value that does not depend on the carries (zeros), leaves
// the body through an optimization_barrier beside a value computed from the carry it
// replaces (its first element, negated; `not` for integers); carries the body
// reads and replaces by what it computes from them, or passes through, are left as they
// are. Numbers: tests/control_flow/test_loop_programs.py.

// CHECK-LABEL: func.func @residual
// CHECK:         stablehlo.while(%[[ERR:[a-zA-Z0-9_]+]] = %{{.*}}, %[[V:[a-zA-Z0-9_]+]] = %arg0, %[[K:[a-zA-Z0-9_]+]] = %arg0)
// CHECK:         do {
// CHECK:           %[[M:.*]] = stablehlo.reduce
// CHECK-NEXT:      %[[R:.*]] = stablehlo.negate %[[ERR]] : tensor<f32>
// CHECK-NEXT:      %[[T:.*]]:2 = stablehlo.optimization_barrier %[[M]], %[[R]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:      stablehlo.return %[[T]]#0, %{{.*}}, %[[K]] : tensor<f32>, tensor<8xf32>, tensor<8xf32>
func.func @residual(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:3 = stablehlo.while(%err = %one, %v = %x, %kept = %x) : tensor<f32>, tensor<8xf32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare GT, %err, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<8xf32>
    %m = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %m, %w, %kept : tensor<f32>, tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#2 : tensor<f32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @zeroed
// CHECK:         stablehlo.while(%[[C:[a-zA-Z0-9_]+]] = %{{.*}}, %[[N:[a-zA-Z0-9_]+]] = %{{.*}})
// CHECK:         do {
// CHECK:           %[[Z:.*]] = stablehlo.broadcast_in_dim
// CHECK-NEXT:      %[[I:.*]] = stablehlo.add %[[N]]
// CHECK-NEXT:      %[[E:.*]] = stablehlo.slice %[[C]] [0:1] : (tensor<4xf32>) -> tensor<1xf32>
// CHECK-NEXT:      %[[R:.*]] = stablehlo.negate %[[E]] : tensor<1xf32>
// CHECK-NEXT:      %[[T:.*]]:2 = stablehlo.optimization_barrier %[[Z]], %[[R]] : tensor<4xf32>, tensor<1xf32>
// CHECK-NEXT:      stablehlo.return %[[T]]#0, %[[I]]
func.func @zeroed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %start = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%ct = %x, %n = %start) : tensor<4xf32>, tensor<i32>
  cond {
    %p = stablehlo.compare LT, %n, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %n2 = stablehlo.add %n, %one : tensor<i32>
    stablehlo.return %z, %n2 : tensor<4xf32>, tensor<i32>
  }
  return %r#0 : tensor<4xf32>
}

// -----

// An integer carry is read by `not`; a 2-d one by its first element.

// CHECK-LABEL: func.func @integers
// CHECK:         stablehlo.while(%[[C:[a-zA-Z0-9_]+]] = %{{.*}}, %[[N:[a-zA-Z0-9_]+]] = %{{.*}}, %[[M:[a-zA-Z0-9_]+]] = %{{.*}})
// CHECK:         do {
// CHECK:           %[[RC:.*]] = stablehlo.not %[[C]] : tensor<i32>
// CHECK-NEXT:      %[[TC:.*]]:2 = stablehlo.optimization_barrier %{{.*}}, %[[RC]] : tensor<i32>, tensor<i32>
// CHECK-NEXT:      %[[E:.*]] = stablehlo.slice %[[M]] [0:1, 0:1] : (tensor<2x3xi1>) -> tensor<1x1xi1>
// CHECK-NEXT:      %[[RM:.*]] = stablehlo.not %[[E]] : tensor<1x1xi1>
// CHECK-NEXT:      %[[TM:.*]]:2 = stablehlo.optimization_barrier %{{.*}}, %[[RM]] : tensor<2x3xi1>, tensor<1x1xi1>
// CHECK-NEXT:      stablehlo.return %[[TC]]#0, %{{.*}}, %[[TM]]#0
func.func @integers(%x: tensor<i32>, %mask: tensor<2x3xi1>) -> (tensor<i32>, tensor<2x3xi1>) {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.while(%c = %x, %n = %x, %m = %mask) : tensor<i32>, tensor<i32>, tensor<2x3xi1>
  cond {
    %p = stablehlo.compare LT, %c, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n2 = stablehlo.add %n, %one : tensor<i32>
    %b = stablehlo.compare GT, %n2, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %m2 = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<i1>) -> tensor<2x3xi1>
    stablehlo.return %n2, %n2, %m2 : tensor<i32>, tensor<i32>, tensor<2x3xi1>
  }
  return %r#0, %r#2 : tensor<i32>, tensor<2x3xi1>
}

// -----

// A loop inside a dispatch region is s4tf's own (its emitter builds it): left as it is.

// CHECK-LABEL: func.func @in_a_region
// CHECK-NOT:     stablehlo.optimization_barrier
func.func @in_a_region(%x: tensor<f32>) -> tensor<f32> {
  %r = flow.dispatch.region -> (tensor<f32>) {
    %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %w:2 = stablehlo.while(%err = %x, %v = %x) : tensor<f32>, tensor<f32>
    cond {
      %p = stablehlo.compare GT, %err, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %m = stablehlo.multiply %v, %half : tensor<f32>
      stablehlo.return %m, %m : tensor<f32>, tensor<f32>
    }
    flow.return %w#0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// With read_after=true (the vulkan pipeline's setting) a carry nothing reads after the loop
// is left untied; the default ties it as above.
// CHECK-LABEL:    func.func @residual_not_returned
// CHECK:            stablehlo.optimization_barrier
// AFTER-LABEL:    func.func @residual_not_returned
// AFTER-NOT:        stablehlo.optimization_barrier
// AFTER:            return
func.func @residual_not_returned(%x: tensor<8xf32>) -> tensor<8xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %eps = stablehlo.constant dense<1.0e-3> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.while(%err = %one, %v = %x) : tensor<f32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare GT, %err, %eps, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<8xf32>
    %m = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %m, %w : tensor<f32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}
