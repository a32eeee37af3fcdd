"""``s4tf-opt``: round trips of every lit ``.mlir`` file, input and output, pipelines,
diagnostics and ``--verify-diagnostics``.

The tool runs in-process through :func:`s4tf.tools.opt.run` where only Python-level
output matters, and as a subprocess (the ``s4tf-opt`` console script) where the exit
status, MLIR's own stderr output or the absence of a traceback is the point.
"""

from __future__ import annotations

import io
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.passes.registry import PASSES, ModulePass
from s4tf.tools.opt import SPLIT_MARKER, run, split_chunks

LIT_DIR = Path(__file__).resolve().parents[1] / "lit"
MLIR_FILES = sorted(p for p in LIT_DIR.rglob("*.mlir") if "Output" not in p.parts)

WELL_FORMED = """\
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%x, %zero) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = "s4tf.exp"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""

# Line 3, column 8: the result type disagrees with the one inferred from the operands.
MALFORMED_OP = """\
func.func @f(%x: tensor<2xf32>) -> tensor<3xf32> {
  %c = "s4tf.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "s4tf.add"(%x, %c) : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""

# Line 2: not MLIR (MLIR reports it at column 7).
SYNTAX_ERROR = """\
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = = "s4tf.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""

# s4tf-jvp warns (at the function, line 1) that the result does not depend on %x.
ZERO_DERIVATIVE = """\
func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.sin"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


@dataclass
class Outcome:
    code: int
    out: str
    err: str


# -- running the tool ------------------------------------------------------------------


def opt_command() -> list[str]:
    """The ``s4tf-opt`` console script of this interpreter's environment, else ``python -m``."""
    script = shutil.which("s4tf-opt", path=str(Path(sys.executable).parent)) or shutil.which("s4tf-opt")
    return [script] if script else [sys.executable, "-m", "s4tf.tools.opt"]


def run_tool(*args: str, stdin: str | None = None, command: list[str] | None = None) -> Outcome:
    """``s4tf-opt args`` as a subprocess."""
    done = subprocess.run(
        (command or opt_command()) + list(args), input=stdin, capture_output=True, text=True, timeout=120
    )
    return Outcome(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def opt(capsys, monkeypatch):
    """``opt(*args, stdin=...)``: ``s4tf.tools.opt.run(args)`` in this process."""

    def call(*args: str, stdin: str | None = None) -> Outcome:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = run(list(args))
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return call


def write(tmp_path: Path, text: str, name: str = "input.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def assert_clean_failure(outcome: Outcome) -> None:
    """Failed with exit code 1, an error message and no Python traceback."""
    assert outcome.code == 1, outcome
    assert "error" in outcome.err
    assert "Traceback" not in outcome.err


# -- round trips of the lit tests' inputs ------------------------------------------------


def run_flags(path: Path) -> list[str]:
    """The flags a lit file's own RUN lines use for splitting and expected diagnostics; the
    passes of the RUN line that verifies diagnostics come along, as they may report them."""
    text = path.read_text()
    run_lines = [line.split("RUN:", 1)[1] for line in text.splitlines() if "RUN:" in line]
    flags = ["--split-input-file"] if any(_has_flag(line, "split-input-file") for line in run_lines) else []
    if re.search(r"expected-(error|warning|note|remark)", text):
        flags.append("--verify-diagnostics")
        verifying = next(line for line in run_lines if _has_flag(line, "verify-diagnostics"))
        words = shlex.split(verifying.split("|")[0])
        for flag, value in zip(words, words[1:]):
            if flag in ("-p", "--pass-pipeline", "-pass-pipeline"):
                flags += [flag, value]
    return flags


def _has_flag(run_line: str, name: str) -> bool:
    """Whether ``run_line`` gives the option ``name``, with one dash or two."""
    return re.search(rf"(?<!\S)--?{name}(?!\S)", run_line) is not None


def test_lit_directory_has_mlir_files():
    assert {p.name for p in MLIR_FILES} >= {
        "s4tf-verify.mlir", "s4tf-canonicalize.mlir", "s4tf-lower-to-stablehlo.mlir", "pipeline.mlir"
    }


@pytest.mark.parametrize("path", MLIR_FILES, ids=lambda p: str(p.relative_to(LIT_DIR)))
def test_lit_file_round_trips(path, opt):
    """Printing, parsing the print and printing again is the identity; generic form and
    locations survive too. Files with expected diagnostics pass --verify-diagnostics, and
    their chunks without expected errors (warnings do not stop a pass) round-trip."""
    flags = run_flags(path)
    printed = opt(str(path), *flags)
    assert printed.code == 0, printed.err
    assert printed.err == ""
    text = path.read_text()
    expected_chunks = [c for c, _ in split_chunks(text, "--split-input-file" in flags) if "expected-error" not in c]
    assert len(split_chunks(printed.out, True)) == len(expected_chunks)
    assert len(re.findall(r"^module \{", printed.out, re.MULTILINE)) == len(expected_chunks)  # top-level modules

    again = opt("-", "--split-input-file", stdin=printed.out)
    assert again.code == 0, again.err
    assert again.out == printed.out

    generic = opt(str(path), *flags, "--mlir-print-op-generic")
    assert '"builtin.module"()' in generic.out
    assert opt("-", "--split-input-file", stdin=generic.out).out == printed.out

    located = opt(str(path), *flags, "--mlir-print-debuginfo")
    assert "loc(" in located.out
    assert opt("-", "--split-input-file", "--mlir-print-debuginfo", stdin=located.out).out == located.out


# -- input and output --------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), ("-",)], ids=["no-argument", "dash"])
def test_reads_stdin(args):
    outcome = run_tool(*args, "-p", "s4tf-canonicalize", stdin=WELL_FORMED)
    assert outcome.code == 0, outcome.err
    assert re.search(r'"s4tf.exp"\(%arg0\) : \(tensor<3xf32>\) -> tensor<3xf32>', outcome.out)
    assert "s4tf.add" not in outcome.out


def test_python_dash_m_entry_point():
    module_command = [sys.executable, "-m", "s4tf.tools.opt"]
    outcome = run_tool("-p", "s4tf-lower-to-stablehlo", stdin=WELL_FORMED, command=module_command)
    assert outcome.code == 0, outcome.err
    assert "stablehlo.exponential" in outcome.out


def test_output_file(tmp_path, opt):
    target = tmp_path / "out.mlir"
    outcome = opt(write(tmp_path, WELL_FORMED), "-o", str(target), "-p", "s4tf-lower-to-stablehlo")
    assert outcome.code == 0, outcome.err
    assert outcome.out == ""
    written = target.read_text()
    assert "stablehlo.add" in written and "s4tf." not in written
    assert opt(str(target)).out == written


def test_output_file_not_written_on_failure(tmp_path, opt):
    target = tmp_path / "out.mlir"
    outcome = opt(write(tmp_path, MALFORMED_OP), "-o", str(target))
    assert outcome.code == 1
    assert not target.exists()


def test_unwritable_output_file(tmp_path):
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-o", str(tmp_path / "missing" / "out.mlir"))
    assert_clean_failure(outcome)
    assert "cannot write" in outcome.err


def test_nonexistent_input_file(tmp_path):
    missing = tmp_path / "missing.mlir"
    outcome = run_tool(str(missing))
    assert_clean_failure(outcome)
    assert f"cannot read {missing}" in outcome.err
    assert outcome.out == ""


def test_directory_as_input(tmp_path):
    outcome = run_tool(str(tmp_path))
    assert_clean_failure(outcome)
    assert "cannot read" in outcome.err


# -- pipelines ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pipeline",
    ["--pass-pipeline=builtin.module(s4tf-canonicalize,no-such-pass)", "-pno-such-pass"],
    ids=["pass-pipeline", "short-form"],
)
def test_unknown_pass(tmp_path, pipeline):
    outcome = run_tool(write(tmp_path, WELL_FORMED), pipeline)
    assert_clean_failure(outcome)
    assert "'no-such-pass'" in outcome.err
    for name in PASSES:
        assert name in outcome.err
    assert outcome.out == ""


def test_s4tf_pass_nested_in_function_pipeline(opt, tmp_path):
    outcome = opt(write(tmp_path, WELL_FORMED), "-p", "builtin.module(func.func(s4tf-canonicalize))")
    assert outcome.code == 1
    assert "write 's4tf-canonicalize' at the top level" in outcome.err


def test_pipeline_given_twice(opt, tmp_path):
    outcome = opt(write(tmp_path, WELL_FORMED), "-p", "cse", "--pass-pipeline=builtin.module(cse)")
    assert outcome.code == 1
    assert "not both" in outcome.err


def test_unbalanced_pipeline(opt, tmp_path):
    outcome = opt(write(tmp_path, WELL_FORMED), "-p", "func.func(canonicalize")
    assert outcome.code == 1
    assert "unbalanced '('" in outcome.err


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("s4tf-partition{warn_transfers=maybe}", "option warn_transfers=maybe of pass 's4tf-partition' must be one of: true, false"),
        ("s4tf-partition{warn_transfers=yes}", "option warn_transfers=yes of pass 's4tf-partition' must be one of: true, false"),
        ("s4tf-partition{warn=true}", "pass 's4tf-partition' has no option 'warn'; its options: warn_transfers"),
        ("s4tf-partition{warn_transfers}", "bad option 'warn_transfers' of pass 's4tf-partition': write s4tf-partition{key=value key=value}"),
        ("s4tf-partition{{warn_transfers=true}}", "bad option '{warn_transfers=true}' of pass 's4tf-partition'"),
        (
            "s4tf-partition{warn_transfers=true warn_transfers=false}",
            "option 'warn_transfers' of pass 's4tf-partition' is given twice",
        ),
        ("s4tf-check-availability{target=gpu}", "option target=gpu of pass 's4tf-check-availability' must be one of: cpu"),
        ("s4tf-check-availability", "pass 's4tf-check-availability' needs option(s) target"),
        ("canonicalize{max-iterations=abc}", "unknown pass or bad pipeline element 'canonicalize{max-iterations=abc}' (for the --max-iterations option: 'abc' value invalid"),
        ("canonicalize{bogus=1}", "unknown pass or bad pipeline element 'canonicalize{bogus=1}' (<Pass-Options-Parser>: no such option bogus)"),
    ],
)
def test_bad_pass_options_are_one_line_errors(tmp_path, pipeline, message):
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-p", pipeline)
    assert_clean_failure(outcome)
    assert outcome.err.startswith(f"s4tf-opt: error: {message}") and outcome.err.count("\n") == 1, outcome.err
    assert outcome.out == ""


