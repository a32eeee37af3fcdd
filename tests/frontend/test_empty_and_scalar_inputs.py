"""Every public function of ``s4tf`` that NumPy also has, on 0-d and empty inputs, as NumPy:
the same shape and values, or both refuse.

Each function is called with the input once, or twice where NumPy's function takes two
arrays (``CALLS`` gives the others their arguments). The calls are recorded in lazy mode
and run as one trace, one compilation for all of them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

INPUTS = {
    "0-d": np.float32(0.5),
    "empty": np.zeros((0,), np.float32),
    "empty 2-d": np.zeros((2, 0), np.float32),
    "empty leading": np.zeros((0, 3), np.float32),
}

#: Functions whose arguments are not one or two copies of the input: name -> arguments.
CALLS = {
    "linspace": lambda x: (0.0, 1.0, 0),
    "permute_dims": lambda x: (x, tuple(reversed(range(np.ndim(x))))),
    "transpose": lambda x: (x,),
    "where": lambda x: (x > 0, x, x),
    "roll": lambda x: (x, 1),
    "take": lambda x: (x, np.zeros((0,), np.int32)),
    "take_along_axis": lambda x: (x, np.zeros(np.shape(x), np.int32), -1) if np.ndim(x) else None,
    "full_like": lambda x: (x, 2.0),
    "reshape": lambda x: (x, np.shape(x)[::-1]),
    "broadcast_to": lambda x: (x, (3, *np.shape(x))),
    "pad": lambda x: (x, 1),
    "repeat": lambda x: (x, 2),
    "tile": lambda x: (x, 2),
    "expand_dims": lambda x: (x, 0),
    "clip": lambda x: (x, 0.0, 1.0),
    "searchsorted": lambda x: (x, x) if np.ndim(x) == 1 else None,
    "astype": lambda x: (x, np.float64),
    "full": lambda x: (np.shape(x), 1.5),
    "zeros": lambda x: (np.shape(x),),
    "ones": lambda x: (np.shape(x),),
    "eye": lambda x: (np.size(x),),
    "arange": lambda x: (0.0, float(np.size(x))),
    "einsum": lambda x: ("...,...->...", x, x),
    "tensordot": lambda x: (x, x, np.ndim(x)),
    "moveaxis": lambda x: (x, 0, -1) if np.ndim(x) else None,
    "swapaxes": lambda x: (x, 0, -1) if np.ndim(x) else None,
    "stack": lambda x: ([x, x],),
    "concatenate": lambda x: ([x, x],) if np.ndim(x) else None,
    "concat": lambda x: ([x, x],) if np.ndim(x) else None,
    "unstack": lambda x: (x,) if np.ndim(x) else None,
    "split": lambda x: (x, 1) if np.ndim(x) else None,  # NumPy: an IndexError for 0-d
    "array_split": lambda x: (x, 2) if np.ndim(x) else None,
    "hsplit": lambda x: (x, 1),
    "vsplit": lambda x: (x, 1),
    "dsplit": lambda x: (x, 1),
    "vstack": lambda x: ([x, x],),
    "row_stack": lambda x: ([x, x],),
    "hstack": lambda x: ([x, x],),
    "dstack": lambda x: ([x, x],),
    "column_stack": lambda x: ([x, x],),
}

#: Not compared: no NumPy counterpart of the same meaning, or values that are not data.
SKIP = {
    "asarray": "a conversion, not a computation",
    "from_dlpack": "takes a DLPack producer",
    "load": "reads a file",
    "can_cast": "about dtypes", "result_type": "about dtypes", "isdtype": "about dtypes",
    "empty": "uninitialized values", "empty_like": "uninitialized values",
    "nonzero": "data-dependent shape: refused in s4tf by design (docs/numpy-names.md)",
    "unique_all": "data-dependent shape", "unique_counts": "data-dependent shape",
    "unique_inverse": "data-dependent shape", "unique_values": "data-dependent shape",
    "argsort": "NumPy flattens a 0-d input; s4tf, as the Array API, sorts along an axis (a ShapeError)",
    "select": "s4tf.select is lax.select (where's other name), not NumPy's select of lists",
}

NAMES = sorted(
    n for n in s4tf.__all__
    if callable(getattr(s4tf, n, None)) and hasattr(np, n) and not isinstance(getattr(np, n), type) and n not in SKIP
)


def _arguments(name, x):
    """The arguments both functions are called with, or ``None`` where NumPy refuses them."""
    if name in CALLS:
        return CALLS[name](x)
    for count in (1, 2):
        try:
            _numpy(name, [x] * count)
        except (TypeError, ValueError):  # NumPy's refusals, AxisError included
            continue
        return (x,) * count
    return None


def _numpy(name, arguments):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(np, name)(*arguments)


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_every_function_takes_0d_and_empty_inputs_as_numpy_does(kind):
    x = INPUTS[kind]
    expected, results, refused = {}, {}, []
    with s4tf.lazy():
        for name in NAMES:
            arguments = _arguments(name, x)
            if arguments is None:
                continue
            try:
                expected[name] = _numpy(name, arguments)
            except (TypeError, ValueError):  # NumPy refuses: s4tf must refuse too, with its own error
                with pytest.raises(s4tf.S4tfError):
                    getattr(s4tf, name)(*arguments)
                refused.append(name)
                continue
            results[name] = getattr(s4tf, name)(*arguments)
        s4tf.barrier()
    assert len(results) > 100, sorted(results)
    for name, want in expected.items():
        got = results[name]
        pairs = zip(got, want) if isinstance(want, (tuple, list)) else [(got, want)]
        for g, w in pairs:
            g = np.asarray(g)
            assert g.shape == np.shape(w), f"{name} of {kind}: shape {g.shape}, NumPy's {np.shape(w)}"
            np.testing.assert_allclose(g.astype(np.float64), np.asarray(w, np.float64), rtol=1e-6, atol=1e-6,
                                       equal_nan=True, err_msg=f"{name} of {kind}")
