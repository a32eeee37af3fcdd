"""The Python module MLIR's bindings look for when they wrap a ``stablehlo.*`` op (the
terminators of s4tf regions, the lowerings' output): the IREE wheel ships none, and a
failed import is retried for every op wrapped. See :mod:`s4tf.dialects.s4tf`.
"""