@pytest.mark.parametrize("value, warns", [("true", True), ("1", True), ("TRUE", True), ("false", False), ("0", False)])
def test_bool_pass_options_take_mlirs_spellings(tmp_path, opt, value, warns):
    host_call = '''\
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "s4tf.host_call"(%x) {callee = "show", result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
'''
    outcome = opt(write(tmp_path, host_call), "-p", f"s4tf-partition{{warn_transfers={value}}}")
    assert outcome.code == 0, outcome.err
    assert ("warning: value of type tensor<3xf32> is copied from the device to the host" in outcome.err) == warns, outcome.err


def test_print_ir_after_all(tmp_path):
    pipeline = "s4tf-canonicalize,s4tf-lower-to-stablehlo,cse"
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-p", pipeline, "--print-ir-after-all")
    assert outcome.code == 0, outcome.err
    headers = re.findall(r"^// -----// IR Dump After (\S+)", outcome.err, flags=re.MULTILINE)
    assert headers == ["s4tf-canonicalize:", "s4tf-lower-to-stablehlo:", "CSEPass:"]
    after_canonicalize = outcome.err.split("IR Dump After")[1]
    assert '"s4tf.exp"' in after_canonicalize and '"s4tf.add"' not in after_canonicalize
    assert "stablehlo.exponential" in outcome.out and "IR Dump" not in outcome.out


