// RUN: s4tf-opt %s --split-input-file -p 's4tf-branches-to-selects' | filecheck %s

// An if chain in a host-stepped loop (a three-way switch): both branches of each if are
// computed, innermost first, and selected.
// CHECK-LABEL: func.func @switch_in_a_loop
// CHECK:         stablehlo.while
// CHECK-NOT:       stablehlo.if
// CHECK-DAG:       %[[A:.*]] = stablehlo.multiply %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK-DAG:       %[[B:.*]] = stablehlo.sine %{{.*}} : tensor<8xf32>
// CHECK-DAG:       %[[C:.*]] = stablehlo.cosine %{{.*}} : tensor<8xf32>
// CHECK:           %[[INNER:.*]] = stablehlo.select %{{.*}}, %[[B]], %[[C]] : tensor<i1>, tensor<8xf32>
// CHECK:           %[[OUTER:.*]] = stablehlo.select %{{.*}}, %[[A]], %[[INNER]] : tensor<i1>, tensor<8xf32>
// CHECK:           stablehlo.return %{{.*}}, %[[OUTER]] : tensor<i32>, tensor<8xf32>
func.func @switch_in_a_loop(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<8xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %p1 = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %n = "stablehlo.if"(%p1) ({
      %m = stablehlo.multiply %v, %v : tensor<8xf32>
      stablehlo.return %m : tensor<8xf32>
    }, {
      %p2 = stablehlo.compare LT, %i, %c2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %n2 = "stablehlo.if"(%p2) ({
        %s = stablehlo.sine %v : tensor<8xf32>
        stablehlo.return %s : tensor<8xf32>
      }, {
        %c = stablehlo.cosine %v : tensor<8xf32>
        stablehlo.return %c : tensor<8xf32>
      }) : (tensor<i1>) -> tensor<8xf32>
      stablehlo.return %n2 : tensor<8xf32>
    }) : (tensor<i1>) -> tensor<8xf32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %n : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}

// -----

// Branches that stay branches: a matrix product (the branch not taken would cost more than
// the wait), an integer division (it may trap on the branch not taken), and an if outside
// any loop.
// CHECK-LABEL: func.func @kept
// CHECK:         stablehlo.while
// CHECK:           "stablehlo.if"
// CHECK:             stablehlo.dot_general
// CHECK:           "stablehlo.if"
// CHECK:             stablehlo.divide %{{.*}}, %{{.*}} : tensor<i32>
// CHECK:         "stablehlo.if"
// CHECK:           stablehlo.negate
func.func @kept(%x: tensor<8x8xf32>, %k: tensor<i32>) -> (tensor<8x8xf32>, tensor<i32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %v = %x, %q = %k) : tensor<i32>, tensor<8x8xf32>, tensor<i32>
  cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %p1 = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %n = "stablehlo.if"(%p1) ({
      %m = stablehlo.dot_general %v, %v, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      stablehlo.return %m : tensor<8x8xf32>
    }, {
      stablehlo.return %v : tensor<8x8xf32>
    }) : (tensor<i1>) -> tensor<8x8xf32>
    %nonzero = stablehlo.compare NE, %i, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %q1 = "stablehlo.if"(%nonzero) ({
      %d = stablehlo.divide %q, %i : tensor<i32>
      stablehlo.return %d : tensor<i32>
    }, {
      stablehlo.return %q : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %n, %q1 : tensor<i32>, tensor<8x8xf32>, tensor<i32>
  }
  %p = stablehlo.compare GT, %k, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %out = "stablehlo.if"(%p) ({
    %neg = stablehlo.negate %r#1 : tensor<8x8xf32>
    stablehlo.return %neg : tensor<8x8xf32>
  }, {
    stablehlo.return %r#1 : tensor<8x8xf32>
  }) : (tensor<i1>) -> tensor<8x8xf32>
  return %out, %r#2 : tensor<8x8xf32>, tensor<i32>
}
