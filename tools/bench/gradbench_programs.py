"""GradBench's evaluations other than its loops (those are in :mod:`bench_loops_real`),
written as GradBench's JAX and PyTorch tools write them, once for a namespace (``S4TF`` or
``JAX``), in float64 (JAX needs x64):

- ``lse``: log-sum-exp written out (its Hessian);
- ``llsq``: linear least squares through a ``vmap`` over the samples (its gradient);
- ``kmeans``: k-means' Newton direction, ``jvp`` of ``grad`` of the cost;
- ``gmm``: a Gaussian mixture's log-likelihood with a Wishart prior (``repeat`` with
  ``total_repeat_length``, ``.at[:, rows, cols].set``, ``einsum``, ``logsumexp``,
  ``multigammaln``; its value and gradient);
- ``ba``: bundle adjustment's reprojection error, Rodrigues' rotation under a ``cond``
  (its Jacobians, reverse per observation under ``vmap`` and forward);
- ``ht``: the hand tracker's skinned vertices, 22 bones, Python loops, a pose built by
  ``.at[].set`` (its Jacobians, forward and reverse);
- ``det``: a 4x4 determinant by minors, Python recursion (its Hessian).

``CASES`` maps each program's name to ``(build, args)``: ``build(namespace)`` is the
function to compile, ``args`` its inputs.
"""

from __future__ import annotations

import math
import types

import numpy as np

import s4tf

S4TF = types.SimpleNamespace(np=s4tf, lax=s4tf.lax, special=s4tf.scipy.special, grad=s4tf.grad, jvp=s4tf.jvp,
                             jacfwd=s4tf.jacfwd, jacrev=s4tf.jacrev, hessian=s4tf.hessian, vmap=s4tf.vmap)


def jax_namespace():
    """JAX's functions in the shape of ``S4TF`` (JAX imported here: only its callers need it)."""
    import jax
    import jax.numpy as jnp

    return types.SimpleNamespace(np=jnp, lax=jax.lax, special=jax.scipy.special, grad=jax.grad, jvp=jax.jvp,
                                 jacfwd=jax.jacfwd, jacrev=jax.jacrev, hessian=jax.hessian, vmap=jax.vmap)


def lse(t):
    def f(x):
        peak = t.np.max(x)
        return t.np.log(t.np.sum(t.np.exp(x - peak))) + peak
    return f


def llsq(t, n=17):
    def f(x):
        def term(i):
            ti = -1.0 + (i * 2.0) / (n - 1.0)
            powers = t.np.cumprod(t.np.full(x.shape[0], ti).at[0].set(1))
            return (t.np.sign(ti) + t.np.sum(-x * powers)) ** 2
        return t.np.sum(t.vmap(term)(t.np.arange(n))) / 2.0
    return f


def kmeans_direction(t, points):
    def cost(centers):
        distances = (t.np.sum(points ** 2, 1)[None, :] + t.np.sum(centers ** 2, 1)[:, None]
                     - 2 * t.np.matmul(points, centers.T).T)
        return t.np.min(distances, axis=0).sum()

    def direction(centers):
        gradient, curvature = t.jvp(t.grad(cost), (centers,), (t.np.ones_like(centers),))
        return gradient / curvature
    return direction


