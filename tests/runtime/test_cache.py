"""The on-disk module cache: shared between processes, corrupt entries recompiled, a module
two processes need at once compiled once."""

import os
import subprocess
import sys
import textwrap

from s4tf.runtime.cache import DiskCache

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import iree.compiler
    import s4tf

    if sys.argv[1] == "forbid-compile":
        def refuse(*args, **kwargs):
            raise SystemExit("compile_str was called: the cache was not used")
        iree.compiler.compile_str = refuse
    if sys.argv[1] == "count-slowly":  # f's compiles noted in calls.txt, slow enough to overlap
        import os, time
        compile_str = iree.compiler.compile_str
        def counted(text, *args, **kwargs):
            if "stablehlo.tanh" in text:  # f's module, not the probe of this machine's CPU
                with open(os.path.join(os.environ["S4TF_CACHE_DIR"], "calls.txt"), "a") as calls:
                    calls.write("compile\\n")
                time.sleep(3)
            return compile_str(text, *args, **kwargs)
        iree.compiler.compile_str = counted

    @s4tf.function
    def f(x):
        return s4tf.tanh(x) * 3

    print(np.asarray(f(np.full(4, 0.5, np.float32))).tolist())
    """
)


def run_script(cache_dir, mode):
    env = {**os.environ, "S4TF_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-c", SCRIPT, mode], env=env, capture_output=True, text=True)


def test_two_processes_needing_one_module_at_once_compile_it_once(tmp_path):
    env = {**os.environ, "S4TF_CACHE_DIR": str(tmp_path)}
    processes = [subprocess.Popen([sys.executable, "-c", SCRIPT, "count-slowly"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [process.communicate(timeout=120) for process in processes]
    assert all(process.returncode == 0 for process in processes), outputs
    assert outputs[0][0] == outputs[1][0]
    assert (tmp_path / "calls.txt").read_text() == "compile\n"  # the second read what the first made


def test_second_process_uses_the_cache_and_corrupt_entries_are_recompiled(tmp_path):
    first = run_script(tmp_path, "compile")
    assert first.returncode == 0, first.stderr
    entries = list(tmp_path.glob("*.vmfb"))
    assert len(entries) == 1

    second = run_script(tmp_path, "forbid-compile")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout

    entries[0].write_bytes(b"\0" * 40 + b"not a module")
    third = run_script(tmp_path, "compile")
    assert third.returncode == 0, third.stderr
    assert third.stdout == first.stdout
    assert run_script(tmp_path, "forbid-compile").returncode == 0  # the entry was rewritten


def test_entry_checksum(tmp_path):
    cache = DiskCache(tmp_path)
    cache.put("k", b"payload")
    assert cache.get("k") == b"payload"
    data = cache.path("k").read_bytes()
    cache.path("k").write_bytes(data[:-1] + b"X")
    assert cache.get("k") is None
    assert not cache.path("k").exists()
