"""Graph program extraction: host calls inside a staged function run in Python while the
device works (docs/extraction.md)."""

import warnings
from pathlib import Path

import numpy as np

import s4tf

histograms = []


def log_histogram(logits):  # a host function: NumPy arrays in, NumPy arrays out
    histograms.append(np.histogram(logits, bins=4)[0])


def cpu_solver(logits):
    return np.linalg.solve(np.eye(4) * 2.0 + 1.0, logits.T).T.astype(np.float32)


@s4tf.function(extract=True, warn_transfers=True)
def step(w, x):
    logits = s4tf.tanh(x @ w)                               # device
    s4tf.host(log_histogram, result=())(logits)             # receive logits, run in Python
    plan = s4tf.host(cpu_solver)(logits)                    # send the result back
    return logits - 0.5 * plan                              # device again


rng = np.random.default_rng(0)
w = rng.standard_normal((3, 4)).astype(np.float32)
x = rng.standard_normal((8, 3)).astype(np.float32)

print(step.partitioned(w, x))

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = step(w, x)  # returns at once; reading y waits for the device and the host calls
for warning in caught:
    print(f"{Path(warning.filename).name}:{warning.lineno}: {warning.message}")

logits = np.tanh(x @ w)
print("matches NumPy:", np.allclose(np.asarray(y), logits - 0.5 * cpu_solver(logits), atol=1e-5))
print("histograms logged:", len(histograms))
print("bytes copied:", step.bytes_transferred)

# A training loop that logs its loss every step from inside the step: each call returns
# before its host work ran, so the host logs step i while the device computes step i + 1.
losses = []


def log_loss(loss):
    losses.append(float(loss))


def loss_fn(w, x, y):
    return s4tf.mean((x @ w - y) ** 2)


@s4tf.function(extract=True)
def train_step(w, x, y):
    loss, grad = s4tf.value_and_grad(loss_fn)(w, x, y)
    s4tf.host(log_loss, result=())(loss)
    return w - 0.1 * grad


target = x @ w
v = np.zeros_like(w)
for _ in range(20):
    v = train_step(v, x, target)  # v stays on the device, chained from call to call
v.block_until_ready()
print("losses logged:", len(losses), "decreasing:", all(b < a for a, b in zip(losses, losses[1:])))
