"""``vmap``: a function mapped over a batch axis of its arguments, as one compiled call.

``fn`` is traced once on one example (the batched arguments without their batch axis);
the ``s4tf-batch`` pass (:mod:`s4tf.passes.batching`) builds its batched version from the
finished function (:mod:`s4tf.transforms.derivative_functions`), which is then called on the whole
batch. No Python loop runs over the examples.

```python
per_example = s4tf.vmap(lambda x, w: x @ w, in_axes=(0, None))(xs, w)   # xs: (8, 3), w: (3, 2)
grads = s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)  # per-example gradients
```
"""

from __future__ import annotations

import functools

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.transforms.autodiff import _call, _name, _python_function, _traced_function
from s4tf.transforms.derivative_functions import derivative_functions
from s4tf.dialects.types import TensorType, shape_str, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.dialects.symbols import find_function
from s4tf.passes.batching import batch_function, dependent_results
from s4tf.staging.function import StagedFunction
from s4tf.staging.tracing import Static, current_scope, leaf_spec, rebuild_outputs


class VmapError(S4tfError):
    """Arguments, ``in_axes`` or ``out_axes`` that ``vmap`` cannot map over."""


def vmap(fn, in_axes=0, out_axes=0):
    """``fn`` over a batch: argument leaves are split along their axis in ``in_axes`` (an
    int, ``None`` for an argument shared by every example, or a tuple of those, one per
    argument, as a prefix of the arguments' pytrees); results get their batch axis at
    ``out_axes`` (an int, ``None`` for a result that depends on no batched argument, or
    a prefix of the results' pytree)."""
    return _Vmap(fn, in_axes, out_axes)


class _Vmap:
    def __init__(self, fn, in_axes, out_axes):
        functools.update_wrapper(self, _python_function(fn), updated=())
        self.fn = fn
        self.in_axes = in_axes
        self.out_axes = out_axes
        self._staged = StagedFunction(self._body)
        self._staged.__name__ = f"vmap_{_name(fn)}".replace("<lambda>", "lambda")

    def __call__(self, *args):
        return self._staged(*args)

    def _body(self, *args):
        in_axes = self.in_axes
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise VmapError(f"vmap: in_axes has {len(in_axes)} entries for {len(args)} arguments")
        leaves, tree = pytree.flatten(args)
        axes = _leaf_axes(args, in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args), "in_axes")
        specs = [leaf_spec(leaf) for leaf in leaves]
        axes = [None if isinstance(spec, Static) else _axis(axis, spec, "argument") for axis, spec in zip(axes, specs)]
        size = _batch_size(specs, axes)
        examples = [leaf if axis is None else _example(spec, axis) for leaf, spec, axis in zip(leaves, specs, axes)]
        trace = current_scope().trace
        name = _name(self.fn)
        record = trace.trace_function(
            _traced_function(self.fn), name if name != "<lambda>" else "lambda", pytree.unflatten(tree, examples), {}, public=False
        )
        inputs, batched = [], []
        for leaf, spec, axis in zip(leaves, specs, axes):
            if isinstance(spec, Static):
                continue
            if axis is not None:
                batched.append(len(inputs))
                leaf = _move(leaf, axis, 0)
            inputs.append(leaf)
        inputs += record.captured  # closed-over tensors: last arguments, the same for every example

        def build(module, symbol, batched):
            return batch_function(module, symbol, batched, size)

        symbol = derivative_functions(trace, record.symbol, batched, build, "s4tf-batch")
        outputs = _call(symbol, inputs, [TensorType((size, *t.shape), t.dtype) for t in record.result_types])
        result = rebuild_outputs(record, outputs)
        out_leaves, out_tree = pytree.flatten(result)
        out_axes = _leaf_axes(result, self.out_axes, "out_axes")
        varying = dependent_results(find_function(trace.module, record.symbol), batched)
        moved = []
        for leaf, axis, output in zip(out_leaves, out_axes, record.outputs):
            spec = leaf_spec(leaf)
            if isinstance(spec, Static):
                moved.append(leaf)
            elif axis is None:
                if output in varying:
                    raise VmapError(f"vmap: out_axes=None for result {output}, which depends on a batched argument")
                moved.append(leaf[0])  # the same for every example
            else:
                moved.append(_move(leaf, 0, _axis(axis, spec, "result")))
        return pytree.unflatten(out_tree, moved)


def _leaf_axes(value, axes, what: str) -> list:
    """One axis per leaf of ``value``: ``axes`` is a prefix of its structure."""
    if axes is None or isinstance(axes, (int, np.integer)):
        return [None if axes is None else int(axes)] * len(pytree.flatten(value)[0])
    kind, data, children = pytree.children_of(value)
    axes_kind, axes_data, axes_children = pytree.children_of(axes)
    if kind == "leaf" or (kind, data) != (axes_kind, axes_data) or len(children) != len(axes_children):
        raise VmapError(f"vmap: {what} {axes!r} does not match the structure of the {type(value).__name__} it goes with")
    return [axis for v, a in zip(children, axes_children) for axis in _leaf_axes(v, a, what)]


def _axis(axis, spec: TensorType, what: str):
    if axis is None:
        return None
    rank = len(spec.shape) + (what == "result")
    if not -rank <= axis < rank:
        raise VmapError(f"vmap: axis {axis} is out of range for an {what} of shape {shape_str(spec.shape)}")
    return axis % rank


def _batch_size(specs, axes) -> int:
    sizes = {spec.shape[axis] for spec, axis in zip(specs, axes) if axis is not None}
    if not sizes:
        raise VmapError("vmap: no argument is batched (every in_axes entry is None or names a Python scalar)")
    if len(sizes) > 1:
        raise VmapError(f"vmap: the batched axes have different sizes {sorted(sizes)}; they must be one batch size")
    return sizes.pop()


def _example(spec: TensorType, axis: int):
    """A stand-in for one example of a batched leaf: only its shape and dtype are read."""
    shape = spec.shape[:axis] + spec.shape[axis + 1:]
    return np.broadcast_to(np.zeros((), to_numpy_dtype(spec.dtype)), shape)


def _move(x, source: int, destination: int):
    if source == destination:
        return x
    order = [a for a in range(len(x.shape)) if a != source]
    order.insert(destination, source)
    return numpy_api.transpose(x, order)
