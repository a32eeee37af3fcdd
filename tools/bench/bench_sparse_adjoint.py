"""Benchmark sparse adjoints: the gradient of k reads of single elements of a length-n vector.

```
python tools/bench/bench_sparse_adjoint.py                           # n in 1e3..1e6, k in 1, 10, 100
python tools/bench/bench_sparse_adjoint.py --sizes 1000 --reads 1 4 --repeats 20
```

The function is ``sum_j (j + 1) * x[i_j] ** 2`` for k distinct static indices ``i_j``. Its
gradient adds each read's cotangent into one adjoint buffer (``s4tf.add_slice``, in place
once compiled), so its cost should be one length-n buffer plus k small updates, not k
full-size tensors: time must grow with n + k, not with k * n. What is timed, for s4tf and
for JAX (``jax.jit(jax.grad(f))``, its own scatter-add) alike: one gradient call plus the host
copy of the length-n result, inputs already on the device, in alternating blocks of calls
(``bench_mlp.time_peers``). Printed: median ms per call and s4tf/JAX, then per n the growth
from the fewest to the most reads, against the factor a k * n cost would show.
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import s4tf

from bench_mlp import load_jax, positive_int, time_peers, timed_call, versions


def make_reads(n: int, k: int):
    """``f(x) = sum_j (j + 1) * x[i_j] ** 2`` over ``k`` distinct indices spread over
    ``range(n)``, and its gradient as a function of ``x``. The reads are squared so that
    the gradient depends on ``x`` and cannot be folded to a constant."""
    indices = [int(i) for i in np.linspace(0, n - 1, k)]

    def reads(x):
        total = x[indices[0]] * x[indices[0]]
        for weight, index in enumerate(indices[1:], start=2):
            total = total + x[index] * x[index] * float(weight)
        return total

    def gradient(x):
        expected = np.zeros(n, np.float32)
        expected[indices] = 2 * np.arange(1, k + 1) * x[indices]
        return expected

    return reads, gradient


def peers(n: int, k: int, jax) -> tuple[dict, np.ndarray]:
    """``{name: (fn(params, x), params, x)}`` computing the gradient, and the expected gradient."""
    reads, gradient = make_reads(n, k)
    x = np.random.default_rng(n + k).standard_normal(n).astype(np.float32)
    expected = gradient(x)
    s4tf_grad = s4tf.grad(reads)
    chosen = {"s4tf": (lambda _, v: s4tf_grad(v), None, s4tf.asarray(x))}
    if jax is not None:
        jax_grad = jax.jit(jax.grad(reads))
        chosen["JAX"] = (lambda _, v: jax_grad(v), None, jax.device_put(x))
    return chosen, expected


def measure(sizes, reads_counts, repeats: int, warmup: int, jax) -> dict[tuple[int, int], dict[str, float]]:
    """Median seconds per gradient call for every ``(n, k)`` and peer; results checked first."""
    medians = {}
    for n in sizes:
        for k in reads_counts:
            chosen, expected = peers(n, k, jax)
            for name, (fn, params, x) in chosen.items():
                result = timed_call(fn, params, x)[1]
                np.testing.assert_allclose(result, expected, rtol=1e-6, err_msg=f"{name}, n={n}, k={k}")
            times = time_peers(chosen, repeats, warmup)
            medians[n, k] = {name: statistics.median(values) for name, values in times.items()}
            print(f"  n={n:>8} k={k:>4}: " + ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in medians[n, k].items())
                  + (f", s4tf/JAX {medians[n, k]['s4tf'] / medians[n, k]['JAX']:.2f}" if jax else ""), flush=True)
    return medians


def report_growth(medians, sizes, reads_counts) -> None:
    """Per n: time with the most reads over time with the fewest, for each peer."""
    fewest, most = min(reads_counts), max(reads_counts)
    print(f"\ngrowth from k={fewest} to k={most} reads (a k * n cost would grow {most / fewest:.0f}x):")
    for n in sizes:
        growth = {name: medians[n, most][name] / medians[n, fewest][name] for name in medians[n, most]}
        print(f"  n={n:>8}: " + ", ".join(f"{name} {value:.2f}x" for name, value in growth.items()))


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=positive_int, nargs="+", default=[1000, 10000, 100000, 1000000],
                        help="vector lengths n (default: 1000 10000 100000 1000000)")
    parser.add_argument("--reads", type=positive_int, nargs="+", default=[1, 10, 100],
                        help="numbers of reads k (default: 1 10 100)")
    parser.add_argument("--repeats", type=positive_int, default=100, help="timed calls per peer and case (default: 100)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before each block (default: 5)")
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    if max(options.reads) > min(options.sizes):
        raise SystemExit(f"error: {max(options.reads)} distinct reads do not fit a vector of {min(options.sizes)}")
    jax = load_jax()
    print(versions(jax))
    print("median ms per gradient call incl. host copy of the length-n gradient:")
    medians = measure(options.sizes, options.reads, options.repeats, options.warmup, jax)
    report_growth(medians, options.sizes, options.reads)


if __name__ == "__main__":
    main()
