"""The Array API's named tuples of ``s4tf.linalg``'s results (pytrees: ``s4tf.function``
returns them as they are)."""

from __future__ import annotations

from typing import Any, NamedTuple


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class QRResult(NamedTuple):
    Q: Any  # noqa: N815  (the standard's field names)
    R: Any  # noqa: N815


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


class SVDResult(NamedTuple):
    U: Any  # noqa: N815
    S: Any  # noqa: N815
    Vh: Any  # noqa: N815
