"""``jacfwd``, ``jacrev`` and ``hessian``: Jacobians as a vmapped JVP or VJP over basis
vectors, one compiled call each, never a Python loop over the basis.

```python
J = s4tf.jacfwd(f)(x)        # shape f(x).shape + x.shape
J = s4tf.jacrev(f)(x)        # the same, by reverse mode (cheaper for few outputs)
H = s4tf.hessian(f)(x)       # f returns a scalar: shape x.shape + x.shape
```

As in JAX, ``argnums`` is an int or a tuple of ints, arguments and results may be pytrees
of float arrays: the Jacobian has the result's structure with, for each result leaf ``y``,
the argument's structure (a tuple over ``argnums`` when it is a tuple) of blocks of shape
``y.shape + x.shape``.
"""

from __future__ import annotations

import functools

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.transforms.autodiff import _floats_as_arrays, _name, _python_function, jvp, vjp
from s4tf.staging.autograph.convert import convert_once
from s4tf.dialects.types import TensorType, is_float, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.staging.function import StagedFunction
from s4tf.staging.tracing import leaf_spec
from s4tf.transforms.vmap import vmap


def jacfwd(fn, argnums: int = 0):
    """The Jacobian of ``fn`` wrt argument ``argnums`` by forward mode: ``vmap`` of ``jvp``."""
    return _Jacobian(fn, argnums, "jacfwd")


def jacrev(fn, argnums: int = 0):
    """The Jacobian of ``fn`` wrt argument ``argnums`` by reverse mode: ``vmap`` of a pullback."""
    return _Jacobian(fn, argnums, "jacrev")


def hessian(fn, argnums: int = 0):
    """The Hessian of a scalar ``fn`` wrt argument ``argnums``: ``jacfwd(jacrev(fn))``."""
    return jacfwd(jacrev(fn, argnums), argnums)


class _Jacobian:
    def __init__(self, fn, argnums, kind):
        if not (isinstance(argnums, int) or (isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums))):
            raise S4tfError(f"{kind}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
        functools.update_wrapper(self, _python_function(fn), updated=())
        self.fn, self.argnums, self.kind = convert_once(fn), argnums, kind  # called by of_xs below, which jvp/vjp trace
        self._staged = StagedFunction(self._body)
        self._staged.__name__ = f"{kind}_{_name(fn)}".replace("<lambda>", "lambda")

    def __call__(self, *args):
        argnums = self.argnums if isinstance(self.argnums, tuple) else (self.argnums,)
        return self._staged(*_floats_as_arrays(args, {i % len(args) for i in argnums if -len(args) <= i < len(args)}))

    def _body(self, *args):
        argnums = self.argnums if isinstance(self.argnums, tuple) else (self.argnums,)
        for index in argnums:
            if not -len(args) <= index < len(args):
                raise S4tfError(f"{self.kind}: argnums {self.argnums!r} names argument {index}, but there are {len(args)}")
        argnums = tuple(index % len(args) for index in argnums)
        xs = tuple(args[i] for i in argnums)
        x_leaves, x_tree = pytree.flatten(xs)
        x_specs = _float_specs(x_leaves, f"{self.kind}: argument(s) {self.argnums!r}")

        def of_xs(*values):
            full = list(args)
            for index, value in zip(argnums, values):
                full[index] = value
            return self.fn(*full)

        if self.kind == "jacfwd":
            trees = []

            def column(t):  # the derivative along one basis vector of all the x leaves
                leaves, tree = pytree.flatten(jvp(of_xs, xs, pytree.unflatten(x_tree, _split(t, x_specs)))[1])
                trees.append(tree)  # vmap traces this once
                return leaves

            columns = vmap(column)(_basis(x_specs))  # per y leaf: (x size, *y.shape)
            y_specs = _float_specs([c[0] for c in columns], f"{self.kind}: the function's result")
            y_tree = trees[0]
            blocks = [[_block(c[a:b], y, x, transpose=True) for x, (a, b) in zip(x_specs, _offsets(x_specs))] for c, y in zip(columns, y_specs)]
        else:
            y, pullback = vjp(of_xs, *xs)
            y_leaves, y_tree = pytree.flatten(y)
            y_specs = _float_specs(y_leaves, f"{self.kind}: the function's result")

            def row(ct):  # the cotangents of all the x leaves for one basis vector of y
                return pytree.flatten(pullback(pytree.unflatten(y_tree, _split(ct, y_specs))))[0]

            rows = vmap(row)(_basis(y_specs))  # per x leaf: (y size, *x.shape)
            blocks = [[_block(r[a:b], y, x, transpose=False) for r, x in zip(rows, x_specs)] for y, (a, b) in zip(y_specs, _offsets(y_specs))]
        per_y = [pytree.unflatten(x_tree, row) for row in blocks]  # a tuple over argnums
        return pytree.unflatten(y_tree, per_y if isinstance(self.argnums, tuple) else [tree[0] for tree in per_y])


def _float_specs(leaves, what: str) -> list[TensorType]:
    specs = [leaf_spec(leaf) for leaf in leaves]
    for spec in specs:
        if not isinstance(spec, TensorType) or not is_float(spec.dtype):
            raise S4tfError(f"{what} must be float arrays (or pytrees of them), got {spec}")
    return specs


def _offsets(specs) -> list[tuple[int, int]]:
    """Where each leaf's elements lie in the flat basis vector."""
    ends = np.cumsum([spec.size for spec in specs], dtype=int)
    return [(int(end - spec.size), int(end)) for spec, end in zip(specs, ends)]


def _split(vector, specs) -> list:
    """One flat basis vector as leaves of ``specs``' shapes and dtypes."""
    return [
        numpy_api.astype(numpy_api.reshape(vector[a:b], spec.shape), spec.dtype)
        for spec, (a, b) in zip(specs, _offsets(specs))
    ]


def _block(part, y: TensorType, x: TensorType, transpose: bool):
    """The Jacobian block of result leaf ``y`` wrt argument leaf ``x``, shape
    ``y.shape + x.shape``: ``part`` is ``(x.size, *y.shape)`` (forward) or
    ``(y.size, *x.shape)`` (reverse)."""
    if transpose:
        part = numpy_api.transpose(numpy_api.reshape(part, (x.size, y.size)))
    return numpy_api.reshape(part, tuple(y.shape) + tuple(x.shape))


def _basis(specs):
    """The standard basis of the flattened leaves: ``(size, size)`` in the widest float dtype."""
    size = sum(spec.size for spec in specs)
    dtype = np.result_type(*(to_numpy_dtype(spec.dtype) for spec in specs))
    return np.eye(size, dtype=dtype)
