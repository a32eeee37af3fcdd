"""Fuzzing ``s4tf-opt``: mutated inputs, random pipelines; it must fail cleanly or succeed
with output that ``s4tf-opt`` accepts again.

Inputs are the chunks of every lit ``.mlir`` file and modules staged from Python here (a
gradient, a loop, a branch, a host call, a convolution); a case mutates one a few times
(deletes, duplicates or truncates lines, swaps tokens, changes numbers such as shapes,
indices and attribute values, changes element types and dimensions, ``?`` included) and
runs it through a random pipeline of registered s4tf passes, with random options, and
upstream passes. Every case must end with exit code 0 or 1 within :data:`TIMEOUT_S`, with
no traceback and no internal error of a pass (an exception inside it); an exit-0 output
must parse and verify again.

Hypothesis draws the cases and runs them in-process through :func:`s4tf.tools.opt.run`; a
few cases drawn the same way by a seeded ``random.Random`` go through the console script in
a subprocess. ``S4TF_FUZZ_EXAMPLES=20000`` runs more cases, new ones each run (docs/trust.md).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import random
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import s4tf
from s4tf.passes.registry import PASSES
from s4tf.tools.opt import run, split_chunks
from test_opt import opt_command

LIT_DIR = Path(__file__).resolve().parents[1] / "lit"
#: Cases in-process (the default suite: the same cases each run); set it to run new ones.
EXAMPLES = int(os.environ.get("S4TF_FUZZ_EXAMPLES", "300"))
SUBPROCESS_CASES = 6
TIMEOUT_S = 30

UPSTREAM_PASSES = ("canonicalize", "cse", "inline", "symbol-dce", "func.func(canonicalize)", "func.func(cse)")
FLAGS = ("--mlir-print-op-generic", "--mlir-print-debuginfo", "--split-input-file", "--verify-diagnostics", "--warn-transfers")
ELEMENT_TYPES = ("f32", "f64", "f16", "bf16", "i1", "i8", "i32", "i64", "ui8", "index", "complex<f32>")
NUMBERS = ("0", "1", "2", "3", "4", "5", "8", "-1", "-2", "1.5", "0.0", "100000", "2147483648", "9223372036854775807")
DIMENSIONS = ("?", "0", "1", "2", "3", "5", "8", "100000")
OPTION_VALUES = ("true", "false", "0", "1", "cpu", "vulkan", "bogus")


# -- inputs ------------------------------------------------------------------------------


def mlp_loss(w1, w2, x):
    return s4tf.mean((s4tf.tanh(x @ w1) @ w2) ** 2)


@s4tf.function
def doubling_loop(x):
    while s4tf.sum(x) < 10.0:
        x = x * 2.0
    return s4tf.sum(x)


@s4tf.function
def branch(x):
    if s4tf.sum(x) > 0.0:
        y = s4tf.exp(x)
    else:
        y = -x
    return s4tf.sum(y)


def sorted_on_host(x):
    return s4tf.host(np.sort)(s4tf.sin(x)) * 2.0


def conv_pool(x, w):
    return s4tf.sum(s4tf.max_pool2d(s4tf.relu(s4tf.conv2d(x, w)), 2))


def _f32(*shape):
    return np.ones(shape, np.float32)


STAGED = (
    (s4tf.function(s4tf.value_and_grad(mlp_loss, argnums=(0, 1))), (_f32(3, 4), _f32(4, 2), _f32(5, 3))),
    (s4tf.function(s4tf.grad(lambda x: doubling_loop(x))), (_f32(3),)),
    (s4tf.function(s4tf.grad(lambda x: branch(x))), (_f32(4),)),
    (s4tf.function(sorted_on_host, extract=True), (_f32(6),)),
    (s4tf.function(s4tf.grad(conv_pool, argnums=1)), (_f32(1, 6, 6, 2), _f32(3, 3, 2, 4))),
)


@functools.cache
def corpus() -> tuple[str, ...]:
    """Lit chunks without their comments, and the staged modules (one with locations)."""
    chunks = []
    for path in sorted(p for p in LIT_DIR.rglob("*.mlir") if "Output" not in p.parts):
        for chunk, _ in split_chunks(path.read_text(), True):
            code = "".join(line for line in chunk.splitlines(keepends=True) if not line.lstrip().startswith("//"))
            if "func.func" in code:
                chunks.append(code)
    for index, (function, args) in enumerate(STAGED):
        chunks.append(function.lower(*args).as_text(debug_info=index == 0))
    return tuple(chunks)


# -- mutations ---------------------------------------------------------------------------
# A mutation takes the text and ``choose(n)``, which picks one of ``n`` (Hypothesis's draw,
# or a seeded random's), so both kinds of run share them.

TOKEN = re.compile(r"%[\w#]+|@[\w]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_][\w.]*|[^\s\w]")
NUMBER = re.compile(r"(?<![\w%#@])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
TYPE_NAME = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|i32|i64)\b")
TENSOR_TYPE = re.compile(r"tensor<((?:(?:\d+|\?)x)+)([^<>]+)>")


def _pick(matches: list, choose):
    return matches[choose(len(matches))] if matches else None


def _replace(text: str, match, new: str) -> str:
    return text if match is None else text[: match.start()] + new + text[match.end() :]


def delete_line(text, choose):
    lines = text.splitlines(keepends=True)
    del lines[choose(len(lines))]
    return "".join(lines)


def duplicate_line(text, choose):
    lines = text.splitlines(keepends=True)
    index = choose(len(lines))
    return "".join(lines[: index + 1] + lines[index:])


def swap_tokens(text, choose):
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text
    first, second = sorted((_pick(tokens, choose), _pick(tokens, choose)), key=lambda m: m.start())
    if first.start() == second.start():
        return text
    return text[: first.start()] + second.group() + text[first.end() : second.start()] + first.group() + text[second.end() :]


def change_number(text, choose):
    return _replace(text, _pick(list(NUMBER.finditer(text)), choose), NUMBERS[choose(len(NUMBERS))])


def _everywhere(text: str, match, new: str, choose) -> str:
    """``match`` replaced by ``new``: there only, or (mostly) everywhere, so that the IR
    stays consistent and the passes, not the parser, see the change."""
    if match is None or choose(3) == 0:
        return _replace(text, match, new)
    return re.sub(rf"(?<![\w.]){re.escape(match.group())}(?![\w.])", new, text)


def change_type(text, choose):
    """``f32`` -> ``i1`` (or another element type)."""
    return _everywhere(text, _pick(list(TYPE_NAME.finditer(text)), choose), ELEMENT_TYPES[choose(len(ELEMENT_TYPES))], choose)


def resize(text, choose):
    """A dimension of a tensor type: ``tensor<4x3xf32>`` -> ``tensor<4x5xf32>``, ``tensor<4x?xf32>``."""
    match = _pick(list(TENSOR_TYPE.finditer(text)), choose)
    if match is None:
        return text
    dims = match.group(1).split("x")[:-1]
    dims[choose(len(dims))] = DIMENSIONS[choose(len(DIMENSIONS))]
    return _everywhere(text, match, f"tensor<{'x'.join(dims)}x{match.group(2)}>", choose)


def truncate(text, choose):
    return text[: choose(len(text) + 1)]


MUTATIONS = (delete_line, duplicate_line, swap_tokens, change_number, change_type, resize, truncate)


def mutated(choose) -> str:
    inputs = corpus()
    text = inputs[choose(len(inputs))]
    for _ in range(choose(4)):
        if text:
            text = MUTATIONS[choose(len(MUTATIONS))](text, choose)
    return text


def pass_element(choose) -> str:
    if choose(3) == 0:
        return UPSTREAM_PASSES[choose(len(UPSTREAM_PASSES))]
    names = sorted(PASSES)
    pass_class = PASSES[names[choose(len(names))]]
    options = []
    for key, option in pass_class.options().items():
        if option.required or choose(4):
            values = option.choices if option.choices and choose(4) else OPTION_VALUES
            options.append(f"{key}={values[choose(len(values))]}")
    return f"{pass_class.name}{{{' '.join(options)}}}" if options else pass_class.name


def arguments(choose) -> list[str]:
    """``s4tf-opt``'s arguments after the input: a pipeline (or none) and some flags."""
    argv = []
    pipeline = ",".join(pass_element(choose) for _ in range(choose(5)))
    if pipeline:
        argv += ["-p", pipeline] if choose(2) else [f"--pass-pipeline=builtin.module({pipeline})"]
    flags = [flag for flag in FLAGS if choose(5) == 0]
    if "s4tf-partition" not in pipeline and "--warn-transfers" in flags:
        flags.remove("--warn-transfers")  # a usage error, tested in test_opt.py
    return argv + flags


