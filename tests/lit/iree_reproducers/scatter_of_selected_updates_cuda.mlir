// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A scatter whose updates select between an iota and a constant does not compile for the
// cuda backend (it does for llvm-cpu, vmvx and vulkan-spirv):
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=cuda \
//     scatter_of_selected_updates_cuda.mlir -o out.vmfb
//   error: 'func.func' op failed to apply fusion + hoisting patterns (set 1)
//
// With the updates computed apart (an add of two iotas), or read through a
// stablehlo.optimization_barrier, it compiles; a barrier on the scattered operand or on the
// indices does not help. s4tf's scatters select their updates (the last of duplicate
// indices wins, positions tracked by iotas), so reverse mode of a `fori_loop` updating rows,
// `jacfwd` of nested scans and 14 programs of the loop sweep did not compile for cuda; s4tf
// reads scatter updates through a barrier there (passes/iree/scatter_updates.py).
module {
  func.func @main(%idx: tensor<3x2xi32>, %mask: tensor<3xi1>, %k: tensor<i32>) -> tensor<6x3xi32> {
    %m1 = stablehlo.constant dense<-1> : tensor<6x3xi32>
    %iota = stablehlo.iota dim = 0 : tensor<3xi32>
    %c = stablehlo.constant dense<7> : tensor<3xi32>
    %u = stablehlo.select %mask, %iota, %c : tensor<3xi1>, tensor<3xi32>
    %s = "stablehlo.scatter"(%m1, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      stablehlo.return %b : tensor<i32>
    }) : (tensor<6x3xi32>, tensor<3x2xi32>, tensor<3xi32>) -> tensor<6x3xi32>
    return %s : tensor<6x3xi32>
  }
}