def test_internal_error_in_a_pass_is_a_diagnostic(monkeypatch, tmp_path, opt):
    @dataclass(frozen=True)
    class Crash(ModulePass):
        name = "test-crash"
        description = "always fails"

        def apply(self, module):
            raise RuntimeError("boom")

    monkeypatch.setitem(PASSES, "test-crash", Crash)
    outcome = opt(write(tmp_path, WELL_FORMED), "-p", "test-crash")
    assert outcome.code == 1
    assert "internal error in pass 'test-crash': RuntimeError: boom" in outcome.err
    assert "Traceback" not in outcome.err


# -- diagnostics -------------------------------------------------------------------------


def test_malformed_ir(tmp_path):
    path = write(tmp_path, SYNTAX_ERROR)
    outcome = run_tool(path)
    assert_clean_failure(outcome)
    assert outcome.err.startswith(f"{path}:2:7: error: expected operation name in quotes"), outcome.err
    assert outcome.out == ""


def test_malformed_ir_from_stdin():
    outcome = run_tool(stdin=SYNTAX_ERROR)
    assert_clean_failure(outcome)
    assert outcome.err.startswith("<stdin>:2:7: error: expected operation name in quotes"), outcome.err


CONVOLUTION = """func.func @f(%x: tensor<1x8x8x4xf32>, %t: tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32> {
  %0 = stablehlo.convolution(%x, %t) dim_numbers = [b, 0, INDEX, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}
"""


