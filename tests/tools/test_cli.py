"""What every command-line tool shares: ``--version``."""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest

from s4tf.core.version import __version__

TOOLS = ["opt", "compile", "run", "train", "params", "tune"]


@pytest.mark.parametrize("tool", TOOLS)
def test_version(tool, capsys):
    module = importlib.import_module(f"s4tf.tools.{tool}")
    with pytest.raises(SystemExit) as exit_status:
        module.run(["--version"])
    assert exit_status.value.code == 0
    compiler, runtime = (importlib.metadata.version(p) for p in ("iree-base-compiler", "iree-base-runtime"))
    assert capsys.readouterr().out == (
        f"s4tf-{tool} {__version__} (iree-base-compiler {compiler}, iree-base-runtime {runtime})\n"
    )
