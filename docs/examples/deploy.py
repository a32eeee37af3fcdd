"""Deployment: one function compiled for the host and for phones, weights apart from code,
run with ``s4tf.load`` and with the ``s4tf-compile``/``s4tf-run`` tools (docs/targets.md)."""

import os
import tempfile
from pathlib import Path

import numpy as np

import s4tf
from s4tf.tools.compile import run as s4tf_compile
from s4tf.tools.run import run as s4tf_run


def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


rng = np.random.default_rng(0)
w = rng.standard_normal((3, 2)).astype(np.float32)
b = rng.standard_normal(2).astype(np.float32)
x = rng.standard_normal((4, 3)).astype(np.float32)

os.chdir(tempfile.mkdtemp())
for target in ("cpu", "android-arm64"):
    module = s4tf.compile(predict, (w, b, x), target=target, weights=(0, 1), entry_points=("predict", "predict_vjp"))
    path = module.save(f"predict-{target}.vmfb")  # and predict-<target>.irpa: the weights; .sha256: checksums
    print(f"{target}: {sorted(p.name for p in Path().glob(f'predict-{target}.*'))}")

m = s4tf.load("predict-cpu.vmfb", device="cpu")
print("host run matches NumPy:", np.allclose(np.asarray(m.predict(x)), np.tanh(x @ w + b), atol=1e-6))

try:
    s4tf.load("predict-android-arm64.vmfb", device="cpu")
except s4tf.S4tfError as error:
    print("arm64 module on this machine:", str(error).split(";")[0])

# The same with the command-line tools: a .py file's function with argument shapes.
Path("model.py").write_text("import s4tf\n\ndef predict(w, b, x):\n    return s4tf.tanh(x @ w + b)\n")
np.save("x.npy", x)
print("s4tf-compile exit code:", s4tf_compile(["model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]", "--arg", "f32[4,3]", "-o", "tool.vmfb"]))
np.save("w.npy", w)
np.save("b.npy", b)
print("s4tf-run exit code:", s4tf_run(["tool.vmfb", "--input", "@w.npy", "--input", "@b.npy", "--input", "@x.npy", "--output", "@y.npy"]))
print("s4tf-run output matches NumPy:", np.allclose(np.load("y.npy"), np.tanh(x @ w + b), atol=1e-6))
