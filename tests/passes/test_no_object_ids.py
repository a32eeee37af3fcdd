"""Passes give the same IR on every run: none keys anything on ``id()``. MLIR's Python
bindings make a new wrapper object at each access, and Python reuses a freed object's id,
so a set of ``id(op)`` matched other ops now and then: ``s4tf-tie-condition-carries`` told
loops inside dispatch regions apart that way and tied a different set of loops from run to
run. Ops and values compare and hash by what they wrap: use them as they are."""

import ast
from pathlib import Path

PASSES = Path(__file__).resolve().parents[2] / "passes"


def id_calls(path: Path) -> list[int]:
    """The lines of ``path`` that call the builtin ``id``."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"]


def test_no_pass_calls_id():
    found = {str(path.relative_to(PASSES)): lines for path in sorted(PASSES.rglob("*.py")) if (lines := id_calls(path))}
    assert found == {}, found


def test_the_check_finds_a_call_of_id(tmp_path):
    example = tmp_path / "example.py"
    example.write_text("seen = {id(op) for op in ops}\nname = op.id\n")
    assert id_calls(example) == [1]