@pytest.mark.parametrize("index", ["4", "2147483648", "9223372036854775807"])
def test_convolution_layout_with_a_huge_spatial_index_is_refused_at_once(tmp_path, index):
    """StableHLO's parser sizes a vector by the index (2**31: 46 s and 16 GiB; 2**63 - 1:
    an LLVM abort); s4tf-opt refuses it at the index's column in well under a second."""
    path = write(tmp_path, CONVOLUTION.replace("INDEX", index))
    outcome = run_tool(path)
    assert_clean_failure(outcome)
    assert outcome.err.startswith(f"{path}:2:59: error: custom op 'stablehlo.convolution' names spatial dimension {index}"), outcome.err


def test_convolution_layout_in_range_still_parses(opt, tmp_path):
    outcome = opt(write(tmp_path, CONVOLUTION.replace("INDEX", "1")))
    assert outcome.code == 0, outcome.err
    assert "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" in outcome.out


def test_malformed_s4tf_op(tmp_path):
    path = write(tmp_path, MALFORMED_OP)
    outcome = run_tool(path, "-p", "s4tf-lower-to-stablehlo")
    assert_clean_failure(outcome)
    message = "'s4tf.add' result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>"
    assert f"{path}:3:8: error: {message}" in outcome.err
    assert outcome.out == ""


def test_split_input_file_reports_each_chunk_at_its_file_line(tmp_path, opt):
    text = f"{WELL_FORMED}{SPLIT_MARKER}\n{MALFORMED_OP}{SPLIT_MARKER}\n{MALFORMED_OP}"
    path = write(tmp_path, text)
    outcome = opt(path, "--split-input-file")
    assert outcome.code == 1
    first_line = len(WELL_FORMED.splitlines()) + 2
    second_line = first_line + len(MALFORMED_OP.splitlines()) + 1
    lines = [f"{path}:{first_line + 2}:8: error:", f"{path}:{second_line + 2}:8: error:"]
    assert [line.split(" 's4tf.add'")[0] for line in outcome.err.splitlines()] == lines


def test_pass_warnings_are_diagnostics(tmp_path, opt):
    path = write(tmp_path, ZERO_DERIVATIVE)
    for _ in range(2):  # every run reports it, not only the first in a process
        outcome = opt(path, "-p", "s4tf-jvp")
        assert outcome.code == 0
        assert f"{path}:1:1: warning: result #0 of '@f' does not depend on any differentiated argument" in outcome.err


