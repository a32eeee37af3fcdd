"""Buffer donation: a staged function's results written into the buffers of its inputs.

``@s4tf.function(donate_argnums=(0, 1))`` marks arguments whose tensors the caller gives
away: each donated input is paired with the first unpaired result of the same type that
may be written into its buffer, and the entry function tells IREE to write that result
there (``iree.abi.output``), so a training step updates the weights in place instead of
holding them twice::

    func.func @train_step(%w: tensor<784x512xf32> {iree.abi.output = 0 : index}, ...)

A donated :class:`~s4tf.Tensor` is unusable after the call (reading it raises, naming
the function); NumPy arrays are copied to the device first, so they never change.

The pairing is the pass ``s4tf-donate`` (:mod:`s4tf.passes.iree.donate`), the last of the
lowering pipeline: it pairs an input with a result only where IREE cannot write the
result while other work still reads the input. A training step's updates
``p - lr * g(...)`` all pass.
"""

from __future__ import annotations

from s4tf import pytree
from s4tf.core.errors import S4tfError
from s4tf.staging.tracing import Static, leaf_spec


def donated_positions(args, donate_argnums) -> list[int]:
    """Flat tensor-input positions of the arguments ``donate_argnums``."""
    unknown = [n for n in donate_argnums if not 0 <= n < len(args)]
    if unknown:
        raise S4tfError(f"donate_argnums {unknown} are not positions of the {len(args)} arguments")
    positions, position = [], 0
    for index, arg in enumerate(args):
        count = sum(not isinstance(leaf_spec(leaf), Static) for leaf in pytree.flatten(arg)[0])
        if index in donate_argnums:
            positions += range(position, position + count)
        position += count
    return positions
