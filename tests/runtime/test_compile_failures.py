"""An IREE failure reaches the user as one line: the function, IREE's first error or where it
crashed, and a saved file that reproduces it (runtime/compile_failures.py)."""

import stat
import subprocess

import pytest

import s4tf
from s4tf.runtime.compiler import compile_stablehlo

# An op IREE 3.13 knows nothing of: its dispatch formation dereferences it and crashes.
UNKNOWN_OP = """func.func @my_step(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "foo.bar"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_a_crash_names_the_function_and_where_iree_crashed_and_the_saved_file_reproduces_it(tmp_path, monkeypatch):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    with pytest.raises(s4tf.CompilationError) as caught:
        compile_stablehlo(UNKNOWN_OP, "cpu")
    message = str(caught.value)
    assert "\n" not in message and "Stack dump" not in message and "PrintStackTrace" not in message
    assert message.startswith("IREE could not compile 'my_step' for target 'cpu': iree-compile crashed")
    (saved,) = (tmp_path / "failed").glob("*.mlir")
    assert str(saved) in message
    command, *rest = saved.read_text().splitlines()
    assert command.startswith(f"// iree-compile {saved} --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu")
    assert any("PrintStackTrace" in line for line in rest) and UNKNOWN_OP.strip() in saved.read_text()
    rerun = subprocess.run(command[3:].split(), capture_output=True, text=True)
    assert rerun.returncode != 0  # the same failure, outside s4tf


def test_an_error_gives_iree_s_first_error_line(tmp_path, monkeypatch):
    tool = tmp_path / "tools" / "iree-compile"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho 'note: something first' >&2\necho '<stdin>:3:5: error: failed to legalize operation' >&2\n"
                    "echo 'error: a second one' >&2\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("IREE_TOOL_PATH", str(tool.parent))
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(s4tf.CompilationError) as caught:
        compile_stablehlo(UNKNOWN_OP.replace("my_step", "other"), "cpu")
    assert str(caught.value).startswith(
        "IREE could not compile 'other' for target 'cpu': <stdin>:3:5: error: failed to legalize operation; ")
