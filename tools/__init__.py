"""Command-line tools: ``s4tf-opt``, ``s4tf-compile``, ``s4tf-run``, ``s4tf-train`` and
``s4tf-params``. (Benchmarks and probes are scripts in ``tools/bench/``, not installed.)"""
