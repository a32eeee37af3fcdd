"""``s4tf-opt``: read MLIR, run a pass pipeline, print the result (an mlir-opt for s4tf).

```
s4tf-opt model.mlir --pass-pipeline='builtin.module(s4tf-canonicalize,s4tf-lower-to-stablehlo,cse)'
s4tf-opt model.mlir -p s4tf-lower-to-stablehlo --print-ir-after-all
s4tf-opt tests.mlir --split-input-file --verify-diagnostics
s4tf-opt tests.mlir -split-input-file -verify-diagnostics        # LLVM's one-dash spelling
s4tf-opt step.mlir -p s4tf-partition --warn-transfers
```

Input ops are verified (``s4tf-verify``) before the pipeline runs; before that, a module
that states Python callables (``s4tf.needs``) a pass of the pipeline calls and this process
lacks is one error (:mod:`s4tf.passes.needs`). Errors are printed as
``file:line:col: error: message`` and the exit code is 1. mlir-opt's spellings of the
options (``--mlir-print-ir-after-all``, ``--mlir-timing``, ...) are accepted, with one
dash or two.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from dataclasses import dataclass, field, replace

from s4tf.core.errors import S4tfError
from s4tf.core.mlir import UnsafeTextError, ir, new_context, parse_module, registered_dialects
from s4tf.passes.diagnostics import Message, error_messages, messages, parse_location
from s4tf.passes.extraction.partition import Partition
from s4tf.passes.needs import MissingCallablesError, check_module_needs
from s4tf.passes.pipeline import UPSTREAM_EXAMPLES, PassPipelineError, Pipeline, PipelineError, build_pass_manager, run_pipeline
from s4tf.passes.registry import PASSES, DiagnosticWarning
from s4tf.passes.verify import Verify
from s4tf.tools.cli import LlvmStyleParser, add_version
from s4tf.tools.expected_diagnostics import check, parse_expectations

SPLIT_MARKER = "// -----"


@dataclass
class ChunkResult:
    """What one input chunk (the whole file, or one part of a ``--split-input-file``) gave."""

    output: str | None
    diagnostics: list[Message] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.output is None or any(m.severity == "error" for m in self.diagnostics)


def split_chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """``(chunk, first_line)`` pairs; with ``split``, cut at lines that are exactly ``// -----``."""
    if not split:
        return [(text, 1)]
    chunks, current, first_line = [], [], 1
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.strip() == SPLIT_MARKER:
            chunks.append(("".join(current), first_line))
            current, first_line = [], number + 1
        else:
            current.append(line)
    chunks.append(("".join(current), first_line))
    return chunks


def process_chunk(text: str, first_line: int, pipeline: Pipeline, options: argparse.Namespace, buffer_name: str) -> ChunkResult:
    """Parse, verify and transform one chunk; diagnostics keep the chunk's lines in its file."""
    context = new_context()
    produced: list[Message] = []

    def collect(diagnostic):
        produced.extend(messages(diagnostic, buffer_name))
        return True

    context.attach_diagnostic_handler(collect)
    output, failure = None, []
    with context, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DiagnosticWarning)
        try:
            module = parse_module("\n" * (first_line - 1) + text, buffer_name)
            failure = [] if options.allow_unregistered_dialect else unregistered_dialect_errors(module, buffer_name)
            failure = failure or missing_callable_errors(module, pipeline, buffer_name)
            if not failure:
                verifier = build_pass_manager(Pipeline([Verify()]), context)
                if options.mlir_timing and not pipeline:
                    verifier.enable_timing()
                run_pipeline(module.operation, verifier, buffer_name=buffer_name)
                del verifier  # a timed pass manager prints its report when it goes
                if pipeline:
                    run_pipeline(module.operation, configured_pass_manager(pipeline, context, options), buffer_name=buffer_name)
                output = module.operation.get_asm(
                    enable_debug_info=options.mlir_print_debuginfo, print_generic_op_form=options.mlir_print_op_generic
                )
        except (ir.MLIRError, UnsafeTextError) as error:  # the input does not parse
            failure = error_messages(error, buffer_name)
        except PassPipelineError as error:
            failure = error.messages
    return ChunkResult(output, produced + _warning_messages(caught, buffer_name) + failure)


