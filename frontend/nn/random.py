"""Random numbers inside staged code from an explicit key (no hidden state).

``uniform(key, shape)`` hashes each element's index with the key (the classic
``fract(sin(n) * 43758.5453)`` hash): the same key gives the same numbers, a new key new
ones. Good enough for dropout masks; not for statistics or cryptography.
"""

from __future__ import annotations

import numpy as np

from s4tf import numpy_api as snp


def uniform(key, shape) -> object:
    """Numbers in ``[0, 1)`` of ``shape`` (float32) from ``key`` (an int or int/float scalar tensor)."""
    size = int(np.prod(shape))
    index = snp.astype(snp.iota((size,), dtype=np.int32), np.float32)
    key = snp.astype(snp.asarray(key), np.float32)
    phase = snp.sin(index * 12.9898 + (key + 1.0) * 78.233) * 43758.5453
    return snp.reshape(snp.stop_gradient(phase - snp.floor(phase)), tuple(shape))
