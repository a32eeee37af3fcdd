"""Deployed files are checked before they run.

- ``.vmfb`` and ``.irpa`` carry a SHA-256 sidecar; cache entries a SHA-256 header. A flipped
  or cut file is an error, never a crash or a wrong number.
- A parameter archive must hold exactly the parameters the module declares (names, shapes,
  dtypes, sizes); anything else is a one-line error naming the parameter.
- The ``cpu`` target is compiled for the CPU that IREE resolves for this machine, by name
  and features, and a module whose code uses features this CPU lacks is refused.
- Whatever IREE raises for a module it refuses is a one-line error, or a recompile for a
  cache entry.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
import sys

import iree.runtime as iree_runtime
import numpy as np
import pytest

import s4tf
from s4tf.runtime import targets
from s4tf.runtime.cache import DiskCache
from s4tf.runtime.checksum import ChecksumError
from s4tf.runtime.compiler import compile_stablehlo, module_cache_key
from s4tf.runtime.cpu import host_cpu, resolve_cpu
from s4tf.runtime.device import ModuleLoadError, WrongTargetError, device_config
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.parameters import ParameterArchiveError, ParameterMismatchError, save_parameters
from s4tf.runtime.reflection import CPU_FEATURES_KEY, CPU_KEY, PARAMETERS_KEY
from s4tf.runtime.targets import compile_flags, host_architecture
from s4tf.runtime.transfer import to_host
from small_model import expected, model_inputs, predict

W, B, X = model_inputs(1)

STABLEHLO = """\
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

#: A CPU with features that ordinary x86-64 machines lack (AVX10.2, AMX for AVX-512).
FUTURE_CPU = "--iree-llvmcpu-target-cpu=diamondrapids"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``predict.vmfb`` reading w, b from ``predict.irpa``, and ``embedded.vmfb`` holding them."""
    folder = tmp_path_factory.mktemp("built")
    s4tf.compile(predict, (W, B, X), weights=(0, 1)).save(folder / "predict.vmfb")
    s4tf.compile(predict, (W, B, X), weights=(0, 1), embed_weights=True).save(folder / "embedded.vmfb")
    return folder


@pytest.fixture
def deployed(built, tmp_path):
    """A private copy of the built files (sidecars included), to damage."""
    for path in built.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "predict.vmfb"


def s4tf_run(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "s4tf.tools.run", *map(str, argv)], capture_output=True, text=True)


def assert_one_line_error(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("s4tf-run: error: "), result.stderr
    assert message in result.stderr, result.stderr


def flip_byte(path, position=None) -> None:
    data = bytearray(path.read_bytes())
    position = len(data) // 2 if position is None else position
    data[position] ^= 0x10
    path.write_bytes(bytes(data))


def truncate(path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


# -- checksums of deployed files -------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".vmfb", ".irpa"])
def test_sidecars_are_sha256sum_lines(deployed, suffix):
    path = deployed.with_suffix(suffix)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert path.with_name(path.name + ".sha256").read_text() == f"{digest}  {path.name}\n"


@pytest.mark.parametrize("damage", [flip_byte, truncate])
@pytest.mark.parametrize("suffix", [".vmfb", ".irpa"])
def test_a_damaged_file_does_not_match_its_checksum(deployed, suffix, damage):
    path = deployed.with_suffix(suffix)
    damage(path)
    message = f"{path} does not match its checksum in {path}.sha256: the file was damaged or changed after s4tf wrote it"
    with pytest.raises(ChecksumError) as error:
        s4tf.load(deployed)
    assert str(error.value) == message
    assert_one_line_error(s4tf_run(deployed, "--input", "@x.npy"), message)


def test_files_without_sidecars_are_loaded(deployed):
    for suffix in (".vmfb.sha256", ".irpa.sha256"):
        deployed.with_name(f"predict{suffix}").unlink()
    np.testing.assert_allclose(np.asarray(s4tf.load(deployed).predict(X)), expected(W, B, X), rtol=1e-5, atol=1e-6)


def test_a_cut_archive_without_sidecar_is_one_line(deployed):
    archive = deployed.with_suffix(".irpa")
    archive.with_name("predict.irpa.sha256").unlink()
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data.rstrip(b"\0")) - 1])  # into the last weight's bytes, not only the padding
    with pytest.raises(ParameterArchiveError, match=f"^cannot read parameter archive {archive}: file segment out of range"):
        s4tf.load(deployed)


def damage_relocation(vmfb: bytes) -> bytes:
    """``vmfb`` with the first relocation of its (x86-64 ELF) code naming symbol 2**20, which
    IREE's loader refuses with an ``IndexError`` (OUT_OF_RANGE): neither a RuntimeError nor a ValueError."""
    if host_architecture() != "x86_64":
        pytest.skip("damages x86-64 code")
    data = bytearray(vmfb)
    elf = data.index(b"\x7fELF")
    (section_headers,), (entry_size, count) = struct.unpack_from("<Q", data, elf + 0x28), struct.unpack_from("<HH", data, elf + 0x3A)
    for header in range(elf + section_headers, elf + section_headers + count * entry_size, entry_size):
        if struct.unpack_from("<I", data, header + 4)[0] == 4:  # SHT_RELA: entries (offset, info, addend)
            info = elf + struct.unpack_from("<Q", data, header + 0x18)[0] + 8
            struct.pack_into("<Q", data, info, (1 << 52) | (struct.unpack_from("<Q", data, info)[0] & 0xFFFFFFFF))
            return bytes(data)
    raise AssertionError("no relocations in the module's code")


