"""Compiling lowered modules with IREE, caching them on disk, and running them."""
