"""Lazy tensors: eager-style code recorded into traces that compile as one function."""
