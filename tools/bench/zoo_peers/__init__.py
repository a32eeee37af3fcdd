"""The zoo's models written in JAX, step for step as in ``docs/examples/zoo/``: each module's
``jax_train_step(config)`` starts from the s4tf model's weights, so that losses compare."""
