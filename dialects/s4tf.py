"""The Python module MLIR's bindings look for when they wrap an ``s4tf.*`` op.

The bindings import ``<prefix>.<dialect namespace>`` for every op they wrap until one
import succeeds, and a failed import is not remembered: without this (empty) module,
each ``value.owner`` of an ``s4tf`` op retried the import, 30x slower than with it.
:mod:`s4tf.core.mlir` adds ``s4tf.dialects`` to the bindings' search prefixes. The ops
themselves stay unregistered (generic form), as described in :mod:`s4tf.core.mlir`.
"""
