"""``s4tf-compile``: build deployable IREE modules from a Python function or an ``.mlir`` file.

```
s4tf-compile model.py:predict --arg 'f32[1,784]' --target cpu -o mlp.vmfb
s4tf-compile model.py:predict --arg @w.npy --arg @b.npy --arg 'f32[1,784]' --weights 0,1 -o mlp.vmfb
s4tf-compile model.py:predict --arg 'f32[3,2]' --arg 'f32[2]' --arg 'f32[1,3]' --entry predict_vjp  # predict and predict_vjp
s4tf-compile model.mlir --target android-arm64 -o mlp-phone.vmfb
s4tf-compile model.mlir --target vulkan --target cuda -o out/     # out/model-vulkan.vmfb, ...
s4tf-compile model.py:predict --arg 'f32[4,3]' --emit stablehlo
```

A Python function is staged for ``--arg`` shapes (``f32[1,784]``, ``i32[]``) or example
values (``@x.npy``); ``--weights`` names argument positions whose values (``@w.npy``)
become the module's weights, written to a parameter archive beside the ``.vmfb`` unless
``--embed-weights``. An ``.mlir`` file may hold the s4tf dialect or StableHLO. Ops a
target cannot run are reported at their ``file:line`` before IREE runs. Errors are one
line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from tqdm import tqdm

from s4tf.deploy import build, exported_functions, lower_for, stage, weights_of
from s4tf.dialects.symbols import functions
from s4tf.dialects.types import to_numpy_dtype
from s4tf.core.errors import CompilationError, S4tfError
from s4tf.core.mlir import UnsafeTextError, ir, new_context, parse_module
from s4tf.passes.diagnostics import format_mlir_error
from s4tf.passes.ir_walk import s4tf_ops
from s4tf.passes.iree.check_availability import CheckAvailability
from s4tf.passes.pipeline import PRINT_IR_VARIABLE, Pipeline, lowering_pipeline, run_pipeline
from s4tf.runtime.deployment import Weight
from s4tf.runtime.targets import TARGETS, get_target
from s4tf.tools.cli import add_version, report_errors

_SHAPE_SPEC = re.compile(r"^(\w+)\[([\d,\s]*)\]$")


class UsageError(S4tfError, ValueError):
    """Command-line input that cannot be used."""


@dataclass
class Source:
    """What to compile: a name for output files, the s4tf-dialect text, and per target the
    StableHLO text (after the availability check)."""

    name: str
    mlir: str
    lower: Callable[[str], str]
    entry_points: tuple[str, ...]
    weights: dict[int, Weight] = field(default_factory=dict)


def example_argument(spec: str) -> np.ndarray:
    """``f32[1,784]`` -> zeros of that shape and dtype; ``@x.npy`` -> the array in the file."""
    if spec.startswith("@"):
        try:
            return np.load(spec[1:], allow_pickle=False)
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot read --arg {spec}: {error}") from None
    match = _SHAPE_SPEC.match(spec.replace(" ", ""))
    if not match:
        raise UsageError(f"bad --arg '{spec}': write DTYPE[DIMS] like 'f32[1,784]' or 'i32[]', or @file.npy")
    dims = tuple(int(d) for d in match.group(2).split(",") if d)
    try:
        return np.zeros(dims, to_numpy_dtype(match.group(1)))
    except S4tfError as error:
        raise UsageError(f"bad --arg '{spec}': {error}") from None


def load_python_function(path: str, name: str):
    if not Path(path).is_file():
        raise UsageError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(f"s4tf_compile_input_{Path(path).stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the user's file: report whatever it raised, as one line
        raise UsageError(f"importing {path} failed: {type(error).__name__}: {error}") from None
    fn = getattr(module, name, None)
    if not callable(fn):
        found = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and getattr(v, "__module__", None) == module.__name__)
        raise UsageError(f"{path} has no function '{name}'; its functions: {', '.join(found) or 'none'}")
    return fn


def python_source(spec: str, arg_specs: list[str], weight_positions: tuple[int, ...], entry_points) -> Source:
    path, _, name = spec.rpartition(":")
    fn = load_python_function(path, name)
    example_args = tuple(example_argument(a) for a in arg_specs)
    for position in weight_positions:
        if 0 <= position < len(arg_specs) and not arg_specs[position].startswith("@"):
            raise UsageError(f"weight argument {position} needs values: give it as --arg @file.npy")
    lowered = stage(fn, example_args)
    entry_points = exported_functions(lowered.entry, entry_points)
    return Source(
        name,
        lowered.as_text(),
        lambda target: lower_for(lowered, target, entry_points),
        entry_points,
        weights_of(fn, example_args, weight_positions),
    )


def mlir_source(path: str, entry_points) -> Source:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    with new_context():
        try:
            module = parse_module(text, path)
        except (ir.MLIRError, UnsafeTextError) as error:
            raise CompilationError(format_mlir_error(error, path)) from None
        has_s4tf = bool(s4tf_ops(module.operation))
        public = tuple(
            name for name, function in functions(module).items()
            if "sym_visibility" not in function.attributes
            or ir.StringAttr(function.attributes["sym_visibility"]).value == "public"
        )
        printed = str(module)

    def lower(target: str) -> str:
        pipeline = lowering_pipeline(target) if has_s4tf else Pipeline([CheckAvailability(target=target)])
        with new_context():
            module = ir.Module.parse(text)
            run_pipeline(module.operation, pipeline, buffer_name=path)
            return str(module)

    return Source(Path(path).stem, printed, lower, tuple(entry_points or public))


def output_paths(output: str | None, name: str, targets: list[str]) -> dict[str, Path]:
    """Where each target's module goes: ``-o x.vmfb`` for one target, else a directory."""
    if output and output.endswith(".vmfb"):
        if len(targets) > 1:
            raise UsageError(f"-o {output} is one file, but {len(targets)} targets were given: give a directory")
        return {targets[0]: Path(output)}
    if output is None and len(targets) == 1:
        return {targets[0]: Path(f"{name}.vmfb")}
    directory = Path(output or ".")
    return {target: directory / f"{name}-{target}.vmfb" for target in targets}


