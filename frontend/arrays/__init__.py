"""The NumPy and Array API functions of ``s4tf``: creation, elementwise math, indexing,
contractions, sorting, statistics."""
