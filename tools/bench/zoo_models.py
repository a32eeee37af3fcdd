"""The model zoo's scripts (``docs/examples/zoo/<name>.py``), loaded by name for the zoo's
tests and ``bench_zoo.py`` (the scripts are examples for readers, not an installed package)."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ZOO = Path(__file__).resolve().parents[2] / "docs" / "examples" / "zoo"


def zoo_names() -> list[str]:
    """The zoo's models, one per script."""
    return sorted(path.stem for path in ZOO.glob("*.py") if not path.stem.startswith("_"))


def load_zoo_model(name: str) -> ModuleType:
    """The script ``docs/examples/zoo/<name>.py`` as a module (its ``main`` is not run)."""
    path = ZOO / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"no zoo model {name!r}: the zoo has {', '.join(zoo_names())}")
    spec = importlib.util.spec_from_file_location(f"zoo_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module
