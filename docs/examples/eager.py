"""Eager ops: ``s4tf.*`` outside a staged function runs at once on the device."""

import numpy as np

import s4tf

x = s4tf.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))  # copied to the device once
y = s4tf.exp(x) * 2 + 1  # each op is compiled once per signature, then cached
print("type:", type(y).__name__, y.shape, y.dtype)
print("row sums:", np.asarray(s4tf.sum(y, axis=1)))  # host copy only here
print("matches NumPy:", np.allclose(np.asarray(y), np.exp(np.arange(6.0).reshape(2, 3)) * 2 + 1, rtol=1e-6))

# Python scalars are weak: they take the tensor's dtype; host lists follow NumPy (float64).
print("x * 2 dtype:", (x * 2).dtype)
print("asarray([1.0, 2.0]) dtype:", s4tf.asarray([1.0, 2.0]).dtype)
print("asarray([1.0, 2.0], dtype=float32) dtype:", s4tf.asarray([1.0, 2.0], dtype=s4tf.float32).dtype)

# Indexing, reductions and methods work the same eagerly and staged.
print("x[1, ::2]:", np.asarray(x[1, ::2]).tolist())
print("argmax of each row:", np.asarray(s4tf.argmax(x, axis=1)).tolist())
