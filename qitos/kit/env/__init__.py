"""Ready-made environments."""
