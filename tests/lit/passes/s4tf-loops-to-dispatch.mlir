// RUN: s4tf-opt %s --split-input-file -p 's4tf-loops-to-dispatch{target=cpu}' | filecheck %s
// RUN: s4tf-opt %s --split-input-file --verify-diagnostics -p 's4tf-loops-to-dispatch{target=cpu remarks=true}'
// RUN: s4tf-opt %s --split-input-file -p 's4tf-loops-to-dispatch{target=vulkan}' | filecheck %s --check-prefix=VULKAN

// A loop whose state is small and whose body is elementwise becomes one dispatch region:
// an scf.while over a vector (the tensor<2xf32>) and a scalar (the tensor<i32> counter),
// read before it and written after it; outside constants (the counter's start) are made
// again inside, other outside values (the bound) are read; an integer scalar through a
// 0-d vector, which IREE does not move out of the region to read on the host.
// CHECK-LABEL: func.func @relax
// CHECK:         %[[R:.*]] = flow.dispatch.region -> (tensor<2xf32>) {
// CHECK-DAG:       %[[I0:.*]] = arith.constant 1 : i32
// CHECK-DAG:       %[[N0:.*]] = vector.transfer_read %arg1[], %{{.*}} : tensor<i32>, vector<i32>
// CHECK-DAG:       %[[N:.*]] = vector.extract %[[N0]][] : i32 from vector<i32>
// CHECK-DAG:       %[[X0:.*]] = vector.transfer_read %arg0[%{{.*}}], %{{.*}} : tensor<2xf32>, vector<2xf32>
// CHECK-DAG:       %[[A:.*]] = arith.constant 9.99{{.*}} : f32
// CHECK:           %[[W:.*]]:2 = scf.while (%[[I:.*]] = %[[I0]], %[[X:.*]] = %[[X0]]) : (i32, vector<2xf32>) -> (i32, vector<2xf32>) {
// CHECK-NEXT:        %[[C:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i32
// CHECK-NEXT:        scf.condition(%[[C]]) %[[I]], %[[X]] : i32, vector<2xf32>
// CHECK:           } do {
// CHECK:             %[[S:.*]] = math.sin %{{.*}} : vector<2xf32>
// CHECK:             %[[B:.*]] = vector.broadcast %[[A]] : f32 to vector<2xf32>
// CHECK:             arith.mulf %[[B]], %[[S]] : vector<2xf32>
// CHECK:             scf.yield %{{.*}}, %{{.*}} : i32, vector<2xf32>
// CHECK:           }
// CHECK:           %[[RX:.*]] = vector.transfer_write %[[W]]#1, %{{.*}}[%{{.*}}] : vector<2xf32>, tensor<2xf32>
// CHECK:           flow.return %[[RX]] : tensor<2xf32>
// CHECK:         return %[[R]] : tensor<2xf32>
// Vulkan does not compile such dispatches: the loop stays.
// VULKAN-LABEL: func.func @relax
// VULKAN:         stablehlo.while
func.func @relax(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %a = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
  %r:2 = stablehlo.while(%i = %one, %v = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.sine %v : tensor<2xf32>
    %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %t = stablehlo.multiply %b, %s : tensor<2xf32>
    %y = stablehlo.add %v, %t : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// A stablehlo.if in the loop becomes an scf.if; a reduction to a scalar a vector.reduction.
// CHECK-LABEL: func.func @newton
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
// CHECK:             vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<3xf64> into f64
// CHECK:             arith.cmpf ogt
// CHECK:           } do {
// CHECK:             %{{.*}} = scf.if %{{.*}} -> (vector<3xf64>) {
// CHECK:               arith.divf
// CHECK:               scf.yield %{{.*}} : vector<3xf64>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %{{.*}} : vector<3xf64>
// CHECK-NEXT:        }
// CHECK-NOT:     stablehlo.while
func.func @newton(%a: tensor<3xf64>) -> tensor<3xf64> {
  %eps = stablehlo.constant dense<1.0e-12> : tensor<f64>
  %low = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
  %zero = stablehlo.constant dense<0.0> : tensor<f64>
  %r:2 = stablehlo.while(%x = %a, %b = %a) : tensor<3xf64>, tensor<3xf64>
  cond {
    %sq = stablehlo.multiply %x, %x : tensor<3xf64>
    %d = stablehlo.subtract %sq, %b : tensor<3xf64>
    %e = stablehlo.abs %d : tensor<3xf64>
    %m = stablehlo.reduce(%e init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    %c = stablehlo.compare GT, %m, %eps, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    %p = stablehlo.compare GT, %s, %zero, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %y = "stablehlo.if"(%p) ({
      %q = stablehlo.divide %b, %x : tensor<3xf64>
      stablehlo.return %q : tensor<3xf64>
    }, {
      stablehlo.return %x : tensor<3xf64>
    }) : (tensor<i1>) -> tensor<3xf64>
    stablehlo.return %y, %b : tensor<3xf64>, tensor<3xf64>
  }
  return %r#0 : tensor<3xf64>
}

// -----

// A loop doing a large matrix product (64x64 by 64x8: 32,768 multiply-adds, more than
// MAX_DOT_PRODUCTS) stays host-stepped (with remarks=true: a warning says why); the
// elementwise loop nested in it still becomes a dispatch.
// CHECK-LABEL: func.func @matmul_loop
// CHECK:         stablehlo.while
// CHECK:           stablehlo.dot_general
// CHECK:           flow.dispatch.region
// CHECK:             scf.while
func.func @matmul_loop(%w: tensor<64x64xf32>, %h: tensor<64x8xf32>, %n: tensor<i32>) -> tensor<64x8xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  // expected-warning @below {{loop stays host-stepped: the loop has a matrix product of 32768 multiply-adds (at most 2048)}}
  %r:2 = stablehlo.while(%i = %one, %v = %h) : tensor<i32>, tensor<64x8xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %m = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x8xf32>) -> tensor<64x8xf32>
    %inner:2 = stablehlo.while(%k = %one, %u = %m) : tensor<i32>, tensor<64x8xf32>
    cond {
      %c = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %t = stablehlo.tanh %u : tensor<64x8xf32>
      %k1 = stablehlo.add %k, %one : tensor<i32>
      stablehlo.return %k1, %t : tensor<i32>, tensor<64x8xf32>
    }
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %inner#1 : tensor<i32>, tensor<64x8xf32>
  }
  return %r#1 : tensor<64x8xf32>
}

