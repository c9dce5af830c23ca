"""qitos.kit.tool.library."""
