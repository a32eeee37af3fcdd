// RUN: s4tf-opt %s --split-input-file -p s4tf-products-apart | filecheck %s

// s4tf-products-apart reads all but the first of the products that elementwise code
// combines (through ops without regions) through a stablehlo.optimization_barrier (IREE
// 3.13's SPIR-V code for two products fused into one dispatch races); a product combined
// with other values, or with itself, is left alone.

// CHECK-LABEL: func.func @two_products_added
// CHECK:         %[[P:.*]] = stablehlo.dot_general %arg0, %arg2
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.dot_general %arg1, %arg2
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[Q]] : tensor<4x6xf32>
// CHECK-NEXT:    %[[E:.*]] = stablehlo.exponential %[[B]]
// CHECK-NEXT:    stablehlo.add %[[P]], %[[E]]
func.func @two_products_added(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %q = stablehlo.dot_general %b, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %e = stablehlo.exponential %q : tensor<4x6xf32>
  %s = stablehlo.add %p, %e : tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @one_product
// CHECK-NOT:     optimization_barrier
func.func @one_product(%a: tensor<4x4xf32>, %x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %d = stablehlo.add %p, %p : tensor<4x6xf32>
  %s = stablehlo.add %d, %x : tensor<4x6xf32>
  return %s : tensor<4x6xf32>
}

// -----

// A product combined with the first in two places, through ops IREE fuses with it, is read
// through one barrier, not a barrier a place (each barrier is a wait on the host in IREE's
// stream code; 8 copies of an RNN step's reverse mode chained 8 barriers).

// CHECK-LABEL: func.func @combined_twice
// CHECK:         %[[Q:.*]] = stablehlo.dot_general %arg1, %arg2
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %[[Q]] : tensor<4x6xf32>
// CHECK-NEXT:    %[[E:.*]] = stablehlo.exponential %[[B]]
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate %[[E]]
// CHECK-NEXT:    stablehlo.add %{{.*}}, %[[N]]
// CHECK-NEXT:    stablehlo.multiply %{{.*}}, %[[N]]
// CHECK-NOT:     optimization_barrier
func.func @combined_twice(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %q = stablehlo.dot_general %b, %x, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %e = stablehlo.exponential %q : tensor<4x6xf32>
  %n = stablehlo.negate %e : tensor<4x6xf32>
  %s = stablehlo.add %p, %n : tensor<4x6xf32>
  %m = stablehlo.multiply %p, %n : tensor<4x6xf32>
  return %s, %m : tensor<4x6xf32>, tensor<4x6xf32>
}
