"""qitos.kit.tool."""
