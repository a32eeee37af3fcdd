"""Loop-bound CPU modules run on IREE's ``local-sync`` driver (:mod:`s4tf.runtime.loop_driver`):
the choice from the module's traits, and the same numbers as ``local-task`` and NumPy, with
arrays passing between modules on both drivers."""

from __future__ import annotations

import numpy as np

import s4tf
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.device import LoadedModule
from s4tf.runtime.loop_driver import MAX_PRODUCT_MACS, MAX_TENSOR_BYTES, dispatch_bound, driver_for, loop_bound
from s4tf.passes.iree.loop_dispatch import MAX_DOT_PRODUCTS
from s4tf.passes.module_traits import ModuleTraits
from s4tf.passes.pipeline import lowering_pipeline


def rnn(w, h, xs, n):
    i = n * 0
    while i < n:
        h = s4tf.tanh(w @ h + xs[i])
        i = i + 1
    return h


def numpy_rnn(w, h, xs, n):
    for i in range(n):
        h = np.tanh(w @ h + xs[i])
    return h


def inputs(size=64, steps=5):
    """``w h`` of ``size``**2 multiply-adds: 64 is over s4tf-loops-to-dispatch's limit, so the loop
    stays host-stepped (a smaller RNN runs inside one dispatch)."""
    rng = np.random.default_rng(1)
    return (rng.standard_normal((size, size)) / size).astype(np.float32), np.ones(size, np.float32), \
        rng.standard_normal((steps, size)).astype(np.float32)


def test_a_host_stepped_loop_is_loop_bound_and_other_modules_are_not():
    w, h, xs = inputs()
    assert w.size > MAX_DOT_PRODUCTS
    lowered = s4tf.function(rnn).lower(w, h, xs, np.int32(0))
    text = lowered.stablehlo(lowering_pipeline("cpu"))
    traits = ModuleTraits.parse(text)
    assert "stablehlo.while" in text and loop_bound(traits)
    assert driver_for(traits, "local-task") == "local-sync"
    assert driver_for(traits, "vulkan") == "vulkan"
    straight = traits_of(lambda w, h: s4tf.tanh(w @ h), w, h)
    assert not loop_bound(straight) and dispatch_bound(straight) and driver_for(straight, "local-task") == "local-sync"
    big = np.ones((256, 256), np.float32)  # 256 KiB: a straight-line module with it stays on local-task
    large = traits_of(lambda w, h: s4tf.tanh(w @ h), big, big)
    assert not loop_bound(large) and not dispatch_bound(large) and driver_for(large, "local-task") == "local-task"
    # a loop moved into one dispatch is loop-bound too: local-sync calls it faster
    relax = s4tf.function(lambda x, n: s4tf.fori_loop(0, n, lambda i, x: x * 0.5 + 1.0, x))
    in_dispatch = relax.lower(h, np.int32(3)).stablehlo(lowering_pipeline("cpu"))
    assert "stablehlo.while" not in in_dispatch and loop_bound(ModuleTraits.parse(in_dispatch))


def traits_of(fn, *args) -> ModuleTraits:
    return ModuleTraits.parse(s4tf.function(fn).lower(*args).stablehlo(lowering_pipeline("cpu")))


def test_large_or_dynamic_tensors_keep_local_task():
    side = int(np.sqrt(MAX_TENSOR_BYTES / 4)) + 1  # one float32 matrix just over the limit
    def loop_over(tensor_type: str) -> ModuleTraits:
        return ModuleTraits.parse(LOOP_OVER.format(tensor_type=tensor_type))

    assert not loop_bound(loop_over(f"tensor<{side}x{side}xf32>")) and loop_bound(loop_over(f"tensor<{side - 1}x{side - 1}xf32>"))
    assert not loop_bound(loop_over("tensor<?x4xf32>"))
    assert not loop_bound(loop_over("tensor<64x1024x1024xi1>"))


def test_tapes_a_loop_writes_a_row_at_a_time_do_not_count():
    """Reverse mode's 17 MiB tape of a 1 MiB state, written a row a trip and stacked from
    rows, keeps a module loop-bound; the rows are what its dispatches compute."""
    traits = ModuleTraits.parse(TAPE_LOOP)
    assert traits.largest_tensor_bytes == 17 * 2**20 and traits.largest_computed_bytes == 2**20
    assert loop_bound(traits) and driver_for(traits, "local-task") == "local-sync"


#: A loop writing rows of 262,144 floats into a carried tape of 17 rows, and their stack.
TAPE_LOOP = """
func.func @f(%x: tensor<262144xf32>, %n: tensor<i32>) -> (tensor<17x262144xf32>, tensor<2x262144xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %tape = stablehlo.constant dense<0.0> : tensor<17x262144xf32>
  %0:3 = stablehlo.while(%i = %c0, %h = %x, %t = %tape) : tensor<i32>, tensor<262144xf32>, tensor<17x262144xf32>
   cond {
    %1 = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %row = stablehlo.reshape %h : (tensor<262144xf32>) -> tensor<1x262144xf32>
    %t2 = stablehlo.dynamic_update_slice %t, %row, %i, %c0 : (tensor<17x262144xf32>, tensor<1x262144xf32>, tensor<i32>, tensor<i32>) -> tensor<17x262144xf32>
    %h2 = stablehlo.tanh %h : tensor<262144xf32>
    %1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %1, %h2, %t2 : tensor<i32>, tensor<262144xf32>, tensor<17x262144xf32>
  }
  %a = stablehlo.reshape %x : (tensor<262144xf32>) -> tensor<1x262144xf32>
  %b = stablehlo.reshape %0#1 : (tensor<262144xf32>) -> tensor<1x262144xf32>
  %stack = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x262144xf32>, tensor<1x262144xf32>) -> tensor<2x262144xf32>
  return %0#2, %stack : tensor<17x262144xf32>, tensor<2x262144xf32>
}"""


