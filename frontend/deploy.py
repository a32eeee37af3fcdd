"""Deployment: compile a staged function into a ``.vmfb`` for a target, save it, load it.

```python
mod = s4tf.compile(predict, (w, b, x), target="android-arm64", weights=(0, 1))
mod.save("predict.vmfb")                  # also predict.irpa: the weights, apart from the code
m = s4tf.load("predict.vmfb", device="cpu")   # a module built for the CPU
y = m.predict(x)                          # weights come from predict.irpa
m.driver                                  # "local-sync": IREE's driver, as the module chose it
s4tf.load("predict.vmfb", device="local-task")  # or as you choose it
```

The module exports the function itself and the ``entry_points`` named beside it;
``predict_jvp`` and ``predict_vjp`` are built by the AD passes when asked for
(derivatives with respect to every float argument), so
``entry_points=("predict_vjp",)`` gives a module with ``predict`` and ``predict_vjp``.
``weights`` are argument positions whose example values become the module's weights: stored in a parameter archive (``.irpa``) read at load time, or
embedded in the code with ``embed_weights=True``. Swap the archive
(``s4tf.load(..., parameters="other.irpa")``) to change weights without recompiling;
:func:`save_parameters` writes one:

```python
s4tf.save_parameters("other.irpa", {"w": w2, "b": b2})   # the keys the module reads
s4tf.load_parameters("predict.irpa")                      # {"w": array, "b": array}
```

A weight's key is the name of its argument (``w``); the arrays of a pytree argument
(``model``) are ``model.0``, ``model.1``, ... in ``s4tf.pytree.flatten`` order.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from s4tf import pytree
from s4tf.dialects.symbols import find_function
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.passes.module_traits import ModuleTraits
from s4tf.passes.autodiff.derivatives import Jvp, Vjp
from s4tf.passes.pipeline import Pipeline, lowering_pipeline, run_pipeline
from s4tf.passes.autodiff.naming import WRT, float_arguments, indices_attribute
from s4tf.runtime.checksum import verify_sidecar, write_sidecar
from s4tf.runtime.compiler import check_memory, compile_stablehlo
from s4tf.runtime.device import LoadedModule, ModuleDescription, describe_module
from s4tf.runtime.deployment import Weight, export_module
from s4tf.runtime.loop_driver import driver_for
from s4tf.runtime import parameters as archives
from s4tf.runtime.targets import CPU_DRIVERS, get_target, split_device, target_cpu
from s4tf.staging.function import Lowered, StagedFunction, module_input
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import Static, leaf_spec


@dataclass
class DeployableModule:
    """A module compiled for ``target``: code (``vmfb``) and, unless embedded, weights."""

    vmfb: bytes
    target: str
    entry_points: tuple[str, ...]
    parameters: dict[str, np.ndarray] = field(default_factory=dict)

    def save(self, path) -> Path:
        """Write ``path`` (the ``.vmfb``) and, with weights apart, ``path`` with ``.irpa``;
        each with its checksum beside it (``.vmfb.sha256``, ``.irpa.sha256``)."""
        path = Path(path)
        path.write_bytes(self.vmfb)
        write_sidecar(path)
        if self.parameters:
            archives.save_parameters(path.with_suffix(".irpa"), self.parameters)
        return path


def stage(fn, example_args) -> Lowered:
    """``fn`` (a Python function or ``@s4tf.function``) staged for ``example_args``."""
    staged = fn if isinstance(fn, StagedFunction) else StagedFunction(fn)
    try:
        signature = inspect.signature(staged.python_fn)
    except (TypeError, ValueError):  # no Python signature: let tracing judge
        return staged.lower(*example_args)
    try:
        signature.bind(*example_args)
    except TypeError as error:
        raise S4tfError(
            f"{staged.__name__}{signature} cannot be called with {len(example_args)} example arguments: {error}"
        ) from None
    return staged.lower(*example_args)


def exported_functions(entry: str, entry_points) -> tuple[str, ...]:
    """The staged function ``entry`` and then the ``entry_points`` asked for beside it:
    ``("predict_vjp",)`` exports ``predict`` and ``predict_vjp``."""
    return tuple(dict.fromkeys((entry, *(entry_points or ()))))


#: Derived entry points and the pass that builds them: ``predict_vjp`` from ``predict``.
DERIVATIVE_PASSES = {"_jvp": Jvp(), "_vjp": Vjp()}


def lower_for(lowered: Lowered, target: str, entry_points) -> str:
    """``lowered`` as StableHLO text for ``target`` (see :func:`lowered_module_for`)."""
    return str(lowered_module_for(lowered, target, entry_points))


def lowered_module_for(lowered: Lowered, target: str, entry_points) -> ir.Operation:
    """A copy of ``lowered`` in StableHLO for ``target``, checked for availability, after
    adding the derivative functions that ``entry_points`` ask for (see :func:`add_derivatives`)."""
    add_derivatives(lowered, entry_points)
    return lowered.lowered_module(lowering_pipeline(target))


def add_derivatives(lowered: Lowered, entry_points) -> None:
    """Build ``<entry>_jvp`` / ``<entry>_vjp`` in ``lowered`` (with respect to every float
    argument) when ``entry_points`` name them, and make the entry points public."""
    missing = [name for name in entry_points if find_function(lowered.module, name) is None]
    passes = [name for suffix, name in DERIVATIVE_PASSES.items() if lowered.entry + suffix in missing]
    if not passes:
        return
    primal = find_function(lowered.module, lowered.entry)
    with lowered.context:
        primal.attributes[WRT] = indices_attribute(float_arguments(primal))
        run_pipeline(lowered.module.operation, Pipeline(passes), failure=f"differentiating '{lowered.entry}' failed:")
        for name in entry_points:
            function = find_function(lowered.module, name)
            if function is not None:
                function.attributes["sym_visibility"] = ir.StringAttr.get("public")


def weights_of(fn, example_args, argnums) -> dict[int, Weight]:
    """The flat input positions of the arguments ``argnums`` and their weights, keyed by the
    parameter's name (``w``; ``params.0``, ``params.1``, ... for a pytree argument)."""
    python_fn = fn.python_fn if isinstance(fn, StagedFunction) else fn
    try:
        names = list(inspect.signature(python_fn).parameters)
    except (TypeError, ValueError):
        names = []
    unknown = [n for n in argnums if not 0 <= n < len(example_args)]
    if unknown:
        raise S4tfError(f"weights {unknown} are not argument positions of {len(example_args)} example arguments")
    found, position = {}, 0
    for index, argument in enumerate(example_args):
        named = weight_arrays(names[index] if index < len(names) else f"arg{index}", argument)
        if index in argnums:
            found.update({position + offset: Weight(*item) for offset, item in enumerate(named.items())})
        position += len(named)
    return found


