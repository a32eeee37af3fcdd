// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-check-availability{target=vulkan}'
// RUN: s4tf-opt %s --split-input-file -p 's4tf-check-availability{target=cuda}' | filecheck %s --check-prefix=CUDA
// RUN: not s4tf-opt %s -p 's4tf-check-availability{target=tpu}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// s4tf-check-availability reports, before IREE runs, every op a target cannot run, each at
// its own location, with the target and the reason named. It changes nothing.
// UNKNOWN: s4tf-opt: error: option target=tpu of pass 's4tf-check-availability' must be one of: cpu, vmvx, vulkan, cuda, android-arm64, linux-arm64

// Vulkan's Android baseline has no f64 and cannot divide i64: two errors, one per op.
// CUDA-LABEL: func.func @f64_and_i64_division
// CUDA-NEXT:    "s4tf.exp"
// CUDA-NEXT:    "s4tf.div"
func.func @f64_and_i64_division(%x: tensor<4xf64>, %i: tensor<4xi64>) -> (tensor<4xf64>, tensor<4xi64>) {
  // expected-error @below {{s4tf.exp on f64 is not available on target 'vulkan': the Vulkan Android baseline profile has no 64-bit floats}}
  %0 = "s4tf.exp"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  // expected-error @below {{s4tf.div on i64 is not available on target 'vulkan': 64-bit integer division is not lowered to SPIR-V}}
  %1 = "s4tf.div"(%i, %i) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xf64>, tensor<4xi64>
}

// -----

// i64 arithmetic other than division is fine on Vulkan, and so is f32 everything.
// CUDA-LABEL: func.func @supported
func.func @supported(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.add"(%i, %i) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<4xf32>, tensor<4xi64>
}

// -----

// StableHLO input is checked as well: conversions from i32 to bf16 gave zeros on lavapipe.
func.func @stablehlo_convert(%i: tensor<4xi32>) -> tensor<4xbf16> {
  // expected-error @below {{stablehlo.convert on bf16 is not available on target 'vulkan': conversion from i1, i8 or i32 to bf16 gave zeros on lavapipe}}
  %0 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
