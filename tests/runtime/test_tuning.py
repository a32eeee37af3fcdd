"""Tuning specs: kept tile sizes reach IREE for their product shape only, results unchanged."""

import numpy as np
import pytest

import s4tf
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.cpu import host_cpu
from s4tf.runtime.device import LoadedModule
from s4tf.runtime.tuning import TileConfig, load_configs, save_configs, spec_text, tuning_file, tuning_flags

M, N, K = 48, 64, 40
PRODUCT = (f"func.func @mm(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{\n"
           f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
           f"(tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>\n"
           f"  return %0 : tensor<{M}x{N}xf32>\n}}")
TILES = TileConfig((16, 32), (4, 16), 1)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("S4TF_TUNING", raising=False)
    return tmp_path


def product(vmfb: bytes):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    result = LoadedModule(vmfb)._functions["mm"](s4tf.asarray(a).device_array, s4tf.asarray(b).device_array).to_host()
    np.testing.assert_allclose(result, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_kept_tiles_change_the_code_of_their_shape_only_and_not_its_results(cache_dir, monkeypatch):
    cpu = host_cpu().name
    untuned = compile_stablehlo(PRODUCT, "cpu")
    save_configs(cpu, {(M + 1, N, K): TILES})
    assert compile_stablehlo(PRODUCT, "cpu") == untuned  # another shape's tiles: IREE's own choice
    save_configs(cpu, {(M, N, K): TILES})
    assert load_configs(cpu)[(M, N, K)] == TILES and len(load_configs(cpu)) == 2
    tuned = compile_stablehlo(PRODUCT, "cpu")
    assert tuned != untuned
    product(tuned)
    monkeypatch.setenv("S4TF_TUNING", "0")
    assert tuning_flags(cpu) == [] and compile_stablehlo(PRODUCT, "cpu") == untuned


def test_no_kept_tiles_or_an_unreadable_file_means_no_spec(cache_dir):
    cpu = host_cpu().name
    assert tuning_flags(cpu) == [] and tuning_flags(None) == []
    tuning_file(cpu).parent.mkdir()
    tuning_file(cpu).write_text("{")
    assert load_configs(cpu) == {} and tuning_flags(cpu) == []


def test_spec_names_each_shape_once_with_its_tiles():
    text = spec_text({(128, 512, 784): TILES, (8, 8, 8): TileConfig((8, 8), (8, 8), 8)})
    assert text.count("transform.named_sequence @match_") == 2
    assert "@match_128x512x784 -> @apply" in text and "vector_common_parallel = [4, 16, 0]" in text