def weight_arrays(name: str, value) -> dict[str, np.ndarray]:
    """The archive keys and arrays of the argument ``name`` holding ``value``: ``name`` for
    one array, ``name.0``, ``name.1``, ... for a pytree of several (static leaves skipped)."""
    leaves, _ = pytree.flatten(value)
    tensors = [np.asarray(leaf) for leaf in leaves if not isinstance(leaf_spec(leaf), Static)]
    return {name if len(tensors) == 1 else f"{name}.{offset}": leaf for offset, leaf in enumerate(tensors)}


def save_parameters(path, weights: dict) -> Path:
    """Write ``weights`` (argument name -> array, Tensor or pytree of them) as the parameter
    archive (``.irpa``, and its ``.sha256``) that a module compiled with ``weights=`` reads;
    keys as :func:`weight_arrays` names them."""
    arrays = {}
    try:
        for name, value in weights.items():
            try:
                arrays.update(weight_arrays(name, value))
            except S4tfError as error:
                raise archives.ParameterArchiveError(f"cannot write parameter '{name}' to {path}: {error}") from None
        return archives.save_parameters(path, arrays)
    except S4tfError as error:
        raise error.with_traceback(None) from None


def load_parameters(path) -> dict[str, np.ndarray]:
    """The arrays of the parameter archive at ``path``, by key (see :func:`save_parameters`)."""
    try:
        return archives.load_parameters(path)
    except S4tfError as error:
        raise error.with_traceback(None) from None