def configured_pass_manager(pipeline: Pipeline, context: ir.Context, options: argparse.Namespace):
    """A pass manager for ``pipeline`` with the IR printing and timing the options ask for."""
    manager = build_pass_manager(pipeline, context)
    after_all = options.print_ir_after_all or options.print_ir_after_change
    if after_all or options.print_ir_before_all:
        manager.enable_ir_printing(
            print_before_all=options.print_ir_before_all, print_after_all=after_all,
            print_after_change=options.print_ir_after_change, enable_debug_info=options.mlir_print_debuginfo,
        )
    if options.mlir_timing:
        manager.enable_timing()
    return manager


def unregistered_dialect_errors(module: ir.Module, buffer_name: str) -> list[Message]:
    """An error at each op of an unregistered dialect other than ``s4tf``, as mlir-opt
    gives without ``--allow-unregistered-dialect``."""
    found = []

    def visit(operation):
        name = operation.name
        dialect = name.split(".", 1)[0]
        if dialect != "s4tf" and not module.context.is_registered_operation(name):
            found.append(Message(
                *parse_location(operation.location, buffer_name), "error",
                f"'{name}' is an op of the unregistered dialect '{dialect}': pass --allow-unregistered-dialect to accept it",
            ))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def missing_callable_errors(module: ir.Module, pipeline: Pipeline, buffer_name: str) -> list[Message]:
    """One error at the module where it states Python callables (``s4tf.needs``) that a pass
    of ``pipeline`` calls and this process has not registered, before any pass runs (see
    :mod:`s4tf.passes.needs`)."""
    try:
        check_module_needs(module.operation, pipeline)
    except MissingCallablesError as error:
        return [Message(*parse_location(module.operation.location, buffer_name), "error", error.message)]
    return []


def _warning_messages(caught: list[warnings.WarningMessage], buffer_name: str) -> list[Message]:
    """Passes warn through Python's ``warnings`` (see ``emit_warning``): make those MLIR-style
    diagnostics; re-issue any other warning unchanged."""
    found = []
    for record in caught:
        if isinstance(record.message, DiagnosticWarning):
            where = parse_location(record.message.location, buffer_name)
            found.append(Message(*where, record.message.severity, record.message.message))
        else:
            warnings.warn_explicit(
                record.message, record.category, record.filename, record.lineno, source=record.source
            )
    return found


def pass_reference() -> str:
    """Every s4tf pass, its description and its options (with their syntax and defaults,
    from the pass class's fields), then the upstream passes: ``--help`` and ``--list-passes``."""
    lines = ["s4tf passes (options as name{key=value key=value}):"]
    for name, pass_class in sorted(PASSES.items()):
        lines.append(f"  {name:28} {pass_class.description}")
        lines += [f"      {option.describe()}" for option in pass_class.options().values()]
    return "\n".join(lines) + f"\nupstream MLIR passes ({', '.join(UPSTREAM_EXAMPLES)}, ...) work in the same pipeline"


