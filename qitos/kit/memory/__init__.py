"""qitos.kit.memory."""