def build(stablehlo, target: str, entry_points, weights: dict[int, Weight], embed_weights: bool, target_flags=(),
          staged: ir.Operation | None = None) -> DeployableModule:
    """Export ``entry_points`` of a lowered module (text, or a module changed in place) and
    compile it for ``target``. A CPU module records the IREE driver it runs best on
    (:func:`s4tf.runtime.loop_driver.driver_for`, as for ``@s4tf.function``); a tensor
    larger than this machine's memory is a ``ShapeError`` before IREE runs, for a target
    that runs here (:func:`s4tf.runtime.compiler.check_memory`; ``staged``: the s4tf module
    it was lowered from, whose ops that error names)."""
    cpu = target_cpu(target, target_flags)
    parsed = isinstance(stablehlo, str)
    text = stablehlo if parsed else str(stablehlo)
    traits = ModuleTraits.parse(text) if parsed else ModuleTraits.of(stablehlo)
    check_memory(text, traits, target, None if parsed else stablehlo, staged)  # at the user's line
    driver = get_target(target).driver
    driver = driver_for(traits, driver) if driver in CPU_DRIVERS else None
    exported = export_module(stablehlo, target, entry_points, weights, archive=not embed_weights, cpu=cpu, driver=driver)
    exported_traits = None if parsed else ModuleTraits.of(stablehlo)  # export changed the module in place
    vmfb = compile_stablehlo(exported, target, extra_flags=target_flags, traits=exported_traits)
    parameters = {} if embed_weights else {w.key: w.value for w in weights.values()}
    return DeployableModule(vmfb, target, tuple(entry_points), parameters)


def compile(fn, example_args, *, target="cpu", entry_points=None, weights=(), embed_weights=False, target_flags=()) -> DeployableModule:  # noqa: A001
    """Compile ``fn`` for ``target`` (see the module docstring)."""
    try:
        get_target(target)
        lowered = stage(fn, example_args)
        entry_points = exported_functions(lowered.entry, entry_points)
        stablehlo = lowered_module_for(lowered, target, entry_points)
        found = weights_of(fn, example_args, tuple(weights))
        return build(stablehlo, target, entry_points, found, embed_weights, target_flags, lowered.module.operation)
    except S4tfError as error:
        raise error.with_traceback(None) from None


class DeployedModule:
    """A loaded ``.vmfb``: each exported function is an attribute, returning Tensors."""

    def __init__(self, module: LoadedModule):
        self._module = module
        self.functions = list(module.function_names)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._module.function_names:
            raise AttributeError(f"module has no function '{name}'; its functions: {', '.join(self._module.function_names)}")
        return lambda *inputs: self.call(name, *inputs)

    def call(self, function: str, *inputs):
        """Run ``function``; one Tensor for one result, else a tuple of Tensors."""
        arguments = [module_input(value, self._module.device) for value in inputs]
        results = [Tensor(r, self._module.target) for r in self._module.invoke(function, arguments)]
        return results[0] if len(results) == 1 else tuple(results)

    @property
    def driver(self) -> str:
        """The IREE driver running the module (``local-sync``, ``local-task``, ``vulkan``, ``cuda``)."""
        return self._module.driver

    def __repr__(self):
        return (f"<s4tf deployed module {self._module.name}: {', '.join(self.functions)} on {self._module.device} "
                f"({self._module.driver})>")


def load_module(path, device: str = "cpu", parameters=None) -> LoadedModule:
    """The ``.vmfb`` at ``path`` loaded on ``device``, with weights from ``parameters`` (a
    ``.irpa``) or else the archive saved beside it, if there is one and the module reads
    one. Each file is checked against its checksum, when it has one. ``device`` is a
    device (``cpu``: on the IREE driver the module records) or one of the CPU's drivers
    (``local-sync``, ``local-task``: that one)."""
    device, driver = split_device(device)
    path = Path(path)
    vmfb = _read_checked(path)
    beside = path.with_suffix(".irpa")
    return LoadedModule(vmfb, device, parameters, source=str(path), parameters_beside=beside if beside.exists() else None,
                        driver=driver)


def describe(path) -> ModuleDescription:
    """What the ``.vmfb`` at ``path`` declares (functions, target, parameters), for a module
    of any target: nothing is loaded on a device."""
    path = Path(path)
    return describe_module(_read_checked(path), str(path))


def _read_checked(path: Path) -> bytes:
    """The bytes of ``path``, checked against its checksum when it has one."""
    try:
        vmfb = path.read_bytes()
    except OSError as error:
        raise S4tfError(f"cannot read {path}: {error.strerror}") from None
    verify_sidecar(path, vmfb)
    return vmfb


def load(path, device: str = "cpu", parameters=None) -> DeployedModule:
    """Load a ``.vmfb`` on ``device``: ``cpu``, ``vulkan``, ``cuda``, or a CPU driver,
    ``local-sync`` or ``local-task`` (see :func:`load_module`)."""
    try:
        return DeployedModule(load_module(path, device, parameters))
    except S4tfError as error:
        raise error.with_traceback(None) from None