def argument_parser() -> argparse.ArgumentParser:
    parser = LlvmStyleParser(
        prog="s4tf-opt",
        description="Run MLIR pass pipelines (s4tf and upstream passes) over .mlir files.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{pass_reference()}\n\nLong options may be written with one dash, as in mlir-opt "
        "(-split-input-file).\n\nexample:\n  s4tf-opt model.mlir -p s4tf-canonicalize,s4tf-lower-to-stablehlo,cse",
    )
    parser.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' or nothing: stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    parser.add_argument(
        "--pass-pipeline", default=None, metavar="PIPELINE",
        help="pipeline in MLIR's syntax, e.g. 'builtin.module(s4tf-canonicalize,cse)'",
    )
    parser.add_argument("-p", dest="passes", default=None, metavar="A,B,C",
                        help="short form: comma-separated pass names, or a pipeline")
    parser.add_argument("--split-input-file", action="store_true", help=f"process each part between '{SPLIT_MARKER}' lines on its own")
    parser.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-error comments")
    parser.add_argument("--mlir-print-ir-after-all", "--print-ir-after-all", dest="print_ir_after_all", action="store_true",
                        help="print the IR (to stderr) after every pass")
    parser.add_argument("--mlir-print-ir-before-all", dest="print_ir_before_all", action="store_true",
                        help="print the IR (to stderr) before every pass")
    parser.add_argument("--mlir-print-ir-after-change", dest="print_ir_after_change", action="store_true",
                        help="print the IR after a pass only if the pass changed it (implies --mlir-print-ir-after-all)")
    parser.add_argument("--mlir-timing", action="store_true", help="print the time each pass took (to stderr)")
    parser.add_argument(
        "--warn-transfers", action="store_true",
        help="warn of every host/device copy that s4tf-partition inserts, at its file:line "
        "(the same as the pass option s4tf-partition{warn_transfers=true})",
    )
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    parser.add_argument("--mlir-print-op-generic", action="store_true", help="print every op in generic form")
    parser.add_argument("--allow-unregistered-dialect", action="store_true",
                        help="accept ops of dialects MLIR does not know (s4tf's own ops are always accepted)")
    parser.add_argument("--list-passes", action="store_true", help="list the s4tf passes and their options, and exit")
    parser.add_argument("--show-dialects", action="store_true", help="list the registered dialects and exit")
    return add_version(parser)


def warning_transfers(pipeline: Pipeline) -> Pipeline:
    """``pipeline`` with its ``s4tf-partition`` passes warning of transfers (``--warn-transfers``)."""
    if not any(isinstance(element, Partition) for element in pipeline):
        raise PipelineError("--warn-transfers needs the s4tf-partition pass in the pipeline")
    return Pipeline([replace(e, warn_transfers=True) if isinstance(e, Partition) else e for e in pipeline])


def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    with open(path, encoding="utf-8") as file:
        return file.read(), path


def run(argv: list[str] | None = None) -> int:
    """The whole tool; returns the exit code."""
    options = argument_parser().parse_args(argv)
    if options.list_passes:
        print(pass_reference())
        return 0
    if options.show_dialects:
        print(f"Available Dialects: {','.join(registered_dialects())}")
        print("s4tf ops are unregistered (generic form) and checked by the s4tf-verify pass")
        return 0
    if options.pass_pipeline and options.passes:
        print("s4tf-opt: error: give --pass-pipeline or -p, not both", file=sys.stderr)
        return 1
    try:
        text, buffer_name = _read_input(options.input)
        pipeline = Pipeline.parse(options.pass_pipeline or options.passes or "")
        if options.warn_transfers:
            pipeline = warning_transfers(pipeline)
        if pipeline:
            build_pass_manager(pipeline, new_context())  # unknown passes fail before any work
    except (OSError, UnicodeDecodeError) as error:
        print(f"s4tf-opt: error: cannot read {options.input}: {error}", file=sys.stderr)
        return 1
    except S4tfError as error:
        print(f"s4tf-opt: error: {error}", file=sys.stderr)
        return 1

    outputs, problems, failed = [], [], False
    for chunk, first_line in split_chunks(text, options.split_input_file):
        result = process_chunk(chunk, first_line, pipeline, options, buffer_name)
        if options.verify_diagnostics:
            problems += check(parse_expectations(chunk, first_line), result.diagnostics, buffer_name)
        else:
            problems += [str(m) for m in result.diagnostics]
            failed = failed or result.failed
        if result.output is not None:
            outputs.append(result.output)
    for line in problems:
        print(line, file=sys.stderr)
    failed = bool(problems) if options.verify_diagnostics else failed
    if not failed or options.verify_diagnostics:
        try:
            _write_output(options.output, f"\n{SPLIT_MARKER}\n".join(outputs))
        except OSError as error:
            print(f"s4tf-opt: error: cannot write {options.output}: {error}", file=sys.stderr)
            return 1
    return 1 if failed else 0


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
