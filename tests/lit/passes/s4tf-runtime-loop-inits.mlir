// RUN: s4tf-opt %s --split-input-file -p s4tf-runtime-loop-inits | filecheck %s

// s4tf-runtime-loop-inits: a loop that holds a loop and starts from constant tensors
// (a one-hot seed, ones) starts from selects of them on `n >= 0 or n < 0`, n an integer
// the loop starts from that is computed at run time (IREE 3.13 crashes otherwise).

// CHECK-LABEL: func.func @one_hot_seed_into_nested_loops
// CHECK:         %[[GE:.*]] = stablehlo.compare GE, %arg1, %[[ZERO:.*]] : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:    %[[LT:.*]] = stablehlo.compare LT, %arg1, %[[ZERO]]
// CHECK-NEXT:    %[[ALWAYS:.*]] = stablehlo.or %[[GE]], %[[LT]] : tensor<i1>
// CHECK-NEXT:    %[[ZEROS:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[SEED:.*]] = stablehlo.select %[[ALWAYS]], %[[HOT:.*]], %[[ZEROS]] : tensor<i1>, tensor<4xf32>
// CHECK-NEXT:    %[[ZEROS2:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[ONES:.*]] = stablehlo.select %[[ALWAYS]], %{{.*}}, %[[ZEROS2]] : tensor<i1>, tensor<4xf32>
// CHECK-NEXT:    stablehlo.while(%{{.*}} = %arg1, %{{.*}} = %[[SEED]], %{{.*}} = %[[ONES]])
func.func @one_hot_seed_into_nested_loops(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %hot = stablehlo.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  %ones = stablehlo.constant dense<1.0> : tensor<4xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %n, %ct = %hot, %s = %ones) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare GT, %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %inner:2 = stablehlo.while(%j = %i, %y = %ct) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare GT, %j, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %y2 = stablehlo.multiply %y, %x : tensor<4xf32>
      %j2 = stablehlo.subtract %j, %one : tensor<i32>
      stablehlo.return %j2, %y2 : tensor<i32>, tensor<4xf32>
    }
    %i2 = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %i2, %inner#1, %s : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A loop without a nested loop, and one whose only integer is a constant, are left as
// they are.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.select
// CHECK-NOT:     stablehlo.or
func.func @left_alone(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %hot = stablehlo.constant dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  %scalar = stablehlo.constant dense<1.0> : tensor<f32>
  %one_element = stablehlo.reshape %scalar : (tensor<f32>) -> tensor<1xf32>
  %splat = stablehlo.broadcast_in_dim %one_element, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %ten = stablehlo.constant dense<10> : tensor<i32>
  %flat:2 = stablehlo.while(%i = %n, %y = %hot) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare GT, %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y2 = stablehlo.multiply %y, %x : tensor<4xf32>
    stablehlo.return %i, %y2 : tensor<i32>, tensor<4xf32>
  }
  %nested:3 = stablehlo.while(%i = %ten, %y = %hot, %s = %splat) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare GT, %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %inner:2 = stablehlo.while(%j = %i, %z = %y) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare GT, %j, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %j, %z : tensor<i32>, tensor<4xf32>
    }
    stablehlo.return %i, %inner#1, %s : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  return %flat#1, %nested#1 : tensor<4xf32>, tensor<4xf32>
}
