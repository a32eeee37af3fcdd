"""Staging: look at what ``@s4tf.function`` builds, with source locations and name scopes."""

import numpy as np

import s4tf


@s4tf.function
def mlp(w1, b1, w2, b2, x):
    with s4tf.name_scope("hidden"):
        h = s4tf.relu(x @ w1 + b1)
    with s4tf.name_scope("logits"):
        return h @ w2 + b2


rng = np.random.default_rng(0)
w1, b1 = rng.standard_normal((3, 8)).astype(np.float32), np.zeros(8, np.float32)
w2, b2 = rng.standard_normal((8, 2)).astype(np.float32), np.zeros(2, np.float32)
x = rng.standard_normal((4, 3)).astype(np.float32)

lowered = mlp.lower(w1, b1, w2, b2, x)  # traced for this signature, not compiled
print("entry function:", lowered.entry)
print(lowered)  # the s4tf-dialect module
print(lowered.as_text(debug_info=True))  # the same, with file:line:col and name scopes
print(lowered.stablehlo())  # after s4tf-verify, s4tf-canonicalize, s4tf-lower-to-stablehlo, ...

y = mlp(w1, b1, w2, b2, x)  # now compiled by IREE (once per signature) and run
expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
print("matches NumPy:", np.allclose(np.asarray(y), expected, atol=1e-5))