// -----

// An RNN cell, h = tanh(W h + U xs[i]): each small dot_general is unrolled over its
// contracted positions: W h is 32 columns of W (shuffles of W's elements, the same every
// iteration: LLVM hoists them), each times a broadcast element of h, summed with math.fma;
// W is read from the region's input once, before the loop, not carried. The row read
// xs[i] (a gather of one row at a clamped index) is a transfer_read of a row of xs, a
// read-only tape in memory (100x16xf32 is more than 1 KiB), at the clamped index.
// CHECK-LABEL: func.func @rnn_cell
// CHECK:         flow.dispatch.region
// CHECK:           %[[R:.*]] = vector.transfer_read %arg0{{.*}} : tensor<32x32xf32>, vector<32x32xf32>
// CHECK:           %[[W:.*]] = vector.shape_cast %[[R]] : vector<32x32xf32> to vector<1024xf32>
// CHECK:           scf.while
// CHECK:           } do {
// CHECK-NEXT:      ^bb0(%{{.*}}: i32, %[[H:.*]]: vector<32xf32>):
// CHECK-NEXT:        %[[C0:.*]] = vector.shuffle %[[W]], %[[W]] [0, 32, 64, {{.*}}, 992] : vector<1024xf32>, vector<1024xf32>
// CHECK-NEXT:        %[[H0:.*]] = vector.extract %[[H]][0] : f32 from vector<32xf32>
// CHECK-NEXT:        %[[B0:.*]] = vector.broadcast %[[H0]] : f32 to vector<32xf32>
// CHECK-NEXT:        %[[P0:.*]] = arith.mulf %[[C0]], %[[B0]] : vector<32xf32>
// CHECK-NEXT:        %[[C1:.*]] = vector.shuffle %[[W]], %[[W]] [1, 33, 65, {{.*}}, 993] : vector<1024xf32>, vector<1024xf32>
// CHECK-NEXT:        %[[H1:.*]] = vector.extract %[[H]][1] : f32 from vector<32xf32>
// CHECK-NEXT:        %[[B1:.*]] = vector.broadcast %[[H1]] : f32 to vector<32xf32>
// CHECK-NEXT:        math.fma %[[C1]], %[[B1]], %[[P0]] : vector<32xf32>
// CHECK:             arith.maxsi
// CHECK:             arith.minsi
// CHECK:             %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:             vector.transfer_read %arg3[%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<100x16xf32>, vector<1x16xf32>
// CHECK:             math.fma
// CHECK:             math.tanh %{{.*}} : vector<32xf32>
// CHECK-NOT:     stablehlo.while
func.func @rnn_cell(%w: tensor<32x32xf32>, %u: tensor<32x16xf32>, %h: tensor<32xf32>, %xs: tensor<100x16xf32>, %n: tensor<i32>) -> tensor<32xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %last = stablehlo.constant dense<99> : tensor<1xi32>
  %r:2 = stablehlo.while(%i = %zero, %v = %h) : tensor<i32>, tensor<32xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %v2 = stablehlo.reshape %v : (tensor<32xf32>) -> tensor<32x1xf32>
    %wh = stablehlo.dot_general %w, %v2, contracting_dims = [1] x [0] : (tensor<32x32xf32>, tensor<32x1xf32>) -> tensor<32x1xf32>
    %i1 = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
    %ic = stablehlo.clamp %zero, %i1, %last : (tensor<i32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
    %x = "stablehlo.gather"(%xs, %ic) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}> : (tensor<100x16xf32>, tensor<1xi32>) -> tensor<16xf32>
    %x2 = stablehlo.reshape %x : (tensor<16xf32>) -> tensor<16x1xf32>
    %ux = stablehlo.dot_general %u, %x2, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x1xf32>) -> tensor<32x1xf32>
    %sum = stablehlo.add %wh, %ux : tensor<32x1xf32>
    %s = stablehlo.reshape %sum : (tensor<32x1xf32>) -> tensor<32xf32>
    %t = stablehlo.tanh %s : tensor<32xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %t : tensor<i32>, tensor<32xf32>
  }
  return %r#1 : tensor<32xf32>
}

