"""The shared core every layer may use: the MLIR bindings, errors, source locations, the version."""
