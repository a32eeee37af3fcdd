"""Command-line tools: ``s4tf-opt`` and benchmarks."""