// -----

// A checkpoint tape written at a dynamic row: the row index is clamped into the tape as
// StableHLO says, and each element is a vector.insert at a dynamic position.
// CHECK-LABEL: func.func @tape
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
// CHECK:           } do {
// CHECK:             %[[LOW:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:             %[[ROW:.*]] = arith.minsi %[[LOW]], %{{.*}} : i32
// CHECK:             %[[INDEX:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK:             %[[BASE:.*]] = arith.muli %[[INDEX]], %{{.*}} : index
// CHECK:             %[[START:.*]] = arith.addi %[[BASE]], %{{.*}} : index
// CHECK:             %[[AT0:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK:             %[[AT1:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK:             %[[E0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK:             %[[T0:.*]] = vector.insert %[[E0]], %{{.*}} [%[[AT0]]] : f32 into vector<8xf32>
// CHECK:             %[[E1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK:             vector.insert %[[E1]], %[[T0]] [%[[AT1]]] : f32 into vector<8xf32>
func.func @tape(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<4x2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %empty = stablehlo.constant dense<0.0> : tensor<4x2xf32>
  %r:2 = stablehlo.while(%i = %zero, %t = %empty) : tensor<i32>, tensor<4x2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %row = stablehlo.reshape %x : (tensor<2xf32>) -> tensor<1x2xf32>
    %u = stablehlo.dynamic_update_slice %t, %row, %i, %zero : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u : tensor<i32>, tensor<4x2xf32>
  }
  return %r#1 : tensor<4x2xf32>
}

// -----

// A tape larger than MAX_DYNAMIC_VECTOR_BYTES is held in memory: the constant it starts
// from is written row by row into a tensor.empty (scf.for), the scf.while carries the
// tensor, before its other values (IREE 3.13's canonicalization drops a forwarded predicate
// from the condition's values, and its bufferization then pairs the tensors after it with
// the wrong arguments), and each update is a vector.transfer_write at the clamped row, in
// place.
// CHECK-LABEL: func.func @tape_in_memory
// CHECK:         %[[R:.*]] = flow.dispatch.region -> (tensor<300x2xf32>) {
// CHECK:           %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<1x2xf32>
// CHECK:           %[[EMPTY:.*]] = tensor.empty() : tensor<300x2xf32>
// CHECK:           %[[FILLED:.*]] = scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[EMPTY]]) -> (tensor<300x2xf32>) {
// CHECK:             %[[W:.*]] = vector.transfer_write %[[ZEROS]], %[[ACC]][%[[ROW]], %{{.*}}] {in_bounds = [true, true]} : vector<1x2xf32>, tensor<300x2xf32>
// CHECK:             scf.yield %[[W]] : tensor<300x2xf32>
// CHECK:           %[[L:.*]]:2 = scf.while (%{{.*}} = %[[FILLED]], %{{.*}} = %{{.*}}) : (tensor<300x2xf32>, i32) -> (tensor<300x2xf32>, i32) {
// CHECK:           } do {
// CHECK:           ^bb0(%[[T:.*]]: tensor<300x2xf32>, %{{.*}}: i32):
// CHECK:             %[[LOW:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:             %[[HIGH:.*]] = arith.minsi %[[LOW]], %{{.*}} : i32
// CHECK:             %[[AT:.*]] = arith.index_cast %[[HIGH]] : i32 to index
// CHECK:             %[[U:.*]] = vector.transfer_write %{{.*}}, %[[T]][%[[AT]], %{{.*}}] {in_bounds = [true, true]} : vector<1x2xf32>, tensor<300x2xf32>
// CHECK:             scf.yield %[[U]], %{{.*}} : tensor<300x2xf32>, i32
// CHECK:           flow.return %[[L]]#0 : tensor<300x2xf32>
// CHECK:         return %[[R]] : tensor<300x2xf32>
func.func @tape_in_memory(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<300x2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %empty = stablehlo.constant dense<0.0> : tensor<300x2xf32>
  %r:2 = stablehlo.while(%i = %zero, %t = %empty) : tensor<i32>, tensor<300x2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %row = stablehlo.reshape %x : (tensor<2xf32>) -> tensor<1x2xf32>
    %u = stablehlo.dynamic_update_slice %t, %row, %i, %zero : (tensor<300x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<300x2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u : tensor<i32>, tensor<300x2xf32>
  }
  return %r#1 : tensor<300x2xf32>
}

