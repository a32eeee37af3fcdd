# lit configuration for s4tf's IR tests (lit + FileCheck).
#
#   lit -v tests/lit        (or: pytest tests/tools/test_lit.py)
#
# RUN lines use `s4tf-opt`, `filecheck` and `python`; they resolve to the tools of the
# Python environment lit itself runs in (sys.executable), so an activated virtual
# environment is not needed. Outputs go to build/lit/, which git ignores.

import os
import shutil
import sys

import lit.formats

config.name = "s4tf"
config.test_format = lit.formats.ShTest(execute_external=False)  # lit's own shell: `not`, pipes
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Output", "__pycache__", "iree_reproducers"]  # upstream bug reports, not tests
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(os.path.dirname(os.path.dirname(config.test_source_root)), "build", "lit")

# Python needs what the test process has: an uninstalled checkout may rely on PYTHONPATH,
# and compiled modules must stay in the tests' private cache.
for name in ("PYTHONPATH", "S4TF_CACHE_DIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

_BIN_DIR = os.path.dirname(sys.executable)


def _tool(script: str, module: str) -> str:
    """The console script next to this interpreter, else on PATH, else `python -m module`."""
    found = shutil.which(script, path=_BIN_DIR) or shutil.which(script)
    return found if found else f"{sys.executable} -m {module}"


def _word(name: str) -> str:
    """A regex for `name` as a whole command word (not inside a path or a pass name)."""
    return r"(?<![\w/.-])" + name.replace(".", r"\.") + r"(?![\w/.-])"


config.substitutions.append((_word("s4tf-opt"), _tool("s4tf-opt", "s4tf.tools.opt")))
config.substitutions.append((_word("filecheck"), _tool("filecheck", "filecheck")))
config.substitutions.append((_word("python"), sys.executable))
