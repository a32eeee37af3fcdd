"""Derivative tests here reuse the finite-difference checks of ``tests/autodiff``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "autodiff"))
