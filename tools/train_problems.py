"""The training steps that ``s4tf-tune`` tunes and the benchmarks of ``tools/bench/`` time,
in s4tf and in JAX (issue 17).

```python
flops, x, y, step, opt = problem("mlp", BATCH["mlp"])   # random batch, Adam, the compiled step
model = fresh_model("mlp")                              # the same weights on every call
model, state, loss, accuracy = step(model, opt.init(model), x, y)
jstep = jax_step("mlp")                                 # the same step in JAX (a test dependency)
```

Models (``kind``): ``mlp``, the MLP 784-512-512-10; ``lenet``, LeNet-5 on 28x28x1; and
``transformer``, the encoder block of :mod:`s4tf.tools.transformer_block` (d 256, 4 heads,
seq 128). One step is the forward pass, softmax cross-entropy, reverse mode and an Adam
update of every parameter (``s4tf.nn.training.train_step``). ``BATCH``: the batch each
model is measured and tuned at.
"""

from __future__ import annotations

import numpy as np

from s4tf import nn
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.tools import transformer_block

LR = 1e-3
BATCH = {"mlp": 128, "lenet": 64, "transformer": 8}


def mlp_flops(batch: int, sizes=(784, 512, 512, 10)) -> int:
    return 3 * 2 * batch * sum(m * n for m, n in zip(sizes, sizes[1:]))


def lenet_flops(batch: int) -> int:
    """Multiply-adds of LeNet-5 on 28x28x1 ("same" 5x5 conv to 6, pool, 5x5 conv to 16, pool,
    dense 400-120-84-10), times 2 for flops and 3 for the step."""
    convs = 28 * 28 * 6 * 25 * 1 + 10 * 10 * 16 * 25 * 6
    dense = 400 * 120 + 120 * 84 + 84 * 10
    return 3 * 2 * batch * (convs + dense)


def fresh_model(kind: str):
    if kind == "transformer":
        return transformer_block.encoder_block()
    return nn.MLP((784, 512, 512, 10)) if kind == "mlp" else nn.LeNet5(in_channels=1, num_classes=10)


def problem(kind: str, batch: int, target: str = "cpu"):
    """``(flops, x, y, step, opt)``: a batch of random inputs and labels, the step compiled
    for ``target``."""
    rng = np.random.default_rng(0)
    shape = {"mlp": (batch, 784), "lenet": (batch, 28, 28, 1), "transformer": (batch, 128, 256)}[kind]
    flops = {"mlp": mlp_flops, "lenet": lenet_flops, "transformer": transformer_block.flops}[kind](batch)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    opt = Adam(LR)
    return flops, x, y, train_step(opt, target=target), opt


def model_leaves(model) -> list:
    """``[(kernel_or_weight, bias), ...]`` of the model's parametrized layers, as NumPy."""
    if isinstance(model, transformer_block.EncoderBlock):
        return [(np.asarray(a), np.asarray(b)) for a, b in transformer_block.parameter_pairs(model)]
    return [
        (np.asarray(layer.weight if hasattr(layer, "weight") else layer.filter), np.asarray(layer.bias))
        for layer in model.layers if hasattr(layer, "bias")
    ]


def jax_step(kind: str, donate: bool = False):
    """The same training step in JAX: ``step(params, m, v, t, x, y) -> (params, m, v, t, loss,
    accuracy)``, the batch's accuracy before the update, as ``s4tf.nn.training.train_step``
    returns it; ``donate=True``: the parameters and moments are donated."""
    import jax
    import jax.numpy as jnp

    def forward(params, x):
        if kind == "transformer":
            return transformer_block.jax_forward(params, x)
        if kind == "lenet":
            (k1, c1), (k2, c2), *dense = params
            def conv(x, kernel, padding):
                return jax.lax.conv_general_dilated(x, kernel, (1, 1), padding, dimension_numbers=("NHWC", "HWIO", "NHWC"))

            def pool(x):
                return jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4

            x = pool(jax.nn.relu(conv(x, k1, "SAME") + c1))
            x = pool(jax.nn.relu(conv(x, k2, "VALID") + c2))
            x = x.reshape(x.shape[0], -1)
        else:
            dense = params
        for i, (w, b) in enumerate(dense):
            x = x @ w + b
            if i < len(dense) - 1:
                x = jax.nn.relu(x)
        return x

    def loss_fn(params, x, y):
        logits = forward(params, x)
        loss = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
        return loss, jnp.mean((jnp.argmax(logits, axis=-1) == y).astype(jnp.float32))

    def step(params, m, v, t, x, y):
        (loss, accuracy), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        t = t + 1
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
        c1, c2 = 1 - 0.9**t, 1 - 0.999**t
        params = jax.tree.map(lambda p, m, v: p - LR * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), params, m, v)
        return params, m, v, t, loss, accuracy

    return jax.jit(step, donate_argnums=(0, 1, 2) if donate else ())


def jax_state(jax, model) -> list:
    """``[params, m, v, t]`` for :func:`jax_step`: ``model``'s weights and zero moments on
    JAX's device (two moment buffers, so that both may be donated)."""
    params = jax.device_put(model_leaves(model))
    m, v = (jax.tree.map(jax.numpy.zeros_like, params) for _ in range(2))
    return [params, m, v, jax.numpy.float32(0)]
