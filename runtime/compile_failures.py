"""What the user sees when IREE fails on a module s4tf gave it: one line naming the function,
IREE's first error (or where it crashed), and the file that reproduces it.

```text
CompilationError: IREE could not compile 'train_step' for target 'cpu': iree-compile crashed
(signal 11) in mlir::iree_compiler::DispatchCreation::decideFusableLinalgOps; the module and
IREE's whole report are in ~/.cache/s4tf/failed/3f2a....mlir (its first line is the
command that reproduces it)
```

The saved file starts with the ``iree-compile`` command line and IREE's report as comments,
then the StableHLO module: what an upstream report needs.
"""

from __future__ import annotations

import re
from pathlib import Path

from s4tf.core.errors import CompilationError
from s4tf.runtime.cache import default_cache_dir

_PUBLIC_FUNCTION = re.compile(r"^\s*func\.func @([\w$.-]+)\(", re.MULTILINE)
_FRAME = re.compile(r"#\d+ 0x[0-9a-f]+ (\S.*?)\(")
_SIGNAL = re.compile(r"Error code: -(\d+)")


def summary(report: str) -> str:
    """IREE's first ``error:`` line, or the innermost s4tf-unrelated frame it crashed in."""
    for line in report.splitlines():
        if "error:" in line:
            return line.strip()
    signal = _SIGNAL.search(report)
    frames = [name for name in _FRAME.findall(report)
              if not name.startswith(("llvm::sys::", "SignalHandler", "mlir::detail::"))]
    if signal or frames:
        where = f" in {frames[0]}" if frames else ""
        return f"iree-compile crashed{f' (signal {signal.group(1)})' if signal else ''}{where}"
    lines = [line.strip() for line in report.splitlines() if line.strip()]
    return lines[-1] if lines else "no diagnostics"


def function_name(module_text: str) -> str:
    """``'f'``, the module's first public function quoted, or ``the module``."""
    names = _PUBLIC_FUNCTION.findall(module_text)
    return f"'{names[0]}'" if names else "the module"


def compilation_error(module_text: str, target: str, flags: list[str], report: str, key: str) -> CompilationError:
    """The :class:`CompilationError` for IREE's ``report`` on ``module_text``, the module saved to reproduce it."""
    saved = save_module(module_text, flags, report, key)
    where = f"the module and IREE's whole report are in {saved} (its first line is the command that reproduces it)" \
        if saved else "the module could not be saved"
    return CompilationError(f"IREE could not compile {function_name(module_text)} for target '{target}': {summary(report)}; {where}")


def save_module(module_text: str, flags: list[str], report: str, key: str, folder: str = "failed") -> Path | None:
    """``module_text`` in ``<cache>/<folder>/<key>.mlir`` after the ``iree-compile`` command
    and IREE's ``report`` as comments; ``None`` where it cannot be written."""
    path = default_cache_dir() / folder / f"{key}.mlir"
    header = [f"// iree-compile {path} --iree-input-type=stablehlo {' '.join(flags)} -o /dev/null", "// IREE's report:"]
    header += [f"//   {line}" for line in report.splitlines()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(header) + "\n" + module_text, encoding="utf-8")
    except OSError:
        return None
    return path
