"""``jacfwd``, ``jacrev`` and ``hessian``: Jacobians as a vmapped JVP or VJP over basis
vectors, one compiled call each, never a Python loop over the basis.

```python
J = s4tf.jacfwd(f)(x)        # shape f(x).shape + x.shape
J = s4tf.jacrev(f)(x)        # the same, by reverse mode (cheaper for few outputs)
H = s4tf.hessian(f)(x)       # f returns a scalar: shape x.shape + x.shape
```

Only one array argument (``argnums``, an int) and one array result are supported so far.
"""

from __future__ import annotations

import functools

import numpy as np

from s4tf import numpy_api
from s4tf.autodiff import _name, _python_function, jvp, vjp
from s4tf.dialects.types import TensorType, is_float, to_numpy_dtype
from s4tf.errors import S4tfError
from s4tf.staging import StagedFunction
from s4tf.tracing import leaf_spec
from s4tf.vmap import vmap


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
        if not isinstance(argnums, int):
            raise S4tfError(f"{kind}: argnums must be one int so far, got {argnums!r}")
        functools.update_wrapper(self, _python_function(fn), updated=())
        self.fn, self.argnums, self.kind = fn, argnums, kind
        self._staged = StagedFunction(self._body)
        self._staged.__name__ = f"{kind}_{_name(fn)}".replace("<lambda>", "lambda")

    def __call__(self, *args):
        return self._staged(*args)

    def _body(self, *args):
        x = args[self.argnums]
        spec = leaf_spec(x)
        if not isinstance(spec, TensorType) or not is_float(spec.dtype):
            raise S4tfError(f"{self.kind}: argument {self.argnums} must be a float array, got {spec}")

        def of_x(value):
            return self.fn(*args[: self.argnums], value, *args[self.argnums + 1:])

        if self.kind == "jacfwd":
            basis = _basis(spec.shape, spec.dtype)
            columns = vmap(lambda t: jvp(of_x, (x,), (t,))[1])(basis)  # (x.size, *y.shape)
            out_shape = tuple(columns.shape[1:])
            flat = numpy_api.reshape(columns, (spec.size, int(np.prod(out_shape, dtype=int))))
            return numpy_api.reshape(numpy_api.transpose(flat), out_shape + tuple(spec.shape))
        y, pullback = vjp(of_x, x)
        y_spec = leaf_spec(y)
        if not isinstance(y_spec, TensorType) or not is_float(y_spec.dtype):
            raise S4tfError(f"{self.kind}: the function must return one float array, got {y_spec}")
        rows = vmap(lambda ct: pullback(ct)[0])(_basis(y_spec.shape, y_spec.dtype))  # (y.size, *x.shape)
        return numpy_api.reshape(rows, tuple(y_spec.shape) + tuple(spec.shape))


def _basis(shape, dtype: str):
    """The standard basis of arrays of ``shape``: ``(size, *shape)``."""
    size = int(np.prod(shape, dtype=int))
    return np.eye(size, dtype=to_numpy_dtype(dtype)).reshape((size, *shape))
