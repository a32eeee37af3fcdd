"""Staging: ``@s4tf.function``, tracing into the s4tf dialect, tensors, eager and first calls,
host calls, and the AutoGraph rewrite of Python control flow (:mod:`s4tf.staging.function.autograph`)."""
