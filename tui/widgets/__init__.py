"""Reusable widgets of the qitos-tui app."""
