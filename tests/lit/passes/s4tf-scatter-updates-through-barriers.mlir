// RUN: s4tf-opt %s --split-input-file -p s4tf-scatter-updates-through-barriers | filecheck %s

// s4tf-scatter-updates-through-barriers reads each scatter's computed updates through a
// stablehlo.optimization_barrier (IREE 3.13's cuda backend refused a scatter fused with the
// code selecting its updates); updates that are arguments, or barriers already, are left.

// CHECK-LABEL: func.func @selected_updates
// CHECK:         %[[U:.*]] = stablehlo.select
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[U]] : tensor<3xi32>
// CHECK-NEXT:    "stablehlo.scatter"(%{{.*}}, %arg0, %[[B]])
// CHECK:         "stablehlo.scatter"(%{{.*}}, %arg0, %arg2)
// CHECK-NOT:     optimization_barrier
func.func @selected_updates(%idx: tensor<3x2xi32>, %mask: tensor<3xi1>, %given: tensor<3xi32>) -> (tensor<6x3xi32>, tensor<6x3xi32>) {
  %m1 = stablehlo.constant dense<-1> : tensor<6x3xi32>
  %iota = stablehlo.iota dim = 0 : tensor<3xi32>
  %c = stablehlo.constant dense<7> : tensor<3xi32>
  %u = stablehlo.select %mask, %iota, %c : tensor<3xi1>, tensor<3xi32>
  %s = "stablehlo.scatter"(%m1, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  %t = "stablehlo.scatter"(%m1, %idx, %given) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  return %s, %t : tensor<6x3xi32>, tensor<6x3xi32>
}

// -----

// The scatters of one block read their updates through one barrier, after the last update
// is made; a scatter before it moves after it (IREE 3.13 failed to schedule six barriers
// of one loop body: "failed to solve for timepoint coverage").

// CHECK-LABEL: func.func @two_scatters_one_barrier
// CHECK:         %[[U:.*]] = stablehlo.select %arg1, %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[V:.*]] = stablehlo.select %arg1, %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[B:.*]]:2 = stablehlo.optimization_barrier %[[U]], %[[V]] : tensor<3xi32>, tensor<3xi32>
// CHECK-NEXT:    %[[S:.*]] = "stablehlo.scatter"(%{{.*}}, %arg0, %[[B]]#0)
// CHECK:         %[[T:.*]] = "stablehlo.scatter"(%{{.*}}, %arg0, %[[B]]#1)
// CHECK-NOT:     optimization_barrier
// CHECK:         return %[[S]], %[[T]]
func.func @two_scatters_one_barrier(%idx: tensor<3x2xi32>, %mask: tensor<3xi1>) -> (tensor<6x3xi32>, tensor<6x3xi32>) {
  %m1 = stablehlo.constant dense<-1> : tensor<6x3xi32>
  %iota = stablehlo.iota dim = 0 : tensor<3xi32>
  %c = stablehlo.constant dense<7> : tensor<3xi32>
  %u = stablehlo.select %mask, %iota, %c : tensor<3xi1>, tensor<3xi32>
  %s = "stablehlo.scatter"(%m1, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  %v = stablehlo.select %mask, %c, %iota : tensor<3xi1>, tensor<3xi32>
  %t = "stablehlo.scatter"(%m1, %idx, %v) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  return %s, %t : tensor<6x3xi32>, tensor<6x3xi32>
}

// -----

// A scatter whose updates are made from an earlier scatter's result takes a barrier of its own.

// CHECK-LABEL: func.func @updates_from_a_scatter
// CHECK:         %[[B1:.*]] = stablehlo.optimization_barrier %{{.*}} : tensor<3xi32>
// CHECK-NEXT:    %[[S:.*]] = "stablehlo.scatter"(%{{.*}}, %arg0, %[[B1]])
// CHECK:         %[[ROW:.*]] = stablehlo.slice %[[S]]
// CHECK-NEXT:    %[[V:.*]] = stablehlo.reshape %[[ROW]]
// CHECK-NEXT:    %[[B2:.*]] = stablehlo.optimization_barrier %[[V]] : tensor<3xi32>
// CHECK-NEXT:    "stablehlo.scatter"(%[[S]], %arg0, %[[B2]])
func.func @updates_from_a_scatter(%idx: tensor<3x2xi32>, %mask: tensor<3xi1>) -> tensor<6x3xi32> {
  %m1 = stablehlo.constant dense<-1> : tensor<6x3xi32>
  %iota = stablehlo.iota dim = 0 : tensor<3xi32>
  %c = stablehlo.constant dense<7> : tensor<3xi32>
  %u = stablehlo.select %mask, %iota, %c : tensor<3xi1>, tensor<3xi32>
  %s = "stablehlo.scatter"(%m1, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  %row = stablehlo.slice %s [0:1, 0:3] : (tensor<6x3xi32>) -> tensor<1x3xi32>
  %v = stablehlo.reshape %row : (tensor<1x3xi32>) -> tensor<3xi32>
  %t = "stablehlo.scatter"(%s, %idx, %v) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
  return %t : tensor<6x3xi32>
}
