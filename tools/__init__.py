"""Command-line tools: ``s4tf-opt``, ``s4tf-compile``, ``s4tf-run``, ``s4tf-train``,
``s4tf-params`` and ``s4tf-tune``, and the training steps and timing helpers that
``s4tf-tune`` shares with the benchmarks. (Benchmarks and probes are scripts in
``tools/bench/``, not installed.)"""
