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
from s4tf.nn.losses import accuracy, softmax_cross_entropy
from s4tf.staging.function import StagedFunction, function


def classification_loss(model, x, labels):
    return softmax_cross_entropy(model(x), labels)


def train_step(opt, loss=classification_loss) -> StagedFunction:
    """``step(model, opt_state, x, labels) -> (model, opt_state, loss, batch accuracy)``, staged.

    The model and the optimizer state are donated (:mod:`s4tf.staging.donation`): the new ones are
    written into the old ones' device buffers, so the tensors passed in cannot be read
    after the call (NumPy arrays passed in are copied and stay as they were)."""

    def step(model, opt_state, x, labels):
        value, grads = value_and_grad(loss)(model, x, labels)
        batch_accuracy = accuracy(model(x), labels)  # before the update, as the loss
        model, opt_state = opt.update(model, opt_state, grads)
        return model, opt_state, value, batch_accuracy

    step.__name__ = "train_step"
    return function(step, donate_argnums=(0, 1))


@function
def evaluate(model, x, labels):
    """``(loss, accuracy)`` of ``model`` on ``(x, labels)``."""
    logits = model(x)
    return softmax_cross_entropy(logits, labels), accuracy(logits, labels)
