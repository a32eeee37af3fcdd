"""``s4tf-run``: run a function of a compiled module (``.vmfb``) on a device.

```
s4tf-run mlp.vmfb --function predict --input @x.npy --output @y.npy --device cpu
s4tf-run mlp.vmfb --input '[[1, 2, 3]]'                 # one function: no --function needed
s4tf-run mlp.vmfb --input @x.npy --parameters new.irpa  # other weights, same code
s4tf-run mlp.vmfb --list                                 # functions, types, weights it reads
s4tf-run mlp-android-arm64.vmfb --input @x.npy          # under qemu-aarch64 on other CPUs
s4tf-run mlp.vmfb --input @x.npy --device local-sync -v  # IREE's CPU driver chosen, and said
s4tf-run --install-arm64-runtime                         # once: the aarch64 runtime for that
```

Inputs are ``.npy`` files (``@x.npy``) or literals (``'[1, 2]'``, ``3.5``; converted to
the dtype the function declares). Each result goes to the next ``--output @file.npy``,
or to stdout. A module for arm64 CPUs runs on another machine under ``qemu-aarch64``
(Debian's ``qemu-user``) with IREE's aarch64 ``iree-run-module``. On the CPU, host or
qemu, a module runs on the IREE driver it recorded when compiled (``local-sync`` for
loop-bound and small modules: :mod:`s4tf.runtime.loop_driver`), or on the one
``--device local-sync|local-task`` names. A module built for
another target, a corrupt file, a missing function or wrong input shapes give a one-line
error and exit code 1.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import numpy as np

from s4tf.deploy import describe, load_module
from s4tf.dialects.types import to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.runtime.cache import default_cache_dir
from s4tf.runtime.device import InvocationError, ModuleDescription, choose_archive, default_driver
from s4tf.runtime.parameters import SCOPE, check_archive
from s4tf.runtime.qemu import Arm64Runner, aarch64_run_module
from s4tf.runtime.targets import CPU_DRIVERS, DEVICES, TARGETS, split_device
from s4tf.runtime.transfer import to_host
from s4tf.tools.cli import add_version, report_errors, table


def type_text(shape, dtype: str) -> str:
    return "tensor<" + "".join(f"{'?' if d is None else d}x" for d in shape) + f"{dtype}>"


def read_input(spec: str, dtype: str) -> np.ndarray:
    """``@x.npy`` -> the file's array; a literal -> an array of the declared ``dtype``."""
    if spec.startswith("@"):
        try:
            return np.load(spec[1:], allow_pickle=False)
        except (OSError, ValueError) as error:
            raise InvocationError(f"cannot read input {spec}: {error}") from None
    try:
        value = ast.literal_eval(spec)
    except (ValueError, SyntaxError):
        raise InvocationError(f"bad input '{spec}': give @file.npy or a literal like '[1, 2]' or 3.5") from None
    try:
        return np.asarray(value, dtype=to_numpy_dtype(dtype))
    except (S4tfError, TypeError, ValueError):
        return np.asarray(value)


def read_inputs(expected: list, function: str, specs: list[str]) -> list[np.ndarray]:
    """The inputs for ``function``, checked against the ``(shape, dtype)`` it declares."""
    if len(specs) != len(expected):
        declared = ", ".join(type_text(*t) for t in expected) or "none"
        raise InvocationError(f"'{function}' takes {len(expected)} input(s) ({declared}), got {len(specs)}")
    arrays = [read_input(spec, dtype) for spec, (_, dtype) in zip(specs, expected)]
    for index, (array, (shape, dtype)) in enumerate(zip(arrays, expected)):
        shape_fits = len(shape) == array.ndim and all(d is None or d == n for d, n in zip(shape, array.shape))
        try:
            dtype_fits = np.dtype(to_numpy_dtype(dtype)) == array.dtype
        except S4tfError:
            dtype_fits = True  # a dtype s4tf does not name: let IREE judge
        if not (shape_fits and dtype_fits):
            raise InvocationError(
                f"input {index} of '{function}' is {array.dtype}{list(array.shape)}, "
                f"but the function takes {type_text(shape, dtype)}"
            )
    return arrays


def choose_function(path: str, names: list[str], requested: str | None) -> str:
    if requested:
        if requested not in names:
            raise InvocationError(f"{path} has no function '{requested}'; its functions: {', '.join(names) or 'none'}")
        return requested
    if len(names) == 1:
        return names[0]
    raise InvocationError(f"the module has several functions, choose one with --function: {', '.join(names)}")


def write_outputs(results: list[np.ndarray], outputs: list[str]) -> None:
    for index, result in enumerate(results):
        if index < len(outputs):
            target = outputs[index]
            if not target.startswith("@"):
                raise InvocationError(f"bad --output '{target}': write @file.npy")
            np.save(target[1:], result)
        else:
            print(f"result {index}: {result.dtype}{list(result.shape)}")
            print(np.array2string(result, separator=", "))


