"""``s4tf.example_libraries``: ``jax.example_libraries``' ``stax`` (layers as
``(init_fun, apply_fun)`` pairs) and ``optimizers`` (``(opt_init, opt_update,
get_params)`` triples), so that programs written with them port by renames."""

from s4tf.example_libraries import optimizers, stax

__all__ = ["optimizers", "stax"]
