"""``s4tf.scipy``: SciPy's names for what s4tf composes: ``s4tf.scipy.special`` and
``s4tf.scipy.linalg``."""

from s4tf.scipy import linalg, special

__all__ = ["linalg", "special"]