def argument_parser() -> argparse.ArgumentParser:
    targets = "\n".join(f"  {t.name:15} {t.description}" for t in TARGETS.values())
    parser = argparse.ArgumentParser(
        prog="s4tf-compile",
        description="Compile a Python function (file.py:function) or an .mlir file (s4tf dialect or StableHLO) "
        "into IREE modules (.vmfb), one per target.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"targets:\n{targets}\n\nexample:\n  s4tf-compile model.py:predict --arg 'f32[1,784]' --target cpu -o mlp.vmfb",
    )
    parser.add_argument("input", help="file.py:function or file.mlir")
    parser.add_argument("--arg", action="append", default=[], metavar="SPEC",
                        help="an argument of the Python function, in order: 'f32[1,784]' (shape) or @file.npy (value)")
    parser.add_argument("--weights", default="", metavar="N,N", help="argument positions that are weights (values from @file.npy)")
    parser.add_argument("--embed-weights", action="store_true", help="put the weights in the module instead of a .irpa archive")
    parser.add_argument("--target", action="append", metavar="NAME", help=f"target (repeatable; default cpu): {', '.join(TARGETS)}")
    parser.add_argument("--target-flag", action="append", default=[], metavar="FLAG",
                        help="extra IREE compiler flag, e.g. --target-flag=--iree-vulkan-target=llvmpipe")
    parser.add_argument("--entry", action="append", metavar="FUNCTION",
                        help="for a Python function: an entry point added beside the function, FUNCTION_jvp or "
                        "FUNCTION_vjp (built by the AD passes); for .mlir: a function to export (default: every "
                        "public one). Repeatable")
    parser.add_argument("--emit", choices=("vmfb", "stablehlo", "mlir"), default="vmfb", help="what to write (default vmfb)")
    parser.add_argument("--mlir-print-ir-after-all", "--print-ir-after-all", dest="print_ir_after_all", action="store_true",
                        help=f"print the IR (to stderr) after every s4tf and MLIR pass (as ${PRINT_IR_VARIABLE}=1 does)")
    parser.add_argument("-o", dest="output", default=None, metavar="PATH",
                        help="output: a .vmfb file for one target, a directory for several; text goes to stdout by default")
    return add_version(parser)


def weight_positions(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"bad --weights '{text}': write argument positions like 0,1") from None


def load_source(options: argparse.Namespace) -> Source:
    weights = weight_positions(options.weights)
    if options.input.endswith(".mlir"):
        if options.arg or weights:
            raise UsageError("--arg and --weights are for Python functions (file.py:function), not .mlir input")
        return mlir_source(options.input, options.entry)
    if ":" not in options.input:
        raise UsageError(f"input '{options.input}' is neither file.py:function nor a .mlir file")
    return python_source(options.input, options.arg, weights, options.entry)


def write_text(output: str | None, text: str) -> None:
    if output is None or output == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text, encoding="utf-8")


def compile_targets(source: Source, options: argparse.Namespace, targets: list[str]) -> list[Path]:
    paths = output_paths(options.output, source.name, targets)
    written = []
    progress = tqdm(targets, desc="s4tf-compile", unit="target", disable=len(targets) < 2, file=sys.stderr)
    for target in progress:
        progress.set_postfix_str(target)
        module = build(source.lower(target), target, source.entry_points, source.weights, options.embed_weights, options.target_flag)
        paths[target].parent.mkdir(parents=True, exist_ok=True)
        written.append(module.save(paths[target]))
    return written


def run(argv: list[str] | None = None) -> int:
    """The whole tool; returns the exit code."""
    options = argument_parser().parse_args(argv)

    def work() -> None:
        if options.print_ir_after_all:
            os.environ[PRINT_IR_VARIABLE] = "1"
        targets = list(dict.fromkeys(get_target(t).name for t in options.target or ["cpu"]))
        source = load_source(options)
        if options.emit == "mlir":
            write_text(options.output, source.mlir)
        elif options.emit == "stablehlo":
            lowered = [source.lower(target) for target in targets]  # the same text, checked for each target
            write_text(options.output, lowered[0])
        else:
            for path in compile_targets(source, options, targets):
                print(f"wrote {path} ({path.stat().st_size} bytes)", file=sys.stderr)

    return report_errors("s4tf-compile", work)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
