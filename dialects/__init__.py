"""The ``s4tf`` tensor dialect: op definitions, types and attributes.

Importing this package defines every op (see :data:`OPS`).
"""

from s4tf.dialects import control_flow, cumulative, elementwise, host_ops, indexing_ops, linalg_ops, random_bits_ops, reductions, shape_ops, sorting_ops, tape  # noqa: F401  (define the ops)
from s4tf.dialects.op_def import OPS, Op, build, lookup, read_attributes, verify
from s4tf.dialects.types import TensorType

__all__ = ["OPS", "Op", "TensorType", "build", "lookup", "read_attributes", "verify"]