# -- properties --------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    out: str
    err: str


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"s4tf-opt ran for more than {TIMEOUT_S} s")


def opt_in_process(argv: list[str], stdin: str) -> Outcome:
    """``s4tf.tools.opt.run(argv)`` on ``stdin``; an exception it raises propagates."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
            code = run(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin(text: str):
    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def opt_subprocess(argv: list[str], stdin: str) -> Outcome:
    done = subprocess.run(opt_command() + argv, input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S * 4)
    return Outcome(done.returncode, done.stdout, done.stderr)


def unexpected(outcome: Outcome) -> str | None:
    """What is wrong with one run's outcome, or ``None``."""
    if outcome.code not in (0, 1):
        return f"exit code {outcome.code}"
    if "Traceback" in outcome.err:
        return "a traceback"
    if "internal error" in outcome.err:
        return "an internal error"
    if outcome.code == 1 and not outcome.err.strip():
        return "exit code 1 without a message"
    return None


def check(argv: list[str], text: str, opt=opt_in_process) -> None:
    """The fuzzing properties for ``s4tf-opt - argv`` on ``text``."""
    case = f"s4tf-opt - {' '.join(argv)} on:\n{text}"
    outcome = opt(["-", *argv], text)
    problem = unexpected(outcome)
    assert problem is None, f"{problem}: {case}\nstderr:\n{outcome.err}"
    if outcome.code == 0:
        again = opt(["-", "--split-input-file"], outcome.out)
        report = f"{case}\noutput:\n{outcome.out}\nstderr:\n{again.err}"
        assert again.code == 0, f"its output does not parse and verify again: {report}"


