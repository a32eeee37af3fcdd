"""Passes for IREE: rewrites of StableHLO that IREE needs or runs faster (convolutions,
loops in one dispatch), buffer donation, export for deployment, what each target can run.

IREE-3.13-WORKAROUND: the rewrites IREE 3.13 needs are tagged with this marker where they are made."""
