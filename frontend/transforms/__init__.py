"""Function transforms: ``grad``, ``jvp``, ``vjp``, ``vmap``, Jacobians, custom rules, ``remat``, ``scan``."""
