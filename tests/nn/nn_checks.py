"""Shared checks for the nn tests: NumPy references and a finite-difference gradient check
for functions of a model (a pytree)."""

import numpy as np

import s4tf
from s4tf import pytree
from s4tf.optim import leaves_like
from s4tf.optim_trees import parameter_mask


def conv2d_nhwc(x, w, stride=1, padding="valid"):
    """Plain NumPy convolution: NHWC input, HWIO filter, "valid" or "same" padding."""
    kh, kw = w.shape[:2]
    if padding == "same":
        out_h, out_w = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        pad_h = max((out_h - 1) * stride + kh - x.shape[1], 0)
        pad_w = max((out_w - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, ((0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    out_h, out_w = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    y = np.zeros((x.shape[0], out_h, out_w, w.shape[3]), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            y[:, i, j, :] = np.einsum("nhwc,hwco->no", patch, w)
    return y


def pool2d_nhwc(x, window, reduce):
    n, h, w, c = x.shape
    return reduce(x[:, : h - h % window, : w - w % window].reshape(n, h // window, window, w // window, window, c), axis=(2, 4))


def as_float64(tree):
    """``tree`` with its float32 array leaves as float64 (other leaves unchanged)."""
    return pytree.tree_map(lambda leaf: np.asarray(leaf, np.float64) if isinstance(leaf, np.ndarray) and leaf.dtype == np.float32 else leaf, tree)


def float_leaves(tree):
    return [leaf for leaf in pytree.flatten(tree)[0] if isinstance(leaf, np.ndarray) and leaf.dtype.kind == "f"]


def check_model_gradient(loss, model, *inputs, eps=1e-6, rtol=1e-5, seed=3):
    """``s4tf.grad(loss)(model, *inputs)`` against the central finite difference of ``loss``
    along a random direction in parameter space (every parameter perturbed at once; model
    state such as running statistics is not), and each parameter's gradient has its shape."""
    model = as_float64(model)
    staged_loss = s4tf.function(loss)
    grads = s4tf.grad(staged_loss)(model, *inputs)
    rng = np.random.default_rng(seed)
    leaves, tree = pytree.flatten(model)
    direction = [rng.standard_normal(np.shape(leaf)) if trained else None for leaf, trained in zip(leaves, parameter_mask(model))]

    def moved(sign):
        return pytree.unflatten(tree, [leaf if d is None else leaf + sign * eps * d for leaf, d in zip(leaves, direction)])

    finite = (float(staged_loss(moved(+1), *inputs)) - float(staged_loss(moved(-1), *inputs))) / (2 * eps)

    grad_leaves = leaves_like(tree, grads)
    analytic = 0.0
    for leaf, g, d in zip(leaves, grad_leaves, direction):
        if d is not None:
            assert np.shape(g) == np.shape(leaf)
            analytic += float(np.sum(np.asarray(g) * d))
    np.testing.assert_allclose(analytic, finite, rtol=rtol, atol=1e-7)
