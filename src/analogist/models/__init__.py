"""Model backends (LLMs and embedders) behind small interfaces; see :mod:`embedding`."""
