"""qitos.kit.context."""
