"""AutoGraph: Python ``if``/``while``/``for`` on tensors rewritten into region ops."""
