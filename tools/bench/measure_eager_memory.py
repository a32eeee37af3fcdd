"""Resident memory of a long run of eager ops with ever new signatures.

Every op below has a shape it never had before, so each one compiles (or loads from the
disk cache) a one-op module; the in-memory cache (:data:`s4tf.staging.eager.CACHE_SIZE`) keeps
the newest, and the resident set should stop growing once it is full.

```sh
python tools/bench/measure_eager_memory.py --signatures 800   # prints RSS every 100 ops
```
"""

from __future__ import annotations

import argparse
import gc
import os
import resource

import numpy as np
from tqdm import tqdm

import s4tf
from s4tf.staging import eager

_OPS = (s4tf.exp, s4tf.tanh, s4tf.negative, s4tf.sqrt)


def resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def run(signatures: int, every: int) -> list[tuple[int, float, int]]:
    """``(ops run, resident MiB, functions cached)`` after every ``every`` new signatures."""
    rows = []
    rng = np.random.default_rng(0)
    for count in tqdm(range(1, signatures + 1), desc="eager ops", unit="op"):
        op = _OPS[count % len(_OPS)]
        np.asarray(op(rng.random(count, dtype=np.float32)))
        if count % every == 0:
            gc.collect()
            rows.append((count, resident_mib(), eager.cached_functions()))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--signatures", type=int, default=800, help="how many distinct (op, shape) to run")
    parser.add_argument("--every", type=int, default=100, help="print the resident set after this many")
    args = parser.parse_args(argv)
    print(f"cache size {eager.CACHE_SIZE}, pid {os.getpid()}")
    for count, mib, cached in run(args.signatures, args.every):
        print(f"{count:6d} ops  {mib:8.1f} MiB resident  {cached:4d} functions in memory")


if __name__ == "__main__":
    main()
