"""Automatic differentiation as MLIR passes: JVP, linearization, transposition, VJP."""
