// RUN: s4tf-opt %s -p s4tf-lower-to-stablehlo | filecheck %s
// RUN: s4tf-opt %s -p s4tf-lower-to-stablehlo | s4tf-opt | filecheck %s --check-prefix=NONE

// s4tf-lower-to-stablehlo replaces every s4tf op by StableHLO; implicit NumPy broadcasting
// becomes explicit stablehlo.broadcast_in_dim. One function per op family; every s4tf op
// appears below (tests/tools/test_lit.py checks that). The output parses again (StableHLO
// is registered, so MLIR verifies it) and has no s4tf op left.

// NONE-LABEL: func.func @unary
// NONE-NOT:   s4tf.
// NONE-LABEL: func.func @shape_ops
// NONE-NOT:   s4tf.
// NONE-LABEL: func.func @add_slice
// NONE-NOT:   s4tf.

// CHECK-LABEL: func.func @unary
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT:    stablehlo.negate %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.exponential %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.log %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[LOG1P:.*]] = stablehlo.log_plus_one %[[X]] : tensor<4xf32>
// CHECK:         %[[ZERO:.*]] = stablehlo.compare EQ, %[[X]], %{{.*}}
// CHECK-NEXT:    stablehlo.select %[[ZERO]], %[[X]], %[[LOG1P]]
// CHECK:         stablehlo.tanh %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.sqrt %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.rsqrt %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.abs %[[X]] : tensor<4xf32>
// sign by comparisons (IREE 3.13's stablehlo.sign does not compile for vmvx), x + 0 at the
// zeros (+0) and NaN:
// CHECK:         %[[ABOVE:.*]] = stablehlo.compare GT, %[[X]], %[[Z:.*]], FLOAT
// CHECK-NEXT:    %[[BELOW:.*]] = stablehlo.compare LT, %[[X]], %[[Z]], FLOAT
// CHECK-NEXT:    %[[REST:.*]] = stablehlo.add %[[X]], %[[Z]]
// CHECK:         %[[SIGNED:.*]] = stablehlo.select %[[BELOW]], %{{.*}}, %[[REST]]
// CHECK:         stablehlo.select %[[ABOVE]], %{{.*}}, %[[SIGNED]]
// CHECK-NEXT:    stablehlo.logistic %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.floor %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.ceil %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.round_nearest_even %[[X]] : tensor<4xf32>
// CHECK-NEXT:    stablehlo.not %[[I]] : tensor<4xi32>
// CHECK-NEXT:    stablehlo.not %[[B]] : tensor<4xi1>
// stop_gradient is the identity: its result is its operand.
// CHECK-NEXT:    return {{.*}}, %[[R]], {{.*}}, %[[X]] :
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  %0 = "s4tf.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "s4tf.log1p"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "s4tf.sin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "s4tf.cos"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "s4tf.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "s4tf.sqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "s4tf.rsqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %9 = "s4tf.abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "s4tf.sign"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %11 = "s4tf.logistic"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %12 = "s4tf.floor"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %13 = "s4tf.ceil"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %14 = "s4tf.round"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %15 = "s4tf.not"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  %16 = "s4tf.not"(%b) : (tensor<4xi1>) -> tensor<4xi1>
  %17 = "s4tf.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}

// optimization_barrier (reverse mode's loop cotangents) is StableHLO's, kept for any element type.
// CHECK-LABEL: func.func @barrier
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2xi32>)
// CHECK-NEXT:    %[[BX:.*]] = stablehlo.optimization_barrier %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[BI:.*]] = stablehlo.optimization_barrier %[[I]] : tensor<2xi32>
// CHECK-NEXT:    return %[[BX]], %[[BI]] :
func.func @barrier(%x: tensor<4xf32>, %i: tensor<2xi32>) -> (tensor<4xf32>, tensor<2xi32>) {
  %0 = "s4tf.optimization_barrier"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.optimization_barrier"(%i) : (tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<4xf32>, tensor<2xi32>
}

