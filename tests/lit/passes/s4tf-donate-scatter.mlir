// RUN: s4tf-opt %s --split-input-file -p 's4tf-donate{entry=step args=0}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-donate{entry=step args=0 remarks=true}' >/dev/null

// A scatter-add into the lowering's copy of a donated table (hlo.unshared's select on
// iota > -1): the copy goes, and the scatter writes into the table's own buffer.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32> {iree.abi.output = 0 : index}
// CHECK-NOT:     iota
// CHECK-NOT:     select
// CHECK:         "stablehlo.scatter"(%arg0, %arg1, %arg2)
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0, written in place by a scatter}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>, %rows: tensor<3x8xf32>) -> tensor<100x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %minus_one = stablehlo.constant dense<-1> : tensor<i32>
  %iota = stablehlo.iota dim = 0 : tensor<100x8xi32>
  %m = stablehlo.broadcast_in_dim %minus_one, dims = [] : (tensor<i32>) -> tensor<100x8xi32>
  %always = stablehlo.compare GT, %iota, %m, SIGNED : (tensor<100x8xi32>, tensor<100x8xi32>) -> tensor<100x8xi1>
  %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<100x8xf32>
  %copy = stablehlo.select %always, %table, %z : tensor<100x8xi1>, tensor<100x8xf32>
  %new = "stablehlo.scatter"(%copy, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  return %new : tensor<100x8xf32>
}

// -----

// The rows looked up are also returned: a reader the scatter does not wait for. A gather
// is no token reader, so the scatter's indices and updates wait behind a barrier.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32> {iree.abi.output = 0 : index}
// CHECK:         %[[ROWS:.*]] = "stablehlo.gather"(%arg0, %arg1)
// CHECK:         %[[B:.*]]:3 = stablehlo.optimization_barrier %arg1, %arg2, %[[ROWS]]
// CHECK-NEXT:    "stablehlo.scatter"(%arg0, %[[B]]#0, %[[B]]#1)
func.func @step(
    // expected-remark @below {{argument 0 holds result 0, written in place by a scatter after 1 reader(s) of it, through a barrier}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>, %rows: tensor<3x8xf32>) -> (tensor<100x8xf32>, tensor<3x8xf32>) {
  %new = "stablehlo.scatter"(%table, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  %read = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<100x8xf32>, tensor<3x1xi32>) -> tensor<3x8xf32>
  return %new, %read : tensor<100x8xf32>, tensor<3x8xf32>
}

// -----

// The updates are the looked-up rows doubled: IREE could fuse the gather into the
// scatter's dispatch, which would read rows it is writing. A barrier cuts that path.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32> {iree.abi.output = 0 : index}
// CHECK:         %[[ROWS:.*]] = "stablehlo.gather"(%arg0, %arg1)
// CHECK:         %[[TWICE:.*]] = stablehlo.add %[[ROWS]], %[[ROWS]]
// CHECK:         %[[B:.*]]:3 = stablehlo.optimization_barrier %arg1, %[[TWICE]], %[[ROWS]]
// CHECK-NEXT:    "stablehlo.scatter"(%arg0, %[[B]]#0, %[[B]]#1)
func.func @step(
    // expected-remark @below {{argument 0 holds result 0, written in place by a scatter after 1 reader(s) of it, through a barrier}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>) -> tensor<100x8xf32> {
  %read = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>}> : (tensor<100x8xf32>, tensor<3x1xi32>) -> tensor<3x8xf32>
  %twice = stablehlo.add %read, %read : tensor<3x8xf32>
  %new = "stablehlo.scatter"(%table, %ids, %twice) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  return %new : tensor<100x8xf32>
}

// -----

// A product reads the table and the scatter does not wait for it: the scatter's updates
// wait through a token reading one element of the product.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32> {iree.abi.output = 0 : index}
// CHECK:         %[[P:.*]] = stablehlo.dot_general %arg0, %arg0
// CHECK:         is_finite
// CHECK:         %[[W:.*]] = stablehlo.multiply %arg2,
// CHECK-NEXT:    "stablehlo.scatter"(%arg0, %arg1, %[[W]])
// CHECK-NOT:     optimization_barrier
func.func @step(
    // expected-remark @below {{argument 0 holds result 0, written in place by a scatter after 1 reader(s) of it, through a wait token}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>, %rows: tensor<3x8xf32>) -> (tensor<100x8xf32>, tensor<8x8xf32>) {
  %new = "stablehlo.scatter"(%table, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  %gram = stablehlo.dot_general %table, %table, contracting_dims = [0] x [0] : (tensor<100x8xf32>, tensor<100x8xf32>) -> tensor<8x8xf32>
  return %new, %gram : tensor<100x8xf32>, tensor<8x8xf32>
}

// -----

// A scatter into something else than the argument does not write into it.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32>, %arg1: tensor<3x1xi32>
func.func @step(
    // expected-remark @below {{argument 0 keeps its buffer: result 0: not computed by an elementwise op of the function's body, or by a scatter into the argument}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>, %rows: tensor<3x8xf32>) -> tensor<100x8xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<100x8xf32>
  %new = "stablehlo.scatter"(%zero, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  return %new : tensor<100x8xf32>
}

// -----

// Two updates of one table, both returned, share the lowering's copy of it (after CSE):
// the first writes in place only after the copy the second reads was made.
// CHECK-LABEL: func.func @step(%arg0: tensor<100x8xf32> {iree.abi.output = 0 : index}
// CHECK:         %[[COPY:.*]] = stablehlo.select %{{.*}}, %arg0,
// CHECK:         %[[B:.*]]:3 = stablehlo.optimization_barrier %arg1, %arg2, %[[COPY]]
// CHECK-NEXT:    "stablehlo.scatter"(%arg0, %[[B]]#0, %[[B]]#1)
func.func @step(
    // expected-remark @below {{argument 0 holds result 0, written in place by a scatter after 1 reader(s) of it, through a barrier}}
    %table: tensor<100x8xf32>, %ids: tensor<3x1xi32>, %rows: tensor<3x8xf32>) -> (tensor<100x8xf32>, tensor<100x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %minus_one = stablehlo.constant dense<-1> : tensor<i32>
  %iota = stablehlo.iota dim = 0 : tensor<100x8xi32>
  %m = stablehlo.broadcast_in_dim %minus_one, dims = [] : (tensor<i32>) -> tensor<100x8xi32>
  %always = stablehlo.compare GT, %iota, %m, SIGNED : (tensor<100x8xi32>, tensor<100x8xi32>) -> tensor<100x8xi1>
  %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<100x8xf32>
  %copy = stablehlo.select %always, %table, %z : tensor<100x8xi1>, tensor<100x8xf32>
  %new = "stablehlo.scatter"(%copy, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %sum = stablehlo.add %old, %update : tensor<f32>
    stablehlo.return %sum : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  %other = "stablehlo.scatter"(%copy, %ids, %rows) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%old: tensor<f32>, %update: tensor<f32>):
    %product = stablehlo.multiply %old, %update : tensor<f32>
    stablehlo.return %product : tensor<f32>
  }) : (tensor<100x8xf32>, tensor<3x1xi32>, tensor<3x8xf32>) -> tensor<100x8xf32>
  return %new, %other : tensor<100x8xf32>, tensor<100x8xf32>
}
