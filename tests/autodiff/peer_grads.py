"""``python tests/autodiff/peer_grads.py``: s4tf's first derivatives on the peers' gradient tests.

For each case of :mod:`peer_grad_cases` (JAX's and HIPS autograd's lists of
functions and inputs), the gradient of ``sum(w * f(x...))`` (fixed random weights ``w``)
by ``s4tf.grad`` and the JVP of ``f`` along a random direction by ``s4tf.jvp`` are compared
with JAX's (``jax.grad``, ``jax.jvp``, in float64) and with float64 central finite
differences of JAX's ``f``; the value of ``f`` is compared too. A case is

- **right**: every number agrees with both references;
- **wrong**: a number disagrees (the priority: a wrong derivative is silent);
- **refused**: s4tf raised one of its own errors (an ``S4tfError``) saying what it cannot do;
- **crash**: anything else was raised;
- **absent**: s4tf has no function or method of that name.

Cases run in float64. Where float64 is refused on the CPU (IREE's executables cannot link
libm's ``sin``, ``cos``, ``tanh``), the case runs again in float32 against the same float64
references, and the refusal is listed. The tool prints the table and writes
``docs/peer-grads.md``; it exits 1 when a derivative is wrong or crashes.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import s4tf
from s4tf.core.errors import CompilationError, S4tfError

from peer_grad_cases import CASES, Case

STATUSES = ("right", "wrong", "refused", "crash", "absent")
#: (rtol against JAX, rtol against finite differences) per dtype; ``atol`` is ``rtol`` times
#: the largest reference magnitude (at least 1).
TOLERANCES = {"float64": (1e-6, 1e-5), "float32": (2e-3, 2e-3)}
FLOAT64_REFUSED = "float64 refused"
DOC = Path(__file__).resolve().parents[2] / "docs" / "peer-grads.md"


@dataclass(frozen=True)
class Outcome:
    """One of ``STATUSES``, the dtype it was judged in, and what went wrong or was noted."""

    status: str
    dtype: str = ""
    detail: str = ""


class TableError(Exception):
    """A case whose references disagree with each other: its inputs sit on a kink, or the
    case is written wrongly. A fault of the table, not of s4tf."""


# -- the two namespaces a case is written against -------------------------------------------


class _Namespace:
    """A module plus adapters: ``getattr`` looks in ``extras`` first."""

    def __init__(self, module, extras: dict):
        self._module, self._extras = module, extras

    def __getattr__(self, name):
        if name in self._extras:
            return self._extras[name]
        try:
            return getattr(self._module, name)
        except AttributeError:
            raise AttributeError(name, self) from None


def ours_namespace() -> _Namespace:
    """``s4tf``, and ``pad_general`` (JAX's ``lax.pad``: low, high and interior padding) as
    the raw ``s4tf.pad`` op."""

    def pad_general(x, low, high, interior):
        zero = np.zeros((), x.dtype)
        return s4tf.op("pad", x, zero, low=tuple(low), high=tuple(high), interior=tuple(interior))

    return _Namespace(s4tf, {"pad_general": pad_general})


def reference_namespace(jax) -> _Namespace:
    """``jax.numpy``, and JAX versions, with s4tf's signatures, of the names it lacks."""
    jnp, lax, special = jax.numpy, jax.lax, jax.scipy.special

    def pair(value):
        return (value, value) if isinstance(value, int) else tuple(value)

    def conv2d(x, w, strides=1, padding="valid", dilation=1, groups=1):
        pads = padding.upper() if isinstance(padding, str) else [pair(padding)] * 2
        return lax.conv_general_dilated(
            x, w, pair(strides), pads, rhs_dilation=pair(dilation),
            dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=groups,
        )

    def window(x, size, strides, padding, init, op):
        step = size if strides is None else strides
        return lax.reduce_window(x, init, op, (1, size, size, 1), (1, step, step, 1), padding.upper())

    def max_pool2d(x, size=2, strides=None, padding="valid"):
        return window(x, size, strides, padding, -jnp.inf, lax.max)

    def avg_pool2d(x, size=2, strides=None, padding="valid"):
        count = window(jnp.ones_like(x), size, strides, padding, 0.0, lax.add)
        return window(x, size, strides, padding, 0.0, lax.add) / count

    return _Namespace(jnp, {
        "rsqrt": lax.rsqrt, "logistic": jax.nn.sigmoid, "sigmoid": jax.nn.sigmoid, "relu": jax.nn.relu,
        "softmax": jax.nn.softmax, "log_softmax": jax.nn.log_softmax, "logsumexp": special.logsumexp,
        "erf": special.erf, "erfc": special.erfc, "erfinv": special.erfinv, "i0e": special.i0e,
        "i1e": special.i1e, "stop_gradient": lax.stop_gradient, "dynamic_slice": lax.dynamic_slice,
        "cummax": lambda x, axis: lax.cummax(x, axis=axis),
        "dot_general": lambda x, y, contracting, batch=((), ()): lax.dot_general(x, y, (contracting, batch)),
        "broadcast_in_dim": lax.broadcast_in_dim, "slice": lax.slice,
        "pad_general": lambda x, low, high, interior: lax.pad(
            x, jnp.zeros((), x.dtype), list(zip(low, high, interior))),
        "conv2d": conv2d, "max_pool2d": max_pool2d, "avg_pool2d": avg_pool2d,
    })


# -- references ------------------------------------------------------------------------------


@dataclass
class Reference:
    """The case's inputs and what JAX and finite differences make of them, in float64."""

    args: tuple
    directions: tuple
    weights: np.ndarray
    value: np.ndarray
    tangent: np.ndarray
    grads: tuple
    fd_tangent: np.ndarray | None = None
    fd_grads: tuple | None = None


def reference(case: Case, jax) -> Reference:
    """Inputs drawn for ``case`` (the seed is made from its name, so every run draws the
    same), a direction per input, weights for the output; JAX's value, JVP and gradient of
    the weighted sum, and their central finite differences. Raises :class:`TableError`
    where JAX and the finite differences disagree."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    args = tuple(np.asarray(domain(rng), np.float64) for domain in case.inputs)
    directions = tuple(rng.standard_normal(np.shape(a)) for a in args)
    xp = reference_namespace(jax)
    with jax.enable_x64(True):
        f = jax.jit(lambda *a: case.fn(xp, *a))
        try:
            value = np.asarray(f(*args), np.float64)
        except Exception as error:  # noqa: BLE001  (any failure of the reference is the table's)
            raise TableError(f"{case.name}: JAX cannot run the case: {_one_line(error)}") from error
        weights = rng.standard_normal(value.shape)
        loss = jax.jit(lambda *a: jax.numpy.sum(weights * f(*a)))
        grads = jax.grad(loss, argnums=tuple(range(len(args))))(*args)
        _, tangent = jax.jvp(f, args, directions)
        result = Reference(args, directions, weights, value, np.asarray(tangent), tuple(map(np.asarray, grads)))
        if case.finite_differences:
            result.fd_tangent, result.fd_grads = _finite_differences(f, loss, args, directions, case.eps)
            pairs = [("JVP", result.tangent, result.fd_tangent)]
            pairs += [(f"gradient {i}", g, fd) for i, (g, fd) in enumerate(zip(result.grads, result.fd_grads))]
            for name, theirs, fd in pairs if case.jax_derivative else ():
                if not _close(theirs, fd, TOLERANCES["float64"][1]):
                    raise TableError(
                        f"{case.name}: JAX's {name} and finite differences disagree: {_difference(theirs, fd)}")
    return result


def _finite_differences(f, loss, args, directions, eps):
    """Central differences: of ``f`` along ``directions``, and of ``loss`` along each
    coordinate of each argument."""
    plus = f(*(a + eps * d for a, d in zip(args, directions)))
    minus = f(*(a - eps * d for a, d in zip(args, directions)))
    tangent = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
    grads = []
    for i, arg in enumerate(args):
        grad = np.zeros(arg.shape)
        for index in np.ndindex(arg.shape):
            step = np.zeros(arg.shape)
            step[index] = eps
            up = loss(*args[:i], arg + step, *args[i + 1:])
            down = loss(*args[:i], arg - step, *args[i + 1:])
            grad[index] = (float(up) - float(down)) / (2 * eps)
        grads.append(grad)
    return tangent, tuple(grads)


def _close(ours, theirs, rtol) -> bool:
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if ours.shape != theirs.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(theirs), initial=0.0)))
    return bool(np.allclose(ours, theirs, rtol=rtol, atol=rtol * scale, equal_nan=True))


def _difference(ours, theirs) -> str:
    """The worst element: ``ours`` against ``theirs``, and where."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if ours.shape != theirs.shape:
        return f"shape {ours.shape} instead of {theirs.shape}"
    error = np.nan_to_num(np.abs(ours - theirs), nan=np.inf)
    at = np.unravel_index(int(np.argmax(error)), error.shape) if error.size else ()
    return f"{ours[at]:.6g} instead of {theirs[at]:.6g} at {tuple(int(i) for i in at)}"


# -- ours ------------------------------------------------------------------------------------


def _is_absent(error: AttributeError) -> bool:
    """Raised by a namespace, or by a tensor lacking a method: s4tf has no such name."""
    return (len(error.args) == 2 and isinstance(error.args[1], _Namespace)) or isinstance(
        getattr(error, "obj", None), s4tf.Tensor
    )


def _run_ours(case: Case, ref: Reference, dtype) -> tuple:
    """s4tf's value, JVP and gradients on the reference's inputs cast to ``dtype``."""
    xp = ours_namespace()
    args = tuple(a.astype(dtype) for a in ref.args)
    directions = tuple(d.astype(dtype) for d in ref.directions)
    weights = ref.weights.astype(dtype)

    def f(*a):
        return case.fn(xp, *a)

    def loss(*a):
        return s4tf.sum(weights * f(*a))

    value, tangent = s4tf.jvp(f, args, directions)
    grads = s4tf.grad(loss, argnums=tuple(range(len(args))))(*args)
    return value, tangent, grads


def _compare(case: Case, ours: tuple, ref: Reference, dtype: str) -> list[str]:
    """What disagrees, one sentence each; empty when everything agrees."""
    rtol_jax, rtol_fd = TOLERANCES[dtype]
    value, tangent, grads = ours
    checks = [("value", value, ref.value, rtol_jax)]
    if case.jax_derivative:
        checks.append(("JVP vs JAX", tangent, ref.tangent, rtol_jax))
    if ref.fd_tangent is not None:
        checks.append(("JVP vs finite differences", tangent, ref.fd_tangent, rtol_fd))
    for i, grad in enumerate(grads):
        if case.jax_derivative:
            checks.append((f"gradient {i} vs JAX", grad, ref.grads[i], rtol_jax))
        if ref.fd_grads is not None:
            checks.append((f"gradient {i} vs finite differences", grad, ref.fd_grads[i], rtol_fd))
    return [f"{name}: {_difference(a, b)}" for name, a, b, rtol in checks if not _close(a, b, rtol)]


def _one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"


def _first_error(error: CompilationError) -> str:
    """The first diagnostic's message, without the notes after its colon."""
    found = re.search(r"error: ([^:]+)", str(error))
    return found.group(1).strip() if found else _one_line(error)


def check(case: Case, jax) -> Outcome:
    """Run one case in float64, or in float32 where float64 does not compile."""
    ref = reference(case, jax)
    refused_f64 = ""
    for dtype in ("float64", "float32"):
        try:
            ours = _run_ours(case, ref, np.dtype(dtype))
        except AttributeError as error:
            if _is_absent(error):
                name = error.args[0] if len(error.args) == 2 else error.name
                return Outcome("absent", dtype, f"s4tf has no '{name}'")
            return Outcome("crash", dtype, _one_line(error))
        except CompilationError as error:
            if dtype == "float64":
                refused_f64 = _first_error(error)
                continue
            return Outcome("refused", dtype, _one_line(error))
        except S4tfError as error:
            return Outcome("refused", dtype, _one_line(error))
        except Exception as error:  # noqa: BLE001  (a crash is an outcome)
            return Outcome("crash", dtype, _one_line(error))
        problems = _compare(case, ours, ref, dtype)
        note = [f"{FLOAT64_REFUSED}: {refused_f64}"] if refused_f64 else []
        return Outcome("wrong" if problems else "right", dtype, "; ".join(problems + note))
    raise AssertionError("unreachable: float32 either returns or raises")


# -- the table ---------------------------------------------------------------------------------


def run_cases(cases, jax, progress=None) -> list[tuple[Case, Outcome]]:
    """Every case's outcome; ``progress`` gets a line per case as it ends."""
    results = []
    for case in cases:
        started = time.perf_counter()
        outcome = check(case, jax)
        results.append((case, outcome))
        if progress:
            progress(f"{outcome.status:8} {time.perf_counter() - started:5.1f}s  {case.name}  {outcome.detail[:150]}")
    return results


def counts(results) -> dict:
    """``{status: number of cases}``."""
    return {status: sum(1 for _, o in results if o.status == status) for status in STATUSES}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(results) -> str:
    """docs/peer-grads.md: the counts, then one row per case, grouped by outcome."""
    total = counts(results)
    lines = [
        "# First derivatives on the peers' gradient tests",
        "",
        "Generated by `python tests/autodiff/peer_grads.py` (the tables of",
        "[tests/autodiff/peer_grad_cases.py](../tests/autodiff/peer_grad_cases.py), checked by",
        "[tests/autodiff/peer_grads.py](../tests/autodiff/peer_grads.py)); see",
        "[trust.md](trust.md#derivatives-on-the-peers-gradient-tests).",
        "Each case stages `s4tf.grad` of `sum(w * f(x...))` and `s4tf.jvp` of `f`, and compares value, JVP",
        "and gradient with JAX's and with float64 central finite differences. **right**: every number agrees",
        "(float64: within 1e-6 of JAX, 1e-5 of the differences; float32: 2e-3); **wrong**: a number does not;",
        "**refused**: s4tf raised its own error (an `S4tfError`); **crash**: anything else was raised;",
        "**absent**: s4tf has no function or method of that name.",
        "",
        "| outcome | cases |",
        "| --- | --- |",
        *(f"| {status} | {total[status]} |" for status in STATUSES),
        "",
    ]
    refused_f64 = [(c, o) for c, o in results if FLOAT64_REFUSED in o.detail]
    if refused_f64:
        lines += [f"Of these, {len(refused_f64)} do not compile in float64 on the CPU and were checked in float32:",
                  ", ".join(f"`{c.name}`" for c, _ in refused_f64) + ".", ""]
    for status in STATUSES:
        rows = [(c, o) for c, o in results if o.status == status]
        if not rows:
            continue
        lines += [f"## {status.capitalize()} ({len(rows)})", "", "| case | source | dtype | detail |",
                  "| --- | --- | --- | --- |"]
        lines += [f"| `{_cell(c.name)}` | {c.source} | {o.dtype} | {_cell(o.detail)} |" for c, o in rows]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/autodiff/peer_grads.py", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="run only these cases (default: all)")
    parser.add_argument("--write", type=Path, default=DOC, help=f"the Markdown table (default: {DOC})")
    parser.add_argument("--no-write", action="store_true", help="print only")
    options = parser.parse_args(argv)
    try:
        import jax
    except ImportError:
        print("peer_grads: needs JAX (pip install 'jax[cpu]'), the reference", file=sys.stderr)
        return 2
    unknown = sorted(set(options.names) - {c.name for c in CASES})
    if unknown:
        print(f"peer_grads: no such case: {', '.join(unknown)}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not options.names or c.name in options.names]
    try:
        results = run_cases(cases, jax, progress=print)
    except TableError as error:
        print(f"peer_grads: {error}", file=sys.stderr)
        return 2
    total = counts(results)
    print(", ".join(f"{total[s]} {s}" for s in STATUSES))
    if not options.no_write and not options.names:
        options.write.write_text(markdown(results))
        print(f"wrote {options.write}")
    return 1 if total["wrong"] or total["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
