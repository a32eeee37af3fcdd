// RUN: s4tf-opt %s --pass-pipeline='builtin.module(s4tf-canonicalize,s4tf-lower-to-stablehlo,cse,canonicalize,symbol-dce)' | filecheck %s
// RUN: s4tf-opt %s -p s4tf-canonicalize,s4tf-lower-to-stablehlo,cse,canonicalize,symbol-dce | filecheck %s
// RUN: s4tf-opt %s -p 's4tf-canonicalize,s4tf-lower-to-stablehlo,inline,func.func(cse,canonicalize),symbol-dce' | filecheck %s --check-prefix=INLINE
// RUN: s4tf-opt %s -p s4tf-canonicalize,s4tf-lower-to-stablehlo,cse,canonicalize,symbol-dce --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: not s4tf-opt %s -p 'builtin.module(func.func(s4tf-canonicalize))' 2>&1 | filecheck %s --check-prefix=NESTED

// s4tf passes and upstream MLIR passes run in one pipeline, in either syntax.

// s4tf-canonicalize removed x + 0; cse merged the two broadcasts of %b; symbol-dce
// erased the unused private function; the called one stays.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[H:.*]] = call @layer(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT:    %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.multiply %[[H]], %[[BB]]
// CHECK-NEXT:    %[[S:.*]] = stablehlo.subtract %[[H]], %[[BB]]
// CHECK-NEXT:    return %[[M]], %[[S]]
// CHECK-LABEL: func.func private @layer
// CHECK:         stablehlo.dot_general
// CHECK:         stablehlo.tanh
// CHECK-NOT:     s4tf.
// CHECK-NOT:     @unused

// After inlining @layer, cse also merges its broadcast of %b with @main's, and
// symbol-dce erases @layer.
// INLINE-LABEL: func.func @main
// INLINE-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<2xf32>)
// INLINE-NEXT:    %[[D:.*]] = stablehlo.dot_general %[[X]], %[[W]], contracting_dims = [1] x [0]
// INLINE-NEXT:    %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1]
// INLINE-NEXT:    stablehlo.add %[[D]], %[[BB]]
// INLINE-NEXT:    stablehlo.transpose
// INLINE-NEXT:    stablehlo.transpose
// INLINE-NEXT:    %[[T:.*]] = stablehlo.tanh
// INLINE-NEXT:    stablehlo.multiply %[[T]], %[[BB]]
// INLINE-NEXT:    stablehlo.subtract %[[T]], %[[BB]]
// INLINE-NEXT:    return
// INLINE-NEXT:  }
// INLINE-NEXT: }

// --print-ir-after-all prints the module to stderr after each pass, in order.
// DUMP:      // -----// IR Dump After s4tf-canonicalize
// DUMP:      "s4tf.dot_general"
// DUMP-NOT:  "s4tf.constant"
// DUMP:      // -----// IR Dump After s4tf-lower-to-stablehlo
// DUMP-NOT:  "s4tf.
// DUMP:      // -----// IR Dump After CSEPass: cse
// DUMP:      // -----// IR Dump After CanonicalizerPass: canonicalize
// DUMP:      @unused
// DUMP:      // -----// IR Dump After SymbolDCEPass: symbol-dce
// DUMP-NOT:  @unused

// NESTED: s4tf-opt: error: s4tf passes run on the module; write 's4tf-canonicalize' at the top level of the pipeline

func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%x, %zero) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %1 = call @layer(%0, %w, %b) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %2 = "s4tf.mul"(%1, %b) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %3 = "s4tf.sub"(%1, %b) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %2, %3 : tensor<4x2xf32>, tensor<4x2xf32>
}

func.func private @layer(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  %0 = "s4tf.dot_general"(%x, %w) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = "s4tf.add"(%0, %b) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %2 = "s4tf.transpose"(%1) {permutation = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %3 = "s4tf.transpose"(%2) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %4 = "s4tf.tanh"(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %4 : tensor<4x2xf32>
}

func.func private @unused(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
