"""Which IREE driver runs a module on the CPU: ``local-sync`` for loop-bound and small programs.

A ``stablehlo.while`` left in a lowered module (one that ``s4tf-loops-to-dispatch`` did not
move into a dispatch) runs on IREE's host VM, one or more dispatches and a read of the
condition per iteration. On ``local-task`` each dispatch is handed to a worker thread and
waited for, several times the cost of an iteration on ``local-sync``, which runs dispatches
on the calling thread (``relax`` and an RNN cell of ``tools/bench/bench_loops.py``; figures:
docs/targets.md, "IREE's two CPU drivers"). A loop moved into one dispatch (an ``scf.while``
inside a ``flow.dispatch.region``) runs on one thread either way, and the call around it
costs less on ``local-sync``. ``local-sync`` gives up running one dispatch on several
threads, which pays only for large dispatches, so a module is *loop-bound* when it has a
loop of either kind, no tensor of more than :data:`MAX_TENSOR_BYTES` and no matrix product
of more than :data:`MAX_PRODUCT_MACS` multiply-adds. A module without
loops whose tensors are all small (none over :data:`SMALL_TENSOR_BYTES`) is
*dispatch-bound*: its dispatches take a few microseconds, and handing each to a worker costs
more (a one-op call of a 2-float tensor: figures in docs/benchmarks.md, "Call overhead"), so
it loads on ``local-sync`` too.

```python
driver_for(ModuleTraits.of(module), "local-task")  # "local-sync" for a module with a loop
```

The facts come from the module's IR (:class:`s4tf.passes.module_traits.ModuleTraits`). Arrays from either driver are host memory and pass between modules on both. A deployed
module (``s4tf.compile``, ``s4tf-compile``) records the driver this rule picks
(``s4tf.driver``: :mod:`s4tf.runtime.reflection`), and ``s4tf.load`` and ``s4tf-run`` take
it on every CPU target, under qemu too, unless the user names ``local-sync`` or
``local-task`` as the device (:func:`s4tf.runtime.device.default_driver`).
"""

from __future__ import annotations

from s4tf.passes.module_traits import ModuleTraits

#: A tensor this large computed in a loop-bound program keeps it on ``local-task``: its
#: dispatches may be worth several threads (a 256x256 float32 matrix is 256 KiB). The
#: gradient of 1,000 iterations of a ``while`` over 262,144 floats (1 MiB states, 17 MiB
#: tapes) took 505-519 ms on ``local-sync``, 630-636 ms on ``local-task``
#: (tools/bench/bench_while_grad.py).
MAX_TENSOR_BYTES = 1024 * 1024
#: A product this large in a loop-bound program keeps it on ``local-task``: the LSTM language
#: model of ``tools/bench/bench_loops_real.py`` (2.1M multiply-adds a step, 32x128 by
#: 128x512) trains in 35 ms a step there against 41 ms on ``local-sync``, the GRU in 27 ms
#: against 36 ms; the 64-step LSTM of hidden 32 (131,072 a step) keeps ``local-sync``.
MAX_PRODUCT_MACS = 512 * 1024
#: A module without loops runs on ``local-sync`` when no tensor is larger than this (a
#: 128x128 float32 matrix), where a second thread cannot win back the hand-off.
SMALL_TENSOR_BYTES = 64 * 1024


def loop_bound(traits: ModuleTraits) -> bool:
    """Whether the module has a loop, host-stepped or in a dispatch, computes no tensor of
    more than :data:`MAX_TENSOR_BYTES` (dynamic shapes count as large; tapes and stacks,
    which loops read and write a row at a time, do not count) and has no product of more
    than :data:`MAX_PRODUCT_MACS` multiply-adds."""
    return (traits.loops and not traits.dynamic_shapes and traits.largest_computed_bytes <= MAX_TENSOR_BYTES
            and traits.largest_product_macs <= MAX_PRODUCT_MACS)


def dispatch_bound(traits: ModuleTraits) -> bool:
    """Whether the module has no tensor of more than :data:`SMALL_TENSOR_BYTES` (dynamic
    shapes count as large)."""
    return not traits.dynamic_shapes and traits.largest_tensor_bytes <= SMALL_TENSOR_BYTES


def driver_for(traits: ModuleTraits, driver: str) -> str:
    """The driver to load a module of ``traits`` with, given its device's ``driver``:
    ``local-sync`` for a loop-bound or dispatch-bound module on ``local-task``, else ``driver``."""
    if driver == "local-task" and (loop_bound(traits) or dispatch_bound(traits)):
        return "local-sync"
    return driver
