// RUN: s4tf-opt %s -p 's4tf-export{entry_points=predict weights=0:w:tensor<3x2xf32>,1:b:tensor<2xf32> reflection={s4tf.target="cpu",s4tf.note="a\20b"}},symbol-dce' | filecheck %s
// RUN: s4tf-opt %s -p 's4tf-export{entry_points=predict,helper scope=other weights=1:b:tensor<2xf32>},symbol-dce' | filecheck %s --check-prefix=TWO
// RUN: python -c "import numpy as np; np.savez('%t.npz', b=np.arange(2, dtype=np.float32))"
// RUN: s4tf-opt %s -p 's4tf-export{entry_points=predict weights=1:b:tensor<2xf32> values=%t.npz}' | filecheck %s --check-prefix=EMBED
// RUN: not s4tf-opt %s -p 's4tf-export{entry_points=train}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not s4tf-opt %s -p 's4tf-export{entry_points=predict weights=2:w:tensor<3x2xf32>}' 2>&1 | filecheck %s --check-prefix=MISMATCH
// RUN: not s4tf-opt %s -p 's4tf-export{entry_points=predict weights=0:w}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not s4tf-opt %s -p 's4tf-export{entry_points=predict weights=1:b:tensor<2xf32> values=%t.missing.npz}' 2>&1 | filecheck %s --check-prefix=VALUES

// Weight arguments become globals read from the parameter archive (scope "model"), the
// entry point records the reflection given, other functions become private and
// symbol-dce drops those nothing calls.
// CHECK:       util.global private @weight_b = #stream.parameter.named<"model"::"b"> : tensor<2xf32>
// CHECK-NEXT:  util.global private @weight_w = #stream.parameter.named<"model"::"w"> : tensor<3x2xf32>
// CHECK-LABEL: func.func public @predict(%arg0: tensor<4x3xf32>) -> tensor<4x2xf32> attributes {iree.reflection = {s4tf.note = "a b", s4tf.target = "cpu"}} {
// CHECK-NEXT:    %weight_w = util.global.load @weight_w : tensor<3x2xf32>
// CHECK-NEXT:    %weight_b = util.global.load @weight_b : tensor<2xf32>
// CHECK-NEXT:    stablehlo.dot_general %arg0, %weight_w
// CHECK-NOT:   @helper

// TWO:         util.global private @weight_b = #stream.parameter.named<"other"::"b"> : tensor<2xf32>
// TWO:         func.func public @predict(%arg0: tensor<3x2xf32>, %arg1: tensor<4x3xf32>) -> tensor<4x2xf32> {
// TWO:         func.func public @helper(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {

// With values=FILE.npz the weights are constants of the module.
// EMBED:       util.global private @weight_b = dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>

// MISSING: error: no function 'train' in the module; its functions: predict, helper, unused
// MISMATCH: error: weight 'w' (tensor<3x2xf32>) does not match argument 2 of entry point 'predict' (tensor<4x3xf32>)
// SYNTAX: error: weights item '0:w' must be position:key:type, as 0:w:tensor<3x2xf32>
// VALUES: error: cannot read the weights' values from {{.*}}missing.npz

func.func @predict(%w: tensor<3x2xf32>, %b: tensor<2xf32>, %x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2xf32>) -> tensor<4x2xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}
func.func @helper(%b: tensor<3x2xf32>, %unused: tensor<2xf32>) -> tensor<3x2xf32> {
  return %b : tensor<3x2xf32>
}
func.func @unused(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  return %x : tensor<4x3xf32>
}

// RUN: not s4tf-opt %s -p 's4tf-export{entry_points=declared}' 2>&1 | filecheck %s --check-prefix=DECLARED
// DECLARED: error: entry point 'declared' is a declaration: it has no body to export
func.func private @declared(%x: tensor<4x3xf32>) -> tensor<4x3xf32>
