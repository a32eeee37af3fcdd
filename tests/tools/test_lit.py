"""The lit + FileCheck IR tests under tests/lit, run from pytest: one pytest test per lit
file, so that ``pytest -n`` runs them in parallel."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from s4tf.dialects import OPS

LIT_DIR = Path(__file__).resolve().parents[1] / "lit"
LOWERING_TEST = LIT_DIR / "passes" / "s4tf-lower-to-stablehlo.mlir"

# lit has no __main__ module; its entry point is lit.main.main (what the `lit` script runs).
LIT_COMMAND = [sys.executable, "-c", "import sys, lit.main; sys.exit(lit.main.main())"]


def lit_test_files() -> list[Path]:
    return sorted(
        path
        for path in LIT_DIR.rglob("*")
        if path.suffix in (".mlir", ".py") and path.name != "lit.cfg.py" and "Output" not in path.parts
        and "__pycache__" not in path.parts and not lit_excluded(path)
    )


def lit_excluded(path: Path) -> bool:
    """Whether lit.cfg.py's ``config.excludes`` names a folder ``path`` is in."""
    excludes = re.search(r"config\.excludes\s*=\s*\[([^\]]*)\]", (LIT_DIR / "lit.cfg.py").read_text())
    names = re.findall(r'"([^"]+)"', excludes.group(1)) if excludes else []
    return any(part in names for part in path.relative_to(LIT_DIR).parts)


@pytest.mark.parametrize("path", lit_test_files(), ids=lambda path: str(path.relative_to(LIT_DIR)))
def test_lit_file_passes(path):
    result = subprocess.run(LIT_COMMAND + ["-v", str(path)], capture_output=True, text=True, timeout=600)
    report = f"lit exited with {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, report
    passed = re.search(r"Passed\s*:\s*(\d+)", result.stdout)
    assert passed is not None and int(passed.group(1)) == 1, report  # not skipped or unsupported


def test_lowering_test_covers_every_op():
    text = LOWERING_TEST.read_text()
    missing = [name for name in sorted(OPS) if not OPS[name].host and f'"{name}"(' not in text]
    assert not missing, f"{LOWERING_TEST.name} lowers no {', '.join(missing)}"
