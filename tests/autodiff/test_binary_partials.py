"""Every mixed partial of the binary ops with derivatives, up to fourth order.

For an elementwise ``f(a, b)`` evaluated on vectors of points, the partial along a path of
arguments (``(0, 1)``: d/da then d/db) at every point is the gradient of the sum of the
previous partial, so one staged call computes every path at every point. Each partial is
checked three ways, in float64:

- against JAX's, taken the same way (``jax.grad`` of sums, ``jax.jvp`` along ones);
- against central finite differences of the partial one order lower (the points ``a +- h``
  and ``b +- h`` are part of the same call);
- paths that differ only in order (``(0, 1)`` and ``(1, 0)``: the Hessian's off-diagonal
  blocks) agree to float64's rounding: the Hessian is symmetric.

Reverse mode (``grad``) and forward mode (``jvp``) are both checked at second order in all
four combinations; higher orders by each mode alone, each partial along its sorted and
its reversed path. The points include the special ones
(zeros, equal arguments, negative bases, integer exponents).
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gradient_checks import evaluate

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

H = 1e-5


def _pow(xp):
    return lambda a, b: xp.power(a, b)


def _where(xp):
    return lambda a, b: xp.where(a > b, a * b * b, xp.sin(a) + b)


#: name -> (function of a namespace, points (a, b), highest order). Points are away from
#: kinks and discontinuities where finite differences would not see the derivative.
OPS = {
    "pow": (_pow, [(4.0, 0.0), (2.5, 1.5), (0.7, 2.0), (3.0, 2.0), (2.0, 2.0), (1.0, 0.5), (2.0, 1.0)], 4),
    "atan2": (lambda xp: xp.arctan2, [(1.0, 2.0), (-1.0, 0.5), (0.3, -0.7), (1.0, 1.0), (-1.0, -1.0), (0.0, 2.0)], 4),
    "logaddexp": (lambda xp: xp.logaddexp, [(0.4, 0.4), (1.0, -2.0), (-3.0, 5.0), (0.0, 0.0), (30.0, -30.0)], 4),
    "hypot": (lambda xp: xp.hypot, [(3.0, 4.0), (1.0, 1.0), (-2.0, 0.5), (0.0, 2.0)], 4),
    "remainder": (lambda xp: xp.remainder, [(5.3, 2.0), (-5.3, 2.0), (5.3, -2.0), (0.7, 3.0)], 4),
    "maximum": (lambda xp: xp.maximum, [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.25)], 4),
    "where": (_where, [(1.0, 2.0), (3.0, -1.0), (-0.5, -0.25), (2.0, 0.0)], 4),
    "add": (lambda xp: xp.add, [(1.0, 2.0), (0.0, 0.0)], 2),
    "subtract": (lambda xp: xp.subtract, [(1.0, 2.0), (0.0, 0.0)], 2),
    "multiply": (lambda xp: xp.multiply, [(1.5, -2.0), (0.0, 0.0), (2.0, 2.0)], 2),
    "divide": (lambda xp: xp.divide, [(1.5, -2.0), (0.0, 3.0), (2.0, 2.0)], 2),
    "minimum": (lambda xp: xp.minimum, [(1.0, 2.0), (3.0, -1.0)], 2),
}

NEGATIVE_BASES = [(-2.0, 3.0), (-1.5, 2.0), (-0.5, 4.0)]  # pow: only d/da exists


def _wanted(order: int, only_first: bool) -> list[tuple[tuple[int, ...], str]]:
    """``(path, modes)`` to compute: at orders 1 and 2 every path, in every combination of
    reverse (``"r"``) and forward (``"f"``) mode; above, for each partial (the multiset of
    its path), the path in sorted and in reversed order (their agreement is the symmetry),
    each by reverse mode alone and by forward mode alone."""
    arguments = (0,) if only_first else (0, 1)
    wanted = []
    for k in range(1, order + 1):
        if k <= 2:
            paths, mode_choices = itertools.product(arguments, repeat=k), itertools.product("rf", repeat=k)
            wanted += [(p, "".join(m)) for p, m in itertools.product(list(paths), list(mode_choices))]
        else:
            paths = {p for multiset in itertools.combinations_with_replacement(arguments, k) for p in (multiset, multiset[::-1])}
            wanted += [(p, m * k) for p in sorted(paths) for m in "rf"]
    return wanted


def _derivatives(f, grad, forward, order: int, only_first: bool = False) -> dict:
    """``{(path, modes): g}`` for :func:`_wanted`'s partials and every partial they are
    taken from: ``g(a, b)`` is that partial at every point."""
    steps = {"r": lambda g, i: grad(lambda a, b: g(a, b).sum(), argnums=i),
             "f": lambda g, i: lambda a, b: forward(g, a, b, i)}
    found = {((), ""): f}

    def partial(path, modes):
        if (path, modes) not in found:
            found[(path, modes)] = steps[modes[-1]](partial(path[:-1], modes[:-1]), path[-1])
        return found[(path, modes)]

    for path, modes in _wanted(order, only_first):
        partial(path, modes)
    return found


def _s4tf_forward(g, a, b, i):
    tangents = (s4tf.ones_like(a), s4tf.zeros_like(b)) if i == 0 else (s4tf.zeros_like(a), s4tf.ones_like(b))
    return s4tf.jvp(g, (a, b), tangents)[1]


def _jax_forward(g, a, b, i):
    tangents = (jnp.ones_like(a), jnp.zeros_like(b)) if i == 0 else (jnp.zeros_like(a), jnp.ones_like(b))
    return jax.jvp(g, (a, b), tangents)[1]


def _evaluate(name, points, order, only_first=False):
    """s4tf's and JAX's partials at the points and at the points moved by ``+-H``; s4tf's
    through the ops' references, or IREE (:func:`gradient_checks.evaluate`)."""
    make = OPS[name][0]
    a0, b0 = (np.array(v, np.float64) for v in zip(*points))
    zero = np.zeros_like(a0)
    shifts = [(zero, zero), (zero + H, zero), (zero - H, zero), (zero, zero + H), (zero, zero - H)]
    a = np.concatenate([a0 + da for da, _ in shifts])
    b = np.concatenate([b0 + db for _, db in shifts])
    ours = _derivatives(make(s4tf), s4tf.grad, _s4tf_forward, order, only_first)
    values = evaluate(lambda a, b: {key: g(a, b) for key, g in ours.items()}, (a, b))  # IREE in the sample
    got = {key: np.asarray(v).reshape(len(shifts), len(points)) for key, v in values.items()}
    with jax.enable_x64(True):
        theirs = _derivatives(make(jnp), jax.grad, _jax_forward, order, only_first)
        peer = jax.jit(lambda a, b: {key: g(a, b) for key, g in theirs.items()})(a, b)
        want = {key: np.asarray(v).reshape(len(shifts), len(points)) for key, v in peer.items()}
    return got, want