def gmm(t, x, k):
    n, d = x.shape

    def f(alpha, mu, q, l):
        qdiags, sum_qs = t.np.exp(q), t.np.sum(q, axis=1)
        cols = t.np.repeat(t.np.arange(d - 1), t.np.arange(d - 1, 0, -1), total_repeat_length=d * (d - 1) // 2)
        rows = t.np.concatenate([t.np.arange(c + 1, d) for c in range(d - 1)])
        ls = t.np.zeros((k, d, d), dtype=l.dtype).at[:, rows, cols].set(l)
        centered = x[:, None, :] - mu[None, ...]
        lx = qdiags * centered + t.np.einsum("ijk,mik->mij", ls, centered)
        inner = alpha + sum_qs - 0.5 * t.np.sum(lx ** 2, axis=2)
        wishart = t.np.sum(0.5 * (t.np.sum(qdiags ** 2, axis=1) + t.np.sum(l ** 2, axis=1)))
        prior = -wishart + k * ((d + 1) * d * t.np.log(1.0 / math.sqrt(2)) - t.special.multigammaln(0.5 * (d + 1), d))
        return (-n * d * 0.5 * math.log(2 * math.pi) + t.np.sum(t.special.logsumexp(inner, axis=1))
                - n * t.special.logsumexp(alpha, axis=0) + prior)
    return f


def reprojection(t):
    def rodrigues(rotation, point):
        squared = t.np.sum(rotation ** 2)

        def rotate(_):
            theta = t.np.sqrt(squared)
            cos, sin, axis = t.np.cos(theta), t.np.sin(theta), rotation / theta
            return point * cos + t.np.cross(axis, point) * sin + axis * (t.np.dot(axis, point) * (1.0 - cos))
        return t.lax.cond(squared != 0.0, rotate, lambda _: point + t.np.cross(rotation, point), None)

    def error(camera, point, weight, feature):
        rotated = rodrigues(camera[0:3], point - camera[3:6])
        projected = rotated[0:2] / rotated[2]
        radius = t.np.sum(projected ** 2)
        distortion = 1.0 + camera[9] * radius + camera[10] * radius * radius
        return weight * (projected * distortion * camera[6] + camera[7:9] - feature)
    return error


def hand(t, parents, relatives, inverse_absolutes, positions, weights, points, correspondences):
    bones = len(parents)

    def euler(xzy):
        tx, ty, tz = xzy[0], xzy[2], xzy[1]
        one, zero = t.np.ones_like(tx), t.np.zeros_like(tx)
        rx = t.np.stack([t.np.stack([one, zero, zero]), t.np.stack([zero, t.np.cos(tx), -t.np.sin(tx)]),
                         t.np.stack([zero, t.np.sin(tx), t.np.cos(tx)])])
        ry = t.np.stack([t.np.stack([t.np.cos(ty), zero, -t.np.sin(ty)]), t.np.stack([zero, one, zero]),
                         t.np.stack([t.np.sin(ty), zero, t.np.cos(ty)])])
        rz = t.np.stack([t.np.stack([t.np.cos(tz), -t.np.sin(tz), zero]), t.np.stack([t.np.sin(tz), t.np.cos(tz), zero]),
                         t.np.stack([zero, zero, one])])
        return (rz @ ry) @ rx

    def pose(theta):
        params = t.np.zeros((bones + 3, 3), theta.dtype).at[0, :].set(theta[0:3]).at[1, :].set(1.0).at[2, :].set(theta[3:6])
        i_theta, row = 6, 5
        for _ in range(5):
            for joint in (1, 2, 3):
                params = params.at[row, 0].set(theta[i_theta])
                i_theta += 1
                if joint == 1:
                    params = params.at[row, 1].set(theta[i_theta])
                    i_theta += 1
                row += 1
            row += 1
        return params

    def angle_axis(axis_angle):
        norm = t.np.sqrt(t.np.sum(axis_angle ** 2))

        def rotation(_):
            x, y, z = axis_angle[0] / norm, axis_angle[1] / norm, axis_angle[2] / norm
            s, c = t.np.sin(norm), t.np.cos(norm)
            return t.np.stack([
                t.np.stack([x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s]),
                t.np.stack([x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s]),
                t.np.stack([x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c])])
        return t.lax.cond(norm < 0.0001, lambda _: t.np.eye(3, dtype=axis_angle.dtype), rotation, None)

    def error(theta):
        params = pose(theta)
        posed = [relatives[i] @ t.np.eye(4, dtype=theta.dtype).at[:3, :3].set(euler(params[3 + i])) for i in range(bones)]
        absolutes = []
        for i in range(bones):
            absolutes.append(posed[i] if parents[i] == -1 else absolutes[parents[i]] @ posed[i])
        moved = t.np.stack([absolutes[i] @ inverse_absolutes[i] @ positions.T for i in range(bones)])
        skinned = t.np.sum(t.np.transpose(moved, (2, 0, 1)) * weights[:, :, None], 1)[:, :3]
        vertices = ((angle_axis(params[0]) * params[1]) @ skinned.T).T + params[2]
        return (points - vertices[correspondences]).reshape(-1)
    return error


def determinant(t, size):
    def minor(a, rows, cols):
        if len(rows) == 1:
            return a[rows[0], cols[0]]
        return sum((-1) ** j * a[rows[0], c] * minor(a, rows[1:], cols[:j] + cols[j + 1:]) for j, c in enumerate(cols))

    return lambda flat: minor(flat.reshape(size, size), list(range(size)), list(range(size)))


def _hand_data(rng):
    bones, vertices, points = 22, 12, 7
    parents = [-1] + [0 if i % 4 == 1 else i - 1 for i in range(1, bones)]
    relatives = rng.normal(size=(bones, 4, 4)) * 0.3 + np.eye(4)
    inverse_absolutes = rng.normal(size=(bones, 4, 4)) * 0.3 + np.eye(4)
    positions = np.concatenate([rng.normal(size=(vertices, 3)), np.ones((vertices, 1))], 1)
    weights = rng.random(size=(vertices, bones))
    return (parents, relatives, inverse_absolutes, positions, weights / weights.sum(1, keepdims=True),
            rng.normal(size=(points, 3)), rng.integers(0, vertices, points))


RNG = np.random.default_rng(0)
_POINTS, _MIXTURE, _HAND = RNG.normal(size=(30, 3)), RNG.normal(size=(10, 4)), _hand_data(RNG)
_CAMERA = np.concatenate([RNG.normal(size=3) * 0.3, RNG.normal(size=3), [1.2, 0.1, -0.2, 0.01, 0.002]])
_GMM = [RNG.normal(size=3), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)) * 0.3, RNG.normal(size=(3, 6)) * 0.3]
CASES = {
    "lse, hessian": (lambda t: t.hessian(lse(t)), [RNG.normal(size=20)]),
    "llsq, gradient": (lambda t: t.grad(llsq(t)), [RNG.normal(size=6) * 0.3]),
    "kmeans, Newton direction": (lambda t: kmeans_direction(t, _POINTS), [RNG.normal(size=(4, 3))]),
    "gmm, objective": (lambda t: gmm(t, _MIXTURE, 3), _GMM),
    "gmm, gradient": (lambda t: t.grad(gmm(t, _MIXTURE, 3), argnums=(0, 1, 2, 3)), _GMM),
    "ba, Jacobian (reverse), per observation": (
        lambda t: t.vmap(t.jacrev(reprojection(t), argnums=(0, 1, 2))),
        [np.stack([_CAMERA * (1 + 0.1 * i) for i in range(3)]), RNG.normal(size=(3, 3)) + [0, 0, 5.0],
         np.array([0.9, 1.0, 1.1]), RNG.normal(size=(3, 2))]),
    "ba, Jacobian (forward)": (lambda t: t.jacfwd(reprojection(t), argnums=(0, 1, 2)),
                               [_CAMERA, RNG.normal(size=3) + [0, 0, 5.0], np.float64(0.9), RNG.normal(size=2)]),
    "ht, Jacobian (forward)": (lambda t: t.jacfwd(hand(t, *_HAND)), [RNG.normal(size=26) * 0.3]),
    "ht, Jacobian (reverse)": (lambda t: t.jacrev(hand(t, *_HAND)), [RNG.normal(size=26) * 0.3]),
    "det, hessian": (lambda t: t.hessian(determinant(t, 4)), [RNG.normal(size=16)]),
}