def test_missing_derivative_rule_is_an_error_at_the_op(tmp_path, opt):
    """Tape ops (the records of a while loop's reverse mode) have forward-mode rules and no
    transpose rule: reverse mode through one fails at its line, naming the op, not as an
    internal error of the pass; forward mode writes the tangent tape."""
    text = """\
func.func @f(%t: tensor<4x3xf32>, %i: tensor<i32>, %x: tensor<3xf32>) -> tensor<4x3xf32> attributes {s4tf.wrt = array<i64: 0, 2>} {
  %0 = "s4tf.tape_write"(%t, %i, %x) : (tensor<4x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
"""
    path = write(tmp_path, text)
    outcome = opt(path, "-p", "s4tf-vjp")
    assert outcome.code == 1
    assert outcome.err.startswith(f"{path}:2:8: error: 's4tf.tape_write' has no transpose rule")
    forward = opt(path, "-p", "s4tf-jvp")
    assert forward.code == 0 and forward.out.count('"s4tf.tape_write"') == 3  # @f's, and @f_jvp's value and tangent


def nested_ifs(depth: int) -> str:
    """``@f`` marked for differentiation: ``depth`` s4tf.if ops, each in the last one's
    then-region, around one s4tf.sin."""
    tensor, predicate = "tensor<3xf32>", "tensor<i1>"
    lines = [f"func.func @f(%p0: {predicate}, %a0: {tensor}) -> {tensor} attributes {{s4tf.wrt = array<i64: 1>}} {{"]
    for d in range(depth):
        lines += [f'  %r{d} = "s4tf.if"(%p{d}, %p{d}, %a{d}) ({{', f"  ^bb0(%p{d + 1}: {predicate}, %a{d + 1}: {tensor}):"]
    lines.append(f'  %r{depth} = "s4tf.sin"(%a{depth}) : ({tensor}) -> {tensor}')
    for d in reversed(range(depth)):
        lines += [
            f"  stablehlo.return %r{d + 1} : {tensor}", "  }, {", f"  ^bb0(%q{d}: {predicate}, %b{d}: {tensor}):",
            f"  stablehlo.return %b{d} : {tensor}", f"  }}) : ({predicate}, {predicate}, {tensor}) -> {tensor}",
        ]
    return "\n".join(lines + [f"  return %r0 : {tensor}", "}", ""])


def call_chain(length: int) -> str:
    """``@f0`` (marked) calls ``@f1``, which calls ``@f2``, ..., which computes a sine."""
    tensor, functions = "tensor<3xf32>", []
    for i in range(length):
        head = "func.func @f0" if i == 0 else f"func.func private @f{i}"
        attributes = " attributes {s4tf.wrt = array<i64: 0>}" if i == 0 else ""
        body = f"func.call @f{i + 1}(%x) : ({tensor}) -> {tensor}" if i + 1 < length else f'"s4tf.sin"(%x) : ({tensor}) -> {tensor}'
        functions.append(f"{head}(%x: {tensor}) -> {tensor}{attributes} {{\n  %0 = {body}\n  return %0 : {tensor}\n}}\n")
    return "".join(functions)


@pytest.mark.parametrize(
    "text, symbol", [(nested_ifs(400), "@f"), (call_chain(1000), "@f0")], ids=["nested-regions", "call-chain"]
)
def test_nesting_too_deep_to_differentiate_is_an_error_at_the_function(tmp_path, text, symbol):
    """Differentiation recurses into regions and callees: beyond Python's recursion limit
    it reports the marked function instead of an internal RecursionError."""
    path = write(tmp_path, text)
    for autodiff_pass in ("s4tf-jvp", "s4tf-vjp"):
        outcome = run_tool(path, "-p", autodiff_pass)
        assert_clean_failure(outcome)
        assert outcome.err == f"{path}:1:1: error: '{symbol}' nests calls and regions too deeply to differentiate (beyond Python's recursion limit)\n"


def test_deep_nesting_is_verified_and_lowered(tmp_path):
    outcome = run_tool(write(tmp_path, nested_ifs(300)), "-p", "s4tf-canonicalize,s4tf-lower-to-stablehlo")
    assert outcome.code == 0, outcome.err
    assert outcome.out.count("stablehlo.if") == 300 and '"s4tf.' not in outcome.out


