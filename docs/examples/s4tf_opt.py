"""``s4tf-opt`` over the .mlir files next to this script, through its testable ``run``.

Each call is the same as the shell command printed before it, run in this folder.
"""

import os
import shlex
from pathlib import Path

from s4tf.tools.opt import run

os.chdir(Path(__file__).parent)  # file names in the commands and diagnostics as typed
COMMANDS = [
    # s4tf's passes mixed with upstream MLIR ones (cse), short form:
    ["model.mlir", "-p", "s4tf-canonicalize,s4tf-lower-to-stablehlo,cse"],
    # MLIR's pipeline syntax; the IR after each pass goes to stderr:
    ["model.mlir", "--pass-pipeline=builtin.module(s4tf-canonicalize,s4tf-lower-to-stablehlo)", "--print-ir-after-all"],
    # each `// -----` chunk on its own, errors checked against `expected-error` comments:
    ["diagnostics.mlir", "--split-input-file", "--verify-diagnostics"],
    # the same without checking: the error is printed as file:line:col and the exit code is 1
    ["diagnostics.mlir", "--split-input-file"],
]

for arguments in COMMANDS:
    print(f"$ s4tf-opt {shlex.join(arguments)}", flush=True)
    code = run(arguments)
    print(f"exit code: {code}", flush=True)
