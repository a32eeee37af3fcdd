"""docs/nn.md's example: a model as a value, a compiled training step, a checkpoint."""

import tempfile
from pathlib import Path

import numpy as np

import s4tf
from s4tf import nn, optim
from s4tf.checkpoint import load_checkpoint, save_checkpoint
from s4tf.data import batches, load_digits

(x_train, y_train), (x_test, y_test) = load_digits(image_size=8)  # 8x8 images, no resizing
model = nn.Sequential([nn.Flatten(), nn.Dense(64, 32, activation=s4tf.relu, seed=0), nn.Dense(32, 10, seed=1)])
opt = optim.Adam(lr=1e-2)
opt_state = opt.init(model)


@s4tf.function
def train_step(model, opt_state, x, y):
    loss, grads = s4tf.value_and_grad(lambda m: nn.softmax_cross_entropy(m(x), y))(model)
    model, opt_state = opt.update(model, opt_state, grads)  # new values; the old ones are untouched
    return model, opt_state, loss


first = None
for epoch in range(5):
    for x, y in batches((x_train, y_train), 32, seed=0, epoch=epoch):
        model, opt_state, loss = train_step(model, opt_state, x, y)
        first = float(loss) if first is None else first
print(f"loss went down: {float(loss) < first / 4}")
accuracy = float(nn.accuracy(model(x_test), y_test))
print(f"test accuracy above 90%: {accuracy > 0.9}")

grads = s4tf.grad(lambda m: nn.softmax_cross_entropy(m(x_test), y_test))(model)
print(f"the gradient is a model too: {type(grads).__name__} of {[type(layer).__name__ for layer in grads.layers]}")

with tempfile.TemporaryDirectory() as folder:
    path = save_checkpoint(Path(folder) / "mlp.npz", {"model": model, "opt": opt_state}, epoch=4)
    restored, info = load_checkpoint(path, like={"model": model, "opt": opt_state})
same = np.array_equal(np.asarray(restored["model"](x_test)), np.asarray(model(x_test)))
print(f"checkpoint after epoch {info['epoch']} restores the same predictions: {same}")