# -- --verify-diagnostics ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        MALFORMED_OP.replace("  %0 =", "  // expected-error @below {{do not match the inferred tensor<2xf32>}}\n  %0 ="),
        MALFORMED_OP.replace("  %0 =", "  // expected-error @+1 {{'s4tf.add' result type(s)}}\n  %0 ="),
        MALFORMED_OP.replace("tensor<3xf32>\n  return", "tensor<3xf32>  // expected-error {{s4tf.add}}\n  return"),
        MALFORMED_OP.replace("  return", "  // expected-error @above {{inferred}}\n  return"),
        MALFORMED_OP.replace("  return", "  // expected-error @-1 {{inferred}}\n  return"),
    ],
    ids=["below", "plus-one", "same-line", "above", "minus-one"],
)
def test_verify_diagnostics_accepts_expected_error(tmp_path, opt, text):
    outcome = opt(write(tmp_path, text), "--verify-diagnostics")
    assert outcome.code == 0, outcome.err
    assert outcome.err == ""


def test_verify_diagnostics_expected_error_not_produced(tmp_path):
    text = WELL_FORMED.replace("  %1 =", "  // expected-error @below {{must be a float}}\n  %1 =")
    outcome = run_tool(write(tmp_path, text), "--verify-diagnostics")
    assert outcome.code == 1
    assert 'expected error "must be a float" on line 5 was not produced' in outcome.err
    assert "Traceback" not in outcome.err


def test_verify_diagnostics_wrong_message(tmp_path, opt):
    text = MALFORMED_OP.replace("  %0 =", "  // expected-error @below {{operand dtype}}\n  %0 =")
    outcome = opt(write(tmp_path, text), "--verify-diagnostics")
    assert outcome.code == 1
    assert "unexpected error: 's4tf.add' result type(s)" in outcome.err
    assert 'expected error "operand dtype" on line 4 was not produced' in outcome.err


def test_verify_diagnostics_wrong_line(tmp_path, opt):
    text = MALFORMED_OP.replace("  return", "  // expected-error @below {{inferred}}\n  return")
    outcome = opt(write(tmp_path, text), "--verify-diagnostics")
    assert outcome.code == 1
    assert "unexpected error" in outcome.err


def test_verify_diagnostics_unexpected_error(tmp_path, opt):
    outcome = opt(write(tmp_path, MALFORMED_OP), "--verify-diagnostics")
    assert outcome.code == 1
    assert ":3:8: unexpected error: 's4tf.add' result type(s)" in outcome.err


def test_verify_diagnostics_with_expected_warning(tmp_path, opt):
    text = "// expected-warning @below {{its derivative is zero}}\n" + ZERO_DERIVATIVE
    outcome = opt(write(tmp_path, text), "-p", "s4tf-jvp", "--verify-diagnostics")
    assert outcome.code == 0, outcome.err
    assert "@f_jvp_wrt_0" in outcome.out


# -- help --------------------------------------------------------------------------------


def test_help_mentions_passes():
    outcome = run_tool("--help")
    assert outcome.code == 0
    for name, pass_class in PASSES.items():
        assert name in outcome.out
        assert pass_class.description in outcome.out
    for option in ("--pass-pipeline", "-p", "--split-input-file", "--verify-diagnostics", "--print-ir-after-all", "-o"):
        assert option in outcome.out


def test_list_passes(opt):
    outcome = opt("--list-passes")
    assert outcome.code == 0
    for name in PASSES:
        assert name in outcome.out
    assert "cse" in outcome.out


def test_help_and_list_passes_show_each_options_syntax_and_default(opt):
    """Generated from the pass classes' fields: their types and defaults."""
    for flag in ("--help", "--list-passes"):
        out = run_tool(flag).out if flag == "--help" else opt(flag).out
        donate = out.split("s4tf-donate", 1)[1]
        assert donate.index("entry=TEXT (required)") < donate.index("args=INT,... (required)") < donate.index(
            "remarks=true|false (default: false)") < donate.index("s4tf-export"), out
        assert "target=cpu|vmvx|vulkan|cuda|android-arm64|linux-arm64 (required)" in out


def test_warn_transfers_needs_the_partition_pass():
    outcome = run_tool("-p", "s4tf-canonicalize", "--warn-transfers", stdin=WELL_FORMED)
    assert_clean_failure(outcome)
    assert "--warn-transfers needs the s4tf-partition pass in the pipeline" in outcome.err