# -- the tests ---------------------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="S4TF_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.randoms(use_true_random=False))  # Hypothesis's choices: failures shrink
def test_s4tf_opt_never_crashes_and_its_output_verifies(rng):
    def choose(n: int) -> int:
        return rng.randrange(n) if n > 1 else 0

    text = mutated(choose)
    check(arguments(choose), text)


@pytest.mark.parametrize("seed", range(SUBPROCESS_CASES))
def test_the_command_line_tool_prints_no_traceback(seed):
    """The same properties through the console script (exit status, MLIR's own output on
    stderr, ``--print-ir-after-all``); a hang is a timeout."""
    rng = random.Random(seed)

    def choose(n: int) -> int:
        return rng.randrange(n) if n > 1 else 0

    text = mutated(choose)
    argv = arguments(choose) + ["--print-ir-after-all"] * choose(2)
    check(argv, text, opt=opt_subprocess)


def test_every_mutation_changes_some_input():
    """Each mutation does something on the corpus (a regex gone stale would fuzz nothing)."""
    rng = random.Random(0)
    inputs = corpus()
    for mutation in MUTATIONS:
        assert any(mutation(text, lambda n: rng.randrange(max(n, 1))) != text for text in inputs), mutation.__name__


@pytest.mark.parametrize(
    "outcome, problem",
    [
        (Outcome(1, "", "Traceback (most recent call last):\n  ...\nKeyError: 'x'\n"), "a traceback"),
        (Outcome(1, "", "f.mlir:0:0: error: internal error in pass 's4tf-verify': TypeError: boom\n"), "an internal error"),
        (Outcome(-11, "", ""), "exit code -11"),
        (Outcome(1, "", ""), "exit code 1 without a message"),
        (Outcome(1, "", "f.mlir:2:8: error: 's4tf.exp' operand dtype i32 is not a float type\n"), None),
        (Outcome(0, "module {\n}\n", "f.mlir:1:1: warning: result #0 of '@f' does not depend on any differentiated argument\n"), None),
    ],
    ids=["traceback", "internal-error", "signal", "silent-failure", "diagnostic", "warning"],
)
def test_what_counts_as_a_failure(outcome, problem):
    assert unexpected(outcome) == problem