// after (s4tf.remat's recomputation) is x times a wait token, exactly 1, from one element
// of the token operand: floats multiplied, booleans and-ed with it converted, integers
// multiplied by it converted; an empty token falls back to a barrier.
// CHECK-LABEL: func.func @after
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[CT:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xi1>, %[[I:.*]]: tensor<2xi32>, %[[E:.*]]: tensor<0xf32>)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.slice %[[CT]] [0:1, 0:1]
// CHECK-NEXT:    %[[T:.*]] = stablehlo.reshape %[[S]] : (tensor<1x1xf32>) -> tensor<f32>
// CHECK-NEXT:    %[[C1:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[T]], %[[T]] : tensor<f32>
// CHECK-NEXT:    %[[N:.*]] = stablehlo.add %[[D]], %[[C1]] : tensor<f32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.is_finite %[[T]]
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.select %[[F]], %[[N]], %[[C1]] : tensor<i1>, tensor<f32>
// CHECK-NEXT:    %[[OB:.*]] = stablehlo.broadcast_in_dim %[[ONE]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[AX:.*]] = stablehlo.multiply %[[X]], %[[OB]] : tensor<4xf32>
// CHECK:         %[[TRUE:.*]] = stablehlo.convert %{{.*}} : (tensor<f32>) -> tensor<i1>
// CHECK-NEXT:    %[[TB:.*]] = stablehlo.broadcast_in_dim %[[TRUE]], dims = [] : (tensor<i1>) -> tensor<3xi1>
// CHECK-NEXT:    %[[AB:.*]] = stablehlo.and %[[B]], %[[TB]] : tensor<3xi1>
// CHECK:         %[[IONE:.*]] = stablehlo.convert %{{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK-NEXT:    %[[IB:.*]] = stablehlo.broadcast_in_dim %[[IONE]], dims = [] : (tensor<i32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[AI:.*]] = stablehlo.multiply %[[I]], %[[IB]] : tensor<2xi32>
// CHECK-NEXT:    %[[BAR:.*]]:2 = stablehlo.optimization_barrier %[[X]], %[[E]] : tensor<4xf32>, tensor<0xf32>
// CHECK-NEXT:    return %[[AX]], %[[AB]], %[[AI]], %[[BAR]]#0 :
func.func @after(%x: tensor<4xf32>, %ct: tensor<2x3xf32>, %b: tensor<3xi1>, %i: tensor<2xi32>, %e: tensor<0xf32>) -> (tensor<4xf32>, tensor<3xi1>, tensor<2xi32>, tensor<4xf32>) {
  %0 = "s4tf.after"(%x, %ct) : (tensor<4xf32>, tensor<2x3xf32>) -> tensor<4xf32>
  %1 = "s4tf.after"(%b, %ct) : (tensor<3xi1>, tensor<2x3xf32>) -> tensor<3xi1>
  %2 = "s4tf.after"(%i, %ct) : (tensor<2xi32>, tensor<2x3xf32>) -> tensor<2xi32>
  %3 = "s4tf.after"(%x, %e) : (tensor<4xf32>, tensor<0xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<3xi1>, tensor<2xi32>, tensor<4xf32>
}

// Broadcasting operands get a broadcast_in_dim aligned on trailing axes; others are used as is.
// CHECK-LABEL: func.func @binary
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT:    %[[YB:.*]] = stablehlo.broadcast_in_dim %[[Y]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.add %[[X]], %[[YB]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[YB2:.*]] = stablehlo.broadcast_in_dim %[[Y]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.subtract %[[YB2]], %[[X]] : tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.multiply %[[X]], %[[X]] : tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.divide %[[I]], %[[I]] : tensor<4xi32>
// Float pow is C's pow, from IREE's power of |y|: negated for an odd integer exponent where
// y's sign bit is set (y < 0 or 1 / y < 0: -0.0 and -inf too), NaN for a finite negative y
// to a power that is no integer, and 1 for y ** 0, 1 ** y and (-1) ** +-inf.
// CHECK-NEXT:    %[[ABS:.*]] = stablehlo.abs %[[Y]] : tensor<3xf32>
// CHECK-NEXT:    %[[MAG:.*]] = stablehlo.power %[[ABS]], %[[Y]] : tensor<3xf32>
// CHECK:         %[[INV:.*]] = stablehlo.divide %{{.*}}, %[[Y]]
// CHECK-NEXT:    %[[LT:.*]] = stablehlo.compare LT, %[[Y]], {{.*}}
// CHECK-NEXT:    %[[INVLT:.*]] = stablehlo.compare LT, %[[INV]], {{.*}}
// CHECK-NEXT:    %[[SIGN:.*]] = stablehlo.or %[[LT]], %[[INVLT]]
// CHECK-NEXT:    %[[NEG:.*]] = stablehlo.and %{{.*}}, %[[SIGN]]
// CHECK-NEXT:    %[[MINUS:.*]] = stablehlo.negate %[[MAG]]
// CHECK-NEXT:    %[[SIGNED:.*]] = stablehlo.select %[[NEG]], %[[MINUS]], %[[MAG]]
// CHECK:         stablehlo.select %{{.*}}, %{{.*}}, %[[SIGNED]]
// CHECK:         stablehlo.or
// CHECK:         stablehlo.select
// CHECK-NEXT:    stablehlo.maximum %[[Y]], %[[Y]] : tensor<3xf32>
// CHECK-NEXT:    stablehlo.minimum %[[I]], %[[I]] : tensor<4xi32>
// CHECK-NEXT:    stablehlo.and %[[B]], %[[B]] : tensor<4xi1>
// CHECK-NEXT:    stablehlo.or %[[I]], %[[I]] : tensor<4xi32>
// CHECK-NEXT:    return
func.func @binary(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4xi32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi32>) {
  %0 = "s4tf.add"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = "s4tf.sub"(%y, %x) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = "s4tf.mul"(%x, %x) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = "s4tf.div"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = "s4tf.pow"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %5 = "s4tf.maximum"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %6 = "s4tf.minimum"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %7 = "s4tf.and"(%b, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = "s4tf.or"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4xi32>, tensor<3xf32>, tensor<3xf32>, tensor<4xi32>, tensor<4xi1>, tensor<4xi32>
}

// The comparison type follows the operand dtype: FLOAT, SIGNED (ints), UNSIGNED (i1).
// CHECK-LABEL: func.func @compare
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT:    %[[YB:.*]] = stablehlo.broadcast_in_dim %[[Y]], dims = [1]
// CHECK-NEXT:    stablehlo.compare EQ, %[[X]], %[[YB]], FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
// CHECK-NEXT:    stablehlo.compare NE, %[[I]], %[[I]], SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT:    stablehlo.compare LT, %[[B]], %[[B]], UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    stablehlo.compare LE, %[[Y]], %[[Y]], FLOAT
// CHECK-NEXT:    stablehlo.compare GT, %[[Y]], %[[Y]], FLOAT
// CHECK-NEXT:    stablehlo.compare GE, %[[Y]], %[[Y]], FLOAT
// CHECK-NEXT:    return
func.func @compare(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) -> (tensor<4x3xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = "s4tf.eq"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %1 = "s4tf.ne"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %2 = "s4tf.lt"(%b, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = "s4tf.le"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %4 = "s4tf.gt"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %5 = "s4tf.ge"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4x3xi1>, tensor<4xi1>, tensor<4xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @select_and_cast
// CHECK-SAME:    (%[[P:.*]]: tensor<4x1xi1>, %[[X:.*]]: tensor<4x3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT:    %[[PB:.*]] = stablehlo.broadcast_in_dim %[[P]], dims = [0, 1] : (tensor<4x1xi1>) -> tensor<4x3xi1>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [] : (tensor<f32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[SEL:.*]] = stablehlo.select %[[PB]], %[[X]], %[[SB]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.convert %[[SEL]] : (tensor<4x3xf32>) -> tensor<4x3xi32>
func.func @select_and_cast(%p: tensor<4x1xi1>, %x: tensor<4x3xf32>, %s: tensor<f32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %0 = "s4tf.select"(%p, %x, %s) : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %1 = "s4tf.cast"(%0) {dtype = i32} : (tensor<4x3xf32>) -> tensor<4x3xi32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xi32>
}

// CHECK-LABEL: func.func @contractions
// CHECK-SAME:    (%[[A:.*]]: tensor<5x4x3xf32>, %[[B:.*]]: tensor<5x3x2xf32>, %[[X:.*]]: tensor<1x8x8x3xf32>, %[[W:.*]]: tensor<3x3x3x4xf32>)
// CHECK-NEXT:    stablehlo.dot_general %[[A]], %[[B]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x4x3xf32>, tensor<5x3x2xf32>) -> tensor<5x4x2xf32>
// CHECK-NEXT:    stablehlo.convolution(%[[X]], %[[W]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = {{\[}}[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [2, 1]}
// CHECK-SAME:    feature_group_count = 1 : i64
// CHECK-SAME:    (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x4x4xf32>
func.func @contractions(%a: tensor<5x4x3xf32>, %b: tensor<5x3x2xf32>, %x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> (tensor<5x4x2xf32>, tensor<1x3x4x4xf32>) {
  %0 = "s4tf.dot_general"(%a, %b) {lhs_batch = array<i64: 0>, rhs_batch = array<i64: 0>, lhs_contract = array<i64: 2>, rhs_contract = array<i64: 1>} : (tensor<5x4x3xf32>, tensor<5x3x2xf32>) -> tensor<5x4x2xf32>
  %1 = "s4tf.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 2, 1>, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x4x4xf32>
  return %0, %1 : tensor<5x4x2xf32>, tensor<1x3x4x4xf32>
}

// Negative padding crops: an explicit stablehlo.pad applies it (its negative amounts
// crop), and the convolution itself gets none.
// CHECK-LABEL: func.func @conv_cropping
// CHECK-SAME:    (%[[X:.*]]: tensor<1x6x6x2xf32>, %[[W:.*]]: tensor<3x3x1x4xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[CROPPED:.*]] = stablehlo.pad %[[X]], %[[ZERO]], low = [0, -1, 1, 0], high = [0, 2, -2, 0], interior = [0, 0, 0, 0] : (tensor<1x6x6x2xf32>, tensor<f32>) -> tensor<1x7x5x2xf32>
// CHECK-NEXT:    stablehlo.convolution(%[[CROPPED]], %[[W]]) {{.*}} window = {stride = [1, 2], pad = {{\[}}[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
// CHECK-SAME:    feature_group_count = 2 : i64
// CHECK-SAME:    (tensor<1x7x5x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x5x2x4xf32>
func.func @conv_cropping(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<1x5x2x4xf32> {
  %0 = "s4tf.conv2d"(%x, %w) {strides = array<i64: 1, 2>, padding = array<i64: -1, 2, 1, -2>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, feature_group_count = 2 : i64} : (tensor<1x6x6x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x5x2x4xf32>
  return %0 : tensor<1x5x2x4xf32>
}

// Pooling is reduce_window over the spatial axes; average pooling divides by the number of
// real (unpadded) elements in each window.
// CHECK-LABEL: func.func @pooling
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x4x2xf32>)
// CHECK-NEXT:    %[[NEG_INF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %[[MAX:.*]] = "stablehlo.reduce_window"(%[[X]], %[[NEG_INF]]) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}>
// CHECK:           stablehlo.maximum
// CHECK:         %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SUM:.*]] = "stablehlo.reduce_window"(%[[X]], %[[ZERO]]) <{padding = dense<{{\[}}[0, 0], [1, 0], [1, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}>
// CHECK:           stablehlo.add
// CHECK:         %[[COUNTS:.*]] = stablehlo.constant dense<{{\[\[\[}}[4.000000e+00], [6.000000e+00]], {{\[\[}}6.000000e+00], [9.000000e+00]]]]> : tensor<1x2x2x1xf32>
// CHECK-NEXT:    %[[COUNTS_B:.*]] = stablehlo.broadcast_in_dim %[[COUNTS]], dims = [0, 1, 2, 3] : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[AVG:.*]] = stablehlo.divide %[[SUM]], %[[COUNTS_B]]
// CHECK-NEXT:    return %[[MAX]], %[[AVG]]
func.func @pooling(%x: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = "s4tf.max_pool2d"(%x) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = "s4tf.avg_pool2d"(%x) {window = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// Reductions start from the identity of their body op; keepdims adds a reshape; the mean
// divides by the reduced element count; argmax reduces (value, iota index) pairs.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<4x3xi32>)
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.reduce(%[[X]] init: %[[Z]]) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[NEG_INF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %[[MAX:.*]] = stablehlo.reduce(%[[X]] init: %[[NEG_INF]]) applies stablehlo.maximum across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[MAX_KEPT:.*]] = stablehlo.reshape %[[MAX]] : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[INT_MAX:.*]] = stablehlo.constant dense<2147483647> : tensor<i32>
// CHECK-NEXT:    %[[MIN:.*]] = stablehlo.reduce(%[[I]] init: %[[INT_MAX]]) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<4x3xi32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    %[[Z2:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[TOTAL:.*]] = stablehlo.reduce(%[[X]] init: %[[Z2]]) applies stablehlo.add across dimensions = [1]
// CHECK-NEXT:    %[[COUNT:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[COUNT_B:.*]] = stablehlo.broadcast_in_dim %[[COUNT]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = stablehlo.divide %[[TOTAL]], %[[COUNT_B]] : tensor<4xf32>
// CHECK-NEXT:    %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<4x3xi64>
// CHECK-NEXT:    %[[V0:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %[[I0:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %[[ARG:.*]]:2 = stablehlo.reduce(%[[X]] init: %[[V0]]), (%[[IOTA]] init: %[[I0]]) across dimensions = [1] : (tensor<4x3xf32>, tensor<4x3xi64>, tensor<f32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xi64>)
// CHECK:           stablehlo.compare GT
// CHECK:           stablehlo.compare LT, {{.*}}, SIGNED
// CHECK:           stablehlo.select
// CHECK:           stablehlo.return
// CHECK:         %[[ARG_KEPT:.*]] = stablehlo.reshape %[[ARG]]#1 : (tensor<4xi64>) -> tensor<4x1xi64>
// CHECK-NEXT:    return %[[SUM]], %[[MAX_KEPT]], %[[MIN]], %[[MEAN]], %[[ARG_KEPT]]
func.func @reductions(%x: tensor<4x3xf32>, %i: tensor<4x3xi32>) -> (tensor<4xf32>, tensor<1x3xf32>, tensor<i32>, tensor<4xf32>, tensor<4x1xi64>) {
  %0 = "s4tf.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  %1 = "s4tf.reduce_max"(%x) {axes = array<i64: 0>, keepdims = true} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %2 = "s4tf.reduce_min"(%i) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<4x3xi32>) -> tensor<i32>
  %3 = "s4tf.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  %4 = "s4tf.argmax"(%x) {axis = 1 : i64, keepdims = true, dtype = i64} : (tensor<4x3xf32>) -> tensor<4x1xi64>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<1x3xf32>, tensor<i32>, tensor<4xf32>, tensor<4x1xi64>
}

// A sum over several axes is one single-axis reduce per axis: adjacent axes are merged by
// a reshape, and the rest reduced from the innermost out (IREE 3.13 cannot compile a
// multi-axis add reduction fused with a product broadcast along a reduced axis).
// CHECK-LABEL: func.func @sum_axis_by_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x5xf32>, %[[D:.*]]: tensor<?x4x5xf32>)
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[FLAT:.*]] = stablehlo.reshape %[[X]] : (tensor<2x4x5xf32>) -> tensor<40xf32>
// CHECK-NEXT:    %[[ALL:.*]] = stablehlo.reduce(%[[FLAT]] init: %[[Z]]) applies stablehlo.add across dimensions = [0] : (tensor<40xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[Z1:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[INNER:.*]] = stablehlo.reduce(%[[X]] init: %[[Z1]]) applies stablehlo.add across dimensions = [2] : (tensor<2x4x5xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[OUTER:.*]] = stablehlo.reduce(%[[INNER]] init: %[[Z1]]) applies stablehlo.add across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[Z2:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[DYN_INNER:.*]] = stablehlo.reduce(%[[D]] init: %[[Z2]]) applies stablehlo.add across dimensions = [2] : (tensor<?x4x5xf32>, tensor<f32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[DYN:.*]] = stablehlo.reduce(%[[DYN_INNER]] init: %[[Z2]]) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    return %[[ALL]], %[[OUTER]], %[[DYN]]
func.func @sum_axis_by_axis(%x: tensor<2x4x5xf32>, %d: tensor<?x4x5xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<?xf32>) {
  %0 = "s4tf.reduce_sum"(%x) {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x4x5xf32>) -> tensor<f32>
  %1 = "s4tf.reduce_sum"(%x) {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x4x5xf32>) -> tensor<4xf32>
  %2 = "s4tf.reduce_sum"(%d) {axes = array<i64: 1, 2>, keepdims = false} : (tensor<?x4x5xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<f32>, tensor<4xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @shape_ops
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT:    stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    stablehlo.iota dim = 1 : tensor<2x3xi32>
// CHECK-NEXT:    %[[YB:.*]] = stablehlo.broadcast_in_dim %[[Y]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.reshape %[[X]] : (tensor<4x3xf32>) -> tensor<12xf32>
// CHECK-NEXT:    stablehlo.transpose %[[X]], dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    stablehlo.reverse %[[X]], dims = [0] : tensor<4x3xf32>
// CHECK-NEXT:    stablehlo.slice %[[X]] [1:3, 0:3:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    stablehlo.concatenate %[[X]], %[[YB]], dim = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    stablehlo.pad %[[Y]], %[[S]], low = [1], high = [2], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK-NEXT:    return
func.func @shape_ops(%x: tensor<4x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>) -> (tensor<2xf32>, tensor<2x3xi32>, tensor<12xf32>, tensor<3x4xf32>, tensor<4x3xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<8xf32>) {
  %0 = "s4tf.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "s4tf.iota"() {shape = array<i64: 2, 3>, dimension = 1 : i64, dtype = i32} : () -> tensor<2x3xi32>
  %2 = "s4tf.broadcast_in_dim"(%y) {shape = array<i64: 4, 3>, broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<4x3xf32>
  %3 = "s4tf.reshape"(%x) {shape = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
  %4 = "s4tf.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %5 = "s4tf.reverse"(%x) {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %6 = "s4tf.slice"(%x) {start = array<i64: 1, 0>, limit = array<i64: 3, 3>, stride = array<i64: 1, 2>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
  %7 = "s4tf.concatenate"(%x, %2) {axis = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %8 = "s4tf.pad"(%y, %s) {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  return %0, %1, %3, %4, %5, %6, %7, %8 : tensor<2xf32>, tensor<2x3xi32>, tensor<12xf32>, tensor<3x4xf32>, tensor<4x3xf32>, tensor<2x2xf32>, tensor<8x3xf32>, tensor<8xf32>
}

// add_slice with unit strides adds into the window and writes it back in place; strides
// that divide their axes do the same in a reshaped view (4 rows as 2x2); other strides
// give a scatter-add with one index per element of the update, 32-bit (vulkan's shaders
// have no 64-bit integers), into a copy of x made by a select nothing folds (IREE 3.13
// scatters into an argument's own buffer).
// CHECK-LABEL: func.func @add_slice
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[U:.*]]: tensor<2x2xf32>)
// CHECK-NEXT:    %[[W:.*]] = stablehlo.slice %[[X]] [1:3, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[W]], %[[U]] : tensor<2x2xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %[[J:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %[[IN_PLACE:.*]] = stablehlo.dynamic_update_slice %[[X]], %[[SUM]], %[[I]], %[[J]]
// CHECK-NEXT:    %[[IDX:.*]] = stablehlo.constant dense<{{\[}}{{\[}}[1, 0], [1, 2]], {{\[}}[3, 0], [3, 2]]]> : tensor<2x2x2xi32>
// CHECK:         %[[COPY:.*]] = stablehlo.select %{{.*}}, %[[X]], %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT:    %[[SCATTERED:.*]] = "stablehlo.scatter"(%[[COPY]], %[[IDX]], %[[U]])
// CHECK-SAME:      scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>
// CHECK:           stablehlo.add
// CHECK:         %[[XS:.*]] = stablehlo.reshape %[[X]] : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    %[[US:.*]] = stablehlo.reshape %[[U]] : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
// CHECK-NEXT:    %[[WS:.*]] = stablehlo.slice %[[XS]] [0:2, 1:2, 1:3] : (tensor<2x2x3xf32>) -> tensor<2x1x2xf32>
// CHECK-NEXT:    %[[SUMS:.*]] = stablehlo.add %[[WS]], %[[US]] : tensor<2x1x2xf32>
// CHECK:         %[[UPDATED:.*]] = stablehlo.dynamic_update_slice %[[XS]], %[[SUMS]]
// CHECK-NEXT:    %[[SPLIT:.*]] = stablehlo.reshape %[[UPDATED]] : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    return %[[IN_PLACE]], %[[SCATTERED]], %[[SPLIT]]
func.func @add_slice(%x: tensor<4x3xf32>, %u: tensor<2x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = "s4tf.add_slice"(%x, %u) {start = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x3xf32>, tensor<2x2xf32>) -> tensor<4x3xf32>
  %1 = "s4tf.add_slice"(%x, %u) {start = array<i64: 1, 0>, stride = array<i64: 2, 2>} : (tensor<4x3xf32>, tensor<2x2xf32>) -> tensor<4x3xf32>
  %2 = "s4tf.add_slice"(%x, %u) {start = array<i64: 1, 1>, stride = array<i64: 2, 1>} : (tensor<4x3xf32>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// Region ops become their StableHLO twins; block arguments of s4tf.if's branches are
// replaced by the op's operands (stablehlo.if regions take none).
// CHECK-LABEL: func.func @control_flow
// CHECK-SAME:    (%[[P:.*]]: tensor<i1>, %[[X:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NEXT:    "stablehlo.if"(%[[P]]) ({
// CHECK-NEXT:      %[[EXP:.*]] = stablehlo.exponential %[[X]] : tensor<3xf32>
// CHECK-NEXT:      stablehlo.return %[[EXP]] : tensor<3xf32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[SQ:.*]] = stablehlo.multiply %[[X]], %[[X]] : tensor<3xf32>
// CHECK-NEXT:      stablehlo.return %[[SQ]] : tensor<3xf32>
// CHECK-NEXT:    }) : (tensor<i1>) -> tensor<3xf32>
// CHECK-NEXT:    stablehlo.while(%[[IT:.*]] = %[[S]]) : tensor<f32>
// CHECK-NEXT:    cond {
// CHECK-NEXT:      %[[C:.*]] = stablehlo.constant dense<1.000000e+02> : tensor<f32>
// CHECK-NEXT:      %[[LT:.*]] = stablehlo.compare LT, %[[IT]], %[[C]], FLOAT
// CHECK-NEXT:      stablehlo.return %[[LT]] : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:      %[[SUM:.*]] = stablehlo.add %[[IT]], %[[IT]] : tensor<f32>
// CHECK-NEXT:      stablehlo.return %[[SUM]] : tensor<f32>
// CHECK-NEXT:    }
// NONE-LABEL: func.func @control_flow
// NONE-NOT:   s4tf.
func.func @control_flow(%p: tensor<i1>, %x: tensor<3xf32>, %s: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.exp"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.while"(%s) ({
  ^bb0(%a: tensor<f32>):
    %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%a, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    %1 = "s4tf.add"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  return %0, %2 : tensor<3xf32>, tensor<f32>
}

// Tapes (reverse mode through loops): a row written and read at a run-time index.
// CHECK-LABEL: func.func @tapes(
// CHECK-NEXT:    %[[ROW:.*]] = stablehlo.reshape %arg2 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.dynamic_update_slice %arg0, %[[ROW]], %arg1, %[[ZERO]]
// CHECK:         %[[W:.*]] = stablehlo.dynamic_slice %[[T]], %arg1, %{{.*}}, sizes = [1, 3]
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %[[W]] : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[T]], %[[R]]
// NONE-LABEL: func.func @tapes
// NONE-NOT:   s4tf.
func.func @tapes(%t: tensor<8x3xf32>, %i: tensor<i32>, %x: tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>) {
  %0 = "s4tf.tape_write"(%t, %i, %x) : (tensor<8x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<8x3xf32>
  %1 = "s4tf.tape_read"(%0, %i) : (tensor<8x3xf32>, tensor<i32>) -> tensor<3xf32>
  return %0, %1 : tensor<8x3xf32>, tensor<3xf32>
}

// Splat constants lower to splat constants, whatever their size and dtype.
// CHECK-LABEL: func.func @huge_splats
// CHECK-NEXT:    stablehlo.constant dense<1.500000e+00> : tensor<100000x100000xbf16>
// CHECK-NEXT:    stablehlo.constant dense<true> : tensor<100000x100000xi1>
// CHECK-NEXT:    stablehlo.constant dense<-7> : tensor<100000x100000xi64>
func.func @huge_splats() -> (tensor<100000x100000xbf16>, tensor<100000x100000xi1>, tensor<100000x100000xi64>) {
  %0 = "s4tf.constant"() {value = dense<1.5> : tensor<100000x100000xbf16>} : () -> tensor<100000x100000xbf16>
  %1 = "s4tf.constant"() {value = dense<true> : tensor<100000x100000xi1>} : () -> tensor<100000x100000xi1>
  %2 = "s4tf.constant"() {value = dense<-7> : tensor<100000x100000xi64>} : () -> tensor<100000x100000xi64>
  return %0, %1, %2 : tensor<100000x100000xbf16>, tensor<100000x100000xi1>, tensor<100000x100000xi64>
}

// The Array API families: hyperbolic trigonometry and erf through CHLO (float32 tangent and
// the inverse trigonometry are computed here: dialects/trigonometry.py), atan2
// keeping the sign of zero (a select on x < 0 or 1/x < 0) and C's angles where both
// operands are infinite or zero, bitwise xor and shifts, the
// product reduction, scans as reduce_window (a reversed scan pads on the other side), and a
// stable sort of a copy of an iota (IREE sorts in place in argument buffers, and in an iota
// other ops read) whose permutation gathers the values.

// NONE-LABEL: func.func @array_api_families
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @array_api_families
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK:         stablehlo.round_nearest_even
// CHECK-NOT:     chlo.{{asin|acos|atan}}
// CHECK:         %[[SINH:.*]] = chlo.sinh %[[X]]
// CHECK:         stablehlo.select %{{.*}}, %[[X]], %[[SINH]]
// CHECK-NEXT:    chlo.cosh %[[X]]
// CHECK-NEXT:    chlo.asinh %[[X]]
// CHECK-NEXT:    chlo.acosh %[[X]]
// CHECK-NEXT:    %[[ATANH:.*]] = chlo.atanh %[[X]]
// CHECK:         stablehlo.select %{{.*}}, %[[X]], %[[ATANH]]
// CHECK-NEXT:    %[[EXPM1:.*]] = stablehlo.exponential_minus_one %[[X]]
// CHECK:         stablehlo.select %{{.*}}, %[[X]], %[[EXPM1]]
// CHECK-NEXT:    chlo.erf %[[X]]
// CHECK-NOT:     stablehlo.atan2
// CHECK:         stablehlo.bitcast_convert %[[Y]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK:         %[[ABS:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK:         %[[INFINITE:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[ABS]]
// CHECK:         %[[ANGLE:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[INFINITE]]
// CHECK:         %[[INV:.*]] = stablehlo.divide %{{.*}}, %[[X]]
// CHECK-NEXT:    %[[LT:.*]] = stablehlo.compare LT, %[[X]]
// CHECK-NEXT:    %[[INVLT:.*]] = stablehlo.compare LT, %[[INV]]
// CHECK-NEXT:    %[[NEG:.*]] = stablehlo.or %[[LT]], %[[INVLT]]
// CHECK-NEXT:    %[[MINUS:.*]] = stablehlo.negate %[[ANGLE]]
// CHECK-NEXT:    stablehlo.select %[[NEG]], %[[MINUS]], %[[ANGLE]]
// CHECK-NEXT:    stablehlo.xor %[[I]], %[[I]]
// CHECK-NEXT:    stablehlo.shift_left %[[I]], %[[I]]
// CHECK-NEXT:    stablehlo.shift_right_arithmetic %[[I]], %[[I]]
// CHECK-NEXT:    stablehlo.shift_right_logical %[[I]], %[[I]]
// CHECK:         stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.multiply across dimensions = [0]
// CHECK:         "stablehlo.reduce_window"(%[[X]], %{{.*}}) <{padding = dense<{{\[\[}}3, 0]]>
// CHECK:           stablehlo.add
// CHECK:         "stablehlo.reduce_window"(%[[X]], %{{.*}}) <{padding = dense<{{\[\[}}0, 3]]>
// CHECK:           stablehlo.multiply
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK:         %[[COPY:.*]] = stablehlo.select %{{.*}}, %[[IOTA]], %{{.*}} : tensor<4xi1>, tensor<4xi32>
// CHECK-NEXT:    %[[SORTED:.*]]:2 = "stablehlo.sort"(%[[X]], %[[COPY]]) <{dimension = 0 : i64, is_stable = true}>
// CHECK:         %[[PERM:.*]] = stablehlo.reshape %[[SORTED]]#1
// CHECK-NEXT:    "stablehlo.gather"(%[[Y]], %[[PERM]])
func.func @array_api_families(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "s4tf.tan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.asin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.acos"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "s4tf.atan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "s4tf.sinh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "s4tf.cosh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "s4tf.asinh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "s4tf.acosh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "s4tf.atanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %9 = "s4tf.expm1"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "s4tf.erf"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %11 = "s4tf.atan2"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %12 = "s4tf.xor"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %13 = "s4tf.shift_left"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %14 = "s4tf.shift_right"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %15 = "s4tf.shift_right_logical"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %16 = "s4tf.reduce_prod"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  %17 = "s4tf.cumsum"(%x) {axis = 0 : i64, reverse = false} : (tensor<4xf32>) -> tensor<4xf32>
  %18 = "s4tf.cumprod"(%x) {axis = 0 : i64, reverse = true} : (tensor<4xf32>) -> tensor<4xf32>
  %19 = "s4tf.sort"(%x, %y) {axis = 0 : i64, descending = false} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// erf_inv lowers to CHLO's inverse error function, keeping the sign of zero (a select on
// x == 0 returns x itself).

// NONE-LABEL: func.func @erf_inv
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @erf_inv
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[INV:.*]] = chlo.erf_inv %[[X]]
// CHECK:         %[[ZERO:.*]] = stablehlo.compare EQ, %[[X]]
// CHECK-NEXT:    %[[R:.*]] = stablehlo.select %[[ZERO]], %[[X]], %[[INV]]
// CHECK-NEXT:    return %[[R]]
func.func @erf_inv(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.erf_inv"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// nextafter steps the float's bits as an integer of its width: both operands are bitcast and
// compared as integers ordered as the floats, one step added, the sum bitcast back; equal
// operands give rhs, a NaN operand gives x + y.

// NONE-LABEL: func.func @nextafter
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @nextafter
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf64>, %[[Y:.*]]: tensor<4xf64>)
// CHECK:         %[[BITS:.*]] = stablehlo.bitcast_convert %[[X]] : (tensor<4xf64>) -> tensor<4xi64>
// CHECK:         stablehlo.bitcast_convert %[[Y]] : (tensor<4xf64>) -> tensor<4xi64>
// CHECK:         %[[SUM:.*]] = stablehlo.add %[[BITS]], %{{.*}} : tensor<4xi64>
// CHECK-NEXT:    %[[STEPPED:.*]] = stablehlo.bitcast_convert %[[SUM]] : (tensor<4xi64>) -> tensor<4xf64>
// CHECK:         %[[NAN:.*]] = stablehlo.add %[[X]], %[[Y]] : tensor<4xf64>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.select %{{.*}}, %[[NAN]], %{{.*}}
// CHECK-NEXT:    return %[[R]]
func.func @nextafter(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "s4tf.nextafter"(%x, %y) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// signbit reads the sign bit: a bitcast to the integer of the float's width, compared with
// zero (so -0.0 and -NaN count as negative).

// NONE-LABEL: func.func @signbit
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @signbit
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[BITS:.*]] = stablehlo.bitcast_convert %[[X]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK:         %[[R:.*]] = stablehlo.compare LT, %[[BITS]], %{{.*}}, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-NEXT:    return %[[R]]
func.func @signbit(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = "s4tf.signbit"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// A float compared with itself for (in)equality, x != x the NaN test, is "|x| < inf or
// |x| == inf" (negated for !=): IREE 3.13's vmvx gives false for NaN in any comparison of a
// value with itself. Two different operands keep one comparison.

// NONE-LABEL: func.func @self_compare
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @self_compare
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK:         %[[A:.*]] = stablehlo.abs %[[X]] : tensor<4xf32>
// CHECK:         %[[INF:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[LT:.*]] = stablehlo.compare LT, %[[A]], %[[INF]], FLOAT
// CHECK-NEXT:    %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[INF]], FLOAT
// CHECK-NEXT:    %[[ORD:.*]] = stablehlo.or %[[LT]], %[[EQ]] : tensor<4xi1>
// CHECK-NEXT:    %[[NAN:.*]] = stablehlo.not %[[ORD]] : tensor<4xi1>
// CHECK:         stablehlo.compare EQ, %[[X]], %[[Y]], FLOAT
// CHECK:         return %[[NAN]], %[[ORD2:.*]], %{{.*}}
func.func @self_compare(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = "s4tf.ne"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "s4tf.eq"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = "s4tf.eq"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Threefry-2x32 is twenty rounds of add, rotate (two shifts and an or) and xor on i32 words
// read as unsigned; random_bits runs it on the key and a counter iota.

// NONE-LABEL: func.func @random_ops
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @random_ops
// CHECK-SAME:    (%[[K0:.*]]: tensor<4xi32>, %[[K1:.*]]: tensor<4xi32>, %[[X0:.*]]: tensor<4xi32>, %[[X1:.*]]: tensor<4xi32>, %[[KEY:.*]]: tensor<2xi32>)
// CHECK:         stablehlo.xor %[[K0]], %[[K1]]
// CHECK:         stablehlo.constant dense<13> : tensor<i32>
// CHECK-NEXT:    %[[C13:.*]] = stablehlo.broadcast_in_dim
// CHECK-NEXT:    stablehlo.shift_left %{{.*}}, %[[C13]]
// CHECK:         stablehlo.shift_right_logical
// CHECK-NEXT:    stablehlo.or
// CHECK-NEXT:    stablehlo.xor
// CHECK:         stablehlo.slice %[[KEY]] [0:1]
// CHECK:         stablehlo.slice %[[KEY]] [1:2]
// CHECK:         stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK:         return
func.func @random_ops(%k0: tensor<4xi32>, %k1: tensor<4xi32>, %x0: tensor<4xi32>, %x1: tensor<4xi32>, %key: tensor<2xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0:2 = "s4tf.threefry2x32"(%k0, %k1, %x0, %x1) : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  %1 = "s4tf.random_bits"(%key) {dtype = i32, shape = array<i64: 4>} : (tensor<2xi32>) -> tensor<4xi32>
  return %0#0, %0#1, %1 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// float32 sine, cosine and tangent are computed here (dialects/trigonometry.py: IREE 3.13's
// are off by millions of ulp near their zeros): the argument reduced by the nearest
// multiple k of pi/2 in three parts, polynomials of the remainder, and the quadrant
// (k mod 4) choosing and signing them; a zero keeps its sign. float64 keeps IREE's lowering.

// CHECK-LABEL: func.func @trigonometry
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf64>)
// CHECK:         %[[SCALED:.*]] = stablehlo.multiply %[[X]], %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = stablehlo.round_nearest_even %[[SCALED]] : tensor<4xf32>
// CHECK-COUNT-3: stablehlo.subtract
// CHECK:         %[[Q:.*]] = stablehlo.convert %[[K]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK:         stablehlo.and %[[Q]]
// CHECK:         %[[ZERO:.*]] = stablehlo.compare EQ, %[[X]], %{{.*}}, FLOAT
// CHECK-NEXT:    %[[SIN:.*]] = stablehlo.select %[[ZERO]], %[[X]], %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK-NOT:     stablehlo.{{sine|cosine|tan}} %{{.*}} : tensor<4xf32>
// CHECK:         %[[SIN64:.*]] = stablehlo.sine %[[D]] : tensor<4xf64>
// CHECK-NEXT:    return %[[SIN]], %{{.*}}, %{{.*}}, %[[SIN64]]
func.func @trigonometry(%x: tensor<4xf32>, %d: tensor<4xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) {
  %0 = "s4tf.sin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.cos"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "s4tf.tan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "s4tf.sin"(%d) : (tensor<4xf64>) -> tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
}

// A scatter writes into its operand's buffer where that is another scatter's result that
// nothing else reads (%C into %B); one read elsewhere too (%A, by the gather) is copied first
// by a select (IREE 3.13 writes a scatter into its operand's buffer whatever reads it).

// CHECK-LABEL: func.func @scatter_read_twice
// CHECK:         %[[A:.*]] = "stablehlo.scatter"(
// CHECK:         %[[COPY:.*]] = stablehlo.select %{{.*}}, %[[A]], %{{.*}} : tensor<5x3xi1>, tensor<5x3xf32>
// CHECK:         %[[B:.*]] = "stablehlo.scatter"(%[[COPY]],
// CHECK:         "stablehlo.gather"(%[[A]],
// CHECK-NOT:     stablehlo.select %{{.*}}, %[[B]]
// CHECK:         %[[C:.*]] = "stablehlo.scatter"(%[[B]],
// CHECK:         return %[[C]]
func.func @scatter_read_twice(%x: tensor<5x3xf32>, %i: tensor<1x1xi32>, %u: tensor<1x3xf32>) -> (tensor<5x3xf32>, tensor<1x3xf32>) {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<5x3xf32>} : () -> tensor<5x3xf32>
  %a = "s4tf.scatter"(%zero, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<5x3xf32>
  %b = "s4tf.scatter"(%a, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<5x3xf32>
  %r = "s4tf.gather"(%a, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<1x1xi32>) -> tensor<1x3xf32>
  %c = "s4tf.scatter"(%b, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<1x1xi32>, tensor<1x3xf32>) -> tensor<5x3xf32>
  return %c, %r : tensor<5x3xf32>, tensor<1x3xf32>
}

// A gather of one element comes out through an optimization_barrier (IREE 3.13 crashed on
// such gathers fused into a scalar op beside a reduction:
// tests/lit/iree_reproducers/gauss_seidel_row_update_crashes.mlir).

// CHECK-LABEL: func.func @one_element
// CHECK-SAME:    (%[[A:.*]]: tensor<5x4xf32>, %[[IJ:.*]]: tensor<2xi32>)
// CHECK:         %[[CLAMPED:.*]] = stablehlo.clamp %{{.*}}, %[[IJ]], %{{.*}} : (tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[ELEMENT:.*]] = "stablehlo.gather"(%[[A]], %[[CLAMPED]])
// CHECK-NEXT:    %[[KEPT:.*]] = stablehlo.optimization_barrier %[[ELEMENT]] : tensor<f32>
// CHECK-NEXT:    return %[[KEPT]]
func.func @one_element(%a: tensor<5x4xf32>, %ij: tensor<2xi32>) -> tensor<f32> {
  %0 = "s4tf.gather"(%a, %ij) {axes = array<i64: 0, 1>} : (tensor<5x4xf32>, tensor<2xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// A gather clamps its indices (IREE does not, though StableHLO says it should); a scatter
// drops the updates at indices out of range (a select to zero) and scatters into a copy
// of x, clamped indices and all.

// NONE-LABEL: func.func @indexing
// NONE-NOT:   s4tf.
// CHECK-LABEL: func.func @indexing
// CHECK-SAME:    (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<4x1xi32>, %[[U:.*]]: tensor<4x3xf32>)
// CHECK:         %[[CLAMPED:.*]] = stablehlo.clamp %{{.*}}, %[[I]], %{{.*}} : (tensor<i32>, tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
// CHECK-NEXT:    %[[GATHERED:.*]] = "stablehlo.gather"(%[[X]], %[[CLAMPED]])
// CHECK-SAME:      collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1
// CHECK-SAME:      slice_sizes = array<i64: 1, 3>
// CHECK:         %[[COPY:.*]] = stablehlo.select %{{.*}}, %[[X]], %{{.*}} : tensor<5x3xi1>, tensor<5x3xf32>
// CHECK:         %[[ABOVE:.*]] = stablehlo.compare GE, %[[I]]
// CHECK-NEXT:    %[[BELOW:.*]] = stablehlo.compare LE, %[[I]]
// CHECK-NEXT:    %[[INSIDE:.*]] = stablehlo.and %[[ABOVE]], %[[BELOW]]
// CHECK:         %[[KEPT:.*]] = stablehlo.select %{{.*}}, %[[U]], %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK:         %[[AT:.*]] = stablehlo.clamp %{{.*}}, %[[I]]
// CHECK-NEXT:    %[[SCATTERED:.*]] = "stablehlo.scatter"(%[[COPY]], %[[AT]], %[[KEPT]])
// CHECK:           stablehlo.add
// CHECK:         return %[[GATHERED]], %[[SCATTERED]]
func.func @indexing(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<5x3xf32>) {
  %0 = "s4tf.gather"(%x, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
  %1 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<5x3xf32>
}
