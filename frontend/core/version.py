"""The s4tf version: part of every compiled-module cache key."""

__version__ = "0.1.0"
