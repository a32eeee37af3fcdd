"""Automatic differentiation: grad, value_and_grad, jvp, vjp, higher order, custom
derivatives, stop_gradient, zero derivatives and their opt-in diagnostic at the user's
line, and the s4tf-vjp pass."""

import subprocess
import sys
import warnings

import numpy as np

import s4tf

rng = np.random.default_rng(0)
w, b = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
x, y = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)


def loss(params, x, y):
    w, b = params
    return s4tf.mean((s4tf.tanh(x @ w + b) - y) ** 2)


# Reverse mode: the gradient has the structure of params; value_and_grad is one compiled call.
grad_w, grad_b = s4tf.grad(loss)((w, b), x, y)
hidden = np.tanh(x @ w + b)
delta = 2 * (hidden - y) * (1 - hidden**2) / y.size
print("grad matches NumPy:", np.allclose(grad_w, x.T @ delta, atol=1e-6) and np.allclose(grad_b, delta.sum(axis=0), atol=1e-6))
value, (grad_params, grad_x) = s4tf.value_and_grad(loss, argnums=(0, 1))((w, b), x, y)
print("value_and_grad shapes:", [np.shape(g) for g in grad_params], np.shape(grad_x))


# Forward mode, and reverse mode with a pullback that is a value.
def f(v):
    return s4tf.exp(v) * v


v, dv = np.linspace(-1, 1, 3), np.ones(3)
value, tangent = s4tf.jvp(f, (v,), (dv,))
print("jvp matches NumPy:", np.allclose(tangent, np.exp(v) * (v + 1)))
value, pullback = s4tf.vjp(f, v)
(cotangent,) = pullback(np.full(3, 2.0))
print("vjp matches NumPy:", np.allclose(cotangent, 2 * np.exp(v) * (v + 1)))

# Higher order: the passes differentiate their own output.
second = s4tf.grad(lambda t: s4tf.grad(lambda u: s4tf.sum(f(u)))(t).sum())(v)
print("second derivative matches NumPy:", np.allclose(second, np.exp(v) * (v + 2)))


# A custom derivative replaces the body's; stop_gradient makes a value a constant.
@s4tf.function
def clipped_identity(t):
    return s4tf.clip(t, -1.0, 1.0)


@s4tf.derivative(of=clipped_identity)
def clipped_identity_vjp(t):
    return clipped_identity(t), lambda ct: (ct,)  # straight-through: gradient 1 everywhere


straight_through = s4tf.grad(lambda t: s4tf.sum(clipped_identity(t)))(np.array([-3.0, 0.5, 3.0]))
print("straight-through gradient:", np.asarray(straight_through).tolist())
stopped = s4tf.grad(lambda t: s4tf.sum(s4tf.stop_gradient(t) * t))(np.array([1.0, 2.0]))
print("stop_gradient:", np.asarray(stopped).tolist())

# argmax is piecewise constant: its derivative is zero, as in JAX and PyTorch. To be told,
# or stopped, where that happens, enable s4tf.ZeroDerivativeWarning (ignored by default).
through_argmax = s4tf.grad(lambda t: s4tf.sum(s4tf.astype(s4tf.argmax(t), np.float64) * t))(v)
print("through argmax:", np.asarray(through_argmax).tolist())
with warnings.catch_warnings():
    warnings.simplefilter("error", s4tf.ZeroDerivativeWarning)
    try:
        s4tf.grad(lambda t: s4tf.sum(s4tf.astype(s4tf.argmax(t), np.float64) * t))(v)
    except s4tf.ZeroDerivativeWarning as warning:
        print("warning at", str(warning).rsplit("/", 1)[-1])  # the path without its folders

# The same passes on the command line, on a module with a marked function.
MODULE = """\
func.func @f(%x: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "s4tf.reduce_sum"(%0) {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
"""
command = [sys.executable, "-m", "s4tf.tools.opt", "-p", "s4tf-vjp,s4tf-canonicalize,cse"]
completed = subprocess.run(command, input=MODULE, capture_output=True, text=True, check=True)
print("$ s4tf-opt model.mlir -p s4tf-vjp,s4tf-canonicalize,cse")
print(completed.stdout)
