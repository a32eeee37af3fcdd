// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A loop whose body holds an `if` and updates a large tape in place at a row counted by a
// carry of its own gives wrong results, on llvm-cpu and vmvx alike:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_tape_beside_an_if.mlir -o out.vmfb
//   iree-run-module --module=out.vmfb --device=local-sync --function=main --input="100000xf32=0.3"
//
// The loop runs three times, multiplying by 1.1, 1.2 and 1.3 in turn, so every element of
// the result should be 0.3 * 1.716 = 0.5148; IREE 3.13 returns 0.33 (one multiplication).
// The result is right with the tape's row counted by %i instead of %k, with 4 elements
// instead of 100,000, or when the function also returns %r#3; in the whole program (reverse
// mode of a `switch` in a `fori_loop`: this is its recording loop) the loop after it never
// ends. With both branches computed and their results selected the loop is right, which is
// what s4tf's `s4tf-branches-to-selects` does (passes/iree/branch_selects.py). Found with a
// sweep of loop programs under `grad`, `jacfwd`, `jvp` of `grad` and `vmap`.
module {
  func.func @main(%arg0: tensor<100000xf32>) -> tensor<100000xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %a = stablehlo.constant dense<1.100000e+00> : tensor<100000xf32>
    %b = stablehlo.constant dense<1.200000e+00> : tensor<100000xf32>
    %c = stablehlo.constant dense<1.300000e+00> : tensor<100000xf32>
    %t0 = stablehlo.constant dense<0.000000e+00> : tensor<4x100000xf32>
    %r:4 = stablehlo.while(%i = %c0, %v = %arg0, %t = %t0, %k = %c0) : tensor<i32>, tensor<100000xf32>, tensor<4x100000xf32>, tensor<i32>
    cond {
      %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %row = stablehlo.reshape %v : (tensor<100000xf32>) -> tensor<1x100000xf32>
      %t1 = stablehlo.dynamic_update_slice %t, %row, %k, %c0 : (tensor<4x100000xf32>, tensor<1x100000xf32>, tensor<i32>, tensor<i32>) -> tensor<4x100000xf32>
      %p1 = stablehlo.compare LT, %i, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %n = "stablehlo.if"(%p1) ({
        %m = stablehlo.multiply %v, %a : tensor<100000xf32>
        stablehlo.return %m : tensor<100000xf32>
      }, {
        %p2 = stablehlo.compare LT, %i, %c2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %n2 = "stablehlo.if"(%p2) ({
          %m = stablehlo.multiply %v, %b : tensor<100000xf32>
          stablehlo.return %m : tensor<100000xf32>
        }, {
          %m = stablehlo.multiply %v, %c : tensor<100000xf32>
          stablehlo.return %m : tensor<100000xf32>
        }) : (tensor<i1>) -> tensor<100000xf32>
        stablehlo.return %n2 : tensor<100000xf32>
      }) : (tensor<i1>) -> tensor<100000xf32>
      %i1 = stablehlo.add %i, %c1 : tensor<i32>
      %k1 = stablehlo.add %k, %c1 : tensor<i32>
      stablehlo.return %i1, %n, %t1, %k1 : tensor<i32>, tensor<100000xf32>, tensor<4x100000xf32>, tensor<i32>
    }
    return %r#1 : tensor<100000xf32>
  }
}
