"""Test-wide set-up: compiled modules go to a private cache, never the user's."""

import os
import tempfile

os.environ.setdefault("S4TF_CACHE_DIR", tempfile.mkdtemp(prefix="s4tf-test-cache-"))