#: A counted loop beside the sum of an argument of ``tensor_type`` with itself.
LOOP_OVER = """
func.func @f(%w: {tensor_type}, %n: tensor<i32>) -> tensor<i32> {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.while(%i = %c0) : tensor<i32>
   cond {{
    %1 = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }} do {{
    %1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }}
  %t = stablehlo.add %w, %w : {tensor_type}
  return %0 : tensor<i32>
}}"""


def test_loop_bound_functions_agree_with_local_task_and_numpy():
    w, h, xs = inputs()
    lowered = s4tf.function(rnn).lower(w, h, xs, np.int32(0))
    text = lowered.stablehlo(lowering_pipeline("cpu"))
    sync_module = compile_and_load(text)
    assert sync_module.driver == "local-sync"
    task_module = LoadedModule(compile_stablehlo(text, "cpu"), "cpu")
    assert task_module.driver == "local-task"
    for n in (0, 1, 5, 3):  # zero, one and a different number of iterations per call
        expected = numpy_rnn(w, h, xs, n)
        arguments = [w, h, xs, np.int32(n)]
        sync = sync_module.invoke(lowered.entry, arguments)[0]
        task = task_module.invoke(lowered.entry, arguments)[0]
        np.testing.assert_array_equal(sync.to_host(), task.to_host())
        np.testing.assert_allclose(sync.to_host(), expected, rtol=1e-5, atol=1e-6)
        # one driver's result is the other's argument
        again = task_module.invoke(lowered.entry, [w, sync, xs, np.int32(n)])[0].to_host()
        np.testing.assert_allclose(again, numpy_rnn(w, expected, xs, n), rtol=1e-5, atol=1e-6)


def test_staged_function_and_its_gradient_through_local_sync():
    w, h, xs = inputs(steps=6)
    staged = s4tf.function(rnn)
    for n in (0, 1, 6, 2):
        np.testing.assert_allclose(np.asarray(staged(w, h, xs, np.int32(n))), numpy_rnn(w, h, xs, n), rtol=1e-5, atol=1e-6)
    grad = s4tf.grad(lambda w, h, xs, n: staged(w, h, xs, n).sum())
    w64, h64, xs64 = (a.astype(np.float64) for a in (w, h, xs))
    for n in (0, 1, 4):
        epsilon, numeric = 1e-6, np.zeros_like(w64)
        for index in np.ndindex(*w64.shape):
            step = np.zeros_like(w64)
            step[index] = epsilon
            numeric[index] = (numpy_rnn(w64 + step, h64, xs64, n).sum() - numpy_rnn(w64 - step, h64, xs64, n).sum()) / (2 * epsilon)
        np.testing.assert_allclose(np.asarray(grad(w64, h64, xs64, np.int32(n))), numeric, rtol=1e-6, atol=1e-8)


def test_a_loop_beside_a_large_product_keeps_local_task():
    """A language model's recurrence (32x128 by 128x512 a step, 2.1M multiply-adds) is worth
    IREE's worker threads; an RNN of hidden 32 is not."""
    def recurrence(size):  # a run-time bound: a loop of 3 known steps would become straight-line code
        w = np.full((size, 4 * size), 0.01, np.float32)
        return traits_of(lambda w, h, n: s4tf.fori_loop(0, n, lambda i, h: s4tf.tanh(h @ w)[:, :size], h), w,
                         np.ones((32, size), np.float32), np.int32(3))

    large, small = recurrence(128), recurrence(32)
    assert large.largest_product_macs == 32 * 128 * 512 > MAX_PRODUCT_MACS
    assert large.loops and not loop_bound(large) and driver_for(large, "local-task") == "local-task"
    assert small.largest_product_macs == 32 * 32 * 128 <= MAX_PRODUCT_MACS
    assert loop_bound(small) and driver_for(small, "local-task") == "local-sync"


def test_multiply_adds_of_batched_and_vector_products():
    traits = ModuleTraits.parse("""
func.func @f(%a: tensor<4x32x128xf32>, %b: tensor<4x128x8xf32>, %v: tensor<16xf32>) -> (tensor<4x32x8xf32>, tensor<f32>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x32x128xf32>, tensor<4x128x8xf32>) -> tensor<4x32x8xf32>
  %1 = stablehlo.dot %v, %v : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  return %0, %1 : tensor<4x32x8xf32>, tensor<f32>
}""")
    assert traits.largest_product_macs == 4 * 32 * 128 * 8
    assert ModuleTraits.parse(LOOP_OVER.format(tensor_type="tensor<4xf32>")).largest_product_macs == 0
