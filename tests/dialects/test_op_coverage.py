"""Every op of the dialect has a numerical test, and a batching rule checked against a
Python loop over the batch (tests/batching): a new op without them fails here."""

import importlib
import importlib.util
from pathlib import Path

from op_testing import COVERED

from s4tf.dialects.op_def import OPS

#: The sibling test modules; importing them records the ops their tests cover.
TEST_MODULES = sorted(path.stem for path in Path(__file__).parent.glob("test_*.py") if path.stem != Path(__file__).stem)


def covered_ops() -> set[str]:
    for name in TEST_MODULES:
        importlib.import_module(name)
    return COVERED


def test_every_op_has_a_numerical_test():
    missing = sorted(set(OPS) - covered_ops())
    assert not missing, f"ops without a numerical test in tests/dialects: {', '.join(missing)}"


def test_covered_names_are_ops():
    unknown = sorted(covered_ops() - set(OPS))
    assert not unknown, f"tests claim to cover ops that do not exist: {', '.join(unknown)}"


#: Ops that take no operands are never batched: s4tf-batch copies them as they are.
NO_OPERANDS = {name for name, op in OPS.items() if not op.operands}


def batching_covered_ops() -> set[str]:
    """The ops the modules of tests/batching check (their ``BATCHED_OPS``)."""
    covered = set()
    for path in sorted((Path(__file__).parent.parent / "batching").glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"batching_coverage_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        covered |= {f"s4tf.{name}" for name in getattr(module, "BATCHED_OPS", ())}
    return covered


def test_every_op_has_a_batching_rule_checked_against_a_loop():
    covered = batching_covered_ops()
    missing = sorted(set(OPS) - NO_OPERANDS - covered)
    assert not missing, f"ops whose batching no test in tests/batching checks: {', '.join(missing)}"
    assert not covered - set(OPS), f"tests/batching claims ops that do not exist: {sorted(covered - set(OPS))}"
