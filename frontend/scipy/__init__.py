"""``s4tf.scipy``: SciPy's names for what s4tf composes: ``s4tf.scipy.special``,
``s4tf.scipy.linalg`` and ``s4tf.scipy.stats``."""

from s4tf.scipy import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