def test_a_module_iree_refuses_with_any_exception_is_one_line(deployed):
    deployed.write_bytes(damage_relocation(deployed.read_bytes()))
    deployed.with_name("predict.vmfb.sha256").unlink()
    message = f"cannot load {deployed} on device 'cpu': invalid symbol in relocation: 1048576"
    with pytest.raises(ModuleLoadError) as error:
        s4tf.load(deployed)
    assert str(error.value) == message
    assert_one_line_error(s4tf_run(deployed, "--input", "@x.npy"), message)


# -- weights against the module's declared parameters ---------------------------------------------


WRONG_WEIGHTS = {
    "missing": ({"w": W}, "{archive} has no parameter 'b', which {module} reads as tensor<2xf32>"),
    "extra": (
        {"w": W, "b": B, "c": B},
        "{archive} holds parameter 'c', which {module} does not read; it reads w tensor<3x2xf32>, b tensor<2xf32>",
    ),
    "larger": ({"w": np.zeros((4, 2), np.float32), "b": B}, "parameter 'w' in {archive} is float32[4, 2], but {module} reads tensor<3x2xf32>"),
    "smaller": ({"w": W, "b": B[:1]}, "parameter 'b' in {archive} is float32[1], but {module} reads tensor<2xf32>"),
    "transposed": ({"w": W.T.copy(), "b": B}, "parameter 'w' in {archive} is float32[2, 3], but {module} reads tensor<3x2xf32>"),
    "wider dtype": ({"w": W.astype(np.float64), "b": B}, "parameter 'w' in {archive} is float64[3, 2], but {module} reads tensor<3x2xf32>"),
    "same-size dtype": ({"w": W.astype(np.int32), "b": B}, "parameter 'w' in {archive} is int32[3, 2], but {module} reads tensor<3x2xf32>"),
}


@pytest.mark.parametrize("case", list(WRONG_WEIGHTS))
def test_wrong_weights_are_one_line_errors_naming_the_parameter(deployed, tmp_path, case):
    arrays, template = WRONG_WEIGHTS[case]
    archive = save_parameters(tmp_path / "wrong.irpa", arrays)
    message = template.format(archive=archive, module=deployed)
    with pytest.raises(ParameterMismatchError) as error:
        s4tf.load(deployed, parameters=archive)
    assert str(error.value) == message
    np.save(tmp_path / "x.npy", X)
    assert_one_line_error(s4tf_run(deployed, "--input", f"@{tmp_path / 'x.npy'}", "--parameters", archive), message)


def test_the_module_declares_its_parameters_and_cpu(deployed):
    module = iree_runtime.VmModule.copy_buffer(device_config("cpu").vm_instance, deployed.read_bytes())  # parses, loads no code
    reflection = module.lookup_function("predict").reflection
    assert json.loads(reflection[PARAMETERS_KEY]) == {"w": [[3, 2], "f32"], "b": [[2], "f32"]}
    assert reflection[CPU_KEY] == host_cpu().name
    assert set(reflection[CPU_FEATURES_KEY].split(",")) == {f"+{feature}" for feature in host_cpu().enabled}


def test_wrong_weights_beside_the_module(deployed):
    save_parameters(deployed.with_suffix(".irpa"), {"w": W.T.copy(), "b": B})
    with pytest.raises(ParameterMismatchError, match=r"parameter 'w' in .*predict.irpa is float32\[2, 3\]"):
        s4tf.load(deployed)


def raw_archive(path, arrays):
    """An archive whose entries carry no metadata (as other tools write), only bytes."""
    index = iree_runtime.ParameterIndex()
    for key, array in arrays.items():
        index.add_buffer(key, np.ascontiguousarray(array).view(np.uint8))
    index.create_archive_file(str(path))
    return path


def test_an_archive_without_metadata_is_checked_by_size(deployed, tmp_path):
    right = raw_archive(tmp_path / "raw.irpa", {"w": W, "b": B})
    np.testing.assert_allclose(np.asarray(s4tf.load(deployed, parameters=right).predict(X)), expected(W, B, X), rtol=1e-5, atol=1e-6)
    short = raw_archive(tmp_path / "short.irpa", {"w": W[:2], "b": B})
    with pytest.raises(ParameterMismatchError, match=r"^parameter 'w' in .*short.irpa holds 16 bytes, but .* reads tensor<3x2xf32> \(24 bytes\)$"):
        s4tf.load(deployed, parameters=short)


