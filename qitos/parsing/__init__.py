"""Parsers from model text to Decision (JSON and ReAct style)."""
