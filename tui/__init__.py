"""qitos-tui: a Textual app that runs or replays a QitOS Engine."""