def listing(path: str, description: ModuleDescription) -> str:
    """The functions of a module with their types, and the parameters it reads."""
    built = f"target '{description.target}'" if description.target else "an unknown target (not built by s4tf)"
    if description.cpu is not None:
        built += f", CPU '{description.cpu.name}'"
    lines = [f"{path}: built for {built}", "functions:"]
    for name, (inputs, results) in description.functions.items():
        arguments = ", ".join(type_text(*t) for t in inputs)
        lines.append(f"  {name}({arguments}) -> {', '.join(type_text(*t) for t in results) or '()'}")
    if description.parameters is None:
        lines.append("parameters: none read from an archive (weights, if any, are embedded)")
        return "\n".join(lines)
    lines.append(f"parameters, read from a .irpa archive (scope '{SCOPE}'):")
    rows = [("name", "dtype", "shape", "bytes")] + [
        (key, kind.dtype, str(list(kind.shape)), str(kind.size * to_numpy_dtype(kind.dtype).itemsize))
        for key, kind in description.parameters.items()
    ]
    return "\n".join(lines + [f"  {line}" for line in table(rows)])


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s4tf-run",
        description="Run a function of an IREE module (.vmfb, e.g. from s4tf-compile) on a device.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  s4tf-run mlp.vmfb --function predict --input @x.npy --output @y.npy --device cpu",
    )
    parser.add_argument("module", nargs="?", help="the .vmfb file")
    parser.add_argument("--function", default=None, help="function to run (default: the module's only function)")
    parser.add_argument("--input", action="append", default=[], metavar="@x.npy|LITERAL", help="an input, in order (repeatable)")
    parser.add_argument("--output", action="append", default=[], metavar="@y.npy", help="where the next result goes (default: stdout)")
    drivers = "; ".join(f"{name}: {what}" for name, what in CPU_DRIVERS.items())
    parser.add_argument("--device", default="cpu", metavar="|".join((*DEVICES, *CPU_DRIVERS)),
                        help=f"device to run on (default cpu). For a CPU module, here or under qemu, "
                        f"local-sync or local-task names IREE's driver ({drivers}); cpu takes the driver "
                        f"the module recorded when compiled (local-sync for loop-bound and small modules)")
    parser.add_argument("--parameters", default=None, metavar="FILE.irpa", help="weights (default: the .irpa beside the module, if any)")
    parser.add_argument("--list", action="store_true",
                        help="list the module's functions with their types and the parameters it reads "
                        "(names, dtypes, shapes), for a module of any target, and exit")
    parser.add_argument("--install-arm64-runtime", action="store_true",
                        help="download IREE's aarch64 runtime (iree-run-module, from PyPI's iree-base-runtime wheel) "
                        "into s4tf's cache folder, to run arm64 modules under qemu-aarch64, and exit")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="say on stderr where the function runs: device, IREE driver, and under qemu the command line")
    return add_version(parser)


def say(options: argparse.Namespace, line: str) -> None:
    if options.verbose:
        print(f"s4tf-run: {line}", file=sys.stderr)


def run_under_qemu(options: argparse.Namespace, description: ModuleDescription, driver: str | None) -> list[np.ndarray]:
    """The results of an arm64 module's function, run by the aarch64 ``iree-run-module``
    under qemu-aarch64 on ``driver`` (``None``: the module's choice, as on the host), with
    the same checks of weights and inputs as on the host."""
    path = Path(options.module)
    runner = Arm64Runner.installed()
    driver = driver or default_driver("cpu", description.driver)
    beside = path.with_suffix(".irpa")
    archive = choose_archive(str(path), description.parameters, options.parameters, beside if beside.exists() else None)
    if archive is not None:
        check_archive(archive, description.parameters, str(path))
    function = choose_function(str(path), list(description.functions), options.function)
    inputs, results = description.functions[function]
    arrays = read_inputs(inputs, function, options.input)
    say(options, f"running '{function}' of {path} on device 'cpu' with IREE driver '{driver}' under qemu-aarch64: "
        + " ".join(runner.command(f"--module={path}", f"--function={function}", driver=driver)))
    return runner.invoke(path, function, arrays, archive, len(results), driver=driver)


def run(argv: list[str] | None = None) -> int:
    """The whole tool; returns the exit code."""
    options = argument_parser().parse_args(argv)

    def work() -> None:
        if options.install_arm64_runtime:
            print(f"the aarch64 runtime is {aarch64_run_module(default_cache_dir())}")
            return
        if options.module is None:
            raise InvocationError("give the module to run (a .vmfb file)")
        description = describe(options.module)
        if options.list:
            print(listing(options.module, description))
            return
        device, driver = split_device(options.device)
        target = TARGETS.get(description.target)
        if target is not None and target.runs_under_qemu(device):
            write_outputs(run_under_qemu(options, description, driver), options.output)
            return
        module = load_module(options.module, options.device, options.parameters)
        function = choose_function(options.module, module.function_names, options.function)
        arrays = read_inputs(module.input_types(function), function, options.input)
        say(options, f"running '{function}' of {options.module} on device '{module.device}' with IREE driver '{module.driver}'")
        write_outputs([to_host(r) for r in module.invoke(function, arrays)], options.output)

    return report_errors("s4tf-run", work)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
