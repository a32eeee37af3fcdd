// A module that states the Python callables it needs (s4tf.needs, as a staged module does),
// in a process that has not registered them: a pass that calls them (s4tf-batch) gets one
// error at the module before any pass runs, naming each; a pass that does not call them
// (s4tf-partition) runs and keeps the attribute. A module stating none is batched as ever.
// RUN: s4tf-opt %s --split-input-file -verify-diagnostics -p 's4tf-batch{function=step size=2}'
// RUN: not s4tf-opt %s --split-input-file -p 's4tf-batch{function=step size=2}' 2>&1 | filecheck %s --check-prefix=ONCE
// RUN: s4tf-opt %s --split-input-file -p s4tf-partition | filecheck %s --check-prefix=PARTITION

// ONCE-COUNT-1: error:
// ONCE-NOT: error:

// PARTITION: module attributes {s4tf.needs = {custom_rules = ["solve#0"], host_functions = ["cpu_solver", "log_histogram"]}}
// PARTITION: func.func @step({{.*}}) -> tensor<4xf32> attributes {s4tf.host_program}

// expected-error @below {{the module needs custom batching rule 'solve#0' and host functions 'cpu_solver', 'log_histogram', which this process has not registered: they are Python callables that must be registered in the running process (s4tf.host(fn), @s4tf.batching_rule); run the module in the process that staged it, or stage its Python code again in this one}}
module attributes {s4tf.needs = {custom_rules = ["solve#0"], host_functions = ["cpu_solver", "log_histogram"]}} {
  func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "s4tf.host_call"(%x) {callee = "cpu_solver", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
    "s4tf.host_call"(%0) {callee = "log_histogram", result_types = []} : (tensor<4xf32>) -> ()
    %1 = func.call @solve(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @solve(%x: tensor<4xf32>) -> tensor<4xf32> attributes {s4tf.custom_batch = "solve#0"} {
    return %x : tensor<4xf32>
  }
}

// -----

// A module that states no needs is batched as ever.
// PARTITION: func.func @step(%arg0: tensor<4xf32>) -> tensor<4xf32> {
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
