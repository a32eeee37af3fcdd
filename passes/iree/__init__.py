"""Passes for IREE: rewrites of StableHLO that IREE 3.13 needs or runs faster (convolutions,
loops in one dispatch), buffer donation, export for deployment, what each target can run."""
