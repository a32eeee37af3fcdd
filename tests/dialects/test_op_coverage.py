"""Every op of the dialect has a numerical test: a new op without one fails here."""

import importlib
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
