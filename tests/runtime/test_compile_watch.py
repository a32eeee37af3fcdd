"""A compile that takes IREE long gets a word to the user naming the function and a saved
copy of the module; a quick one gets none, and the compile's result is the same."""

import warnings

import pytest

import s4tf
from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compile_watch import VARIABLE, slow_compile_seconds
from s4tf.runtime.compiler import compile_stablehlo

MODULE = """
func.func @train_step(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<64xf32>
  %1 = stablehlo.exponential %0 : tensor<64xf32>
  return %1 : tensor<64xf32>
}
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_a_compile_past_the_limit_names_the_function_and_saves_the_module(cache_dir, monkeypatch):
    monkeypatch.setenv(VARIABLE, "0.001")  # every IREE compile takes longer than a millisecond
    with pytest.warns(s4tf.SlowCompileWarning, match=r"IREE has been compiling 'train_step' for target 'cpu' for 0.001 s "
                                                     r"\(a module takes it seconds: this may be an IREE hang\); the module is in (\S+)") as seen:
        vmfb = compile_stablehlo(MODULE, "cpu", cache=DiskCache(cache_dir))
    saved = [path for path in (cache_dir / "slow").iterdir()]
    assert len(saved) == 1 and str(saved[0]) in str(seen[0].message)
    text = saved[0].read_text()
    assert text.startswith(f"// iree-compile {saved[0]} --iree-input-type=stablehlo ") and text.endswith(MODULE)
    monkeypatch.delenv(VARIABLE)
    assert compile_stablehlo(MODULE, "cpu", cache=DiskCache(cache_dir / "other")) == vmfb  # the watch changes nothing IREE makes


def test_a_quick_compile_says_nothing(cache_dir):
    assert slow_compile_seconds() == 120.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", s4tf.SlowCompileWarning)
        compile_stablehlo(MODULE, "cpu", cache=DiskCache(cache_dir))
    assert not (cache_dir / "slow").exists()


@pytest.mark.parametrize("text", ["soon", "0", "-3"])
def test_a_limit_that_is_not_a_positive_number_is_an_error(monkeypatch, text):
    monkeypatch.setenv(VARIABLE, text)
    with pytest.raises(s4tf.S4tfError, match=rf"\$S4TF_SLOW_COMPILE_SECONDS must be a number of seconds above 0, got '{text}'"):
        slow_compile_seconds()
