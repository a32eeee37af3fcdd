"""``s4tf.example_libraries.stax``: ``jax.example_libraries.stax``'s layers. A layer is a
pair ``(init_fun, apply_fun)``: ``init_fun(rng, input_shape)`` returns ``(output_shape,
params)``, ``apply_fun(params, inputs, **kwargs)`` the outputs. With the same key, the
parameters are JAX's (``s4tf.random`` draws JAX's numbers).

```python
import numpy as np, s4tf
from s4tf.example_libraries import stax

init_fun, apply_fun = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(2), stax.LogSoftmax)
output_shape, params = init_fun(s4tf.random.key(0), (-1, 4))
logits = apply_fun(params, np.ones((3, 4), np.float32))
```
"""

from __future__ import annotations

import functools

import numpy as np

from s4tf import lax, random
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import OpAttributeError
from s4tf.nn import activations
from s4tf.nn.checks import layer_error
from s4tf.nn.initializers import draw_scaled


# -- initializers, with jax.nn.initializers' signature (key, shape, dtype) --------------------


def glorot_normal(in_axis=-2, out_axis=-1):
    return functools.partial(draw_scaled, mode="fan_avg", in_axis=in_axis, out_axis=out_axis)


def normal(stddev=1e-2):
    return lambda key, shape, dtype=np.float32: random.normal(key, tuple(shape), dtype) * np.asarray(stddev, dtype)


def zeros(key, shape, dtype=np.float32):
    return snp.zeros(tuple(shape), dtype)


def ones(key, shape, dtype=np.float32):
    return snp.ones(tuple(shape), dtype)


# -- layers --------------------------------------------------------------------------------


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):  # noqa: N802, N803  (stax's names)
    """``inputs @ W + b``."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        return (*input_shape[:-1], out_dim), (W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params  # noqa: N806
        return snp.matmul(inputs, W) + b

    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID", W_init=None,  # noqa: N802, N803
                b_init=normal(1e-6)):
    """A 2-D convolution (``lax.conv_general_dilated``) plus a bias."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))  # noqa: N806

    def init_fun(rng, input_shape):
        sizes = iter(filter_shape)
        kernel_shape = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(sizes) for c in rhs_spec]
        spatial = [input_shape[lhs_spec.index(c)] for c in rhs_spec if c not in "OI"]
        pairs = lax._window_padding(padding, spatial, filter_shape, strides)
        sizes = iter([(n + low + high - k) // s + 1 for n, (low, high), k, s in zip(spatial, pairs, filter_shape, strides)])
        output_shape = tuple(input_shape[lhs_spec.index("N")] if c == "N" else out_chan if c == "C" else next(sizes)
                             for c in out_spec)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, [out_chan if c == "C" else 1 for c in out_spec]))

    def apply_fun(params, inputs, **kwargs):
        W, b = params  # noqa: N806
        return lax.conv_general_dilated(inputs, W, strides, padding, one, one, dimension_numbers=dimension_numbers) + b

    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def elementwise(fun, **fun_kwargs):
    """A layer without parameters applying ``fun`` to its inputs."""
    return (lambda rng, input_shape: (input_shape, ())), (lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs))


Tanh = elementwise(snp.tanh)
Relu = elementwise(activations.relu)
Exp = elementwise(snp.exp)
LogSoftmax = elementwise(activations.log_softmax, axis=-1)
Softmax = elementwise(activations.softmax, axis=-1)
Softplus = elementwise(activations.softplus)
Sigmoid = elementwise(activations.sigmoid)
Elu = elementwise(activations.elu)
LeakyRelu = elementwise(activations.leaky_relu)
Selu = elementwise(activations.selu)
Gelu = elementwise(activations.gelu)


def _pooling_layer(reducer, init_value, average=False):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):  # noqa: N802
        strides = tuple(strides or (1,) * len(window_shape))
        spatial_window, spatial_strides = tuple(window_shape), strides
        non_spatial = (0, len(window_shape) + 1) if spec is None else (spec.index("N"), spec.index("C"))
        window, steps = list(window_shape), list(strides)
        for i in sorted(non_spatial):
            window.insert(i, 1)
            steps.insert(i, 1)

        def init_fun(rng, input_shape):
            pairs = lax._window_padding(padding, input_shape, window, steps)
            return tuple((n + low + high - w) // s + 1 for n, (low, high), w, s in zip(input_shape, pairs, window, steps)), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_value, reducer, window, steps, padding)
            if not average:
                return out
            spatial_shape = tuple(n for i, n in enumerate(inputs.shape) if i not in non_spatial)
            counts = lax.reduce_window(snp.ones(spatial_shape, inputs.dtype), 0.0, lax.add, spatial_window, spatial_strides,
                                       padding)
            for i in sorted(non_spatial):
                counts = snp.expand_dims(counts, i)
            return out / counts

        return init_fun, apply_fun

    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -np.inf)
SumPool = _pooling_layer(lax.add, 0.0)
AvgPool = _pooling_layer(lax.add, 0.0, average=True)


def _flatten_init(rng, input_shape):
    return (input_shape[0], int(np.prod(input_shape[1:]))), ()


Flatten = (_flatten_init, lambda params, inputs, **kwargs: snp.reshape(inputs, (inputs.shape[0], -1)))
Identity = (lambda rng, input_shape: (input_shape, ())), (lambda params, inputs, **kwargs: inputs)


def FanOut(num):  # noqa: N802
    """``num`` copies of the input."""
    return (lambda rng, input_shape: ([input_shape] * num, ())), (lambda params, inputs, **kwargs: [inputs] * num)


FanInSum = (lambda rng, input_shape: (input_shape[0], ())), (lambda params, inputs, **kwargs: functools.reduce(snp.add, inputs))


def FanInConcat(axis=-1):  # noqa: N802
    """The inputs concatenated along ``axis``."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return (*input_shape[0][:ax], size, *input_shape[0][ax + 1:]), ()

    return init_fun, lambda params, inputs, **kwargs: snp.concatenate(inputs, axis=axis)


def Dropout(rate, mode="train"):  # noqa: N802
    """Keeps each input with probability ``rate`` (stax's meaning: the keep rate), scaled by
    ``1 / rate``, in ``"train"`` mode; the identity otherwise. As stax's, ``apply_fun`` needs
    ``rng=`` in either mode."""
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng")
        if rng is None:
            raise layer_error("stax.Dropout needs apply_fun(params, inputs, rng=key)", OpAttributeError)
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return snp.where(keep, inputs / rate, 0.0)

    return Identity[0], apply_fun


def serial(*layers):
    """The layers one after another; ``rng=`` is split among them."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        for fun, param, layer_rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers):
    """Each layer on its own input (a sequence of as many inputs)."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        return tuple(zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]))

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]

    return init_fun, apply_fun


__all__ = [
    "AvgPool", "Conv", "Dense", "Dropout", "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu",
    "GeneralConv", "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu", "Selu", "Sigmoid", "Softmax", "Softplus",
    "SumPool", "Tanh", "elementwise", "glorot_normal", "normal", "ones", "parallel", "serial", "zeros",
]