// -----

// A tape the loop only reads (carried unchanged) is not carried: each dynamic slice is a
// vector.transfer_read of the region's input, and the loop's result is that input.
// CHECK-LABEL: func.func @read_tape
// CHECK:         flow.dispatch.region -> (tensor<2xf32>) {
// CHECK:           scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (i32, vector<2xf32>) -> (i32, vector<2xf32>) {
// CHECK:           } do {
// CHECK:             %[[READ:.*]] = vector.transfer_read %arg0[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<300x2xf32>, vector<1x2xf32>
// CHECK:             vector.shape_cast %[[READ]] : vector<1x2xf32> to vector<2xf32>
func.func @read_tape(%tape: tensor<300x2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %acc = stablehlo.constant dense<0.0> : tensor<2xf32>
  %r:3 = stablehlo.while(%i = %zero, %a = %acc, %t = %tape) : tensor<i32>, tensor<2xf32>, tensor<300x2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.dynamic_slice %t, %i, %zero, sizes = [1, 2] : (tensor<300x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %v = stablehlo.reshape %s : (tensor<1x2xf32>) -> tensor<2xf32>
    %b = stablehlo.add %a, %v : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %b, %t : tensor<i32>, tensor<2xf32>, tensor<300x2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// A tape the loop writes must start from a constant (its buffer is then made inside the
// dispatch); one that comes from outside keeps the loop host-stepped.
// CHECK-LABEL: func.func @written_input_tape
// CHECK:         stablehlo.while
// CHECK-NOT:     flow.dispatch.region
func.func @written_input_tape(%tape: tensor<300x2xf32>, %x: tensor<2xf32>, %n: tensor<i32>) -> tensor<300x2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  // expected-warning @below {{loop stays host-stepped: the loop reads a tape tensor<300x2xf32> that it writes, made outside it (a constant, or nothing the loop reads, keeps its buffer inside the dispatch)}}
  %r:2 = stablehlo.while(%i = %zero, %t = %tape) : tensor<i32>, tensor<300x2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %row = stablehlo.reshape %x : (tensor<2xf32>) -> tensor<1x2xf32>
    %u = stablehlo.dynamic_update_slice %t, %row, %i, %zero : (tensor<300x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<300x2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u : tensor<i32>, tensor<300x2xf32>
  }
  return %r#1 : tensor<300x2xf32>
}

// -----

// stablehlo.sign: 1 above zero, -1 below, the value itself otherwise (zeros, NaN).
// CHECK-LABEL: func.func @sign
// CHECK:         scf.while
// CHECK:         } do {
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<3xf32>
// CHECK-DAG:       %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<3xf32>
// CHECK-DAG:       %[[MINUS:.*]] = arith.constant dense<-1.000000e+00> : vector<3xf32>
// CHECK:           %[[POSITIVE:.*]] = arith.cmpf ogt, %[[X:.*]], %[[ZERO]] : vector<3xf32>
// CHECK:           %[[NEGATIVE:.*]] = arith.cmpf ogt, %[[ZERO]], %[[X]] : vector<3xf32>
// CHECK:           %[[LOW:.*]] = arith.select %[[NEGATIVE]], %[[MINUS]], %[[X]] : vector<3xi1>, vector<3xf32>
// CHECK:           arith.select %[[POSITIVE]], %[[ONE]], %[[LOW]] : vector<3xi1>, vector<3xf32>
func.func @sign(%x: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<3xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.sign %v : tensor<3xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %s : tensor<i32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}

// -----

// Reverse mode's matrix products: W^T g (contracting W's rows, [0] x [0]: each row of W
// times an element of g) and the outer product g h^T accumulated into dW ([1] x [1] over
// axes of size 1: one multiply of 1,024 elements); dW (32x32 floats, 4 KiB) is carried
// as a vector.
// CHECK-LABEL: func.func @backward_products
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
// CHECK:           } do {
// CHECK-NEXT:      ^bb0(%{{.*}}: i32, %[[G:.*]]: vector<32xf32>, %[[DW:.*]]: vector<1024xf32>):
// CHECK-NEXT:        %[[ROW0:.*]] = vector.shuffle %[[W:.*]], %[[W]] [0, 1, 2, {{.*}}, 31] : vector<1024xf32>, vector<1024xf32>
// CHECK-NEXT:        %[[G0:.*]] = vector.extract %[[G]][0] : f32 from vector<32xf32>
// CHECK-NEXT:        %[[B0:.*]] = vector.broadcast %[[G0]] : f32 to vector<32xf32>
// CHECK-NEXT:        arith.mulf %[[ROW0]], %[[B0]] : vector<32xf32>
// CHECK-NEXT:        vector.shuffle %[[W]], %[[W]] [32, 33, 34, {{.*}}, 63] : vector<1024xf32>, vector<1024xf32>
// CHECK:             %[[LEFT:.*]] = vector.shuffle %[[G]], %[[G]] [0, 0, {{.*}}, 31, 31] : vector<32xf32>, vector<32xf32>
// CHECK-NEXT:        %[[RIGHT:.*]] = vector.shuffle %[[H:.*]], %[[H]] [0, 1, {{.*}}, 30, 31] : vector<32xf32>, vector<32xf32>
// CHECK-NEXT:        %[[OUTER:.*]] = arith.mulf %[[LEFT]], %[[RIGHT]] : vector<1024xf32>
// CHECK-NEXT:        arith.addf %[[DW]], %[[OUTER]] : vector<1024xf32>
// CHECK-NOT:     stablehlo.while
func.func @backward_products(%w: tensor<32x32xf32>, %g: tensor<32x1xf32>, %h: tensor<32x1xf32>, %n: tensor<i32>) -> tensor<32x32xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %dw0 = stablehlo.constant dense<0.0> : tensor<32x32xf32>
  %r:3 = stablehlo.while(%i = %zero, %v = %g, %dw = %dw0) : tensor<i32>, tensor<32x1xf32>, tensor<32x32xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %wt = stablehlo.dot_general %w, %v, contracting_dims = [0] x [0] : (tensor<32x32xf32>, tensor<32x1xf32>) -> tensor<32x1xf32>
    %outer = stablehlo.dot_general %v, %h, contracting_dims = [1] x [1] : (tensor<32x1xf32>, tensor<32x1xf32>) -> tensor<32x32xf32>
    %dw1 = stablehlo.add %dw, %outer : tensor<32x32xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %wt, %dw1 : tensor<i32>, tensor<32x1xf32>, tensor<32x32xf32>
  }
  return %r#2 : tensor<32x32xf32>
}