# -- mlir-opt's spellings ------------------------------------------------------------------

FOREIGN_OP = WELL_FORMED.replace('"s4tf.exp"', '"foo.bar"')


@pytest.mark.parametrize("flag", ["--print-ir-after-all", "--mlir-print-ir-after-all", "-mlir-print-ir-after-all"])
def test_print_ir_after_all_spellings(tmp_path, flag):
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-p", "s4tf-canonicalize,cse", flag)
    assert outcome.code == 0, outcome.err
    assert re.findall(r"^// -----// IR Dump After (\S+)", outcome.err, flags=re.MULTILINE) == ["s4tf-canonicalize:", "CSEPass:"]


def test_print_ir_before_all(tmp_path):
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-p", "s4tf-canonicalize,cse", "--mlir-print-ir-before-all")
    assert outcome.code == 0, outcome.err
    assert re.findall(r"^// -----// IR Dump (\S+ \S+)", outcome.err, flags=re.MULTILINE) == [
        "Before s4tf-canonicalize:", "Before CSEPass:"
    ]
    before_canonicalize = outcome.err.split("IR Dump")[1]
    assert '"s4tf.add"' in before_canonicalize


def test_print_ir_after_change_skips_passes_that_change_nothing(tmp_path):
    """cse finds nothing to do after s4tf-canonicalize removed the addition of zero."""
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-p", "s4tf-canonicalize,cse", "--mlir-print-ir-after-change")
    assert outcome.code == 0, outcome.err
    assert re.findall(r"^// -----// IR Dump After (\S+)", outcome.err, flags=re.MULTILINE) == ["s4tf-canonicalize:"]


@pytest.mark.parametrize("pipeline", [("-p", "s4tf-canonicalize,cse"), ()], ids=["pipeline", "verifier-only"])
def test_mlir_timing(tmp_path, pipeline):
    outcome = run_tool(write(tmp_path, WELL_FORMED), *pipeline, "--mlir-timing")
    assert outcome.code == 0, outcome.err
    report = outcome.err.split("Execution time report", 1)[1]
    passes = ["s4tf-canonicalize", "CSEPass"] if pipeline else ["s4tf-verify"]
    assert [line.split()[-1] for line in report.splitlines() if "%)" in line][: len(passes)] == passes
    assert re.search(r"Total Execution Time: \d+\.\d+ seconds", report)
    assert '"s4tf.exp"' in outcome.out


def test_foreign_dialect_needs_allow_unregistered_dialect(tmp_path, opt):
    path = write(tmp_path, FOREIGN_OP)
    refused = opt(path)
    assert refused.code == 1
    assert refused.err == (
        f"{path}:4:8: error: 'foo.bar' is an op of the unregistered dialect 'foo': "
        "pass --allow-unregistered-dialect to accept it\n"
    )
    assert refused.out == ""
    accepted = opt(path, "--allow-unregistered-dialect")
    assert accepted.code == 0, accepted.err
    assert '"foo.bar"(%1) : (tensor<3xf32>) -> tensor<3xf32>' in accepted.out


def test_show_dialects(opt):
    outcome = opt("--show-dialects")
    assert outcome.code == 0
    first, second = outcome.out.splitlines()
    dialects = first.removeprefix("Available Dialects: ").split(",")
    assert first.startswith("Available Dialects: ")
    assert {"builtin", "func", "stablehlo", "tensor", "linalg", "scf"} <= set(dialects)
    assert dialects == sorted(dialects)
    assert "s4tf" not in dialects and "unregistered" in second


def test_long_options_with_one_dash(tmp_path, opt):
    """As in upstream lit tests: ``-split-input-file -verify-diagnostics -pass-pipeline=...``."""
    expected = MALFORMED_OP.replace("  %0 =", "  // expected-error @below {{inferred tensor<2xf32>}}\n  %0 =")
    path = write(tmp_path, f"{expected}{SPLIT_MARKER}\n{WELL_FORMED}")
    outcome = opt(path, "-split-input-file", "-verify-diagnostics", "-pass-pipeline=builtin.module(s4tf-lower-to-stablehlo)")
    assert outcome.code == 0, outcome.err
    assert "stablehlo.exponential" in outcome.out
    assert opt(path, "-split-input-file", "-pass-pipeline", "builtin.module(cse)", "-mlir-print-op-generic").code == 1


