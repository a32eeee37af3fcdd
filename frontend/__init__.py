"""s4tf: stage Python functions into an MLIR tensor dialect and run them with IREE."""