// -----

// An optimization_barrier in the body (reverse mode puts one on each cotangent a segment
// hands on) is the identity inside the dispatch: no op, the loop still one region.
// CHECK-LABEL: func.func @barrier
// CHECK:         flow.dispatch.region
// CHECK-NOT:       optimization_barrier
// CHECK:           scf.while
// CHECK:             %[[Y:.*]] = math.sin %{{.*}} : vector<2xf32>
// CHECK-NOT:         optimization_barrier
// CHECK:             scf.yield %{{.*}}, %[[Y]] : i32, vector<2xf32>
// VULKAN-LABEL: func.func @barrier
// VULKAN:         stablehlo.optimization_barrier
func.func @barrier(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %one, %v = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.sine %v : tensor<2xf32>
    %y = stablehlo.optimization_barrier %s : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// A boolean widened to i8 is arith.extui (i1 takes a byte, as i8 does), and a constant that
// is not one value repeated is a vector of its elements in row-major order.
// CHECK-LABEL: func.func @widen
// CHECK:         flow.dispatch.region
// CHECK:           arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>
// CHECK:           scf.while
// CHECK:             %[[B:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:             arith.extui %[[B]] : vector<4xi1> to vector<4xi8>
// VULKAN-LABEL: func.func @widen
// VULKAN:         stablehlo.while
func.func @widen(%x: tensor<2x2xf32>, %n: tensor<i32>) -> tensor<2x2xi8> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %table = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %none = stablehlo.constant dense<0> : tensor<2x2xi8>
  %r:3 = stablehlo.while(%i = %one, %v = %x, %k = %none) : tensor<i32>, tensor<2x2xf32>, tensor<2x2xi8>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.add %v, %table : tensor<2x2xf32>
    %b = stablehlo.compare GT, %y, %table : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>
    %w = stablehlo.convert %b : (tensor<2x2xi1>) -> tensor<2x2xi8>
    %k1 = stablehlo.add %k, %w : tensor<2x2xi8>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %y, %k1 : tensor<i32>, tensor<2x2xf32>, tensor<2x2xi8>
  }
  return %r#2 : tensor<2x2xi8>
}

// -----

