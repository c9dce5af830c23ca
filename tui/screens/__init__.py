"""Screens of the qitos-tui app."""
