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