// A branch on small values becomes one dispatch region holding an scf.if: its predicate is
// read inside the dispatch, not on the host (a host-side if waits for the device to read it).
// CHECK-LABEL: func.func @branch
// CHECK:         %[[R:.*]] = flow.dispatch.region -> (tensor<2xf32>) {
// CHECK:           %[[P:.*]] = arith.trunci %{{.*}} : i8 to i1
// CHECK:           %[[Y:.*]] = scf.if %[[P]] -> (vector<2xf32>) {
// CHECK:             math.sin
// CHECK:           } else {
// CHECK:             arith.mulf
// CHECK:           }
// CHECK:           vector.transfer_write %[[Y]]
// CHECK:         return %[[R]] : tensor<2xf32>
// VULKAN-LABEL: func.func @branch
// VULKAN:         "stablehlo.if"
func.func @branch(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %r = "stablehlo.if"(%p) ({
    %s = stablehlo.sine %x : tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }, {
    %t = stablehlo.multiply %x, %x : tensor<2xf32>
    stablehlo.return %t : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A branch over large values stays on the host, without a remark (only loops get one).
// CHECK-LABEL: func.func @large_branch
// CHECK:         "stablehlo.if"
func.func @large_branch(%x: tensor<16384xf32>, %p: tensor<i1>) -> tensor<16384xf32> {
  %r = "stablehlo.if"(%p) ({
    %s = stablehlo.sine %x : tensor<16384xf32>
    stablehlo.return %s : tensor<16384xf32>
  }, {
    stablehlo.return %x : tensor<16384xf32>
  }) : (tensor<i1>) -> tensor<16384xf32>
  return %r : tensor<16384xf32>
}

// -----

// Loops and branches one after the other, with small ops between them, are one region: a
// value of the first loop that the second reads stays inside it (no write, no read); a
// value used after the region (%m) is written out.
// CHECK-LABEL: func.func @two_loops
// CHECK:         %[[R:.*]]:2 = flow.dispatch.region -> (tensor<2xf32>, tensor<2xf32>) {
// CHECK:           %[[FIRST:.*]]:2 = scf.while
// CHECK:           %[[M:.*]] = arith.mulf %[[FIRST]]#1, %[[FIRST]]#1 : vector<2xf32>
// CHECK:           %[[SECOND:.*]]:2 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[M]])
// CHECK:           flow.return
// CHECK-NOT:     stablehlo.while
// CHECK:         %[[SUM:.*]] = stablehlo.add %[[R]]#{{.*}}, %[[R]]#{{.*}} : tensor<2xf32>
// CHECK:         return %[[SUM]] : tensor<2xf32>
func.func @two_loops(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<2xf32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %w : tensor<i32>, tensor<2xf32>
  }
  %m = stablehlo.multiply %r#1, %r#1 : tensor<2xf32>
  %s:2 = stablehlo.while(%i = %zero, %v = %m) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %w = stablehlo.add %v, %half : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %w : tensor<i32>, tensor<2xf32>
  }
  %sum = stablehlo.add %s#1, %m : tensor<2xf32>
  return %sum : tensor<2xf32>
}

// -----

// A matrix read from outside the loop over the 32 KiB vector limit (600x16 float32s:
// 38,400 bytes) stays a tensor in memory: each product reads it a tile of 16 rows (1 KiB) at
// a time in an scf.for, and the last 8 rows after it. W v: the tile times v repeated on each
// row, the rows summed by halves (16 products a row, 8, 4, 2, 1), written into the result's
// rows; W^T y: y written to memory once, its rows of each tile read back, the tiles'
// products summed.
// CHECK-LABEL: func.func @descend
// CHECK:         flow.dispatch.region -> (tensor<16xf32>) {
// CHECK:           scf.while
// CHECK:           } do {
// CHECK:             %[[Y0:.*]] = tensor.empty() : tensor<600xf32>
// CHECK:             %[[Y:.*]] = scf.for %[[T:.*]] = %{{.*}} to %c37 step %{{.*}} iter_args(%[[YT:.*]] = %[[Y0]]) -> (tensor<600xf32>) {
// CHECK:               %[[ROW:.*]] = arith.muli %[[T]], %c16 : index
// CHECK:               vector.transfer_read %arg0[%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<600x16xf32>, vector<16x16xf32>
// CHECK:               arith.mulf %{{.*}}, %{{.*}} : vector<256xf32>
// CHECK:               arith.addf %{{.*}}, %{{.*}} : vector<128xf32>
// CHECK:               arith.addf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK:               arith.addf %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK:               %[[PART:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:               %[[WRITTEN:.*]] = vector.transfer_write %[[PART]], %[[YT]][%[[ROW]]] {in_bounds = [true]} : vector<16xf32>, tensor<600xf32>
// CHECK:               scf.yield %[[WRITTEN]] : tensor<600xf32>
// CHECK:             vector.transfer_read %arg0[%c592, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<600x16xf32>, vector<8x16xf32>
// CHECK:             scf.for {{.*}} -> (vector<16xf32>) {
// CHECK:               vector.transfer_read %arg0[{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<600x16xf32>, vector<16x16xf32>
// CHECK:               vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<600xf32>, vector<16xf32>
// CHECK:               math.fma {{.*}} : vector<16xf32>
// CHECK-NOT:       stablehlo.dot_general
// CHECK:           flow.return
// VULKAN-LABEL: func.func @descend
// VULKAN:         stablehlo.while
func.func @descend(%w: tensor<600x16xf32>, %h: tensor<16xf32>, %n: tensor<i32>) -> tensor<16xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %rate = stablehlo.constant dense<1.000000e-04> : tensor<16xf32>
  %r:2 = stablehlo.while(%i = %zero, %v = %h) : tensor<i32>, tensor<16xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<600x16xf32>, tensor<16xf32>) -> tensor<600xf32>
    %g = stablehlo.dot_general %w, %y, contracting_dims = [0] x [0] : (tensor<600x16xf32>, tensor<600xf32>) -> tensor<16xf32>
    %s = stablehlo.multiply %rate, %g : tensor<16xf32>
    %u = stablehlo.subtract %v, %s : tensor<16xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %u : tensor<i32>, tensor<16xf32>
  }
  return %r#1 : tensor<16xf32>
}

