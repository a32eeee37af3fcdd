"""``s4tf.check_grads``: ``jax.test_util.check_grads``'s test of a function's derivatives
against central finite differences, forward (``s4tf.jvp``) and reverse (``s4tf.vjp``), to
any order.

```python
import numpy as np, s4tf

s4tf.check_grads(lambda x: s4tf.sin(x) * x, (np.array([0.3, 1.2]),), order=2)
```
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from s4tf.pytree import flatten, tree_map
from s4tf.transforms.autodiff import jvp, vjp

#: The finite-difference step of ``jax.test_util``.
EPS = 1e-4
#: Absolute and relative tolerances by dtype, ``jax.test_util``'s.
TOLERANCE = {np.dtype(np.float16): 1e-2, np.dtype(ml_dtypes.bfloat16): 1e-1, np.dtype(np.float32): 2e-3,
             np.dtype(np.float64): 1e-5}


def _like(rng, leaf):
    """Standard normal numbers shaped like ``leaf``: JAX's, from ``np.random.RandomState(0)``."""
    leaf = np.asarray(leaf)
    return np.asarray(rng.randn(*leaf.shape), leaf.dtype)


def _numerical_jvp(f, args, tangents, eps):
    """``(f(args + eps t) - f(args - eps t)) / 2 eps``, in float64, leaf by leaf."""
    step = lambda sign: tree_map(lambda a, t: np.asarray(a) + sign * eps * t, args, tangents)  # noqa: E731
    plus, minus = flatten(f(*step(1)))[0], flatten(f(*step(-1)))[0]
    return [(np.asarray(p, np.float64) - np.asarray(m, np.float64)) / (2 * eps) for p, m in zip(plus, minus)]


def _check_close(actual, expected, atol, rtol, message):
    for index, (a, e) in enumerate(zip(flatten(actual)[0], flatten(expected)[0], strict=True)):
        dtype = np.asarray(a).dtype
        tolerance = TOLERANCE.get(dtype, TOLERANCE[np.dtype(np.float32)])
        np.testing.assert_allclose(
            np.asarray(a, np.float64), np.asarray(e, np.float64), atol=tolerance if atol is None else atol,
            rtol=tolerance if rtol is None else rtol, err_msg=f"{message} (result leaf {index})")


def _inner(xs, ys):
    return sum(float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64))) for x, y in zip(xs, ys, strict=True))


def _check_jvp(f, args, atol, rtol, eps, message):
    tangents = tree_map(functools.partial(_like, np.random.RandomState(0)), args)
    value, tangent_out = jvp(f, args, tangents)
    _check_close(value, f(*args), atol, rtol, f"{message}: the value")
    _check_close(flatten(tangent_out)[0], _numerical_jvp(f, args, tangents, eps), atol, rtol,
                 f"{message}: s4tf.jvp against central finite differences")


def _check_vjp(f, args, atol, rtol, eps, message):
    rng = np.random.RandomState(0)
    value, pullback = vjp(f, *args)
    _check_close(value, f(*args), atol, rtol, f"{message}: the value")
    tangents = tree_map(functools.partial(_like, rng), args)
    cotangent = tree_map(functools.partial(_like, rng), value)
    if not flatten(value)[0]:
        return
    dtype = np.result_type(*(np.asarray(leaf).dtype for leaf in flatten(value)[0]))  # the tolerance's, as JAX's
    expected = np.asarray(_inner(_numerical_jvp(f, args, tangents, eps), flatten(cotangent)[0]), dtype)
    actual = np.asarray(_inner(flatten(tangents)[0], flatten(pullback(cotangent))[0]), dtype)
    _check_close(actual, expected, atol, rtol,
                 f"{message}: <s4tf.vjp's cotangent, tangent> against <cotangent, central finite differences>")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check ``f``'s derivatives at ``args`` (a tuple of arrays or pytrees) up to ``order``
    in ``modes`` against central finite differences of step ``eps``, as
    ``jax.test_util.check_grads``: an ``AssertionError`` names the mode (``"VJP of JVP"``)
    where they disagree. Tolerances default to 2e-3 in float32 and 1e-5 in float64."""
    args, eps = tuple(args), eps or EPS

    def check(f, args, order, name):
        if "fwd" in modes:
            forward = f"JVP of {name}" if name else "JVP"
            _check_jvp(f, args, atol, rtol, eps, forward)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, forward)
        if "rev" in modes:
            reverse = f"VJP of {name}" if name else "VJP"
            _check_vjp(f, args, atol, rtol, eps, reverse)
            if order > 1:
                def pulled_back(*primals):
                    value, pullback = vjp(f, *primals)
                    return pullback(value)
                check(pulled_back, args, order - 1, reverse)

    check(f, args, order, "")


__all__ = ["check_grads"]
