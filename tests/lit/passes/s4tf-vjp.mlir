// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp | s4tf-opt -p s4tf-verify | filecheck %s --check-prefix=VALID
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp,s4tf-canonicalize,cse | filecheck %s --check-prefix=CANON
// Run again after inline has dropped the linear functions (nothing calls them), the pass
// builds them again:
// RUN: s4tf-opt %s --split-input-file -p s4tf-vjp,inline,s4tf-vjp | filecheck %s

// Reverse mode through region ops. Numbers: tests/control_flow/test_region_derivatives.py.

// VALID-NOT: error

// if: the predicate and the branch inputs are residuals; the backward pass is an s4tf.if
// on the same predicate whose branches call the branches' VJPs (the taken branch is
// recomputed there).

// CHECK-LABEL: func.func private @f_linearize_r0_lin(tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.linear_args = array<i64: 2>, s4tf.transpose = @f_linearize_r0_lin_transpose}
// CHECK-LABEL: func.func private @f_linearize_r0_lin_transpose(%arg0: tensor<i1>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[CT:.*]] = "s4tf.if"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[T:.*]]:2 = func.call @f_r0_then_vjp(%[[X]], %[[C]])
// CHECK-NEXT:      stablehlo.return %[[T]]#1 : tensor<3xf32>
// CHECK:           func.call @f_r0_else_vjp(
// CHECK:         return %[[CT]] : tensor<3xf32>
// CHECK-LABEL: func.func private @f_vjp_fwd(%arg0: tensor<i1>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<i1>, tensor<3xf32>)
// CHECK-NEXT:    %[[Y:.*]] = "s4tf.if"(%arg0, %arg1)
// CHECK:         return %[[Y]], %arg0, %arg1
func.func @f(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 1>} {
  %0 = "s4tf.if"(%p, %x) ({
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }, {
  ^bb0(%a: tensor<3xf32>):
    %1 = "s4tf.mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1 : tensor<3xf32>
  }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// while: the forward pass runs the loop once, counting its iterations and writing every
// stride-th state of %v into a tape of 1,024 checkpoints plus a spare row (the other
// iterations write the spare row); the stride starts at 1, and whenever the tape is full
// an outer loop keeps every second checkpoint (row j takes row 2j: none the first time)
// and doubles it, running again while the tape is full (the count is the stride times the
// rows; a stride of 0 before its first trip) and the condition holds: no flag is carried
// (on vulkan IREE 3.13 failed a flag the body replaces); %b passes through unchanged and
// is kept once. The
// cotangents enter the backward pass through barriers of their own (IREE's "ref is null"
// at 0 iterations otherwise: region_derivatives.py). With a stride of 1 (at most 1,024
// iterations) the tape holds every iteration's state: one loop, last iteration first,
// reads it and applies the body's VJP. Otherwise the backward loop goes over the segments
// between checkpoints, last first: it re-records the segment from its checkpoint into a
// second tape, then runs the segment backwards, each state read from that tape (and run
// forward to its iteration when the segment is longer than the tape) and fed to the
// body's VJP.

// CHECK-LABEL: func.func private @f_linearize_r0_lin_transpose(%arg0: tensor<1025x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<3xf32>, %arg5: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[SEED_V:.*]] = "s4tf.optimization_barrier"(%arg4)
// CHECK-NEXT:    %[[SEED_B:.*]] = "s4tf.optimization_barrier"(%arg5)
// CHECK-NEXT:    %[[ONE:.*]] = "s4tf.constant"() {value = dense<1> : tensor<i32>}
// CHECK-NEXT:    %[[DENSE:.*]] = "s4tf.eq"(%arg3, %[[ONE]])
// CHECK-NEXT:    %[[CT:.*]]:2 = "s4tf.if"(%[[DENSE]], %[[SEED_V]], %[[SEED_B]], %arg0, %arg1, %arg2, %arg3) ({
// CHECK-NEXT:    ^bb0(%[[CV:.*]]: tensor<3xf32>, %[[CB:.*]]: tensor<3xf32>, %[[TP:.*]]: tensor<1025x3xf32>, %[[KB:.*]]: tensor<3xf32>, %[[COUNT:.*]]: tensor<i32>, %{{.*}}: tensor<i32>):
// CHECK-NEXT:      %[[BACK:.*]]:5 = "s4tf.while"(%[[COUNT]], %[[CV]], %[[CB]], %[[TP]], %[[KB]])
// CHECK:           }, {
// CHECK-NEXT:      ^bb0(%[[I:.*]]: tensor<i32>, %[[C1:.*]]: tensor<3xf32>, %[[C2:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<1025x3xf32>, %[[B:.*]]: tensor<3xf32>):
// CHECK:             %[[PREV:.*]] = "s4tf.sub"(%[[I]],
// CHECK-NEXT:        %[[STATE:.*]] = "s4tf.tape_read"(%[[T]], %[[PREV]])
// CHECK-NEXT:        %[[VJP:.*]]:4 = func.call @f_r0_body_vjp(%[[STATE]], %[[B]], %[[C1]], %[[C2]])
// CHECK-NEXT:        stablehlo.return %[[PREV]], %[[VJP]]#2, %[[VJP]]#3, %[[T]], %[[B]]
// CHECK:           "s4tf.optimization_barrier"(%[[BACK]]#1)
// CHECK-NEXT:      "s4tf.optimization_barrier"(%[[BACK]]#2)
// CHECK:         }, {
// CHECK-NEXT:    ^bb0(%[[CV:.*]]: tensor<3xf32>, %[[CB:.*]]: tensor<3xf32>, %[[TP:.*]]: tensor<1025x3xf32>, %[[KB:.*]]: tensor<3xf32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
// CHECK:           %[[SEGMENTS:.*]] = "s4tf.div"(
// CHECK-NEXT:      %[[SECOND:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<1025x3xf32>}
// CHECK-NEXT:      "s4tf.while"(%[[SEGMENTS]], %[[CV]], %[[CB]], %[[SECOND]], %{{.*}}, %{{.*}}, %[[TP]], %[[KB]])
// CHECK:           }, {
// CHECK-NEXT:      ^bb0(%[[S:.*]]: tensor<i32>, %[[CV:.*]]: tensor<3xf32>, %[[CB:.*]]: tensor<3xf32>, %[[T2:.*]]: tensor<1025x3xf32>, %[[STRIDE:.*]]: tensor<i32>, %{{.*}}: tensor<i32>, %[[TP:.*]]: tensor<1025x3xf32>, %[[KB:.*]]: tensor<3xf32>):
// CHECK:             %[[PREV:.*]] = "s4tf.sub"(%[[S]],
// CHECK:             %[[LENGTH:.*]] = "s4tf.minimum"(%[[STRIDE]],
// CHECK:             %[[SAVED:.*]] = "s4tf.tape_read"(%[[TP]], %[[PREV]])
// CHECK:             %[[SEGMENT:.*]]:6 = "s4tf.while"(%[[SAVED]], %[[KB]], %[[T2]], %{{.*}}, %[[LENGTH]], %{{.*}})
// CHECK:               "s4tf.tape_write"
// CHECK:               func.call @f_r0_body(
// CHECK:             %[[EVERY:.*]] = "s4tf.eq"(
// CHECK-NEXT:        "s4tf.if"(%[[EVERY]], %[[CV]], %[[CB]], %[[SEGMENT]]#2, %[[KB]], %[[LENGTH]], %{{.*}})
// CHECK:               "s4tf.while"
// CHECK:                 %[[READ:.*]] = "s4tf.tape_read"
// CHECK-NEXT:            func.call @f_r0_body_vjp(%[[READ]],
// CHECK:             }, {
// CHECK:               "s4tf.while"
// CHECK:                 %[[STATE:.*]] = "s4tf.tape_read"
// CHECK:                 %[[UPTO:.*]]:4 = "s4tf.while"(%{{.*}}, %[[STATE]], %{{.*}}, %{{.*}})
// CHECK:                   func.call @f_r0_body(
// CHECK:                 func.call @f_r0_body_vjp(%[[UPTO]]#1, %[[UPTO]]#2, %{{.*}}, %{{.*}})
// CHECK:             }) {s4tf.shortcut}
// CHECK:         }) {s4tf.shortcut} : (tensor<i1>, tensor<3xf32>, tensor<3xf32>, tensor<1025x3xf32>
// CHECK-NEXT:    return %[[CT]]#0, %[[CT]]#1
// CHECK-LABEL: func.func private @f_vjp_fwd(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<1025x3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>)
// CHECK:         %[[EMPTY:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<1025x3xf32>}
// CHECK-NEXT:    %[[ZERO:.*]] = "s4tf.constant"() {value = dense<0> : tensor<i32>}
// CHECK-NEXT:    %[[NONE:.*]] = "s4tf.constant"() {value = dense<0> : tensor<i32>}
// CHECK-NEXT:    %[[L:.*]]:5 = "s4tf.while"(%arg0, %arg1, %[[EMPTY]], %[[ZERO]], %[[NONE]]) ({
// CHECK-NEXT:    ^bb0(%[[CV:.*]]: tensor<3xf32>, %[[CB:.*]]: tensor<3xf32>, %{{.*}}: tensor<1025x3xf32>, %[[CN:.*]]: tensor<i32>, %[[CS:.*]]: tensor<i32>):
// CHECK-NEXT:      %[[ROWS:.*]] = "s4tf.constant"() {value = dense<1024> : tensor<i32>}
// CHECK-NEXT:      %[[FILLED:.*]] = "s4tf.mul"(%[[CS]], %[[ROWS]])
// CHECK-NEXT:      %[[FULL:.*]] = "s4tf.eq"(%[[CN]], %[[FILLED]])
// CHECK-NEXT:      %[[GOING:.*]] = func.call @f_r0_cond(%[[CV]], %[[CB]])
// CHECK-NEXT:      %[[MORE:.*]] = "s4tf.and"(%[[FULL]], %[[GOING]])
// CHECK-NEXT:      stablehlo.return %[[MORE]]
// CHECK:         }, {
// CHECK-NEXT:    ^bb0(%[[V0:.*]]: tensor<3xf32>, %[[B0:.*]]: tensor<3xf32>, %[[T0:.*]]: tensor<1025x3xf32>, %[[N0:.*]]: tensor<i32>, %[[S0:.*]]: tensor<i32>):
// CHECK:           %[[HALF:.*]] = "s4tf.constant"() {value = dense<512> : tensor<i32>}
// CHECK:           %[[HALVED:.*]]:3 = "s4tf.while"(%{{.*}}, %[[T0]], %{{.*}})
// CHECK:             %[[J2:.*]] = "s4tf.mul"
// CHECK-NEXT:        %[[ROW:.*]] = "s4tf.tape_read"(%{{.*}}, %[[J2]])
// CHECK-NEXT:        "s4tf.tape_write"(%{{.*}}, %{{.*}}, %[[ROW]])
// CHECK:           %[[STRIDE:.*]] = "s4tf.maximum"
// CHECK:           %[[LIMIT:.*]] = "s4tf.mul"(%[[STRIDE]],
// CHECK-NEXT:      %[[R:.*]]:6 = "s4tf.while"(%[[V0]], %[[B0]], %[[HALVED]]#1, %[[N0]], %[[LIMIT]], %[[STRIDE]]) ({
// CHECK:             func.call @f_r0_cond
// CHECK:             "s4tf.lt"
// CHECK-NEXT:        "s4tf.and"
// CHECK:           }, {
// CHECK-NEXT:      ^bb0(%[[V:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<1025x3xf32>, %[[N:.*]]: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
// CHECK:             %[[AT:.*]] = "s4tf.select"
// CHECK-NEXT:        %[[WRITTEN:.*]] = "s4tf.tape_write"(%[[T]], %[[AT]], %[[V]])
// CHECK-NEXT:        %[[NEXT:.*]]:2 = func.call @f_r0_body(%[[V]], %[[B]])
// CHECK:             stablehlo.return %[[NEXT]]#0, %[[NEXT]]#1, %[[WRITTEN]], %{{.*}}
// CHECK:           stablehlo.return %[[R]]#0, %[[R]]#1, %[[R]]#2, %[[R]]#3, %[[STRIDE]]
// CHECK:         %[[ONE:.*]] = "s4tf.constant"() {value = dense<1> : tensor<i32>}
// CHECK-NEXT:    %[[USED:.*]] = "s4tf.maximum"(%[[L]]#4, %[[ONE]])
// CHECK:         return %[[L]]#0, %[[L]]#2, %[[L]]#1, %[[L]]#3, %[[USED]]

func.func @f(%x: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0:2 = "s4tf.while"(%x, %a) ({
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %s = "s4tf.reduce_sum"(%v) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%s, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%v: tensor<3xf32>, %b: tensor<3xf32>):
    %1 = "s4tf.mul"(%v, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %1, %b : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<3xf32>
}

// -----

// A while marked with its trip count (s4tf.trip_count: a fori_loop or scan of static length):
// the tapes have a row per iteration and the spare row (not 1,024), and the stride and the
// count are constants (no residuals: the recording loop is the forward pass's one loop).

// CHECK-LABEL: func.func private @g_vjp_fwd(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<6x3xf32>, tensor<6x3xf32>)
// CHECK:         %[[TAPE_I:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<6x3xf32>}
// CHECK-NEXT:    %[[TAPE_V:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<6x3xf32>}
// CHECK:         %[[L:.*]]:6 = "s4tf.while"(%{{.*}}, %arg0, %[[TAPE_I]], %[[TAPE_V]], %{{.*}}, %{{.*}})
// CHECK-NOT:     "s4tf.while"
// CHECK:         return %[[L]]#1, %[[L]]#2, %[[L]]#3 :

func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
  %0:2 = "s4tf.while"(%zero, %x) ({
  ^bb0(%i: tensor<3xf32>, %v: tensor<3xf32>):
    %s = "s4tf.reduce_sum"(%i) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
    %n = "s4tf.constant"() {value = dense<1.5e+01> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%s, %n) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%i: tensor<3xf32>, %v: tensor<3xf32>):
    %one = "s4tf.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %j = "s4tf.add"(%i, %one) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %1 = "s4tf.sin"(%v) : (tensor<3xf32>) -> tensor<3xf32>
    stablehlo.return %j, %1 : tensor<3xf32>, tensor<3xf32>
  }) {s4tf.trip_count = 5 : i64} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

// Straight-line code, checked after s4tf-canonicalize and cse (CANON).
// s4tf-vjp adds, for every function marked with s4tf.wrt, the split pair
// @f_vjp_fwd(x...) -> (y..., residuals...) and @f_vjp_bwd(residuals..., ct...) -> ct_x...,
// and @f_vjp(x..., ct...) -> (y..., ct_x...) calling both. It linearizes the JVP
// (@f_linearize, @f_lin: not checked here) and transposes the linear part.

// Activity: only %x is differentiated. The forward half keeps cos(x) and %y as residuals;
// exp(%y) is computed for the value only, and the backward half is two multiplications
// after broadcasting the scalar cotangent of reduce_sum.
// CANON-LABEL: func.func private @sin_times_vjp_fwd_wrt_0
// CANON-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// CANON-NEXT:    %[[SIN:.*]] = "s4tf.sin"(%[[X]])
// CANON-NEXT:    %[[COS:.*]] = "s4tf.cos"(%[[X]])
// CANON-NEXT:    %[[PROD:.*]] = "s4tf.mul"(%[[SIN]], %[[Y]])
// CANON-NEXT:    %[[EXP:.*]] = "s4tf.exp"(%[[Y]])
// CANON-NEXT:    %[[SUM:.*]] = "s4tf.add"(%[[PROD]], %[[EXP]])
// CANON-NEXT:    %[[OUT:.*]] = "s4tf.reduce_sum"(%[[SUM]])
// CANON-NEXT:    return %[[OUT]], %[[COS]], %[[Y]]
// CANON-LABEL: func.func private @sin_times_vjp_bwd_wrt_0
// CANON-SAME:    (%[[COS:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>) -> tensor<3xf32>
// CANON-NEXT:    %[[R:.*]] = "s4tf.reshape"(%[[CT]]) {shape = array<i64: 1>}
// CANON-NEXT:    %[[B:.*]] = "s4tf.broadcast_in_dim"(%[[R]]) {broadcast_dimensions = array<i64: 0>, shape = array<i64: 3>}
// CANON-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[B]], %[[Y]])
// CANON-NEXT:    %[[DX:.*]] = "s4tf.mul"(%[[M]], %[[COS]])
// CANON-NEXT:    return %[[DX]] : tensor<3xf32>
// CANON-LABEL: func.func private @sin_times_vjp_wrt_0
// CANON-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<f32>) -> (tensor<f32>, tensor<3xf32>)
// CANON-NEXT:    %[[F:.*]]:3 = call @sin_times_vjp_fwd_wrt_0(%[[X]], %[[Y]])
// CANON-NEXT:    %[[G:.*]] = call @sin_times_vjp_bwd_wrt_0(%[[F]]#1, %[[F]]#2, %[[CT]])
// CANON-NEXT:    return %[[F]]#0, %[[G]]
func.func @sin_times(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.mul"(%0, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "s4tf.exp"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "s4tf.add"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.reduce_sum"(%3) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// A call is differentiated through the callee's own split pair, not inlined: the caller's
// forward half calls @softplus_vjp_fwd and passes its residuals on; the backward half calls
// @softplus_vjp_bwd. Broadcasting of %b is undone by a sum over the broadcast axis.
// CANON-LABEL: func.func private @caller_vjp_fwd
// CANON-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CANON-NEXT:    %[[Z:.*]] = "s4tf.add"(%[[X]], %[[B]])
// CANON-NEXT:    %[[F:.*]]:3 = call @softplus_vjp_fwd(%[[Z]])
// CANON-NEXT:    return %[[F]]#0, %[[F]]#1, %[[F]]#2
// CANON-LABEL: func.func private @softplus_vjp_fwd
// CANON-SAME:    (%[[X:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CANON-NEXT:    %[[E:.*]] = "s4tf.exp"(%[[X]])
// CANON-NEXT:    %[[Y:.*]] = "s4tf.log1p"(%[[E]])
// CANON:         %[[INV:.*]] = "s4tf.div"
// CANON-NEXT:    return %[[Y]], %[[E]], %[[INV]]
// CANON-LABEL: func.func private @caller_vjp_bwd
// CANON-SAME:    (%[[R0:.*]]: tensor<2x3xf32>, %[[R1:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
// CANON-NEXT:    %[[DZ:.*]] = call @softplus_vjp_bwd(%[[R0]], %[[R1]], %[[CT]])
// CANON-NEXT:    %[[DB:.*]] = "s4tf.reduce_sum"(%[[DZ]]) {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
// CANON-NEXT:    return %[[DZ]], %[[DB]]
// CANON-LABEL: func.func private @softplus_vjp_bwd
// CANON-SAME:    (%[[E:.*]]: tensor<2x3xf32>, %[[INV:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CANON-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[CT]], %[[INV]])
// CANON-NEXT:    %[[DX:.*]] = "s4tf.mul"(%[[M]], %[[E]])
// CANON-NEXT:    return %[[DX]]
// CANON-LABEL: func.func private @caller_vjp
// CANON-NEXT:    call @caller_vjp_fwd
// CANON-NEXT:    call @caller_vjp_bwd
// CANON-NOT:     s4tf.exp
func.func @caller(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0 = "s4tf.add"(%x, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = func.call @softplus(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
func.func private @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "s4tf.log1p"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Sparse adjoint: the two reads of parts of %x add their cotangents into one buffer with
// s4tf.add_slice (in place once lowered), not one zero-padded full-size tensor per read.
// CANON-LABEL: func.func private @reads_vjp_bwd
// CANON-SAME:    (%[[STRIDED:.*]]: tensor<2xf32>, %[[ONE:.*]]: tensor<1xf32>, %[[CT:.*]]: tensor<2xf32>) -> tensor<6xf32>
// CANON-NEXT:    %[[CT_STRIDED:.*]] = "s4tf.mul"(%[[CT]], %[[ONE]])
// CANON-NEXT:    %[[M:.*]] = "s4tf.mul"(%[[CT]], %[[STRIDED]])
// CANON-NEXT:    %[[S:.*]] = "s4tf.reduce_sum"(%[[M]])
// CANON-NEXT:    %[[CT_ONE:.*]] = "s4tf.reshape"(%[[S]]) {shape = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
// CANON-NEXT:    %[[ZERO:.*]] = "s4tf.constant"() {value = dense<0.000000e+00> : tensor<6xf32>}
// CANON-NEXT:    %[[B1:.*]] = "s4tf.add_slice"(%[[ZERO]], %[[CT_STRIDED]]) {start = array<i64: 2>, stride = array<i64: 2>}
// CANON-NEXT:    %[[B2:.*]] = "s4tf.add_slice"(%[[B1]], %[[CT_ONE]]) {start = array<i64: 1>, stride = array<i64: 1>}
// CANON-NEXT:    return %[[B2]] : tensor<6xf32>
func.func @reads(%x: tensor<6xf32>) -> tensor<2xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.slice"(%x) {start = array<i64: 1>, limit = array<i64: 2>, stride = array<i64: 1>} : (tensor<6xf32>) -> tensor<1xf32>
  %1 = "s4tf.slice"(%x) {start = array<i64: 2>, limit = array<i64: 6>, stride = array<i64: 2>} : (tensor<6xf32>) -> tensor<2xf32>
  %2 = "s4tf.mul"(%0, %1) : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}

// -----

// Piecewise-constant ops carry no derivative: the backward pass multiplies by the floor
// plus the comparison mask (a residual) and by abs's constant sign, nothing more.
// CANON-LABEL: func.func private @pieces_vjp_bwd
// CANON-SAME:    (%[[SIGN:.*]]: tensor<3xf32>, %[[PIECES:.*]]: tensor<3xf32>, %[[CT:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CANON-NEXT:    %[[A:.*]] = "s4tf.mul"(%[[CT]], %[[PIECES]])
// CANON-NEXT:    %[[B:.*]] = "s4tf.mul"(%[[A]], %[[SIGN]])
// CANON-NEXT:    return %[[B]]
func.func @pieces(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.floor"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.gt"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %2 = "s4tf.cast"(%1) {dtype = f32} : (tensor<3xi1>) -> tensor<3xf32>
  %3 = "s4tf.add"(%0, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "s4tf.abs"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %5 = "s4tf.mul"(%3, %4) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %5 : tensor<3xf32>
}

// -----

// A while whose checkpoint tapes take more than 256 KiB (16 rows and a spare of 64 KiB)
// keeps its checkpoints in shift registers, 16 carried values that a trip passes on to
// the row before and a checkpoint into the last, and stacks them into a tape once the
// loops are done: no loop writes a row of a tape (IREE 3.13 copies the tapes a
// host-stepped loop updates once a trip). The first loop runs 16 iterations, a checkpoint
// each; every trip of the next keeps the even checkpoints in the first 8 rows and shifts
// the next 8, twice as far apart, into the others (a loop a checkpoint around a loop of
// the iterations up to the next). The backward pass re-records each segment alike.
// Its backward steps go a checkpoint of the segment's tape at a time: a loop shifts the
// states up to the next checkpoint into registers, and a loop pops them from the last
// register (each trip rotates the registers: the popped one to the front, every other on
// to the next), feeding each to the body's VJP; neither loop holds a loop or reads a row
// at a run-time index.
// Numbers: the large-state tests of tests/control_flow/test_loop_programs.py.

// CHECK-LABEL: func.func private @big_linearize_r0_lin_transpose
// CHECK-NOT:     tape_write
// CHECK:         %[[PUSHED:.*]]:20 = "s4tf.while"
// CHECK:             func.call @big_r0_body(
// CHECK:           "s4tf.while"(%{{.*}}, %[[PUSHED]]#4, %[[PUSHED]]#5,
// CHECK:             func.call @big_r0_body_vjp(%[[LAST:arg[0-9]+]],
// CHECK-NEXT:        stablehlo.return %{{[0-9]+}}, %[[LAST]], %[[FIRST:arg[0-9]+]],
// CHECK-NOT:     tape_write
// CHECK:         return

// CHECK-LABEL: func.func private @big_vjp_fwd
// CHECK-NOT:     tape_write
// CHECK:         %[[FIRST:.*]]:19 = "s4tf.while"
// CHECK:           %[[NEXT:.*]]:2 = func.call @big_r0_body(%[[X:[a-z0-9]+]], %{{[a-z0-9]+}})
// CHECK:           stablehlo.return %[[NEXT]]#0, %[[NEXT]]#1, %arg5, %arg6, %arg7, {{.*}}, %arg19, %[[X]], %{{[0-9]+}} :
// CHECK-NOT:     tape_write
// CHECK:         "s4tf.while"
// CHECK:           "s4tf.while"
// CHECK:             "s4tf.while"
// CHECK:               func.call @big_r0_body
// CHECK-NOT:     tape_write
// CHECK:         %[[STACKED:.*]] = "s4tf.concatenate"{{.*}} -> tensor<16x16384xf32>
// CHECK:         "s4tf.tape_read"(%[[STACKED]]
// CHECK-NOT:     tape_write
// CHECK:         "s4tf.concatenate"{{.*}} -> tensor<17x16384xf32>
// CHECK-NOT:     tape_write
// CHECK:         return
func.func @big(%x: tensor<16384xf32>, %a: tensor<16384xf32>) -> tensor<16384xf32> attributes {s4tf.wrt = array<i64: 0, 1>} {
  %0:2 = "s4tf.while"(%x, %a) ({
  ^bb0(%v: tensor<16384xf32>, %b: tensor<16384xf32>):
    %s = "s4tf.reduce_sum"(%v) {axes = array<i64: 0>, keepdims = false} : (tensor<16384xf32>) -> tensor<f32>
    %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
    %1 = "s4tf.lt"(%s, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%v: tensor<16384xf32>, %b: tensor<16384xf32>):
    %1 = "s4tf.mul"(%v, %b) : (tensor<16384xf32>, tensor<16384xf32>) -> tensor<16384xf32>
    stablehlo.return %1, %b : tensor<16384xf32>, tensor<16384xf32>
  }) : (tensor<16384xf32>, tensor<16384xf32>) -> (tensor<16384xf32>, tensor<16384xf32>)
  return %0#0 : tensor<16384xf32>
}