// -----

// Booleans follow StableHLO's logical meaning: a reduction by maximum is an "or", by
// minimum an "and" (signed integer ones would rank true, all ones, below false); add and
// multiply of booleans are "or" and "and"; a 0-d flag reduced over no axis is combined
// with the initial value.
// CHECK-LABEL: func.func @any_all
// CHECK:         flow.dispatch.region
// CHECK:           scf.while
// CHECK:             vector.reduction <or>, %{{.*}}, %{{.*}} : vector<4xi1> into i1
// CHECK:             vector.reduction <and>, %{{.*}}, %{{.*}} : vector<4xi1> into i1
// CHECK:             arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:           } do {
// CHECK:             arith.ori %{{.*}}, %{{.*}} : vector<4xi1>
// CHECK:             arith.andi %{{.*}}, %{{.*}} : vector<4xi1>
// CHECK-NOT:       maxsi
// CHECK-NOT:       minsi
func.func @any_all(%x: tensor<4xf32>, %flag: tensor<i1>) -> tensor<4xf32> {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %half = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r = stablehlo.while(%v = %x) : tensor<4xf32>
  cond {
    %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %big = stablehlo.compare GT, %v, %ones, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %any = stablehlo.reduce(%big init: %f) applies stablehlo.maximum across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %all = stablehlo.reduce(%big init: %t) applies stablehlo.minimum across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %set = stablehlo.reduce(%flag init: %t) applies stablehlo.minimum across dimensions = [] : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %either = stablehlo.or %any, %all : tensor<i1>
    %go = stablehlo.and %either, %set : tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %big = stablehlo.compare GT, %v, %ones, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %neg = stablehlo.compare LT, %v, %ones, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %sum = stablehlo.add %big, %neg : tensor<4xi1>
    %both = stablehlo.multiply %sum, %big : tensor<4xi1>
    %halved = stablehlo.multiply %v, %half : tensor<4xf32>
    %y = stablehlo.select %both, %halved, %v : tensor<4xi1>, tensor<4xf32>
    stablehlo.return %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A branch yielding one value as two results (a jvp of a jvp: two tangents along the same
// direction) returns it from the region once, and both results read it: IREE 3.13 gave one
// of two equal results of a region another result's elements.
// CHECK-LABEL: func.func @branch_twice
// CHECK:         %[[R:.*]]:2 = flow.dispatch.region -> (tensor<2xf32>, tensor<2xf32>) {
// CHECK:           %[[Y:.*]]:3 = scf.if
// CHECK:           %[[A:.*]] = vector.transfer_write %[[Y]]#0
// CHECK:           %[[B:.*]] = vector.transfer_write %[[Y]]#1
// CHECK-NOT:       vector.transfer_write
// CHECK:           flow.return %[[A]], %[[B]] : tensor<2xf32>, tensor<2xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1, %[[R]]#1 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @branch_twice(%x: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = "stablehlo.if"(%p) ({
    %s = stablehlo.sine %x : tensor<2xf32>
    %c = stablehlo.cosine %x : tensor<2xf32>
    stablehlo.return %s, %c, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }, {
    %t = stablehlo.multiply %x, %x : tensor<2xf32>
    %u = stablehlo.add %x, %x : tensor<2xf32>
    stablehlo.return %t, %u, %u : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }) : (tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Two loops and, between them, the tape the second starts from (reverse mode of a loop
// setting rows of a stack: the cotangent of `sum(stack * w)`). One region for both would
// compute the tape between them as a vector where the second loop holds it in memory: that
// region is refused (the emitter checks every tape an op makes), the first loop becomes a
// region alone and the second stays on the host, as a tape it writes made outside a region.
// CHECK-LABEL: func.func @tape_computed_between
// CHECK:         flow.dispatch.region -> (tensor<2xf32>)
// CHECK:           scf.while
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.while
func.func @tape_computed_between(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %f1 = stablehlo.constant dense<1.0> : tensor<f32>
  %first:2 = stablehlo.while(%i = %zero, %s = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s2 = stablehlo.sine %s : tensor<2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %s2 : tensor<i32>, tensor<2xf32>
  }
  %w = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<2xf32>) -> tensor<300x2xf32>
  %r3 = stablehlo.reshape %f1 : (tensor<f32>) -> tensor<1x1xf32>
  %b = stablehlo.broadcast_in_dim %r3, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<300x2xf32>
  %m = stablehlo.multiply %b, %w : tensor<300x2xf32>
  %start = stablehlo.optimization_barrier %m : tensor<300x2xf32>
  // expected-warning @below {{loop stays host-stepped: the loop reads a tape tensor<300x2xf32> that it writes, made outside it (a constant, or nothing the loop reads, keeps its buffer inside the dispatch)}}
  %r:3 = stablehlo.while(%i = %zero, %s = %first#1, %t = %start) : tensor<i32>, tensor<2xf32>, tensor<300x2xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %old = stablehlo.dynamic_slice %t, %i, %zero, sizes = [1, 2] : (tensor<300x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %row = stablehlo.reshape %old : (tensor<1x2xf32>) -> tensor<2xf32>
    %s2 = stablehlo.add %s, %row : tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<1x2xf32>
    %u = stablehlo.dynamic_update_slice %t, %z, %i, %zero : (tensor<300x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<300x2xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %s2, %u : tensor<i32>, tensor<2xf32>, tensor<300x2xf32>
  }
  return %r#1 : tensor<2xf32>
}

// -----

// Vectors of more than 16 elements have a power of two of lanes (LLVM splits a long vector
// of another length into pieces it shuffles together element by element): the 4x5 floats
// are read as one row into 32 lanes (the lanes past them: the pad) and written back from
// them; a reduction reads the lanes past the elements as zeros, and an integer division
// divides by 1 there.
// CHECK-LABEL: func.func @padded_lanes
// CHECK:         flow.dispatch.region -> (tensor<4x5xf32>, tensor<20xi32>) {
// CHECK:           %[[ROW:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
// CHECK:           %[[X:.*]] = vector.transfer_read %[[ROW]][%{{.*}}], %{{.*}} : tensor<20xf32>, vector<32xf32>
// CHECK:           %[[K:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} : tensor<20xi32>, vector<32xi32>
// CHECK:           %[[W:.*]]:2 = scf.while (%{{.*}} = %[[X]], %{{.*}} = %[[K]]) : (vector<32xf32>, vector<32xi32>) -> (vector<32xf32>, vector<32xi32>) {
// CHECK-DAG:         %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-DAG:         %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false]> : vector<32xi1>
// CHECK:             %[[E:.*]] = arith.select %[[MASK]], %{{.*}}, %[[ZEROS]] : vector<32xi1>, vector<32xf32>
// CHECK:             vector.reduction <add>, %[[E]], %{{.*}} : vector<32xf32> into f32
// CHECK:           } do {
// CHECK-DAG:         %[[ONES:.*]] = arith.constant dense<1> : vector<32xi32>
// CHECK-DAG:         %[[MASK2:.*]] = arith.constant dense<[true, {{.*}}, false]> : vector<32xi1>
// CHECK:             %[[D:.*]] = arith.select %[[MASK2]], %{{.*}}, %[[ONES]] : vector<32xi1>, vector<32xi32>
// CHECK:             arith.divsi %{{.*}}, %[[D]] : vector<32xi32>
// CHECK:           %[[R:.*]] = vector.transfer_write %[[W]]#0, %{{.*}}[%{{.*}}] : vector<32xf32>, tensor<20xf32>
// CHECK:           tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [4, 5] : tensor<20xf32> into tensor<4x5xf32>
// CHECK:           vector.transfer_write %[[W]]#1, %{{.*}}[%{{.*}}] : vector<32xi32>, tensor<20xi32>
func.func @padded_lanes(%x: tensor<4x5xf32>, %k: tensor<20xi32>) -> (tensor<4x5xf32>, tensor<20xi32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %limit = stablehlo.constant dense<100.0> : tensor<f32>
  %two = stablehlo.constant dense<2.0> : tensor<4x5xf32>
  %r:2 = stablehlo.while(%v = %x, %d = %k) : tensor<4x5xf32>, tensor<20xi32>
  cond {
    %s = stablehlo.reduce(%v init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<f32>
    %go = stablehlo.compare LT, %s, %limit, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %two : tensor<4x5xf32>
    %q = stablehlo.divide %d, %d : tensor<20xi32>
    stablehlo.return %w, %q : tensor<4x5xf32>, tensor<20xi32>
  }
  return %r#0, %r#1 : tensor<4x5xf32>, tensor<20xi32>
}
