"""The model zoo on the GPU targets, at its test sizes: each model's training step on
``vulkan`` (Mesa's lavapipe) gives the ``cpu`` target's losses over three steps, and
compiles for ``cuda`` (and runs there, against the ``cpu`` target, where there is an NVIDIA
GPU). Minutes: run only when ``-m`` names ``zoo_gpus`` (``python -m pytest -m zoo_gpus -n 2
tests/examples/test_zoo_on_gpus.py``)."""

import numpy as np
import pytest
from zoo_models import fresh_training_state, load_zoo_model, zoo_names

import s4tf
from devices_here import needs_device
from s4tf.runtime.device import device_available

pytestmark = pytest.mark.zoo_gpus


def _losses(zoo, target: str, steps: int = 3) -> np.ndarray:
    config = zoo.CONFIGS["test"]
    model, _, state = fresh_training_state(zoo, config)
    step = s4tf.function(zoo.make_train_step(config).python_fn, target=target, donate_argnums=(0, 1))
    losses = []
    for k in range(steps):
        model, state, loss, *_ = step(model, state, *zoo.make_batch(config, k))
        losses.append(np.asarray(loss).ravel())
    return np.array(losses)


@pytest.mark.vulkan
@needs_device("vulkan")
@pytest.mark.parametrize("name", zoo_names())
def test_each_model_trains_on_vulkan_as_on_the_cpu(name):
    zoo = load_zoo_model(name)
    np.testing.assert_allclose(_losses(zoo, "vulkan"), _losses(zoo, "cpu"), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", zoo_names())
def test_each_models_step_compiles_for_cuda(name):
    zoo = load_zoo_model(name)
    if device_available("cuda"):
        np.testing.assert_allclose(_losses(zoo, "cuda"), _losses(zoo, "cpu"), rtol=1e-4, atol=1e-5)
        return
    config = zoo.CONFIGS["test"]
    model, _, state = fresh_training_state(zoo, config)
    assert s4tf.compile(zoo.make_train_step(config).python_fn, (model, state, *zoo.make_batch(config, 0)), target="cuda").entry_points
