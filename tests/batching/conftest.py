"""Batching tests check the transformation: outside the IREE sample (tests/conftest.py: the
first test of each test function) their staged functions run through the ops' NumPy
references (``s4tf.set_first_call("reference")``), which IREE's lowering of every op is
tested against elsewhere; ``S4TF_TEST_IREE=all`` compiles them all with IREE."""

import os

import pytest

from s4tf.staging import first_call


@pytest.fixture(autouse=True)
def references_outside_the_iree_sample(request, monkeypatch):
    if not getattr(request.node, "iree_sample", False) and os.environ.get("S4TF_TEST_IREE") != "all":
        monkeypatch.setattr(first_call, "_setting", "reference")