def test_embedded_weights_given_an_archive_say_so(deployed, tmp_path):
    embedded = deployed.with_name("embedded.vmfb")
    archive = save_parameters(tmp_path / "w.irpa", {"w": W, "b": B})
    message = f"{embedded} reads no parameter archive (its weights, if any, are embedded); {archive} is not used"
    with pytest.raises(ModuleLoadError) as error:
        s4tf.load(embedded, parameters=archive)
    assert str(error.value) == message
    np.save(tmp_path / "x.npy", X)
    assert_one_line_error(s4tf_run(embedded, "--input", f"@{tmp_path / 'x.npy'}", "--parameters", archive), message)


def test_an_archive_beside_embedded_weights_is_ignored(deployed):
    embedded = deployed.with_name("embedded.vmfb")
    save_parameters(embedded.with_suffix(".irpa"), {"w": W.T.copy()})
    np.testing.assert_allclose(np.asarray(s4tf.load(embedded).predict(X)), expected(W, B, X), rtol=1e-5, atol=1e-6)


# -- the CPU a module is built for ----------------------------------------------------------------


def test_cpu_flags_name_the_resolved_cpu_never_host():
    flags = compile_flags("cpu")
    here = host_cpu()
    assert not any("host" in flag for flag in flags)
    assert f"--iree-llvmcpu-target-cpu={here.name}" in flags
    assert f"--iree-llvmcpu-target-cpu-features={','.join(here.features)}" in flags
    assert resolve_cpu(tuple(flags)).enabled == here.enabled  # IREE builds for the same features as with 'host'


def other_cpu(flag: str):
    if host_architecture() != "x86_64":
        pytest.skip("the other CPU is an x86-64 one")
    other = resolve_cpu(("--iree-hal-target-backends=llvm-cpu", flag))
    if not host_cpu().lacks(other):
        pytest.skip(f"this CPU has every feature of {flag}")
    return other


def test_a_module_for_a_cpu_with_features_this_one_lacks_is_refused(tmp_path):
    other = other_cpu(FUTURE_CPU)
    path = s4tf.compile(predict, (W, B, X), weights=(0, 1), target_flags=[FUTURE_CPU]).save(tmp_path / "future.vmfb")
    with pytest.raises(WrongTargetError) as error:
        s4tf.load(path)
    lacking = host_cpu().lacks(other)
    assert str(error.value) == (
        f"{path} was built for CPU '{other.name}' and uses features that this CPU ('{host_cpu().name}') lacks: "
        f"{', '.join(lacking)}; compile it again on this machine"
    )
    np.save(tmp_path / "x.npy", X)
    assert_one_line_error(s4tf_run(path, "--input", f"@{tmp_path / 'x.npy'}"), f"was built for CPU '{other.name}'")


def test_a_module_for_a_cpu_with_fewer_features_runs(tmp_path):
    if host_architecture() != "x86_64":
        pytest.skip("x86-64 code")
    path = s4tf.compile(predict, (W, B, X), weights=(0, 1), target_flags=["--iree-llvmcpu-target-cpu=x86-64"]).save(tmp_path / "old.vmfb")
    np.testing.assert_allclose(np.asarray(s4tf.load(path).predict(X)), expected(W, B, X), rtol=1e-5, atol=1e-6)


def test_a_cache_shared_with_another_machine_never_serves_its_module(tmp_path, monkeypatch):
    other = other_cpu(FUTURE_CPU)
    cache = DiskCache(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(targets, "host_cpu", lambda: other)  # s4tf on the other machine
        compile_stablehlo(STABLEHLO, "cpu", cache=cache)  # fills the shared cache (running it here would be SIGILL)
    assert len(list(tmp_path.glob("*.vmfb"))) == 1
    module = compile_and_load(STABLEHLO, "cpu", cache=cache)
    assert len(list(tmp_path.glob("*.vmfb"))) == 2
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(to_host(module.invoke("double", [x])[0]), 2 * x)


# -- cache entries --------------------------------------------------------------------------------


def cache_entry(cache: DiskCache):
    return cache.path(module_cache_key(STABLEHLO, "cpu", compile_flags("cpu")))


@pytest.mark.parametrize("damage", ["header", "middle", "last", "truncated"])
def test_a_damaged_cache_entry_is_recompiled(tmp_path, damage):
    cache = DiskCache(tmp_path)
    compile_stablehlo(STABLEHLO, "cpu", cache=cache)
    entry = cache_entry(cache)
    good = entry.read_bytes()
    if damage == "truncated":
        truncate(entry)
    else:
        flip_byte(entry, {"header": 3, "middle": len(good) // 2, "last": len(good) - 1}[damage])
    assert cache.get(entry.stem) is None and not entry.exists()
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(to_host(compile_and_load(STABLEHLO, "cpu", cache=cache).invoke("double", [x])[0]), 2 * x)
    assert entry.read_bytes() == good


def test_a_cache_entry_iree_refuses_with_any_exception_is_recompiled(tmp_path):
    cache = DiskCache(tmp_path)
    vmfb = compile_stablehlo(STABLEHLO, "cpu", cache=cache)
    entry = cache_entry(cache)
    cache.put(entry.stem, damage_relocation(vmfb))  # a valid checksum, a module IREE refuses
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(to_host(compile_and_load(STABLEHLO, "cpu", cache=cache).invoke("double", [x])[0]), 2 * x)
    assert cache.get(entry.stem) == vmfb
