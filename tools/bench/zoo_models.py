"""The model zoo's scripts (``docs/examples/zoo/<name>.py``), loaded by name for the zoo's
tests and ``bench_zoo.py`` (the scripts are examples for readers, not an installed package),
and their training steps run beside their JAX peers' (``zoo_peers/``)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, NamedTuple

import jax
import numpy as np

ZOO = Path(__file__).resolve().parents[2] / "docs" / "examples" / "zoo"


def zoo_names() -> list[str]:
    """The zoo's models, one per script."""
    return sorted(path.stem for path in ZOO.glob("*.py") if not path.stem.startswith("_"))


def load_zoo_model(name: str) -> ModuleType:
    """The script ``docs/examples/zoo/<name>.py`` as a module (its ``main`` is not run)."""
    path = ZOO / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"no zoo model {name!r}: the zoo has {', '.join(zoo_names())}")
    spec = importlib.util.spec_from_file_location(f"zoo_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


class SideBySide(NamedTuple):
    """Losses of the same training steps in s4tf (``got``) and JAX (``wanted``), and what
    ``observe`` saw of each side's state after every step (``ours``, ``theirs``)."""

    got: list
    wanted: list
    ours: list
    theirs: list


def fresh_training_state(zoo: ModuleType, config: dict) -> tuple:
    """``(model, opt, opt_state)``: the zoo model's fresh weights, its optimizer and that
    optimizer's initial state."""
    model, opt = zoo.make_model(config), zoo.make_optimizer(config)
    two = type(opt) is tuple  # the DCGAN: an optimizer per network (a transformation is a NamedTuple)
    return model, opt, tuple(o.init(part) for o, part in zip(opt, model)) if two else opt.init(model)


def steps_beside_jax(zoo: ModuleType, config: dict, jax_train_step: Callable, steps: int = 3,
                     observe: tuple[Callable, Callable] | None = None) -> SideBySide:
    """Run ``steps`` training steps of the zoo model ``zoo`` (its ``make_model``,
    ``make_optimizer``, ``make_batch`` and ``make_train_step``) and of its JAX peer
    (``zoo_peers.<name>.jax_train_step``) from the same weights and batches, JAX in float32.
    ``observe = (ours, theirs)`` reads each side's state after every step: ``ours(model)``,
    ``theirs(jax_state)``, kept as NumPy copies (both sides donate their state)."""
    model, opt, opt_state = fresh_training_state(zoo, config)
    batches = [zoo.make_batch(config, index) for index in range(steps)]
    record = SideBySide([], [], [], [])
    with jax.enable_x64(False):  # tests elsewhere in the process may have turned float64 on
        init, jax_step = jax_train_step(config, model, opt)
        state = init(model)
        for batch in batches:
            state, loss = jax_step(state, *batch)
            record.wanted.append(jax.tree_util.tree_map(float, loss))
            if observe is not None:
                record.theirs.append(jax.tree_util.tree_map(np.array, observe[1](state)))  # copies: donated
    step = zoo.make_train_step(config)
    for batch in batches:
        model, opt_state, loss = step(model, opt_state, *batch)
        record.got.append(jax.tree_util.tree_map(float, loss))
        if observe is not None:
            record.ours.append(jax.tree_util.tree_map(np.array, observe[0](model)))
    print("s4tf", record.got, "JAX", record.wanted)
    return record


def statistics_equal(ours, theirs, rtol: float, atol: float, loose: tuple[str, ...] = ()) -> None:
    """Every leaf of ``ours`` (BatchNorm statistics in the JAX peer's layout) equals JAX's,
    naming the leaf that does not; leaves whose path holds a name in ``loose`` to 1e-2."""
    assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
    for (path, got), wanted in zip(jax.tree_util.tree_flatten_with_path(ours)[0], jax.tree_util.tree_leaves(theirs)):
        name = jax.tree_util.keystr(path)
        np.testing.assert_allclose(got, wanted, rtol=rtol, atol=1e-2 if any(part in name for part in loose) else atol,
                                   err_msg=name)
