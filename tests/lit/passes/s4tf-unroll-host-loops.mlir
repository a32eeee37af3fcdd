// RUN: s4tf-opt %s --split-input-file -p s4tf-unroll-host-loops | filecheck %s
// RUN: s4tf-opt %s --split-input-file -p 's4tf-unroll-host-loops{copies=4}' | filecheck %s --check-prefix=FOUR
// RUN: s4tf-opt %s --split-input-file -p 's4tf-unroll-host-loops{peel=false}' | filecheck %s --check-prefix=NOPEEL
// RUN: s4tf-opt %s --split-input-file -p 's4tf-unroll-host-loops{waiting=false}' | filecheck %s --check-prefix=NOWAIT

// s4tf-unroll-host-loops: a stablehlo.while marked with its trip count (12) runs 6
// iterations a trip (the largest divisor of 12 up to 8; up to 4: 4), each copy of the body
// reading the last one's results; the mark becomes the trips left (2; 3). Numbers:
// tests/passes/test_unroll_host_loops.py.

// CHECK-LABEL: func.func @counted
// CHECK:         stablehlo.while(%[[I:.*]] = %{{.*}}, %[[H:.*]] = %arg0) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
// CHECK:         do {
// CHECK-NEXT:      %[[T1:.*]] = stablehlo.tanh %[[H]]
// CHECK-NEXT:      %[[I1:.*]] = stablehlo.add %[[I]], %[[ONE:.*]] :
// CHECK-NEXT:      %[[T2:.*]] = stablehlo.tanh %[[T1]]
// CHECK-NEXT:      %[[I2:.*]] = stablehlo.add %[[I1]], %[[ONE]] :
// CHECK-COUNT-4:   stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// CHECK:           stablehlo.return %{{.*}}, %{{.*}} : tensor<i32>, tensor<4xf32>
// FOUR-LABEL: func.func @counted
// FOUR:          attributes {s4tf.trip_count = 3 : i64}
// FOUR-COUNT-4:  stablehlo.tanh
// FOUR-NOT:      stablehlo.tanh
func.func @counted(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %twelve = stablehlo.constant dense<12> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 12 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %twelve : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A loop whose body already holds copies of the body it came from (s4tf.copies: reverse
// mode of a long scan) counts them against `copies`: a body of 4 copies is copied twice
// (8 iterations a trip; 12 trips become 6), one of 8 is left as it is (up to 4: both are).

// CHECK-LABEL: func.func @already_copied
// CHECK:         stablehlo.while{{.*}}attributes {s4tf.copies = 4 : i64, s4tf.trip_count = 6 : i64}
// CHECK-COUNT-2:   stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// CHECK:         stablehlo.while{{.*}}attributes {s4tf.copies = 8 : i64, s4tf.trip_count = 12 : i64}
// CHECK-COUNT-1:   stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// FOUR-LABEL: func.func @already_copied
// FOUR:          attributes {s4tf.copies = 4 : i64, s4tf.trip_count = 12 : i64}
// FOUR:          attributes {s4tf.copies = 8 : i64, s4tf.trip_count = 12 : i64}
func.func @already_copied(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %twelve = stablehlo.constant dense<12> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.copies = 4 : i64, s4tf.trip_count = 12 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %twelve : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  %s:2 = stablehlo.while(%i = %zero, %h = %r#1) : tensor<i32>, tensor<4xf32> attributes {s4tf.copies = 8 : i64, s4tf.trip_count = 12 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %twelve : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %s#1 : tensor<4xf32>
}

// -----

// A loop without a trip count that does not count by a constant step (its counter
// doubles), and a loop of a prime trip count from 9 to 15 (one iteration a trip is all
// that divides it, and 8 a trip would leave one trip), are left as they are.

// CHECK-LABEL: func.func @unknown_or_prime
// FOUR-LABEL: func.func @unknown_or_prime
// CHECK:         do {
// CHECK-NEXT:      stablehlo.tanh
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
// CHECK:         attributes {s4tf.trip_count = 11 : i64}
// CHECK:         do {
// CHECK-NEXT:      stablehlo.tanh
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
func.func @unknown_or_prime(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %eleven = stablehlo.constant dense<11> : tensor<i32>
  %r:2 = stablehlo.while(%i = %one, %h = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %i : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  %s:2 = stablehlo.while(%i = %zero, %h = %r#1) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 11 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %eleven : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %s#1 : tensor<4xf32>
}

// -----

// A loop of a prime trip count of 16 or more, 19: its first 3 iterations are copied before
// it (from its initial counter behind a barrier), and the loop runs 8 a trip, twice; with
// peel=false (the GPU targets' pipelines) it is left as it is.

// CHECK-LABEL: func.func @prime_long
// NOPEEL-LABEL: func.func @prime_long
// NOPEEL-NOT:    stablehlo.optimization_barrier
// NOPEEL:        attributes {s4tf.trip_count = 19 : i64}
// CHECK:         stablehlo.optimization_barrier
// CHECK-COUNT-3: stablehlo.tanh
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
// CHECK:         do {
// CHECK-COUNT-8:   stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// CHECK:           stablehlo.return
func.func @prime_long(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %bound = stablehlo.constant dense<19> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 19 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A loop reading a row at its counter (IREE reads the index on the host, waiting for the
// device) runs 8 iterations a trip; with waiting=false (the GPU targets' pipelines) it is
// left as it is, and so is one reading through a barrier, while one without waits is
// copied as before.

// CHECK-LABEL: func.func @waits
// CHECK:         attributes {s4tf.trip_count = 2 : i64}
// CHECK-COUNT-8:   stablehlo.dynamic_slice
// CHECK:         attributes {s4tf.trip_count = 2 : i64}
// CHECK-COUNT-8:   stablehlo.optimization_barrier
// NOWAIT-LABEL: func.func @waits
// NOWAIT:        attributes {s4tf.trip_count = 16 : i64}
// NOWAIT:        do {
// NOWAIT-NEXT:     stablehlo.dynamic_slice
// NOWAIT-NOT:      stablehlo.dynamic_slice
// NOWAIT:        attributes {s4tf.trip_count = 16 : i64}
// NOWAIT:        do {
// NOWAIT-NEXT:     stablehlo.optimization_barrier
// NOWAIT-NOT:      stablehlo.optimization_barrier
// NOWAIT:        attributes {s4tf.trip_count = 2 : i64}
// NOWAIT-COUNT-8:  stablehlo.tanh
func.func @waits(%x: tensor<4xf32>, %rows: tensor<16x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %bound = stablehlo.constant dense<16> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 16 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %row = stablehlo.dynamic_slice %rows, %i, %zero, sizes = [1, 4] : (tensor<16x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %flat = stablehlo.reshape %row : (tensor<1x4xf32>) -> tensor<4xf32>
    %t = stablehlo.add %h, %flat : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  %s:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 16 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %b = stablehlo.optimization_barrier %h : tensor<4xf32>
    %t = stablehlo.sine %b : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  %u:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 16 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1, %s#1, %u#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A loop counting to a bound known only at run time (`i < n`, the counter stepped by a
// constant, the bound passed on unchanged or from outside) runs 8 iterations a trip while
// all 8 run (`i + 7 < n`, and `i < i + 7`: no overflow; counting down by 2: `i - 14 > n`),
// then the iterations left in a copy of the loop as it was. A bound the body changes is
// left as it is, and so is a float counter.

// CHECK-LABEL: func.func @run_time_bound
// CHECK:         %[[MAIN:.*]]:3 = stablehlo.while(%[[I:.*]] = %{{.*}}, %{{.*}} = %arg0, %[[N:.*]] = %arg1)
// CHECK-NEXT:    cond {
// CHECK-NEXT:      %[[SEVEN:.*]] = stablehlo.constant dense<7> : tensor<i32>
// CHECK-NEXT:      %[[SHIFTED:.*]] = stablehlo.add %[[I]], %[[SEVEN]]
// CHECK-NEXT:      %[[ALL:.*]] = stablehlo.compare LT, %[[SHIFTED]], %[[N]]
// CHECK-NEXT:      %[[AHEAD:.*]] = stablehlo.compare LT, %[[I]], %[[SHIFTED]]
// CHECK-NEXT:      %[[BOTH:.*]] = stablehlo.and %[[AHEAD]], %[[ALL]]
// CHECK-NEXT:      stablehlo.return %[[BOTH]]
// CHECK:         } do {
// CHECK-COUNT-8:   stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// CHECK:         %[[REST:.*]]:3 = stablehlo.while(%{{.*}} = %[[MAIN]]#0, %{{.*}} = %[[MAIN]]#1, %{{.*}} = %[[MAIN]]#2)
// CHECK-NEXT:    cond {
// CHECK-NEXT:      stablehlo.compare LT
// CHECK:         } do {
// CHECK-NEXT:      stablehlo.tanh
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
// CHECK:         %[[DOWN:.*]]:2 = stablehlo.while
// CHECK-NEXT:    cond {
// CHECK-NEXT:      %[[FOURTEEN:.*]] = stablehlo.constant dense<-14> : tensor<i32>
// CHECK-NEXT:      %[[DOWN_SHIFTED:.*]] = stablehlo.add %{{.*}}, %[[FOURTEEN]]
// CHECK-NEXT:      stablehlo.compare GT, %[[DOWN_SHIFTED]], %arg1
// CHECK-NEXT:      stablehlo.compare GT, %{{.*}}, %[[DOWN_SHIFTED]]
// CHECK:         stablehlo.while(%{{.*}} = %[[DOWN]]#0, %{{.*}} = %[[DOWN]]#1)
// CHECK:         stablehlo.while
// CHECK:         } do {
// CHECK-NEXT:      stablehlo.tanh
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
// CHECK:         stablehlo.while
// CHECK:         } do {
// CHECK-NEXT:      stablehlo.tanh
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
// CHECK:         return %[[REST]]#1
func.func @run_time_bound(%x: tensor<4xf32>, %n: tensor<i32>, %f: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %minus_two = stablehlo.constant dense<-2> : tensor<i32>
  %forty = stablehlo.constant dense<40> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %h = %x, %m = %n) : tensor<i32>, tensor<4xf32>, tensor<i32>
  cond {
    %c = stablehlo.compare LT, %i, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t, %m : tensor<i32>, tensor<4xf32>, tensor<i32>
  }
  %d:2 = stablehlo.while(%i = %forty, %h = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare GT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %minus_two, %i : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  %u:3 = stablehlo.while(%i = %zero, %h = %x, %m = %n) : tensor<i32>, tensor<4xf32>, tensor<i32>
  cond {
    %c = stablehlo.compare LT, %i, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %m2 = stablehlo.add %m, %one : tensor<i32>
    stablehlo.return %i2, %t, %m2 : tensor<i32>, tensor<4xf32>, tensor<i32>
  }
  %half = stablehlo.constant dense<1.5> : tensor<f32>
  %fzero = stablehlo.constant dense<0.0> : tensor<f32>
  %v:2 = stablehlo.while(%t = %fzero, %h = %x) : tensor<f32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %t, %f, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.tanh %h : tensor<4xf32>
    %t2 = stablehlo.add %t, %half : tensor<f32>
    stablehlo.return %t2, %y : tensor<f32>, tensor<4xf32>
  }
  return %r#1, %d#1, %u#1, %v#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A fori_loop with tensor bounds: its condition picks `i < n` or `i > n` by its step's sign,
// a comparison of constants (`select(1 > 0, i < n, i > n)`); the comparison it picks is
// the one shifted.

// CHECK-LABEL: func.func @fori_tensor_bound
// CHECK:         stablehlo.while
// CHECK-NEXT:    cond {
// CHECK:           %[[SHIFTED:.*]] = stablehlo.add %{{.*}}, %{{.*}}
// CHECK-NEXT:      %[[ALL:.*]] = stablehlo.compare LT, %[[SHIFTED]], %{{.*}}
// CHECK-NEXT:      %[[AHEAD:.*]] = stablehlo.compare LT, %{{.*}}, %[[SHIFTED]]
// CHECK-NEXT:      %[[BOTH:.*]] = stablehlo.and %[[AHEAD]], %[[ALL]]
// CHECK:           %[[PICKED:.*]] = stablehlo.select %{{.*}}, %[[BOTH]], %{{.*}}
// CHECK-NEXT:      stablehlo.return %[[PICKED]]
// CHECK:         } do {
// CHECK-COUNT-8:   stablehlo.tanh
// CHECK:         stablehlo.while
func.func @fori_tensor_bound(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %m = %n, %h = %x) : tensor<i32>, tensor<i32>, tensor<4xf32>
  cond {
    %up = stablehlo.compare GT, %one, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %i, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %gt = stablehlo.compare GT, %i, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = stablehlo.select %up, %lt, %gt : tensor<i1>, tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %m, %t : tensor<i32>, tensor<i32>, tensor<4xf32>
  }
  return %r#2 : tensor<4xf32>
}

// -----

// A loop holding a host-stepped loop is left as it is, and so is the loop it holds
// (IREE 3.13 fails to partition copies of such a body beside reverse mode's tape writes:
// tests/lit/iree_reproducers/while_copies_tape_rows.mlir).

// CHECK-LABEL: func.func @nested
// CHECK:         %[[R:.*]]:2 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %arg0) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
// CHECK:         do {
// CHECK-NEXT:      stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 4 : i64}
// CHECK:           stablehlo.tanh
// CHECK-NOT:       stablehlo.tanh
// CHECK:         return %[[R]]#1
func.func @nested(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %inner:2 = stablehlo.while(%j = %zero, %y = %h) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 4 : i64}
    cond {
      %c = stablehlo.compare LT, %j, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %y2 = stablehlo.tanh %y : tensor<4xf32>
      %j2 = stablehlo.add %j, %one : tensor<i32>
      stablehlo.return %j2, %y2 : tensor<i32>, tensor<4xf32>
    }
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %inner#1 : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A loop whose body holds an `if` on the host is left as it is too (IREE 3.13: "failed to
// solve for timepoint coverage" on four or more copies of a scan step holding a `cond`).

// CHECK-LABEL: func.func @holds_if
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %arg0) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 12 : i64}
// CHECK-COUNT-1:   stablehlo.if
// CHECK-NOT:       stablehlo.if
func.func @holds_if(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %twelve = stablehlo.constant dense<12> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 12 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %twelve : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = "stablehlo.if"(%p) ({
      %a = stablehlo.tanh %h : tensor<4xf32>
      stablehlo.return %a : tensor<4xf32>
    }, {
      %b = stablehlo.sine %h : tensor<4xf32>
      stablehlo.return %b : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// A loop whose body holds a dispatch region of two results is left as it is (IREE 3.13
// gives one of two results it finds equal the other's elements, and copies can make them
// equal: tests/lit/iree_reproducers/dispatch_region_duplicate_results.mlir); a region of
// one result is copied.

// CHECK-LABEL: func.func @holds_regions
// CHECK:         stablehlo.while{{.*}}attributes {s4tf.trip_count = 4 : i64}
// CHECK-COUNT-1:   flow.dispatch.region
// CHECK-NOT:       flow.dispatch.region
// CHECK:         return
// CHECK-COUNT-4: flow.dispatch.region -> (tensor<4xf32>)
// CHECK-NOT:     stablehlo.while
func.func @holds_regions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %four = stablehlo.constant dense<4> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %a = %x, %b = %x) : tensor<i32>, tensor<4xf32>, tensor<4xf32> attributes {s4tf.trip_count = 4 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t:2 = flow.dispatch.region -> (tensor<4xf32>, tensor<4xf32>) {
      %u = stablehlo.tanh %a : tensor<4xf32>
      %v = stablehlo.sine %b : tensor<4xf32>
      flow.return %u, %v : tensor<4xf32>, tensor<4xf32>
    }
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t#0, %t#1 : tensor<i32>, tensor<4xf32>, tensor<4xf32>
  }
  %s:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 4 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = flow.dispatch.region -> (tensor<4xf32>) {
      %u = stablehlo.tanh %a : tensor<4xf32>
      flow.return %u : tensor<4xf32>
    }
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1, %s#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Inlined, a row update of a tensor the body also reads, or of a constant behind a barrier,
// writes into a copy of it (a `select` nothing folds): IREE 3.13 writes a
// dynamic_update_slice into its tensor's buffer even where other ops read the tensor, or
// the constant (inside the loop the tensor is a block argument, which IREE copies every
// trip). The update of the tensor nothing else reads is left as it is. Each row written
// comes from behind a barrier (IREE 3.13 merges fills of constant rows wrongly).

// CHECK-LABEL: func.func @row_updates
// CHECK-NOT:     stablehlo.while
// CHECK:         %[[B:.*]] = stablehlo.optimization_barrier %arg0
// CHECK:         %[[ROW:.*]] = stablehlo.optimization_barrier %{{.*}} : tensor<1xf32>
// CHECK:         %[[C:.*]] = stablehlo.select %{{.*}}, %[[B]], %{{.*}}
// CHECK:         %[[U:.*]] = stablehlo.dynamic_update_slice %[[C]], %[[ROW]],
// CHECK:         "stablehlo.gather"(%[[B]],
// CHECK:         %[[C2:.*]] = stablehlo.select %{{.*}}, %[[U]], %{{.*}}
// CHECK:         stablehlo.dynamic_update_slice %[[C2]],
func.func @row_updates(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %none = stablehlo.constant dense<0.0> : tensor<f32>
  %cleared = stablehlo.constant dense<0.0> : tensor<1xf32>
  %t = stablehlo.optimization_barrier %x : tensor<4xf32>
  %r:3 = stablehlo.while(%i = %zero, %s = %t, %acc = %none) : tensor<i32>, tensor<4xf32>, tensor<f32> attributes {s4tf.trip_count = 2 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %u = stablehlo.dynamic_update_slice %s, %cleared, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
    %at = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.gather"(%s, %at) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<1xi32>) -> tensor<f32>
    %acc2 = stablehlo.add %acc, %g : tensor<f32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %u, %acc2 : tensor<i32>, tensor<4xf32>, tensor<f32>
  }
  return %r#1, %r#2 : tensor<4xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @row_update_of_a_constant
// CHECK-NOT:     stablehlo.while
// CHECK:         %[[B:.*]] = stablehlo.optimization_barrier %{{.*}} : tensor<4xf32>
// CHECK:         %[[C:.*]] = stablehlo.select %{{.*}}, %[[B]], %{{.*}}
// CHECK:         %[[U:.*]] = stablehlo.dynamic_update_slice %[[C]],
// CHECK-NOT:     stablehlo.select
// CHECK:         stablehlo.dynamic_update_slice %[[U]],
func.func @row_update_of_a_constant() -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %cleared = stablehlo.constant dense<0.0> : tensor<1xf32>
  %seed = stablehlo.constant dense<1.0> : tensor<4xf32>
  %t = stablehlo.optimization_barrier %seed : tensor<4xf32>
  %r:2 = stablehlo.while(%i = %zero, %s = %t) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %u = stablehlo.dynamic_update_slice %s, %cleared, %i : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %u : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// -----

// Inlined, the copies start from the loop's constant initial carries behind one barrier,
// the argument as it is: IREE 3.13 hoists what is computed from constants alone into
// globals and, beside its fusion of producers with several uses, got such a module wrong
// (tests/lit/iree_reproducers/fuse_multi_use_wrong_result.mlir).

// CHECK-LABEL: func.func @constant_starts
// CHECK:         %[[S:.*]]:2 = stablehlo.optimization_barrier %{{.*}}, %{{.*}} : tensor<i32>, tensor<f32>
// CHECK-NOT:     stablehlo.while
// CHECK:         stablehlo.reshape %[[S]]#0
// CHECK:         "stablehlo.gather"(%arg0,
// CHECK:         stablehlo.cosine %[[S]]#1
// CHECK-NOT:     stablehlo.optimization_barrier
// CHECK:         return
func.func @constant_starts(%x: tensor<4xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %start = stablehlo.constant dense<0.0> : tensor<f32>
  %r:3 = stablehlo.while(%i = %zero, %acc = %start, %y = %x) : tensor<i32>, tensor<f32>, tensor<4xf32> attributes {s4tf.trip_count = 2 : i64}
  cond {
    %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %at = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.gather"(%y, %at) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<4xf32>, tensor<1xi32>) -> tensor<f32>
    %cos = stablehlo.cosine %acc : tensor<f32>
    %m = stablehlo.multiply %g, %cos : tensor<f32>
    %acc2 = stablehlo.add %acc, %m : tensor<f32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %acc2, %y : tensor<i32>, tensor<f32>, tensor<4xf32>
  }
  return %r#1 : tensor<f32>
}

// -----

// A loop nested in a host-stepped loop that counts to a run-time bound runs 8 iterations
// a trip too (reverse mode's segment replays: `j < end`, `end` from the outer body); so
// does a loop whose condition is a conjunction of such comparisons (`i < n and j < m`,
// each shifted), and one counting down by subtracting (`k - 1 > 0`). A nested loop of a
// known trip count is left as it is.

// CHECK-LABEL: func.func @nested_and_conjunctions
// CHECK:         stablehlo.while
// CHECK:         } do {
// CHECK:           %[[END:.*]] = stablehlo.add
// CHECK:           %[[INNER:.*]]:2 = stablehlo.while(%[[J:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK-NEXT:      cond {
// CHECK-NEXT:        %[[SEVEN:.*]] = stablehlo.constant dense<7> : tensor<i32>
// CHECK-NEXT:        %[[SHIFTED:.*]] = stablehlo.add %[[J]], %[[SEVEN]]
// CHECK-NEXT:        stablehlo.compare LT, %[[SHIFTED]], %[[END]]
// CHECK:           } do {
// CHECK-COUNT-8:     stablehlo.tanh
// CHECK-NOT:         stablehlo.tanh
// CHECK:           stablehlo.while(%{{.*}} = %[[INNER]]#0, %{{.*}} = %[[INNER]]#1)
// CHECK:           } do {
// CHECK-NEXT:        stablehlo.tanh
// CHECK-NEXT:        stablehlo.add
// CHECK-NEXT:        stablehlo.return
// CHECK:           stablehlo.while{{.*}} attributes {s4tf.trip_count = 3 : i64}
// CHECK:           } do {
// CHECK-NEXT:        stablehlo.sine
// CHECK-NEXT:        stablehlo.add
// CHECK-NEXT:        stablehlo.return
// CHECK:         %[[BOTH:.*]]:4 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[K:.*]] = %{{.*}}, %{{.*}} = %arg0, %[[M:.*]] = %arg2)
// CHECK-NEXT:    cond {
// CHECK:           %[[I7:.*]] = stablehlo.add %[[I]], %{{.*}}
// CHECK-NEXT:      %[[FIRST:.*]] = stablehlo.compare LT, %[[I7]], %arg1
// CHECK-NEXT:      stablehlo.compare LT, %[[I]], %[[I7]]
// CHECK:           %[[K7:.*]] = stablehlo.add %[[K]], %{{.*}}
// CHECK-NEXT:      stablehlo.compare LT, %[[K7]], %[[M]]
// CHECK:         } do {
// CHECK-COUNT-8:   stablehlo.cosine
// CHECK-NOT:       stablehlo.cosine
// CHECK:         stablehlo.while(%{{.*}} = %[[BOTH]]#0, %{{.*}} = %[[BOTH]]#1, %{{.*}} = %[[BOTH]]#2, %{{.*}} = %[[BOTH]]#3)
// CHECK:         } do {
// CHECK-NEXT:      stablehlo.cosine
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.add
// CHECK-NEXT:      stablehlo.return
// CHECK:         %[[DOWN:.*]]:2 = stablehlo.while(%[[D:.*]] = %arg1, %{{.*}} = %arg0)
// CHECK-NEXT:    cond {
// CHECK-NEXT:      %[[MINUS7:.*]] = stablehlo.constant dense<-7> : tensor<i32>
// CHECK-NEXT:      %[[D7:.*]] = stablehlo.add %[[D]], %[[MINUS7]]
// CHECK-NEXT:      stablehlo.compare GT, %[[D7]], %{{.*}}
// CHECK:         } do {
// CHECK-COUNT-8:   stablehlo.exponential
// CHECK-NOT:       stablehlo.exponential
// CHECK:         stablehlo.while(%{{.*}} = %[[DOWN]]#0, %{{.*}} = %[[DOWN]]#1)
func.func @nested_and_conjunctions(%x: tensor<4xf32>, %n: tensor<i32>, %m: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %flag = stablehlo.constant dense<true> : tensor<i1>
  %r:3 = stablehlo.while(%i = %zero, %h = %x, %go = %flag) : tensor<i32>, tensor<4xf32>, tensor<i1>
  cond {
    stablehlo.return %go : tensor<i1>
  } do {
    %end = stablehlo.add %i, %n : tensor<i32>
    %in:2 = stablehlo.while(%j = %i, %g = %h) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.compare LT, %j, %end, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %t = stablehlo.tanh %g : tensor<4xf32>
      %j2 = stablehlo.add %j, %one : tensor<i32>
      stablehlo.return %j2, %t : tensor<i32>, tensor<4xf32>
    }
    %s:2 = stablehlo.while(%j = %zero, %g = %in#1) : tensor<i32>, tensor<4xf32> attributes {s4tf.trip_count = 3 : i64}
    cond {
      %c = stablehlo.compare LT, %j, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %t = stablehlo.sine %g : tensor<4xf32>
      %j2 = stablehlo.add %j, %one : tensor<i32>
      stablehlo.return %j2, %t : tensor<i32>, tensor<4xf32>
    }
    %more = stablehlo.compare LT, %in#0, %m, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %in#0, %s#1, %more : tensor<i32>, tensor<4xf32>, tensor<i1>
  }
  %b:4 = stablehlo.while(%i = %zero, %k = %zero, %h = %x, %mm = %m) : tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<i32>
  cond {
    %c1 = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c2 = stablehlo.compare LT, %k, %mm, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c = stablehlo.and %c1, %c2 : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.cosine %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %i2, %k2, %t, %mm : tensor<i32>, tensor<i32>, tensor<4xf32>, tensor<i32>
  }
  %d:2 = stablehlo.while(%k = %n, %h = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare GT, %k, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.exponential %h : tensor<4xf32>
    %k2 = stablehlo.subtract %k, %one : tensor<i32>
    stablehlo.return %k2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1, %b#2, %d#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A comparison the conjunction holds twice is shifted once.

// CHECK-LABEL: func.func @same_comparison_twice
// CHECK:         stablehlo.while
// CHECK-NEXT:    cond {
// CHECK-NEXT:      %[[SEVEN:.*]] = stablehlo.constant dense<7> : tensor<i32>
// CHECK-NEXT:      %[[SHIFTED:.*]] = stablehlo.add %{{.*}}, %[[SEVEN]]
// CHECK-NEXT:      %[[ALL:.*]] = stablehlo.compare LT, %[[SHIFTED]], %arg1
// CHECK-NEXT:      %[[AHEAD:.*]] = stablehlo.compare LT, %{{.*}}, %[[SHIFTED]]
// CHECK-NEXT:      %[[BOTH:.*]] = stablehlo.and %[[AHEAD]], %[[ALL]]
// CHECK-NEXT:      %[[TWICE:.*]] = stablehlo.and %[[BOTH]], %[[BOTH]]
// CHECK-NEXT:      stablehlo.return %[[TWICE]]
// CHECK:         } do {
// CHECK-COUNT-8:   stablehlo.tanh
func.func @same_comparison_twice(%x: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %b = stablehlo.and %c, %c : tensor<i1>
    stablehlo.return %b : tensor<i1>
  } do {
    %t = stablehlo.tanh %h : tensor<4xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %t : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
