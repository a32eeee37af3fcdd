"""A classifier's training step compiled as one function: forward, reverse mode and the
optimizer update (the S4TF paper's Figure 7 loop body).

```python
step = train_step(optim.Adam(1e-3))
for x, y in batches((x_train, y_train), 64):
    model, opt_state, loss, accuracy = step(model, opt_state, x, y)
```
"""

from __future__ import annotations

from s4tf.transforms.autodiff import value_and_grad
from s4tf.nn.context import apply
from s4tf.nn.losses import accuracy, softmax_cross_entropy
from s4tf.staging.function import StagedFunction, function


def classification_loss(model, x, labels):
    return softmax_cross_entropy(model(x), labels)


def loss_and_gradients(model, x, labels, loss=softmax_cross_entropy, key=None):
    """``(loss, batch accuracy, model with its new state, gradients)`` of one forward pass
    in training (:func:`s4tf.nn.apply`: BatchNorm uses the batch's statistics and records
    new running ones, Dropout draws from ``key``) and its reverse; ``loss(logits, labels)``."""

    def objective(model):
        logits, updated = apply(model, x, training=True, key=key)
        return loss(logits, labels), (updated, logits)

    (value, (model, logits)), grads = value_and_grad(objective, has_aux=True)(model)
    return value, accuracy(logits, labels), model, grads


def train_step(opt, loss=softmax_cross_entropy, target: str = "cpu") -> StagedFunction:
    """``step(model, opt_state, x, labels, key=None) -> (model, opt_state, loss, batch
    accuracy)``, staged for ``target`` (``"cuda"``: an NVIDIA GPU): :func:`loss_and_gradients`
    (``loss(logits, labels)``; the model in training, so BatchNorm's running statistics come
    back updated; ``key`` seeds Dropout, e.g. the step number, traced) and the optimizer's
    update.

    The model and the optimizer state are donated (:mod:`s4tf.staging.donation`): the new ones are
    written into the old ones' device buffers, so the tensors passed in cannot be read
    after the call (NumPy arrays passed in are copied and stay as they were)."""

    def step(model, opt_state, x, labels, key=None):
        value, batch_accuracy, model, grads = loss_and_gradients(model, x, labels, loss, key)
        model, opt_state = opt.update(model, opt_state, grads)
        return model, opt_state, value, batch_accuracy

    step.__name__ = "train_step"
    return function(step, target=target, donate_argnums=(0, 1))


@function
def evaluate(model, x, labels):
    """``(loss, accuracy)`` of ``model`` on ``(x, labels)``."""
    logits = model(x)
    return softmax_cross_entropy(logits, labels), accuracy(logits, labels)