def test_short_option_with_attached_value_stays_short(tmp_path, opt):
    """``-pcse`` is ``-p cse`` (no long option is called ``pcse``)."""
    outcome = opt(write(tmp_path, WELL_FORMED), "-ps4tf-lower-to-stablehlo")
    assert outcome.code == 0, outcome.err
    assert "stablehlo.exponential" in outcome.out


def test_unknown_one_dash_option_is_an_error(tmp_path):
    outcome = run_tool(write(tmp_path, WELL_FORMED), "-no-such-option")
    assert outcome.code == 2
    assert "s4tf-opt: error: unrecognized arguments: -no-such-option" in outcome.err
    assert "Traceback" not in outcome.err


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_debuginfo_names_the_input(tmp_path, opt, source):
    """Locations carry the input's name, as mlir-opt prints them (``<stdin>`` for stdin),
    also after a pass and for ops with a location of their own."""
    text = WELL_FORMED.replace(") -> tensor<3xf32>\n  return", ') -> tensor<3xf32> loc("model.py":7:5)\n  return')
    if source == "file":
        path = write(tmp_path, text)
        outcome = opt(path, "-p", "s4tf-canonicalize", "--mlir-print-debuginfo")
    else:
        path = "<stdin>"
        outcome = opt("-p", "s4tf-canonicalize", "--mlir-print-debuginfo", stdin=text)
    assert outcome.code == 0, outcome.err
    locations = set(re.findall(r'loc\("([^"]*)":(\d+):(\d+)\)', outcome.out))
    assert {(path, "1", "14"), (path, "1", "1"), (path, "5", "3"), ("model.py", "7", "5")} <= locations
    assert not any(name == "-" for name, _, _ in locations)


def test_debuginfo_with_split_input_keeps_file_lines(tmp_path, opt):
    path = write(tmp_path, f"{WELL_FORMED}{SPLIT_MARKER}\n{WELL_FORMED}")
    outcome = opt(path, "--split-input-file", "--mlir-print-debuginfo")
    assert outcome.code == 0, outcome.err
    second = len(WELL_FORMED.splitlines()) + 2
    assert f'loc("{path}":{second + 3}:8)' in outcome.out


def shifted(x):
    return (x + 1.0).astype(np.float32)


def test_a_staged_module_states_its_host_functions_and_another_process_refuses_to_call_them(tmp_path, opt):
    """The printed module lists the host functions it calls (``s4tf.needs``): this process,
    where they are registered, batches it; a fresh one gives one error naming them before
    batching, and partitions it (a pass that calls no host function)."""
    lowered = s4tf.function(lambda x: s4tf.host(shifted, vectorized=True)(x) * 2.0).lower(np.ones(3, np.float32))
    text = lowered.as_text()
    symbol = next(iter(lowered.owned)).symbol
    assert f'module attributes {{s4tf.needs = {{host_functions = ["{symbol}"]}}}}' in text
    path = write(tmp_path, text)
    batch = f"s4tf-batch{{function={lowered.entry} size=4}}"
    here = opt(path, "-p", batch)
    assert here.code == 0, here.err
    assert f"@{lowered.entry}_batched" in here.out
    elsewhere = run_tool(path, "-p", batch)
    assert_clean_failure(elsewhere)
    assert elsewhere.err.strip() == (
        f"{path}:1:1: error: the module needs host function '{symbol}', which this process has not registered: they "
        "are Python callables that must be registered in the running process (s4tf.host(fn), @s4tf.batching_rule); "
        "run the module in the process that staged it, or stage its Python code again in this one"
    )
    partitioned = run_tool(path, "-p", "s4tf-partition")
    assert partitioned.code == 0, partitioned.err
    assert "s4tf.host_program" in partitioned.out


def test_a_module_naming_no_python_callable_states_no_needs():
    lowered = s4tf.function(lambda x: x * 2.0).lower(np.ones(3, np.float32))
    assert "s4tf.needs" not in lowered.as_text()