def _check(name, got, want, points):
    """Each partial against finite differences of the one it is taken from, and against
    its sorted path's (symmetry); against JAX's wherever JAX's agrees with the finite
    differences (JAX's own composites lose derivatives at kinks of theirs: its ``hypot``'s
    second derivative is 0 at ``|a| == |b|`` by forward mode)."""
    where = [f"{name}{p}" for p in points]
    np.testing.assert_allclose(got[((), "")][0], want[((), "")][0], rtol=1e-12, atol=1e-12, err_msg=f"values vs JAX at {where}")
    for (path, modes), value in got.items():
        if not path:
            continue
        lower = got[(path[:-1], modes[:-1])]
        plus, minus = (1, 2) if path[-1] == 0 else (3, 4)
        finite_difference = (lower[plus] - lower[minus]) / (2 * H)
        np.testing.assert_allclose(value[0], finite_difference, rtol=1e-5, atol=1e-5,
                                   err_msg=f"d{path} ({modes}) vs finite differences at {where}")
        jax_right = np.isclose(want[(path, modes)][0], finite_difference, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(value[0][jax_right], want[(path, modes)][0][jax_right], rtol=1e-9, atol=1e-9,
                                   err_msg=f"d{path} ({modes}) vs JAX at {np.array(where)[jax_right]}")
        swapped = (tuple(sorted(path)), modes)
        np.testing.assert_allclose(value[0], got[swapped][0], rtol=1e-12, atol=1e-12,
                                   err_msg=f"d{path} vs d{swapped[0]} ({modes}) at {where}")


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_mixed_partial_agrees_with_jax_finite_differences_and_its_transpose(name):
    _, points, order = OPS[name]
    got, want = _evaluate(name, points, order)
    _check(name, got, want, points)


def test_pow_at_negative_bases_and_integer_exponents():
    got, want = _evaluate("pow", NEGATIVE_BASES, 4, only_first=True)
    _check("pow", got, want, NEGATIVE_BASES)


def test_the_reported_hessians():
    pow_hessian = s4tf.jacrev(s4tf.jacrev(lambda a, b: a ** b, argnums=(0, 1)), argnums=(0, 1))(4.0, 0.0)
    np.testing.assert_allclose(np.asarray(pow_hessian, np.float64), [[0, 0.25], [0.25, np.log(4) ** 2]], rtol=1e-6)
    logaddexp_hessian = s4tf.jacfwd(s4tf.jacfwd(s4tf.logaddexp, argnums=(0, 1)), argnums=(0, 1))(0.4, 0.4)
    np.testing.assert_allclose(np.asarray(logaddexp_hessian, np.float64), [[0.25, -0.25], [-0.25, 0.25]], rtol=1e-6)
